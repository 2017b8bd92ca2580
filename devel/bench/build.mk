# SPDX-License-Identifier: GPL-2.0-or-later
# The benchmark's workloads (devel/bench, included by the Makefile): Open MPI
# programs and a socket farm. Nothing here is installed.

.PHONY: bench-programs bench
bench-programs: $(B)/bench/a2a_bench $(B)/bench/pingpong $(B)/bench/linda_farm.exel \
	$(B)/bench/a2a_versus.openmpi $(B)/bench/a2a_versus.mpich
$(B)/bench/a2a_bench $(B)/bench/pingpong: $(B)/bench/%: devel/bench/%.c
	mkdir -p $(B)/bench
	mpicc.openmpi -O2 -Wall -Wextra -Werror -o $@ $<
# Implementations side by side (devel/a2a-versus), one build per MPI.
$(B)/bench/a2a_versus.%: devel/bench/a2a_versus.c
	mkdir -p $(B)/bench
	mpicc.$* -O2 -Wall -Wextra -Werror -o $@ $< -ldl
$(B)/bench/linda_farm.exel: devel/bench/linda_farm.c
	mkdir -p $(B)/bench
	$(CC) -std=gnu11 $(WARN) -O2 -o $@ $< -lpthread

# The benchmark (docs/benchmarks.md); QUICK=1: a short smoke run in build/.
bench:
	devel/install-deps $(if $(QUICK),,--bench)
	$(MAKE) all bench-programs $(B)/tests/a2a_check.openmpi
	devel/ibnet-bench $(if $(QUICK),--quick)
