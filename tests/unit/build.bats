#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
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

@test "the plugin exports only the SPANK entry points and its identity (a linker version script)" {
	run bash -c "nm -D --defined-only '$BUILD/spank_ibnet.so' | awk '{ print \$3 }' | sort"
	assert_success
	refute_output --partial 'ibnet_'
	assert_line 'slurm_spank_init'
	assert_line 'slurm_spank_task_init'
	assert_line 'plugin_name'
	assert_line 'spank_plugin_version'
	[ "$(grep -cv -e '^slurm_spank_' -e '^plugin_' -e '^spank_plugin_version$' <<<"$output")" -eq 0 ]
}

@test "plugin, gate and ibnet-hosts are hardened: full RELRO, BIND_NOW, stack protector, fortified calls" {
	local f
	for f in "$BUILD/spank_ibnet.so" "$BUILD/libibnet-rsgate.so" "$BUILD/ibnet-hosts" \
		"$BUILD/libibnet-alltoall.so" "$BUILD/libibnet-a2a-ompi.so" "$BUILD/libibnet-a2a-mpich.so"; do
		run readelf -d "$f"
		assert_output --partial 'BIND_NOW'
		run readelf -lW "$f"
		assert_output --partial 'GNU_RELRO'
	done
	for f in "$BUILD/spank_ibnet.so" "$BUILD/ibnet-hosts"; do
		run nm -D "$f"
		assert_output --partial '__stack_chk_fail'
		assert_output --regexp '__[a-z]+_chk@'
	done
}

@test "a version, the same everywhere: VERSION, ibnet-hosts --version, NEWS, the plugin's slurmd log line" {
	local v
	v=$(cat "$REPO/VERSION")
	[[ "$v" =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]]
	run "$IBNET_HOSTS" --version
	assert_output "ibnet-hosts (spank-ibnet) $v"
	grep -q "^$v " "$REPO/NEWS"
	grep -q "version $v loaded" "$BUILD/spank_ibnet.so"
}
