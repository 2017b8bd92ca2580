# SPDX-License-Identifier: GPL-2.0-or-later
# The model at scale (development only; issue 42): the paced library's own
# sources, unchanged, compiled with SimGrid's smpicc into the all-to-all
# micro-benchmark, with model_host.c in place of the dispatcher and the
# node's loss feed, and ns3_ports.cc (the switch's ports inside SimGrid's
# ns-3 network) beside it as one shared library.
#   make -f devel/smpi-model/build.mk [B=build/smpi-model]
# The rpath is absolute: SMPI runs a copy of the program from its tmpdir.
# Needs Debian 12's libsimgrid-dev (SimGrid 3.32) and libns3-dev (ns-3.37).
B ?= build/smpi-model
M = devel/smpi-model
# The paced library's parts (mk/paced-parts.mk), less what the model stands
# in for: the node's loss feed (model_host.c gives the ns-3 ports' figures)
# and the Fortran bindings (no Fortran program runs under the model).
include mk/paced-parts.mk
PACED = $(filter-out ibnet_a2a_netstat ibnet_a2a_fortran,$(A2A_PACED))
# smpi_helpers.h makes getpid() the simulated rank's; the library's fork
# check runs at the process's exit too, outside any rank, where SimGrid's
# would crash: the real one (all ranks share it, so no rank looks forked).
# -MMD -MP: each object hears of its headers (a struct grown in
# ibnet_a2a_comm.h left the objects that were not rebuilt reading the old
# layout, and the model crashed with SIGFPE).
SMPI_CFLAGS = -O2 -g -Wall -Wextra -Werror -MMD -MP -Dsmpi_getpid=getpid -Ialltoall -Icontract
# model_waitsome.c in place of SMPI's PMPI_Waitsome for the library's calls
# (a simulated call per finished request, not per outstanding one).
WRAP = -Wl,--wrap=PMPI_Waitsome
NS3_LIBS = -lns3-core -lns3-network -lns3-internet -lns3-point-to-point -lns3-traffic-control

# libmodel-waitall.so: not linked; run preloads it (model_waitall.cc).
$(B)/a2a_bench_model: $(PACED:%=$(B)/%.o) $(B)/model_host.o \
		      $(B)/model_waitsome.o $(B)/a2a_bench.o $(B)/libmodel-ports.so \
		      $(B)/libmodel-waitall.so
	smpicc -o $@ $(filter %.o,$^) $(WRAP) -L$(B) -lmodel-ports -Wl,-rpath,$(abspath $(B))
# The byte-for-byte check, the same program the unit tests run on Open MPI
# and MPICH: the library's exchange under SMPI gives PMPI_Alltoall's bytes.
$(B)/a2a_check_model: $(PACED:%=$(B)/%.o) $(B)/model_host.o \
		      $(B)/model_waitsome.o $(B)/a2a_check.o $(B)/libmodel-ports.so \
		      $(B)/libmodel-waitall.so
	smpicc -o $@ $(filter %.o,$^) $(WRAP) -L$(B) -lmodel-ports -Wl,-rpath,$(abspath $(B))
# The ping-pong of devel/smpi-model/cpu-cost, under the model: the network's
# own half round trip, which the measured one is set against.
$(B)/pingpong_model: $(M)/pingpong.c $(B)/libmodel-ports.so
	smpicc -O2 -Wall -Wextra -Werror -o $@ $< -L$(B) -lmodel-ports -Wl,-rpath,$(abspath $(B))
$(B)/a2a_check.o: tests/programs/a2a_check.c | $(B)
	smpicc -O2 -Wall -Wextra -Werror -DA2A_CHECK_REFERENCE_FROM_COPY -c -o $@ $<
$(B)/%.o: alltoall/%.c | $(B)
	smpicc $(SMPI_CFLAGS) -c -o $@ $<
$(B)/%.o: contract/%.c | $(B)
	smpicc $(SMPI_CFLAGS) -c -o $@ $<
$(B)/model_host.o: $(M)/model_host.c | $(B)
	smpicc $(SMPI_CFLAGS) -c -o $@ $<
$(B)/model_waitsome.o: $(M)/model_waitsome.c | $(B)
	smpicc $(SMPI_CFLAGS) -c -o $@ $<
$(B)/a2a_bench.o: tests/programs/a2a_bench.c | $(B)
	smpicc -O2 -Wall -Wextra -Werror -c -o $@ $<
# The switch's ports and the kept connections (preloaded by run: it replaces
# ns3::Socket::CreateSocket for SimGrid's calls).
$(B)/libmodel-ports.so: $(M)/ns3_ports.cc $(M)/kept_connections.cc $(M)/tail_probe.cc \
		       $(M)/model_trace.h contract/ibnet_tcp_floor_rule.h | $(B)
	g++ -O2 -g -Wall -Wextra -Werror -Icontract -fPIC -shared -o $@ $(filter %.cc,$^) $(NS3_LIBS)
# SimGrid's Request::waitall, waiting in order (preloaded by run into
# every run: its cost at 512 ranks, model_waitall.cc).
$(B)/libmodel-waitall.so: $(M)/model_waitall.cc | $(B)
	g++ -O2 -g -Wall -Wextra -Werror -fPIC -shared -o $@ $< -lsimgrid -ldl
$(B):
	mkdir -p $@
-include $(wildcard $(B)/*.d)
