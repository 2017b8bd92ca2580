# SPDX-License-Identifier: GPL-2.0-or-later
# Each object's header dependencies (-MMD -MP writes them beside it, .d), and
# what keeps them true when a source moves.
#
# Objects are named by their source's file name alone (vpath finds it). When
# a source moves to another folder, the old build's .d still names its old
# path, and make, which takes a path a makefile names for one that exists,
# keeps the old object: the link then finds a function twice (it did when
# contract/ was made, in every cached build). So the build remembers which
# sources it was made from, and drops its objects when that list changes.
BUILT_FROM := $(sort $(wildcard $(SRC)/*.c $(A2A_SRC)/*.c $(GATE_SRC)/*.c $(CONTRACT)/*.c))
ifneq ($(BUILT_FROM),$(shell cat $(B)/built-from 2>/dev/null))
$(shell [ ! -d $(B) ] || find $(B) \( -name '*.o' -o -name '*.d' \) -delete; \
	mkdir -p $(B) && echo '$(BUILT_FROM)' > $(B)/built-from)
endif
-include $(wildcard $(B)/*/*.d)
