# SPDX-License-Identifier: GPL-2.0-or-later
# spank-ibnet: build, install, test, demo.
#
#   make            build the plugin, the rsocket gate, ibnet-hosts and the job
#                   preload; the paced all-to-all for each MPI whose development
#                   files are here (WITH_OMPI=no, WITH_MPICH=no leave one out)
#   make test       install missing packages, build, run every test
#   make test-matrix every test on this machine, then in each other test stack
#                   (devel/ibnet-stack: a cached Debian 13 root, Slurm 24.11)
#   make demo       install missing packages, build, start the test cluster, run a job
#   make fuzz       libFuzzer harnesses under ASan/UBSan (tests/fuzz), FUZZ_SECONDS each
#   make install    PREFIX=/usr/local DESTDIR= SLURM_PLUGIN_DIR=...  (enables nothing)
#   make uninstall  the same variables: removes exactly what install put there
#   make deb        a Debian package (packaging/debian) in build/deb/, checked by lintian
#   make rpm        an RPM (packaging/rpm/spank-ibnet.spec) in build/rpm/
#
# The packages are built by packaging/build.mk; the test, fuzz and bench
# builds are in tests/build.mk and devel/bench/build.mk.

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

VERSION := $(shell cat VERSION)

# The install list separates its fields with ':' and the shell splits on
# blanks: a directory holding either is refused, not half-installed.
$(foreach d,PREFIX LIBDIR BINDIR MANDIR SLURM_PLUGIN_DIR GATE_DIR DATADIR DESTDIR,\
  $(if $(findstring :,$($(d)))$(word 2,$($(d))),$(error $(d)=$($(d)): a directory with ':' or a blank cannot be installed to)))

CC      ?= cc
CFLAGS  ?= -O2 -g
LDFLAGS ?=
WARN     = -Wall -Wextra -Werror
DEFS     = -D_GNU_SOURCE -DIBNET_VERSION='"$(VERSION)"' \
	   -DIBNET_RSGATE_DEFAULT='"$(GATE_DIR)/libibnet-rsgate.so"' \
	   -DIBNET_A2A_DEFAULT='"$(GATE_DIR)/libibnet-alltoall.so"'
# Hardening, as distributions build: stack protector, fortified libc calls,
# full RELRO and immediate binding (the GOT is read-only once loaded).
HARDEN   = -fstack-protector-strong -D_FORTIFY_SOURCE=2
HARDEN_LD = -Wl,-z,relro,-z,now
# -MMD -MP: each object's header dependencies, written beside it (.d).
ALL_CFLAGS = -std=gnu11 $(WARN) $(DEFS) $(CFLAGS) $(HARDEN) -MMD -MP
ALL_LDFLAGS = $(HARDEN_LD) $(LDFLAGS)

B   = build
SRC = spank-ibnet
A2A_SRC = alltoall
vpath %.c $(SRC) $(A2A_SRC)

# The decision layer: no Slurm, shared by the plugin and ibnet-hosts
# (docs/architecture.md says which decision each file holds).
# ibnet_a2a_settings lives in alltoall/: the job's libraries read its table too.
CORE = ibnet_util ibnet_hostlist ibnet_rule ibnet_config ibnet_request ibnet_probe \
	ibnet_planner ibnet_env ibnet_env_mpi ibnet_env_preload ibnet_env_alltoall \
	ibnet_gaussian ibnet_step ibnet_a2a_settings ibnet_tally
# What only ibnet-hosts needs: the site's plugstack.conf line.
TOOL_ONLY = ibnet_site

