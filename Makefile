# SPDX-License-Identifier: GPL-2.0-or-later
# spank-ibnet: build, install, test, demo.
#
#   make            build the plugin, the rsocket gate, ibnet-hosts and the job
#                   preload; the paced all-to-all for each MPI whose development
#                   files are here (WITH_OMPI=no, WITH_MPICH=no leave one out);
#                   the TCP floor's BPF tier where clang and libbpf are (WITH_BPF=no)
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
# What this host can build (each MPI, clang, libbpf): mk/optional.mk. Where
# it installs and the one install list: packaging/install.mk; the packages:
# packaging/build.mk; the test, fuzz and bench builds and the test targets:
# tests/build.mk and devel/bench/build.mk; the model at scale's targets
# (model-projections, model-smoke): mk/model.mk.

VERSION := $(shell cat VERSION)

CC      ?= cc
CFLAGS  ?= -O2 -g
LDFLAGS ?=
WARN     = -Wall -Wextra -Werror
DEFS     = -D_GNU_SOURCE -DIBNET_VERSION='"$(VERSION)"' \
	   -DIBNET_RSGATE_DEFAULT='"$(GATE_DIR)/libibnet-rsgate.so"' \
	   -DIBNET_A2A_DEFAULT='"$(GATE_DIR)/libibnet-alltoall.so"' \
	   -DIBNET_BPF_FLOOR_DEFAULT='"$(GATE_DIR)/ibnet_tcp_floor.bpf.o"' $(BPF_DEFS)
# Hardening, as distributions build: stack protector, fortified libc calls,
# full RELRO and immediate binding (the GOT is read-only once loaded).
HARDEN   = -fstack-protector-strong -D_FORTIFY_SOURCE=2
HARDEN_LD = -Wl,-z,relro,-z,now
# -MMD -MP: each object's header dependencies, written beside it (.d).
# -I contract/ only: each side finds its own headers beside its sources, and
# the other side's not at all.
ALL_CFLAGS = -std=gnu11 $(WARN) $(DEFS) $(CFLAGS) $(HARDEN) -I$(CONTRACT) -MMD -MP
ALL_LDFLAGS = $(HARDEN_LD) $(LDFLAGS)

B   = build
# The plugin and ibnet-hosts; the job's preload and its paced builds; the
# rsocket gate; and what the plugin and the job's libraries both read (the
# variables' names, the settings' tables, the gate's calls), which is all
# that passes between the first three.
SRC = spank-ibnet
A2A_SRC = alltoall
GATE_SRC = rsocket-gate
CONTRACT = contract
vpath %.c $(SRC) $(A2A_SRC) $(GATE_SRC) $(CONTRACT)

# The decision layer: no Slurm, shared by the plugin and ibnet-hosts
# (docs/architecture.md says which decision each file holds).
# ibnet_a2a_settings and ibnet_floor_settings are the contract's.
CORE = ibnet_util ibnet_hostlist ibnet_rule ibnet_config ibnet_request ibnet_job ibnet_probe \
	ibnet_planner ibnet_env ibnet_env_mpi ibnet_preload ibnet_env_alltoall \
	ibnet_gaussian ibnet_step ibnet_a2a_settings ibnet_floor_settings ibnet_tally \
	ibnet_floor_tier ibnet_bpf_floor ibnet_iface_route
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
# Which MPIs, and whether the BPF tier: decided once, in mk/optional.mk.
include mk/optional.mk
A2A_ABIS = $(if $(filter yes,$(WITH_OMPI)),ompi) $(if $(filter yes,$(WITH_MPICH)),mpich)
A2A_LIBS = $(A2A_ABIS:%=$(B)/libibnet-a2a-%.so)
A2A_CFLAGS = $(ALL_CFLAGS) -fPIC -fvisibility=hidden

.PHONY: all deps demo clean FORCE
all: $(PLUGIN) $(GATE) $(TOOL) $(PRELOAD) $(A2A_LIBS) $(BPF_OBJ)

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

# What the decision layer links: the BPF tier's, and libanl for the bounded
# name look-ups of the interface by route (getaddrinfo_a: in libc itself
# from glibc 2.34; libanl before).
CORE_LIBS = $(BPF_LIBS) -lanl

# Slurm's symbols (slurm_error, spank_*) come from the process loading us;
# the version script exports only what Slurm looks up.
$(PLUGIN): $(B)/pic/spank_ibnet.o $(CORE:%=$(B)/pic/%.o) $(SRC)/spank_ibnet.map
	$(CC) -shared $(ALL_LDFLAGS) -Wl,--version-script=$(SRC)/spank_ibnet.map \
	    -o $@ $(filter %.o,$^) $(CORE_LIBS)
$(GATE): $(B)/pic/rsocket_gate.o $(B)/pic/ibnet_say_line.o
	$(CC) -shared $(ALL_LDFLAGS) -o $@ $^ -ldl
$(TOOL): $(B)/obj/ibnet_hosts.o $(CORE:%=$(B)/obj/%.o) $(TOOL_ONLY:%=$(B)/obj/%.o)
	$(CC) $(ALL_LDFLAGS) -o $@ $^ $(CORE_LIBS)
$(PRELOAD): $(addprefix $(B)/a2a/,ibnet_a2a_dispatch.o ibnet_a2a_mpi.o ibnet_a2a_agree.o \
	    ibnet_tcp_floor.o ibnet_a2a_settings.o ibnet_floor_settings.o ibnet_say_line.o)
	$(CC) -shared $(ALL_LDFLAGS) -o $@ $^ -ldl -lpthread
# The paced scheme's parts (A2A_PACED), compiled once per MPI ABI.
include mk/paced-parts.mk
$(B)/libibnet-a2a-ompi.so: $(addprefix $(B)/a2a-ompi/,$(A2A_PACED:=.o))
$(B)/libibnet-a2a-mpich.so: $(addprefix $(B)/a2a-mpich/,$(A2A_PACED:=.o))
$(B)/libibnet-a2a-%.so:
	$(CC) -shared $(ALL_LDFLAGS) -o $@ $^ -ldl -lpthread

# -g: libbpf reads the maps' types from the object's BTF.
$(B)/ibnet_tcp_floor.bpf.o: tcp-floor-bpf/ibnet_tcp_floor.bpf.c | $(B)/pic
	$(BPF_CLANG) -O2 -g -target bpf $(WARN) $(BPF_INCLUDE) -I$(CONTRACT) -MMD -MP -MF $(B)/pic/ibnet_tcp_floor.bpf.d \
	    -c -o $@ $<

include mk/depends.mk
# Objects are kept between builds, not removed as intermediates of a chain.
.SECONDARY:

include packaging/install.mk
include packaging/build.mk

deps:
	devel/install-deps

include tests/build.mk
include devel/bench/build.mk

include mk/model.mk

demo: deps
	$(MAKE) all $(B)/tests/linda_standin $(B)/tests/a2a_bench
	devel/demo

clean:
	rm -rf $(B)
