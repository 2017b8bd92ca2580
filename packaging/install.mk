# SPDX-License-Identifier: GPL-2.0-or-later
# Where the product is installed, and the one list of what is (included by
# the Makefile): install, uninstall, install-list and the RPM's %files
# (rpm-files) all read INSTALL_LIST; the Debian package takes what install
# puts in its DESTDIR. GATE_DIR is also compiled into the plugin and
# ibnet-hosts (the Makefile's DEFS): they look for the job's libraries there.

.PHONY: install uninstall install-list rpm-files

PREFIX           ?= /usr/local
LIBDIR           ?= $(PREFIX)/lib
BINDIR           ?= $(PREFIX)/bin
MANDIR           ?= $(PREFIX)/share/man
SLURM_PLUGIN_DIR ?= $(LIBDIR)/slurm
GATE_DIR         ?= $(LIBDIR)/spank-ibnet
# The Lmod module, the Lua module for job_submit.lua, the Gaussian scripts
# and the example configuration, laid out as in the source tree.
DATADIR          ?= $(PREFIX)/share/spank-ibnet
DESTDIR          ?=

# The install list separates its fields with ':' and the shell splits on
# blanks: a directory holding either is refused, not half-installed.
$(foreach d,PREFIX LIBDIR BINDIR MANDIR SLURM_PLUGIN_DIR GATE_DIR DATADIR DESTDIR,\
  $(if $(findstring :,$($(d)))$(word 2,$($(d))),$(error $(d)=$($(d)): a directory with ':' or a blank cannot be installed to)))

# What is installed: one entry per file, MODE:SOURCE:DESTINATION, for
# install, uninstall and both packages (the RPM's %files is printed from it
# by 'make rpm-files'; the Debian package takes what install puts in DESTDIR).
# MODE "sed": 0644, with @DATADIR@ and @SLURM_PLUGIN_DIR@ replaced (the
# module and the examples know where they were installed). MODE "link":
# SOURCE is the symlink's target.
INSTALL_LIST = \
	0755:$(PLUGIN):$(SLURM_PLUGIN_DIR)/spank_ibnet.so \
	0755:$(GATE):$(GATE_DIR)/libibnet-rsgate.so \
	$(foreach l,$(PRELOAD) $(A2A_LIBS),0755:$(l):$(GATE_DIR)/$(notdir $(l))) \
	$(foreach o,$(BPF_OBJ),0644:$(o):$(GATE_DIR)/$(notdir $(o))) \
	0755:$(TOOL):$(BINDIR)/ibnet-hosts \
	$(foreach m,ibnet-hosts.1 gaussian-ib-input.1 spank-ibnet.8 gaussian-ib-setup.8,0644:docs/$(m):$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(m)) \
	$(foreach m,$(wildcard lmod-modules/gaussian-ib/*.lua),sed:$(m):$(DATADIR)/$(m)) \
	$(foreach m,$(wildcard lua/*/*.lua),0644:$(m):$(DATADIR)/$(m)) \
	$(foreach s,gaussian-ib-setup gaussian-ib-input linda-rsockets linda-srun,0755:scripts/$(s):$(DATADIR)/scripts/$(s)) \
	0644:scripts/ibnet-hosts-find.sh:$(DATADIR)/scripts/ibnet-hosts-find.sh \
	0755:scripts/gaussian-ib-bin/g16:$(DATADIR)/scripts/gaussian-ib-bin/g16 \
	link:g16:$(DATADIR)/scripts/gaussian-ib-bin/g09 \
	link:$(DATADIR)/scripts/gaussian-ib-setup:$(BINDIR)/gaussian-ib-setup \
	link:$(DATADIR)/scripts/gaussian-ib-input:$(BINDIR)/gaussian-ib-input \
	sed:docs/examples/ibnet.conf:$(DATADIR)/ibnet.conf \
	sed:docs/examples/job_submit.lua:$(DATADIR)/examples/job_submit.lua
SUBST = sed -e 's|@SLURM_PLUGIN_DIR@|$(SLURM_PLUGIN_DIR)|g' -e 's|@DATADIR@|$(DATADIR)|g'

install: all
	@set -e; for e in $(INSTALL_LIST); do \
	    mode=$${e%%:*}; rest=$${e#*:}; src=$${rest%%:*}; dst='$(DESTDIR)'$${rest#*:}; \
	    install -d "$${dst%/*}"; \
	    case $$mode in \
	    link) ln -sfn "$$src" "$$dst" ;; \
	    sed) $(SUBST) "$$src" > "$$dst"; chmod 0644 "$$dst" ;; \
	    *) install -m "$$mode" "$$src" "$$dst" ;; \
	    esac; echo "installed $$dst"; done

# The listed files (both MPIs' paced builds, whichever this make would build,
# and any version's Lmod module), then the directories the list made, deepest
# first, where they are empty; a shared one (bin, man1, Slurm's plugins) is
# never among them.
INSTALLED_DIRS = $(sort $(patsubst %/,%,$(dir $(filter $(DATADIR)/%,$(foreach e,$(INSTALL_LIST),$(lastword $(subst :, ,$(e))))))))
# Shell: those directories and each one above them up to DATADIR, once each, deepest first.
DATADIR_TREE = for d in $(INSTALLED_DIRS); do while :; do echo "$$d"; \
	    [ "$$d" = '$(DATADIR)' ] && break; d=$${d%/*}; done; done | sort -ru
uninstall:
	@for e in $(INSTALL_LIST) x:x:$(GATE_DIR)/libibnet-a2a-ompi.so x:x:$(GATE_DIR)/libibnet-a2a-mpich.so \
	    x:x:$(GATE_DIR)/ibnet_tcp_floor.bpf.o; do \
	    rm -f '$(DESTDIR)'"$${e##*:}"; done
	@rm -f '$(DESTDIR)$(DATADIR)'/lmod-modules/gaussian-ib/*.lua
	@for d in $$($(DATADIR_TREE)) '$(GATE_DIR)'; do rmdir '$(DESTDIR)'"$$d" 2>/dev/null || true; done

# The installed paths, one per line.
install-list:
	@for e in $(INSTALL_LIST); do echo "$${e##*:}"; done

# The RPM's %files: each file (man pages as rpm compresses them) and our own directories.
rpm-files:
	@for e in $(INSTALL_LIST); do f=$${e##*:}; \
	    case $$f in '$(MANDIR)'/*) echo "$$f*" ;; *) echo "$$f" ;; esac; done
	@echo '%dir $(GATE_DIR)'
	@for d in $$($(DATADIR_TREE)); do echo "%dir $$d"; done