PLUGIN = $(B)/spank_ibnet.so
GATE   = $(B)/libibnet-rsgate.so
TOOL   = $(B)/ibnet-hosts
# The job's preload (alltoall/): the MPI dispatcher and the TCP retransmission
# floor, with no MPI in it; and the paced scheme, built once per MPI ABI
# against that MPI's mpi.h only (no libmpi link: the program's own MPI
# provides the symbols).
PRELOAD = $(B)/libibnet-alltoall.so
OMPI_CFLAGS  ?= $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPICH_CFLAGS ?= $(shell pkg-config --cflags mpich 2>/dev/null)
# Built where the MPI's development files are: found by pkg-config, or
# given as OMPI_CFLAGS=/MPICH_CFLAGS= (RHEL keeps them under the MPI's prefix).
WITH_OMPI  ?= $(if $(filter command line environment,$(origin OMPI_CFLAGS))$(shell pkg-config --exists ompi-c 2>/dev/null && echo yes),yes,no)
WITH_MPICH ?= $(if $(filter command line environment,$(origin MPICH_CFLAGS))$(shell pkg-config --exists mpich 2>/dev/null && echo yes),yes,no)
# Decided once (pkg-config runs here, not at every use).
WITH_OMPI  := $(WITH_OMPI)
WITH_MPICH := $(WITH_MPICH)
A2A_ABIS = $(if $(filter yes,$(WITH_OMPI)),ompi) $(if $(filter yes,$(WITH_MPICH)),mpich)
A2A_LIBS = $(A2A_ABIS:%=$(B)/libibnet-a2a-%.so)
A2A_CFLAGS = $(ALL_CFLAGS) -fPIC -fvisibility=hidden -I$(A2A_SRC) -I$(SRC)

# Said once per make, on stderr (install-list's output stays a list), so a
# host without an MPI's development files knows what its jobs will not get
# (the dispatcher says it again at run time).
ifneq ($(WITH_OMPI),yes)
$(shell echo "spank-ibnet: not building libibnet-a2a-ompi.so ($(if $(filter command line,$(origin WITH_OMPI)),WITH_OMPI=$(WITH_OMPI),no Open MPI development files: pkg-config ompi-c, or OMPI_CFLAGS=)); Open MPI jobs get Open MPI's own all-to-all" >&2)
endif
ifneq ($(WITH_MPICH),yes)
$(shell echo "spank-ibnet: not building libibnet-a2a-mpich.so ($(if $(filter command line,$(origin WITH_MPICH)),WITH_MPICH=$(WITH_MPICH),no MPICH development files: pkg-config mpich, or MPICH_CFLAGS=)); MPICH-ABI jobs get their MPI's own all-to-all" >&2)
endif

.PHONY: all install uninstall install-list rpm-files deps test test-matrix \
	unit-test cluster-test demo clean FORCE
all: $(PLUGIN) $(GATE) $(TOOL) $(PRELOAD) $(A2A_LIBS)

# Objects: pic/ for the plugin, obj/ for ibnet-hosts, a2a/ for the job's
# preload, a2a-ABI/ for the paced scheme of each MPI.
$(B)/pic/%.o: %.c | $(B)/pic
	$(CC) $(ALL_CFLAGS) -fPIC -c -o $@ $<
$(B)/obj/%.o: %.c | $(B)/obj
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(B)/a2a/%.o: %.c | $(B)/a2a
	$(CC) $(A2A_CFLAGS) -c -o $@ $<
$(B)/a2a-ompi/%.o: %.c | $(B)/a2a-ompi
	$(CC) $(A2A_CFLAGS) $(OMPI_CFLAGS) -c -o $@ $<
$(B)/a2a-mpich/%.o: %.c | $(B)/a2a-mpich
	$(CC) $(A2A_CFLAGS) $(MPICH_CFLAGS) -c -o $@ $<
$(B)/pic $(B)/obj $(B)/a2a $(B)/a2a-ompi $(B)/a2a-mpich:
	mkdir -p $@

# What -MMD cannot see: the compiled-in paths and the version.
GATE_STAMP = $(B)/gate-path
$(GATE_STAMP): FORCE | $(B)/pic
	@echo '$(GATE_DIR)' | cmp -s - $@ || echo '$(GATE_DIR)' > $@
$(B)/pic/ibnet_config.o $(B)/obj/ibnet_config.o $(B)/obj/ibnet_hosts.o: $(GATE_STAMP)
$(B)/pic/spank_ibnet.o $(B)/obj/ibnet_hosts.o: VERSION
FORCE:

