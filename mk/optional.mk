# SPDX-License-Identifier: GPL-2.0-or-later
# The optional parts (included by the Makefile before its first rule): what
# this host can build is decided here once, from the development files and
# compilers it has, and what is left out is said once, on stderr
# (install-list's output stays a list). Each has a switch to leave it out
# where it would be found: WITH_OMPI=no, WITH_MPICH=no, WITH_BPF=no.

# The paced all-to-all, once per MPI ABI (the Makefile's A2A_ABIS).
OMPI_CFLAGS  ?= $(shell pkg-config --cflags ompi-c 2>/dev/null)
MPICH_CFLAGS ?= $(shell pkg-config --cflags mpich 2>/dev/null)
# Built where the MPI's development files are: found by pkg-config, or
# given as OMPI_CFLAGS=/MPICH_CFLAGS= (RHEL keeps them under the MPI's prefix).
WITH_OMPI  ?= $(if $(filter command line environment,$(origin OMPI_CFLAGS))$(shell pkg-config --exists ompi-c 2>/dev/null && echo yes),yes,no)
WITH_MPICH ?= $(if $(filter command line environment,$(origin MPICH_CFLAGS))$(shell pkg-config --exists mpich 2>/dev/null && echo yes),yes,no)
# Decided once (pkg-config runs here, not at every use).
WITH_OMPI  := $(WITH_OMPI)
WITH_MPICH := $(WITH_MPICH)

# The retransmission floor's BPF tier (tcp-floor-bpf/): the sock_ops program,
# compiled for the BPF target by clang against the kernel's <linux/bpf.h> and
# libbpf's <bpf/bpf_helpers.h>, and its loader built against libbpf's headers
# into the plugin and ibnet-hosts. Neither is linked with libbpf: the loader
# opens it (dlopen, libbpf.so.1 or .0, 0.8 or later) when a step needs the
# tier, so srun, sbatch and salloc load the plugin on login nodes without it.
# Without clang or libbpf's development files (WITH_BPF=no leaves it out)
# both still build, and the tier says it is unavailable.
BPF_CLANG ?= clang
WITH_BPF  ?= $(if $(shell pkg-config --exists libbpf 2>/dev/null && command -v $(BPF_CLANG) >/dev/null 2>&1 && echo yes),yes,no)
WITH_BPF  := $(WITH_BPF)
BPF_OBJ    = $(if $(filter yes,$(WITH_BPF)),$(B)/ibnet_tcp_floor.bpf.o)
BPF_DEFS   = $(if $(filter yes,$(WITH_BPF)),-DIBNET_HAVE_LIBBPF)
# dlopen: in libc from glibc 2.34, in libdl before (RHEL 8, 9).
BPF_LIBS  := $(if $(filter yes,$(WITH_BPF)),-ldl)
# <asm/types.h>, which <linux/bpf.h> includes, is under the host's multiarch directory.
BPF_INCLUDE := $(if $(filter yes,$(WITH_BPF)),$(addprefix -I/usr/include/,$(shell $(CC) -print-multiarch 2>/dev/null)))

# What is left out, so a host without an MPI's development files knows what
# its jobs will not get (the dispatcher says it again at run time).
ifneq ($(WITH_OMPI),yes)
$(shell echo "spank-ibnet: not building libibnet-a2a-ompi.so ($(if $(filter command line,$(origin WITH_OMPI)),WITH_OMPI=$(WITH_OMPI),no Open MPI development files: pkg-config ompi-c, or OMPI_CFLAGS=)); Open MPI jobs get Open MPI's own all-to-all" >&2)
endif
ifneq ($(WITH_MPICH),yes)
$(shell echo "spank-ibnet: not building libibnet-a2a-mpich.so ($(if $(filter command line,$(origin WITH_MPICH)),WITH_MPICH=$(WITH_MPICH),no MPICH development files: pkg-config mpich, or MPICH_CFLAGS=)); MPICH-ABI jobs get their MPI's own all-to-all" >&2)
endif
ifneq ($(WITH_BPF),yes)
$(shell echo "spank-ibnet: not building the retransmission floor's BPF tier ($(if $(filter command line,$(origin WITH_BPF)),WITH_BPF=$(WITH_BPF),no $(BPF_CLANG) or no libbpf development files: pkg-config libbpf)); kernels without TCP_RTO_MIN_US (before Linux 6.15) get no floor" >&2)
endif

# The test builds (tests/build.mk) follow: each MPI's test programs where its
# paced build is made and its compiler wrapper is on the PATH, the fuzz
# harnesses where clang is. TEST_GAP_part: why that part is left out, or
# nothing. make WITH_OMPI=no WITH_MPICH=no stands for a host with neither
# MPI's development files, both still installed.
FUZZ_CC ?= clang
TEST_GAP_openmpi := $(if $(filter yes,$(WITH_OMPI)),$(if $(shell command -v mpicc.openmpi 2>/dev/null),,no mpicc.openmpi),WITH_OMPI=no)
TEST_GAP_mpich   := $(if $(filter yes,$(WITH_MPICH)),$(if $(shell command -v mpicc.mpich 2>/dev/null),,no mpicc.mpich),WITH_MPICH=no)
TEST_GAP_clang   := $(if $(shell command -v $(FUZZ_CC) 2>/dev/null),,no $(FUZZ_CC))
TEST_MPIS     := $(strip $(foreach m,openmpi mpich,$(if $(TEST_GAP_$(m)),,$(m))))
TEST_LEFT_OUT := $(strip $(foreach p,openmpi mpich clang,$(if $(TEST_GAP_$(p)),$(p))))
# Under CI (CI=true) or IBNET_REQUIRE_ALL=1 every part is expected: a test
# build left out fails the build, and the test needing it fails (tests/helpers/
# common.bash), rather than skip.
IBNET_REQUIRE_ALL ?= $(if $(filter true,$(CI)),1)
TEST_LEFT_OUT_SAID = the test builds leave out: $(foreach p,$(TEST_LEFT_OUT),$(p) ($(TEST_GAP_$(p))))
ifneq ($(TEST_LEFT_OUT),)
ifneq ($(filter test-builds programs bench-programs fuzz-build unit-test cluster-test,$(MAKECMDGOALS)),)
$(shell echo "spank-ibnet: $(TEST_LEFT_OUT_SAID)$(if $(filter 1,$(IBNET_REQUIRE_ALL)),: CI=true or IBNET_REQUIRE_ALL=1 requires them,; the unit tests that need them skip and say why)" >&2)
endif
endif
