# SPDX-License-Identifier: GPL-2.0-or-later
# The test builds and the test targets (included by the Makefile): the C
# layer under ASan/UBSan, the libFuzzer harnesses, and the small programs the
# tests run. Nothing here is installed.

.PHONY: test-builds asan fuzz-build fuzz programs unit-test cluster-test test test-matrix
# Each part whose compiler is here (mk/optional.mk says once what is left
# out, and why); $(B)/tests/left-out records it for the tests (needs, in
# tests/helpers/common.bash).
test-builds: asan programs bench-programs $(if $(TEST_GAP_clang),,fuzz-build)
programs bench-programs fuzz-build: $(B)/tests/left-out
$(B)/tests/left-out: FORCE
	@mkdir -p $(@D) && : > $@ $(foreach p,$(TEST_LEFT_OUT),&& echo '$(p): $(TEST_GAP_$(p))' >> $@)
	$(if $(and $(filter 1,$(IBNET_REQUIRE_ALL)),$(TEST_LEFT_OUT)),@echo 'spank-ibnet: $(TEST_LEFT_OUT_SAID): CI=true or IBNET_REQUIRE_ALL=1 requires every part' >&2; exit 1)

# The test targets.
unit-test: all test-builds
	bats --tap --timing tests/unit

cluster-test: all programs bench-programs
	bats --tap --timing tests/cluster

# Every test: unit layer first, then real jobs on the test cluster.
test: deps
	$(MAKE) all test-builds
	bats --tap --timing tests/unit tests/cluster

# Every test on every stack, one after the other (their clusters could run side
# by side, each stack in namespaces of its own, as .ci/run does; one after the
# other is gentler on a 2-core machine); each stack's failures are reported,
# and any fails it.
test-matrix:
	status=0; $(MAKE) test || status=1; \
	for s in $$(devel/ibnet-stack list); do devel/ibnet-stack test $$s || status=1; done; \
	exit $$status

# The sources of ibnet-hosts, for the one-command ASan and fuzz builds.
TOOL_SRC = $(foreach f,$(CORE) $(TOOL_ONLY),$(firstword $(wildcard $(SRC)/$(f).c $(CONTRACT)/$(f).c)))