# Slurm's symbols (slurm_error, spank_*) come from the process loading us;
# the version script exports only what Slurm looks up.
$(PLUGIN): $(B)/pic/spank_ibnet.o $(CORE:%=$(B)/pic/%.o) $(SRC)/spank_ibnet.map
	$(CC) -shared $(ALL_LDFLAGS) -Wl,--version-script=$(SRC)/spank_ibnet.map \
	    -o $@ $(filter %.o,$^)
$(GATE): $(B)/pic/rsocket_gate.o
	$(CC) -shared $(ALL_LDFLAGS) -o $@ $^ -ldl
$(TOOL): $(B)/obj/ibnet_hosts.o $(CORE:%=$(B)/obj/%.o) $(TOOL_ONLY:%=$(B)/obj/%.o)
	$(CC) $(ALL_LDFLAGS) -o $@ $^
$(PRELOAD): $(B)/a2a/ibnet_a2a_dispatch.o $(B)/a2a/ibnet_a2a_mpi.o $(B)/a2a/ibnet_a2a_agree.o $(B)/a2a/ibnet_tcp_floor.o $(B)/a2a/ibnet_a2a_settings.o
	$(CC) -shared $(ALL_LDFLAGS) -o $@ $^ -ldl -lpthread
# The paced scheme's parts (alltoall/ibnet_a2a_paced.h says what each decides),
# compiled once per MPI ABI.
A2A_PACED = ibnet_a2a_paced ibnet_a2a_route ibnet_a2a_layout ibnet_a2a_pack ibnet_a2a_exchange ibnet_a2a_nodes \
	ibnet_a2a_report ibnet_a2a_fortran ibnet_a2a_types ibnet_a2a_settings
$(B)/libibnet-a2a-ompi.so: $(addprefix $(B)/a2a-ompi/,$(A2A_PACED:=.o))
$(B)/libibnet-a2a-mpich.so: $(addprefix $(B)/a2a-mpich/,$(A2A_PACED:=.o))
$(B)/libibnet-a2a-%.so:
	$(CC) -shared $(ALL_LDFLAGS) -o $@ $^ -ldl -lpthread

-include $(wildcard $(B)/*/*.d)
# Objects are kept between builds, not removed as intermediates of a chain.
.SECONDARY:

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
	0755:$(TOOL):$(BINDIR)/ibnet-hosts \
	$(foreach m,ibnet-hosts.1 gaussian-ib-input.1 spank-ibnet.8 gaussian-ib-setup.8,0644:docs/$(m):$(MANDIR)/man$(subst .,,$(suffix $(m)))/$(m)) \
	$(foreach m,$(wildcard lmod-modules/gaussian-ib/*.lua),sed:$(m):$(DATADIR)/$(m)) \
	$(foreach m,$(wildcard lua/*/*.lua),0644:$(m):$(DATADIR)/$(m)) \
	$(foreach s,gaussian-ib-setup gaussian-ib-input linda-rsockets linda-srun,0755:scripts/$(s):$(DATADIR)/scripts/$(s)) \
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
	@for e in $(INSTALL_LIST) x:x:$(GATE_DIR)/libibnet-a2a-ompi.so x:x:$(GATE_DIR)/libibnet-a2a-mpich.so; do \
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

include packaging/build.mk

deps:
	devel/install-deps

include tests/build.mk
include devel/bench/build.mk

unit-test: all test-builds
	bats --tap tests/unit

cluster-test: all programs bench-programs
	bats --tap tests/cluster

# Every test: unit layer first, then real jobs on the test cluster.
test: deps
	$(MAKE) all test-builds
	bats --tap tests/unit tests/cluster

# Every test on every stack, one after the other (their test clusters use the
# same names and ports); each stack's failures are reported, and any fails it.
test-matrix:
	status=0; $(MAKE) test || status=1; \
	for s in $$(devel/ibnet-stack list); do devel/ibnet-stack test $$s || status=1; done; \
	exit $$status

demo: deps
	$(MAKE) all
	devel/demo

clean:
	rm -rf $(B)
