# SPDX-License-Identifier: GPL-2.0-or-later
# The benchmark's workloads (devel/bench, included by the Makefile): Open MPI
# programs and a socket farm, and the all-to-all timer the unit tests also
# run (tests/programs/a2a_bench.c, built by tests/build.mk). Nothing here is
# installed.

.PHONY: bench-programs bench bench-long
# For the MPIs the test builds have (TEST_MPIS, mk/optional.mk).
bench-programs: $(B)/bench/linda_farm.exel $(TEST_MPIS:%=$(B)/bench/a2a_versus.%) \
	$(if $(filter openmpi,$(TEST_MPIS)),$(B)/tests/a2a_bench $(B)/bench/pingpong)
$(B)/bench/pingpong: devel/bench/pingpong.c
	mkdir -p $(B)/bench
	mpicc.openmpi -O2 -Wall -Wextra -Werror -o $@ $<
# Implementations side by side (devel/a2a-versus), one build per MPI.
$(B)/bench/a2a_versus.%: devel/bench/a2a_versus.c
	mkdir -p $(B)/bench
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $< -ldl
$(B)/bench/linda_farm.exel: devel/bench/linda_farm.c
	mkdir -p $(B)/bench
	$(CC) -std=gnu11 $(WARN) -O2 -o $@ $< -lpthread

# The benchmark (docs/benchmarks.md), under 30 minutes; QUICK=1: a short
# smoke run in build/. bench-long: the 90 minutes of jobs it leaves out (LAMMPS,
# 8 x 8 and 8 x 16 ranks), into the same report (devel/ibnet-bench says which).
bench bench-long:
	devel/install-deps $(if $(QUICK),,--bench)
	$(MAKE) all bench-programs $(B)/tests/a2a_check.openmpi
	devel/ibnet-bench $(if $(QUICK),--quick) $(if $(filter bench-long,$@),--long)
