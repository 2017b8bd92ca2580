# SPDX-License-Identifier: GPL-2.0-or-later
# spank-ibnet: build, install, test, demo.
#
#   make            build the plugin, the rsocket gate and ibnet-hosts
#   make test       install missing packages, build, run every test
#   make test-matrix every test on this machine, then in each other test stack
#                   (devel/ibnet-stack: a cached Debian 13 root, Slurm 24.11)
#   make demo       install missing packages, build, start the test cluster, run a job
#   make fuzz       libFuzzer harnesses under ASan/UBSan (tests/fuzz), FUZZ_SECONDS each
#   make install    PREFIX=/usr/local DESTDIR= SLURM_PLUGIN_DIR=...  (enables nothing)
#   make deb        a Debian package (packaging/debian) in build/deb/, checked by lintian
#   make rpm        an RPM (packaging/rpm/spank-ibnet.spec) in build/rpm/

PREFIX           ?= /usr/local
LIBDIR           ?= $(PREFIX)/lib
BINDIR           ?= $(PREFIX)/bin
MANDIR           ?= $(PREFIX)/share/man
SLURM_PLUGIN_DIR ?= $(LIBDIR)/slurm
GATE_DIR         ?= $(LIBDIR)/spank-ibnet
# Lmod module, Lua library and Gaussian scripts, laid out as in the source tree.
DATADIR          ?= $(PREFIX)/share/spank-ibnet
DESTDIR          ?=

VERSION := $(shell cat VERSION)

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
ALL_CFLAGS = -std=gnu11 $(WARN) $(DEFS) $(CFLAGS) $(HARDEN)
ALL_LDFLAGS = $(HARDEN_LD) $(LDFLAGS)

B   = build
SRC = spank-ibnet
# The decision layer: no Slurm, shared by the plugin and ibnet-hosts.
# ibnet_a2a_settings lives in alltoall/: the paced library parses with it too.
CORE = ibnet_util ibnet_hostlist ibnet_rule ibnet_config ibnet_request ibnet_env ibnet_probe \
	ibnet_a2a_settings
CORE_PIC = $(CORE:%=$(B)/pic/%.o)
# What only ibnet-hosts needs (the site's plugstack.conf line, Gaussian
# inputs): not linked into the plugin.
TOOL_CORE = $(CORE) ibnet_site ibnet_gaussian
TOOL_OBJ = $(TOOL_CORE:%=$(B)/obj/%.o)
# The same as source files, for the one-command ASan and fuzz builds.
TOOL_SRC = $(filter-out $(SRC)/ibnet_a2a_settings.c,$(TOOL_CORE:%=$(SRC)/%.c)) \
	alltoall/ibnet_a2a_settings.c

PLUGIN = $(B)/spank_ibnet.so
GATE   = $(B)/libibnet-rsgate.so
TOOL   = $(B)/ibnet-hosts
# The paced all-to-all (alltoall/): a preload with no MPI in it, and the
# scheme built once per MPI ABI against that MPI's mpi.h only (no libmpi
# link: the program's own MPI provides the symbols).
A2A_SRC = alltoall
A2A = $(B)/libibnet-alltoall.so $(B)/libibnet-a2a-ompi.so $(B)/libibnet-a2a-mpich.so
OMPI_CFLAGS  ?= $(shell pkg-config --cflags ompi-c)
MPICH_CFLAGS ?= $(shell pkg-config --cflags mpich)
A2A_CFLAGS = $(ALL_CFLAGS) -fPIC -fvisibility=hidden -I$(A2A_SRC)

.PHONY: deb rpm dist FORCE fuzz fuzz-build bench bench-programs all install uninstall test test-matrix unit-test cluster-test demo deps asan programs clean
all: $(PLUGIN) $(GATE) $(TOOL) $(A2A)

# The gate's install path is compiled in: rebuild what uses it when it changes
# (make PREFIX=/usr/local, then make install PREFIX=/usr).
GATE_STAMP = $(B)/gate-path
$(GATE_STAMP): FORCE | $(B)/pic
	@echo '$(GATE_DIR)' | cmp -s - $@ || echo '$(GATE_DIR)' > $@
$(B)/pic/ibnet_config.o $(B)/obj/ibnet_config.o: $(GATE_STAMP)
$(B)/pic/spank_ibnet.o $(B)/obj/ibnet_hosts.o: VERSION
FORCE:

$(B)/pic/%.o: $(SRC)/%.c $(wildcard $(SRC)/*.h) alltoall/ibnet_a2a_settings.h | $(B)/pic
	$(CC) $(ALL_CFLAGS) -fPIC -c -o $@ $<
$(B)/obj/%.o: $(SRC)/%.c $(wildcard $(SRC)/*.h) alltoall/ibnet_a2a_settings.h | $(B)/obj
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(B)/pic/%.o: alltoall/%.c alltoall/%.h | $(B)/pic
	$(CC) $(ALL_CFLAGS) -fPIC -c -o $@ $<
$(B)/obj/%.o: alltoall/%.c alltoall/%.h | $(B)/obj
	$(CC) $(ALL_CFLAGS) -c -o $@ $<
$(B)/pic $(B)/obj:
	mkdir -p $@

# Slurm's symbols (slurm_error, spank_*) come from the process loading us;
# the version script exports only what Slurm looks up.
$(PLUGIN): $(B)/pic/spank_ibnet.o $(CORE_PIC) $(SRC)/spank_ibnet.map
	$(CC) -shared $(ALL_LDFLAGS) -Wl,--version-script=$(SRC)/spank_ibnet.map \
	    -o $@ $(filter %.o,$^)
$(GATE): $(SRC)/rsocket_gate.c $(SRC)/rspreload_calls.h | $(B)/pic
	$(CC) $(ALL_CFLAGS) -fPIC -shared $(ALL_LDFLAGS) -o $@ $< -ldl
$(TOOL): $(B)/obj/ibnet_hosts.o $(TOOL_OBJ)
	$(CC) $(ALL_LDFLAGS) -o $@ $^

# The job's preload: the MPI dispatcher and the TCP retransmission floor.
A2A_PRELOAD = $(A2A_SRC)/ibnet_a2a_dispatch.c $(A2A_SRC)/ibnet_tcp_floor.c \
	$(A2A_SRC)/ibnet_a2a_settings.c $(A2A_SRC)/ibnet_a2a_settings.h
$(B)/libibnet-alltoall.so: $(A2A_PRELOAD) | $(B)/pic
	$(CC) $(A2A_CFLAGS) -shared $(ALL_LDFLAGS) -o $@ $(filter %.c,$^) -ldl -lpthread
A2A_PACED = $(A2A_SRC)/ibnet_a2a_paced.c $(A2A_SRC)/ibnet_a2a_settings.c $(A2A_SRC)/ibnet_a2a_settings.h
$(B)/libibnet-a2a-ompi.so: $(A2A_PACED) | $(B)/pic
	$(CC) $(A2A_CFLAGS) $(OMPI_CFLAGS) -shared $(ALL_LDFLAGS) -o $@ $(filter %.c,$^) -ldl -lpthread
$(B)/libibnet-a2a-mpich.so: $(A2A_PACED) | $(B)/pic
	$(CC) $(A2A_CFLAGS) $(MPICH_CFLAGS) -shared $(ALL_LDFLAGS) -o $@ $(filter %.c,$^) -ldl -lpthread

# The C unit layer under AddressSanitizer/UBSan, for the memory tests.
asan: $(B)/asan/ibnet-hosts
$(B)/asan/ibnet-hosts: $(SRC)/ibnet_hosts.c $(TOOL_SRC) $(wildcard $(SRC)/*.h)
	mkdir -p $(B)/asan
	$(CC) -std=gnu11 $(WARN) $(DEFS) -O1 -g -fsanitize=address,undefined \
	    -fno-omit-frame-pointer -o $@ $(SRC)/ibnet_hosts.c $(TOOL_SRC)

# libFuzzer harnesses (tests/fuzz), under ASan and UBSan; needs clang.
#   make fuzz                  every harness for FUZZ_SECONDS (default 30) each
#   make fuzz FUZZ_RUNS=1000000  every harness for that many inputs each
# tests/fuzz/run says what it does with the corpora and findings.
FUZZERS = config rule hostlist wdef env linda
FUZZ_SECONDS ?= 30
FUZZ_CC ?= clang
FUZZ_FLAGS = -std=gnu11 $(WARN) $(DEFS) -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I$(SRC)
fuzz-build: $(FUZZERS:%=$(B)/fuzz/fuzz_%)
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(TOOL_SRC) $(wildcard $(SRC)/*.h)
	mkdir -p $(B)/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(TOOL_SRC)
fuzz: fuzz-build
	tests/fuzz/run $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS),--seconds $(FUZZ_SECONDS))

# The paced scheme's test builds (-DIBNET_A2A_TESTING: the SLURM_IBNET_ALLTOALL_TEST_*
# variables), never installed, with a copy of the dispatcher beside them: it
# loads the scheme from its own directory.
A2A_TEST = $(B)/tests/libibnet-alltoall.so $(B)/tests/libibnet-a2a-ompi.so \
	$(B)/tests/libibnet-a2a-mpich.so
$(B)/tests/libibnet-alltoall.so: $(B)/libibnet-alltoall.so
	mkdir -p $(B)/tests
	cp $< $@
$(B)/tests/libibnet-a2a-ompi.so: $(A2A_PACED)
	mkdir -p $(B)/tests
	$(CC) $(A2A_CFLAGS) -DIBNET_A2A_TESTING $(OMPI_CFLAGS) -shared $(ALL_LDFLAGS) -o $@ \
	    $(filter %.c,$^) -ldl -lpthread
$(B)/tests/libibnet-a2a-mpich.so: $(A2A_PACED)
	mkdir -p $(B)/tests
	$(CC) $(A2A_CFLAGS) -DIBNET_A2A_TESTING $(MPICH_CFLAGS) -shared $(ALL_LDFLAGS) -o $@ \
	    $(filter %.c,$^) -ldl -lpthread

# Small MPI programs the integration tests run, one build per MPI library.
programs: $(B)/tests/alltoall_probe.openmpi $(B)/tests/alltoall_probe.mpich \
	$(B)/tests/linda_standin $(B)/tests/a2a_check.openmpi $(B)/tests/a2a_check.mpich \
	$(B)/tests/a2a_fortran.openmpi $(B)/tests/a2a_fortran.mpich $(B)/tests/libhide-rto-min.so \
	$(B)/tests/a2a_hazard.openmpi $(B)/tests/a2a_hazard.mpich $(A2A_TEST)
$(B)/tests/alltoall_probe.%: tests/programs/alltoall_probe.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
$(B)/tests/a2a_check.%: tests/programs/a2a_check.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
$(B)/tests/a2a_hazard.%: tests/programs/a2a_hazard.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
# MPICH's "use mpi" declares no interfaces: gfortran warns of the mixed
# argument ranks MPI_IN_PLACE brings (-w); Open MPI's ignores them.
$(B)/tests/a2a_fortran.%: tests/programs/a2a_fortran.f90
	mkdir -p $(B)/tests
	mpif90.$* -O2 -w -J $(B)/tests -o $@ $<
# A kernel without TCP_RTO_MIN_US, for the floor's fallback tests.
$(B)/tests/libhide-rto-min.so: tests/programs/hide_rto_min.c
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) -O2 -fPIC -shared -o $@ $< -ldl
$(B)/tests/linda_standin: tests/programs/linda_standin.c
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) -O2 -o $@ $<

# The benchmark's workloads (devel/bench): Open MPI programs and a socket farm.
bench-programs: $(B)/bench/a2a_bench $(B)/bench/pingpong $(B)/bench/linda_farm.exel
$(B)/bench/a2a_bench $(B)/bench/pingpong: $(B)/bench/%: devel/bench/%.c
	mkdir -p $(B)/bench
	mpicc.openmpi -O2 -Wall -Wextra -Werror -o $@ $<
$(B)/bench/linda_farm.exel: devel/bench/linda_farm.c
	mkdir -p $(B)/bench
	$(CC) -std=gnu11 $(WARN) -O2 -o $@ $< -lpthread

install: all
	install -d $(DESTDIR)$(SLURM_PLUGIN_DIR) $(DESTDIR)$(GATE_DIR) $(DESTDIR)$(BINDIR) \
	    $(DESTDIR)$(MANDIR)/man8 $(DESTDIR)$(MANDIR)/man1
	install -m 0755 $(PLUGIN) $(DESTDIR)$(SLURM_PLUGIN_DIR)/spank_ibnet.so
	install -m 0755 $(GATE) $(DESTDIR)$(GATE_DIR)/libibnet-rsgate.so
	install -m 0755 $(A2A) $(DESTDIR)$(GATE_DIR)/
	install -m 0755 $(TOOL) $(DESTDIR)$(BINDIR)/ibnet-hosts
	install -m 0644 docs/spank-ibnet.8 docs/gaussian-ib-setup.8 $(DESTDIR)$(MANDIR)/man8/
	install -m 0644 docs/ibnet-hosts.1 docs/gaussian-ib-input.1 $(DESTDIR)$(MANDIR)/man1/
	install -d $(DESTDIR)$(DATADIR)/lmod-modules/gaussian-ib $(DESTDIR)$(DATADIR)/scripts/gaussian-ib-bin
	# The module knows where it was installed, so a site can copy it elsewhere.
	for m in lmod-modules/gaussian-ib/*.lua; do \
	    sed -e 's|@DATADIR@|$(DATADIR)|' $$m > $(DESTDIR)$(DATADIR)/$$m && \
	    chmod 0644 $(DESTDIR)$(DATADIR)/$$m || exit 1; done
	install -m 0755 scripts/gaussian-ib-setup scripts/gaussian-ib-input \
	    scripts/linda-rsockets scripts/linda-srun $(DESTDIR)$(DATADIR)/scripts/
	install -m 0755 scripts/gaussian-ib-bin/g16 $(DESTDIR)$(DATADIR)/scripts/gaussian-ib-bin/
	ln -sf g16 $(DESTDIR)$(DATADIR)/scripts/gaussian-ib-bin/g09
	ln -sf $(DATADIR)/scripts/gaussian-ib-setup $(DESTDIR)$(BINDIR)/gaussian-ib-setup
	ln -sf $(DATADIR)/scripts/gaussian-ib-input $(DESTDIR)$(BINDIR)/gaussian-ib-input
	# The example is data, not configuration: installing enables nothing.
	sed -e 's|@SLURM_PLUGIN_DIR@|$(SLURM_PLUGIN_DIR)|' -e 's|@DATADIR@|$(DATADIR)|' \
	    docs/examples/ibnet.conf > $(DESTDIR)$(DATADIR)/ibnet.conf
	chmod 0644 $(DESTDIR)$(DATADIR)/ibnet.conf
	install -d $(DESTDIR)$(DATADIR)/examples
	install -m 0644 docs/examples/job_submit.lua $(DESTDIR)$(DATADIR)/examples/job_submit.lua

uninstall:
	rm -f $(A2A:$(B)/%=$(DESTDIR)$(GATE_DIR)/%)
	rm -f $(DESTDIR)$(SLURM_PLUGIN_DIR)/spank_ibnet.so $(DESTDIR)$(GATE_DIR)/libibnet-rsgate.so \
	    $(DESTDIR)$(BINDIR)/ibnet-hosts $(DESTDIR)$(MANDIR)/man8/spank-ibnet.8 \
	    $(DESTDIR)$(MANDIR)/man8/gaussian-ib-setup.8 $(DESTDIR)$(MANDIR)/man1/ibnet-hosts.1 \
	    $(DESTDIR)$(MANDIR)/man1/gaussian-ib-input.1 \
	    $(DESTDIR)$(BINDIR)/gaussian-ib-setup $(DESTDIR)$(BINDIR)/gaussian-ib-input
	rm -rf $(DESTDIR)$(DATADIR)

# The source as it is in the work tree (tracked and new files, not ignored ones),
# for the package builds.
DIST = $(B)/dist/spank-ibnet-$(VERSION)
dist:
	rm -rf $(B)/dist && mkdir -p $(DIST)
	git ls-files -z --cached --others --exclude-standard | \
	    xargs -0 sh -c 'for f; do [ -e "$$f" ] && printf "%s\0" "$$f"; done' sh | \
	    tar --null -T - -cf - | tar -xf - -C $(DIST)
	tar -C $(B)/dist -czf $(B)/dist/spank-ibnet-$(VERSION).tar.gz spank-ibnet-$(VERSION)

# Debian: packaging/debian becomes the tree's debian/; dpkg-buildpackage writes
# the .deb beside the tree, in build/deb/. lintian's errors fail the target.
deb: dist
	rm -rf $(B)/deb && mkdir -p $(B)/deb
	cp -a $(DIST) $(B)/deb/ && cp -a packaging/debian $(B)/deb/spank-ibnet-$(VERSION)/debian
	cd $(B)/deb/spank-ibnet-$(VERSION) && dpkg-buildpackage -us -uc -b
	lintian --fail-on error --info $(B)/deb/spank-ibnet_$(VERSION)_*.changes

# RPM, with RHEL's paths. --nodeps: this Debian machine's rpm database does not
# hold slurm-devel (BuildRequires); the Slurm headers come from libslurm-dev.
RPM_TOP = $(CURDIR)/$(B)/rpm
rpm: dist
	rm -rf $(RPM_TOP) && mkdir -p $(RPM_TOP)/SOURCES
	cp $(B)/dist/spank-ibnet-$(VERSION).tar.gz $(RPM_TOP)/SOURCES/
	rpmbuild -bb --nodeps --define '_topdir $(RPM_TOP)' --define 'version_from_tree $(VERSION)' \
	    packaging/rpm/spank-ibnet.spec

deps:
	devel/install-deps

unit-test: all asan programs bench-programs fuzz-build
	bats --tap tests/unit

cluster-test: all programs bench-programs
	bats --tap tests/cluster

# Every test: unit layer first, then real jobs on the test cluster.
test: deps
	$(MAKE) all asan programs bench-programs fuzz-build
	bats --tap tests/unit tests/cluster

# Every test on every stack, one after the other (their test clusters use the
# same names and ports); each stack's failures are reported, and any fails it.
test-matrix:
	status=0; $(MAKE) test || status=1; \
	for s in $$(devel/ibnet-stack list); do devel/ibnet-stack test $$s || status=1; done; \
	exit $$status

# The benchmark (docs/benchmarks.md); QUICK=1: a short smoke run in build/.
bench:
	devel/install-deps $(if $(QUICK),,--bench)
	$(MAKE) all bench-programs
	devel/ibnet-bench $(if $(QUICK),--quick)

demo: deps
	$(MAKE) all
	devel/demo

clean:
	rm -rf $(B)