# The C unit layer under AddressSanitizer/UBSan, for the memory tests.
asan: $(B)/asan/ibnet-hosts
$(B)/asan/ibnet-hosts: $(SRC)/ibnet_hosts.c $(TOOL_SRC) $(wildcard $(SRC)/*.h $(CONTRACT)/*.h)
	mkdir -p $(B)/asan
	$(CC) -std=gnu11 $(WARN) $(DEFS) -I$(CONTRACT) -O1 -g -fsanitize=address,undefined \
	    -fno-omit-frame-pointer -o $@ $(SRC)/ibnet_hosts.c $(TOOL_SRC) $(CORE_LIBS)

# libFuzzer harnesses (tests/fuzz), under ASan and UBSan; needs clang.
#   make fuzz                  every harness for FUZZ_SECONDS (default 30) each
#   make fuzz FUZZ_RUNS=1000000  every harness for that many inputs each
# tests/fuzz/run says what it does with the corpora and findings.
FUZZERS = config rule hostlist wdef env linda
FUZZ_SECONDS ?= 30
FUZZ_FLAGS = -std=gnu11 $(WARN) $(DEFS) -g -O1 -fsanitize=fuzzer,address,undefined \
	-fno-sanitize-recover=undefined -I$(SRC) -I$(CONTRACT)
fuzz-build: $(FUZZERS:%=$(B)/fuzz/fuzz_%)
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(TOOL_SRC) $(wildcard $(SRC)/*.h $(CONTRACT)/*.h)
	mkdir -p $(B)/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(TOOL_SRC) $(CORE_LIBS)
fuzz: fuzz-build
	tests/fuzz/run $(if $(FUZZ_RUNS),--runs $(FUZZ_RUNS),--seconds $(FUZZ_SECONDS))

# The paced scheme's test builds (-DIBNET_A2A_TESTING: the
# SLURM_IBNET_ALLTOALL_TEST_* variables), never installed, with a copy of the
# dispatcher beside them: it loads the scheme from its own directory.
# (Defined before "programs:", whose prerequisites make expands as it reads.)
A2A_TEST = $(B)/tests/libibnet-alltoall.so $(A2A_ABIS:%=$(B)/tests/libibnet-a2a-%.so)
$(B)/tests/libibnet-alltoall.so: $(PRELOAD)
	mkdir -p $(B)/tests
	cp $< $@
$(B)/tests/libibnet-a2a-ompi.so: $(addprefix $(B)/a2a-ompi-test/,$(A2A_PACED:=.o))
$(B)/tests/libibnet-a2a-mpich.so: $(addprefix $(B)/a2a-mpich-test/,$(A2A_PACED:=.o))
$(B)/tests/libibnet-a2a-%.so:
	mkdir -p $(B)/tests
	$(CC) -shared $(ALL_LDFLAGS) -o $@ $^ -ldl -lpthread
$(B)/a2a-ompi-test/%.o: %.c
	mkdir -p $(@D)
	$(CC) $(A2A_CFLAGS) -DIBNET_A2A_TESTING $(OMPI_CFLAGS) -c -o $@ $<
$(B)/a2a-mpich-test/%.o: %.c
	mkdir -p $(@D)
	$(CC) $(A2A_CFLAGS) -DIBNET_A2A_TESTING $(MPICH_CFLAGS) -c -o $@ $<

# Small MPI programs the integration tests run, one build per MPI library.
# Each built for every MPI of TEST_MPIS (mk/optional.mk): NAME.openmpi, NAME.mpich.
programs: $(B)/tests/linda_standin $(B)/tests/libhide-rto-min.so $(A2A_TEST) \
	$(foreach p,alltoall_probe a2a_check a2a_fortran a2a_hazard a2a_f08 a2a_nonblocking,$(TEST_MPIS:%=$(B)/tests/$(p).%))
$(B)/tests/alltoall_probe.%: tests/programs/alltoall_probe.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
$(B)/tests/a2a_check.%: tests/programs/a2a_check.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
# MPI_Alltoall's time over sizes, Open MPI only (the paced scheme's fan-in and
# round trips, tests/unit/alltoall*.bats; the benchmark runs it too).
programs: $(if $(filter openmpi,$(TEST_MPIS)),$(B)/tests/a2a_bench)
$(B)/tests/a2a_bench: tests/programs/a2a_bench.c
	mkdir -p $(B)/tests
	mpicc.openmpi -O2 -Wall -Wextra -Werror -o $@ $<
# And with MPICH: the route by measurement's agreement (tests/unit/route-choice.bats).
programs: $(if $(filter mpich,$(TEST_MPIS)),$(B)/tests/a2a_bench.mpich)
$(B)/tests/a2a_bench.mpich: tests/programs/a2a_bench.c
	mkdir -p $(B)/tests
	mpicc.mpich -O2 -Wall -Wextra -Werror -o $@ $<
programs: $(TEST_MPIS:%=$(B)/tests/a2a_churn.%)
$(B)/tests/a2a_churn.%: tests/programs/a2a_churn.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
$(B)/tests/a2a_hazard.%: tests/programs/a2a_hazard.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
$(B)/tests/a2a_nonblocking.%: tests/programs/a2a_nonblocking.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
# Correctness (tests/unit/alltoall-correctness.bats): the datatype matrix.
programs: $(TEST_MPIS:%=$(B)/tests/a2a_types.%)
$(B)/tests/a2a_types.%: tests/programs/a2a_types.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
# Ranks that may route alike or not (MPMD), and sizes that disagree.
programs: $(TEST_MPIS:%=$(B)/tests/a2a_mpmd.%)
$(B)/tests/a2a_mpmd.%: tests/programs/a2a_mpmd.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
# An MPI loaded RTLD_LOCAL, as Python extensions are: a host with no libmpi
# (one for both MPIs) and a module linked to each MPI.
programs: $(B)/tests/dl_host $(TEST_MPIS:%=$(B)/tests/dl_module.%.so)
$(B)/tests/dl_host: tests/programs/dl_host.c
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) -O2 -o $@ $< -ldl
$(B)/tests/dl_module.%.so: tests/programs/dl_module.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -fPIC -shared -o $@ $<
# MPICH's "use mpi" declares no interfaces: gfortran warns of the mixed
# argument ranks MPI_IN_PLACE brings (-w); Open MPI's ignores them.
$(B)/tests/a2a_fortran.%: tests/programs/a2a_fortran.f90
	mkdir -p $(B)/tests
	mpif90.$* -O2 -w -J $(B)/tests -o $@ $<
programs: $(TEST_MPIS:%=$(B)/tests/a2a_types_f.%)
$(B)/tests/a2a_types_f.%: tests/programs/a2a_types_f.f90
	mkdir -p $(B)/tests
	mpif90.$* -O2 -w -J $(B)/tests -o $@ $<
# use mpi_f08 declares every interface: no warning to silence.
$(B)/tests/a2a_f08.%: tests/programs/a2a_f08.f90
	mkdir -p $(B)/tests
	mpif90.$* -O2 -Wall -Werror -J $(B)/tests -o $@ $<
# A kernel without TCP_RTO_MIN_US, for the floor's fallback tests.
$(B)/tests/libhide-rto-min.so: tests/programs/hide_rto_min.c
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) -O2 -fPIC -shared -o $@ $< -ldl
# A symbolic link swapped between the BPF loader's check and its open (tests/unit/tcp-floor-bpf.bats).
programs: $(if $(filter yes,$(WITH_BPF)),$(B)/tests/libswap-on-realpath.so)
$(B)/tests/libswap-on-realpath.so: tests/programs/swap_on_realpath.c
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) -O2 -fPIC -shared -o $@ $< -ldl
# A libbpf.so.1 that fails with error pointers, as libbpf 0.8 does (tests/unit/tcp-floor-bpf.bats).
programs: $(if $(filter yes,$(WITH_BPF)),$(B)/tests/fake-libbpf/libbpf.so.1)
$(B)/tests/fake-libbpf/libbpf.so.1: tests/programs/fake_libbpf.c
	mkdir -p $(B)/tests/fake-libbpf
	$(CC) -std=gnu11 $(WARN) -O2 -fPIC -shared -Wl,-soname,libbpf.so.1 -o $@ $<
# The BPF floor's rounding against the kernel's (tests/unit/tcp-floor.bats): no BPF, no MPI.
programs: $(B)/tests/floor_rule
$(B)/tests/floor_rule: tests/programs/floor_rule.c $(CONTRACT)/ibnet_tcp_floor_rule.h
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) -O2 -I$(CONTRACT) -o $@ tests/programs/floor_rule.c
# One line, one write (tests/unit/stderr-lines.bats): no MPI.
programs: $(B)/tests/say_line
$(B)/tests/say_line: tests/programs/say_line.c $(CONTRACT)/ibnet_say_line.c $(CONTRACT)/ibnet_say_line.h
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) $(DEFS) -O2 -I$(CONTRACT) -o $@ tests/programs/say_line.c \
	    $(CONTRACT)/ibnet_say_line.c
# The floor spread per socket, against the kernel's rounding (tests/unit/tcp-floor.bats).
programs: $(B)/tests/floor_spread
$(B)/tests/floor_spread: tests/programs/floor_spread.c $(CONTRACT)/ibnet_tcp_floor_rule.h
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) -O2 -I$(CONTRACT) -o $@ tests/programs/floor_spread.c
# The plugin's tally directory, made and collected as the plugin does (tests/unit/tally.bats).
programs: $(B)/tests/tally_dir
$(B)/tests/tally_dir: tests/programs/tally_dir.c $(SRC)/ibnet_tally.c $(SRC)/ibnet_tally.h \
	    $(CONTRACT)/ibnet_a2a_settings.h $(CONTRACT)/ibnet_a2a_settings.c
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) $(DEFS) -O2 -I$(SRC) -I$(CONTRACT) -o $@ tests/programs/tally_dir.c \
	    $(SRC)/ibnet_tally.c $(CONTRACT)/ibnet_a2a_settings.c
# The window's controller with a fake clock and port (tests/unit/window.bats): no MPI.
programs: $(B)/tests/window_ctl
$(B)/tests/window_ctl: tests/programs/window_ctl.c $(A2A_SRC)/ibnet_a2a_window.c \
	    $(A2A_SRC)/ibnet_a2a_window.h $(CONTRACT)/ibnet_a2a_settings.h $(CONTRACT)/ibnet_a2a_settings.c
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) $(DEFS) -O2 -I$(A2A_SRC) -I$(CONTRACT) -o $@ tests/programs/window_ctl.c \
	    $(A2A_SRC)/ibnet_a2a_window.c $(CONTRACT)/ibnet_a2a_settings.c
# The route by measurement with a fake clock and loss feed (tests/unit/route-choice.bats): no MPI.
programs: $(B)/tests/route_choice
$(B)/tests/route_choice: tests/programs/route_choice.c $(A2A_SRC)/ibnet_a2a_choice.c \
	    $(A2A_SRC)/ibnet_a2a_choice.h $(A2A_SRC)/ibnet_a2a_window.c $(A2A_SRC)/ibnet_a2a_window.h \
	    $(CONTRACT)/ibnet_a2a_settings.h $(CONTRACT)/ibnet_a2a_settings.c
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) $(DEFS) -O2 -I$(A2A_SRC) -I$(CONTRACT) -o $@ tests/programs/route_choice.c \
	    $(A2A_SRC)/ibnet_a2a_choice.c $(A2A_SRC)/ibnet_a2a_window.c $(CONTRACT)/ibnet_a2a_settings.c
$(B)/tests/linda_standin: tests/programs/linda_standin.c
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) -O2 -o $@ $<
# The retransmission floor's BPF tier driven without Slurm (tests/unit/tcp-floor-bpf.bats),
# with its test points (-DIBNET_BPF_FLOOR_TESTING: IBNET_BPF_FLOOR_TEST_PAUSE), never installed.
programs: $(if $(filter yes,$(WITH_BPF)),$(B)/tests/bpf_floor_run)
$(B)/tests/bpf_floor_run: tests/programs/bpf_floor_run.c $(SRC)/ibnet_bpf_floor.c $(SRC)/ibnet_bpf_floor.h
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) $(DEFS) -DIBNET_BPF_FLOOR_TESTING -O2 -I$(SRC) -I$(CONTRACT) -o $@ tests/programs/bpf_floor_run.c \
	    $(SRC)/ibnet_bpf_floor.c $(BPF_LIBS)
# Every form of the call (tests/unit/alltoall-forms.bats): two threads at once.
programs: $(TEST_MPIS:%=$(B)/tests/a2a_threads.%)
$(B)/tests/a2a_threads.%: tests/programs/a2a_threads.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -pthread -o $@ $<
# The MPI alone under MPI_THREAD_MULTIPLE (no spank-ibnet): the control for it.
programs: $(TEST_MPIS:%=$(B)/tests/mpi_threads_alltoallv.%)
$(B)/tests/mpi_threads_alltoallv.%: tests/programs/mpi_threads_alltoallv.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -pthread -o $@ $<
programs: $(TEST_MPIS:%=$(B)/tests/a2a_forms.%)
$(B)/tests/a2a_forms.%: tests/programs/a2a_forms.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
# Call sizes in steps, a fixed number of calls each (node segments shrinking).
programs: $(TEST_MPIS:%=$(B)/tests/a2a_steps.%)
$(B)/tests/a2a_steps.%: tests/programs/a2a_steps.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
# An indexed type of many blocks: packed without its type map read back.
programs: $(TEST_MPIS:%=$(B)/tests/a2a_indexed.%)
$(B)/tests/a2a_indexed.%: tests/programs/a2a_indexed.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
# MPI-4 sessions: no MPI_Init, so no MPI_COMM_WORLD (an MPI before 4.0 builds
# a program that says it has none).
programs: $(TEST_MPIS:%=$(B)/tests/a2a_sessions.%)
$(B)/tests/a2a_sessions.%: tests/programs/a2a_sessions.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
# Large counts: MPICH only here (Open MPI has them from 6.0).
programs: $(filter %.mpich,$(TEST_MPIS:%=$(B)/tests/a2a_large.%))
$(B)/tests/a2a_large.%: tests/programs/a2a_large.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
programs: $(TEST_MPIS:%=$(B)/tests/a2a_w_f.%)
$(B)/tests/a2a_w_f.%: tests/programs/a2a_w_f.f90
	mkdir -p $(B)/tests/$*
	mpif90.$* -O2 -w -J $(B)/tests/$* -o $@ $<
