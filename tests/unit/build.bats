#!/usr/bin/env bats
# How the plugin builds against other Slurm releases' headers.

load ../helpers/common

# Slurm 25.05 added slurm_spank_init_failure_mode (ESPANK_JOB_FAILURE): set,
# a failed init fails the job instead of draining the node. Debian 12 ships
# 22.05, so a newer release is stood in for by our own slurm_version.h in
# front of the installed headers, and ESPANK_JOB_FAILURE (an enum value of
# 25.05's slurm_errno.h) given on the command line.
@test "built against Slurm 25.05 or later, the plugin asks for job failure, not node failure, on init errors" {
	mkdir -p "$BATS_TEST_TMPDIR/inc/slurm"
	sed 's/^#define SLURM_VERSION_NUMBER .*/#define SLURM_VERSION_NUMBER 0x190500/' \
		/usr/include/slurm/slurm_version.h > "$BATS_TEST_TMPDIR/inc/slurm/slurm_version.h"
	grep -q '0x190500' "$BATS_TEST_TMPDIR/inc/slurm/slurm_version.h"
	cc -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE -DESPANK_JOB_FAILURE=3034 \
		-I"$BATS_TEST_TMPDIR/inc" -fPIC -c -o "$BATS_TEST_TMPDIR/new.o" "$REPO/spank-ibnet/spank_ibnet.c"
	run nm "$BATS_TEST_TMPDIR/new.o"
	assert_line --regexp ' D slurm_spank_init_failure_mode$'
	# Against the installed 22.05 the symbol does not exist (Slurm would ignore it).
	run nm "$BUILD/spank_ibnet.so"
	refute_output --partial 'slurm_spank_init_failure_mode'
}
