# SPDX-License-Identifier: GPL-2.0-or-later
# The test builds (included by the Makefile): the C layer under ASan/UBSan,
# the libFuzzer harnesses, and the small programs the tests run. Nothing here
# is installed.

.PHONY: test-builds asan fuzz-build fuzz programs
test-builds: asan programs bench-programs fuzz-build

# The sources of ibnet-hosts, for the one-command ASan and fuzz builds.
TOOL_SRC = $(foreach f,$(CORE) $(TOOL_ONLY),$(firstword $(wildcard $(SRC)/$(f).c $(A2A_SRC)/$(f).c)))

# The C unit layer under AddressSanitizer/UBSan, for the memory tests.
asan: $(B)/asan/ibnet-hosts
$(B)/asan/ibnet-hosts: $(SRC)/ibnet_hosts.c $(TOOL_SRC) $(wildcard $(SRC)/*.h $(A2A_SRC)/*.h)
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
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(TOOL_SRC) $(wildcard $(SRC)/*.h $(A2A_SRC)/*.h)
	mkdir -p $(B)/fuzz
	$(FUZZ_CC) $(FUZZ_FLAGS) -o $@ $< $(TOOL_SRC)
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
programs: $(B)/tests/alltoall_probe.openmpi $(B)/tests/alltoall_probe.mpich \
	$(B)/tests/linda_standin $(B)/tests/a2a_check.openmpi $(B)/tests/a2a_check.mpich \
	$(B)/tests/a2a_fortran.openmpi $(B)/tests/a2a_fortran.mpich $(B)/tests/libhide-rto-min.so \
	$(B)/tests/a2a_hazard.openmpi $(B)/tests/a2a_hazard.mpich \
	$(B)/tests/a2a_f08.openmpi $(B)/tests/a2a_f08.mpich \
	$(B)/tests/a2a_nonblocking.openmpi $(B)/tests/a2a_nonblocking.mpich $(A2A_TEST)
$(B)/tests/alltoall_probe.%: tests/programs/alltoall_probe.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
$(B)/tests/a2a_check.%: tests/programs/a2a_check.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
programs: $(B)/tests/a2a_churn.openmpi $(B)/tests/a2a_churn.mpich
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
programs: $(B)/tests/a2a_types.openmpi $(B)/tests/a2a_types.mpich
$(B)/tests/a2a_types.%: tests/programs/a2a_types.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
# Ranks that may route alike or not (MPMD), and sizes that disagree.
programs: $(B)/tests/a2a_mpmd.openmpi $(B)/tests/a2a_mpmd.mpich
$(B)/tests/a2a_mpmd.%: tests/programs/a2a_mpmd.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
# An MPI loaded RTLD_LOCAL, as Python extensions are: a host with no libmpi
# (one for both MPIs) and a module linked to each MPI.
programs: $(B)/tests/dl_host $(B)/tests/dl_module.openmpi.so $(B)/tests/dl_module.mpich.so
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
programs: $(B)/tests/a2a_types_f.openmpi $(B)/tests/a2a_types_f.mpich
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
# The plugin's tally directory, made and collected as the plugin does (tests/unit/tally.bats).
programs: $(B)/tests/tally_dir
$(B)/tests/tally_dir: tests/programs/tally_dir.c $(SRC)/ibnet_tally.c $(SRC)/ibnet_tally.h
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) $(DEFS) -O2 -I$(SRC) -o $@ tests/programs/tally_dir.c $(SRC)/ibnet_tally.c
$(B)/tests/linda_standin: tests/programs/linda_standin.c
	mkdir -p $(B)/tests
	$(CC) -std=gnu11 $(WARN) -O2 -o $@ $<
# Every form of the call (tests/unit/alltoall-forms.bats): two threads at once.
programs: $(B)/tests/a2a_threads.openmpi $(B)/tests/a2a_threads.mpich
$(B)/tests/a2a_threads.%: tests/programs/a2a_threads.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -pthread -o $@ $<
programs: $(B)/tests/a2a_forms.openmpi $(B)/tests/a2a_forms.mpich
$(B)/tests/a2a_forms.%: tests/programs/a2a_forms.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
# Large counts: MPICH only here (Open MPI has them from 6.0).
programs: $(B)/tests/a2a_large.mpich
$(B)/tests/a2a_large.%: tests/programs/a2a_large.c
	mkdir -p $(B)/tests
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $<
programs: $(B)/tests/a2a_w_f.openmpi $(B)/tests/a2a_w_f.mpich
$(B)/tests/a2a_w_f.%: tests/programs/a2a_w_f.f90
	mkdir -p $(B)/tests/$*
	mpif90.$* -O2 -w -J $(B)/tests/$* -o $@ $<
