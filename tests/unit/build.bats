#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# How the plugin builds against other Slurm releases' headers.

load ../helpers/common

# Slurm 25.05 added slurm_spank_init_failure_mode (ESPANK_JOB_FAILURE): set,
# a failed init fails the job instead of draining the node. Whether a build
# has it follows the headers it was built against, not the daemons (scontrol
# --version would need a slurm.conf, and 26.05's refuses to run without one).
# A release before 25.05 (Debian 12's 22.05, 13's 24.11) is stood in for
# by our own slurm_version.h in front of the installed headers, with
# ESPANK_JOB_FAILURE (an enum value of slurm_errno.h since 25.05) given on
# the command line; on 25.05 and later (forky's 26.05) the headers have both,
# and a -D of the enum's name would break them.
installed_slurm_version() {
	awk '$1 == "#define" && $2 == "SLURM_VERSION_NUMBER" { print $3 }' /usr/include/slurm/slurm_version.h
}

@test "built against Slurm 25.05 or later, the plugin asks for job failure, not node failure, on init errors" {
	local defs=() want
	mkdir -p "$BATS_TEST_TMPDIR/inc/slurm"
	sed 's/^#define SLURM_VERSION_NUMBER .*/#define SLURM_VERSION_NUMBER 0x190500/' \
		/usr/include/slurm/slurm_version.h > "$BATS_TEST_TMPDIR/inc/slurm/slurm_version.h"
	grep -q '0x190500' "$BATS_TEST_TMPDIR/inc/slurm/slurm_version.h"
	grep -qw ESPANK_JOB_FAILURE /usr/include/slurm/slurm_errno.h || defs=(-DESPANK_JOB_FAILURE=3034)
	cc -std=gnu11 -Wall -Wextra -Werror -D_GNU_SOURCE "${defs[@]}" \
		-I"$BATS_TEST_TMPDIR/inc" -I"$REPO/contract" -fPIC -c -o "$BATS_TEST_TMPDIR/new.o" \
		"$REPO/spank-ibnet/spank_ibnet.c"
	run nm "$BATS_TEST_TMPDIR/new.o"
	assert_line --regexp ' D slurm_spank_init_failure_mode$'
	run nm -D --defined-only "$BUILD/spank_ibnet.so"
	if (( $(installed_slurm_version) >= 0x190500 )); then
		# The build itself carries it, and its value is the job-failure
		# one of these headers (Slurm compares it with its own).
		assert_line --regexp ' D slurm_spank_init_failure_mode$'
		printf '#include <stdio.h>\n#include <slurm/slurm_errno.h>\nint main(void) { printf("%%d\\n", ESPANK_JOB_FAILURE); return 0; }\n' \
			> "$BATS_TEST_TMPDIR/want.c"
		cc -o "$BATS_TEST_TMPDIR/want" "$BATS_TEST_TMPDIR/want.c"
		want=$("$BATS_TEST_TMPDIR/want")
		run gdb -batch -nx -ex 'print (int) slurm_spank_init_failure_mode' "$BUILD/spank_ibnet.so"
		assert_output --regexp "^\\\$1 = $want\$"
	else
		# Before 25.05 the symbol does not exist (Slurm would ignore it).
		refute_output --partial 'slurm_spank_init_failure_mode'
	fi
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
	local f paced=()
	# Each MPI's paced build where this host makes it (here and in CI: both;
	# the alltoall tests fail in CI where one is left out).
	for f in "$BUILD/libibnet-a2a-ompi.so" "$BUILD/libibnet-a2a-mpich.so"; do
		[ ! -e "$f" ] || paced+=("$f")
	done
	for f in "$BUILD/spank_ibnet.so" "$BUILD/libibnet-rsgate.so" "$BUILD/ibnet-hosts" \
		"$BUILD/libibnet-alltoall.so" "${paced[@]}"; do
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

# Issue 18: one function plans a step. The plugin and ibnet-hosts both call
# ibnet_step_plan, and neither calls the steps inside it on its own (where
# the two orders once differed). Read from the objects' relocations, so a
# second path would show even if it were spelled differently in the source.
@test "the plugin and ibnet-hosts --env plan a step through one function, ibnet_step_plan, and nothing else" {
	local obj
	for obj in "$BUILD/pic/spank_ibnet.o" "$BUILD/obj/ibnet_hosts.o"; do
		run bash -c "nm -u '$obj' | awk '{ print \$2 }'"
		assert_success
		assert_line 'ibnet_step_plan'
		refute_line 'ibnet_env_plan_build'
		refute_line 'ibnet_probe_job'
		refute_line 'ibnet_env_plan_describe'
	done
	# The SPANK layer resolves a request only in init_post_opt: to check it before
	# queueing, and on the node to know, as root, whether the step asks for a floor.
	[ "$(grep -c 'ibnet_request_resolve' "$REPO/spank-ibnet/spank_ibnet.c")" -eq 1 ]
	run grep -c 'ibnet_request_resolve\|ibnet_probe_job' "$REPO/spank-ibnet/ibnet_hosts.c"
	assert_output 0
}

# A host without MPI development files (a login node, a build host for the
# plugin alone): pkg-config is pointed at an empty directory, so it finds
# neither Open MPI nor MPICH, as there. The MPI packages stay installed on
# this machine; what is shown is that the build does not reach for them.
@test "a plain make without MPI development files builds the plugin, the gate, ibnet-hosts and the preload, and says what it skipped" {
	mkdir -p "$BATS_TEST_TMPDIR/no-pc"
	run env PKG_CONFIG_LIBDIR="$BATS_TEST_TMPDIR/no-pc" PKG_CONFIG_PATH= \
		make -C "$REPO" -s B="$BATS_TEST_TMPDIR/b" all
	assert_success
	assert_output --partial 'not building libibnet-a2a-ompi.so (no Open MPI development files'
	assert_output --partial 'not building libibnet-a2a-mpich.so (no MPICH development files'
	local f
	for f in spank_ibnet.so libibnet-rsgate.so ibnet-hosts libibnet-alltoall.so; do
		[ -s "$BATS_TEST_TMPDIR/b/$f" ]
	done
	[ ! -e "$BATS_TEST_TMPDIR/b/libibnet-a2a-ompi.so" ]
	[ ! -e "$BATS_TEST_TMPDIR/b/libibnet-a2a-mpich.so" ]
	# ... and its install list leaves them out, so install and the packages agree.
	run bash -c "PKG_CONFIG_LIBDIR='$BATS_TEST_TMPDIR/no-pc' PKG_CONFIG_PATH= \
		make -C '$REPO' -s B='$BATS_TEST_TMPDIR/b' install-list 2>/dev/null"
	assert_line --partial '/libibnet-alltoall.so'
	refute_line --partial 'libibnet-a2a-'
}

# The same host for the test builds: make WITH_OMPI=no WITH_MPICH=no stands
# for neither MPI's development files (mk/optional.mk), both still installed
# here. The parts that follow the MPIs (the product, the test and bench
# programs; ASan and the fuzz harnesses follow no MPI) are built in a
# scratch directory and the tests run against it: those without an MPI pass,
# those with one skip with the reason, and fail instead under CI.
@test "a host with neither MPI's development files: make builds, says once what the test builds leave out, and the unit tests without an MPI pass" {
	local b=$BATS_TEST_TMPDIR/b
	run env -u CI -u IBNET_REQUIRE_ALL make -C "$REPO" -s B="$b" WITH_OMPI=no WITH_MPICH=no \
		all programs bench-programs
	assert_success
	assert_line "spank-ibnet: the test builds leave out: openmpi (WITH_OMPI=no) mpich (WITH_MPICH=no); the unit tests that need them skip and say why"
	[ "$(grep -c 'the test builds leave out' <<<"$output")" -eq 1 ]
	[ -x "$b/ibnet-hosts" ] && [ -x "$b/tests/tally_dir" ] && [ -x "$b/bench/linda_farm.exel" ]
	[ -z "$(find "$b" -name '*.openmpi*' -o -name '*.mpich*' -o -name 'a2a_bench' -o -name 'libibnet-a2a-*')" ]
	# A file that mixes both: its plans and its MPI-free checks pass, every
	# MPI run is skipped and says why; and files with no MPI at all.
	run env -u CI -u IBNET_REQUIRE_ALL IBNET_BUILD_DIR="$b" \
		bats --tap "$REPO/tests/unit/alltoall.bats" "$REPO/tests/unit/tally.bats" "$REPO/tests/unit/hostnames.bats"
	assert_success
	refute_line --regexp '^not ok'
	assert_line --regexp '^ok [0-9]+ --ordered-alltoall with the library on the node: '
	assert_line --regexp '^ok [0-9]+ inert outside MPI: '
	refute_line --regexp '^ok [0-9]+ (--ordered-alltoall with the library|inert outside MPI).* # skip'
	assert_line --regexp '^ok [0-9]+ MPICH: byte-identical .* # skip the test builds left out mpich \(WITH_MPICH=no\)$'
	assert_line --regexp '^ok [0-9]+ the fan-in rule: .* # skip the test builds left out openmpi \(WITH_OMPI=no\)$'
	[ "$(grep -c '^ok .* # skip the test builds left out ' <<<"$output")" -ge 20 ]
	# CI expects every part: the build and the test that needs one fail.
	run env CI=true make -C "$REPO" -s B="$b" WITH_OMPI=no WITH_MPICH=no programs
	assert_failure
	assert_output --partial 'CI=true or IBNET_REQUIRE_ALL=1 requires every part'
	run env -u CI IBNET_REQUIRE_ALL=1 IBNET_BUILD_DIR="$b" bats --tap -f '^MPICH: byte-identical' "$REPO/tests/unit/alltoall.bats"
	assert_failure
	assert_line --regexp '^not ok 1 MPICH: byte-identical'
	assert_output --partial 'the test builds left out mpich (WITH_MPICH=no); CI=true or IBNET_REQUIRE_ALL=1 requires it'
}

# -MMD: a header's change rebuilds exactly the objects that include it. In a
# copy of the sources, so a build of the work tree meanwhile is not disturbed.
@test "a changed header rebuilds the objects that include it, and only those" {
	local t=$BATS_TEST_TMPDIR/tree b=$BATS_TEST_TMPDIR/tree/build
	copy_sources "$t"
	make -C "$t" -s build/ibnet-hosts >/dev/null
	[ -s "$b/obj/ibnet_probe.d" ]
	grep -q 'rspreload_calls.h' "$b/obj/ibnet_probe.d"
	touch -d '+2 seconds' "$t/contract/rspreload_calls.h"
	sleep 2
	run make -C "$t" build/ibnet-hosts
	assert_success
	assert_output --partial "-c -o build/obj/ibnet_probe.o"
	refute_output --partial "-c -o build/obj/ibnet_util.o"
	refute_output --partial "-c -o build/obj/ibnet_hosts.o"
}

# A build made before a source moved to another folder: its .d files name the
# old paths, which make took for existing ones and kept the old objects (the
# plugin's link then found ibnet_rto_parse twice, in every cached build when
# contract/ was made). mk/depends.mk drops the objects when the sources'
# list changes. The case itself: the tree before contract/, built, then this
# one's sources put over it (as a pull, or a test stack's copy, does).
@test "a build made before sources moved folders still builds after them: the stale objects are dropped" {
	local before=2035a1e t=$BATS_TEST_TMPDIR/moved
	git -C "$REPO" cat-file -e "$before^{commit}" 2>/dev/null ||
		skip "this tree's history lacks $before (the commit before contract/)"
	git clone -q "$REPO" "$t"
	git -C "$t" checkout -q "$before"
	make -C "$t" -s build/spank_ibnet.so WITH_BPF=no >/dev/null 2>&1
	[ -s "$t/build/pic/ibnet_a2a_settings.d" ]
	grep -q 'alltoall/ibnet_a2a_settings.c' "$t/build/pic/ibnet_a2a_settings.d"
	# This tree's sources over it, the build kept (as devel/ibnet-stack's sync).
	find "$t" -mindepth 1 -maxdepth 1 ! -name build -exec rm -rf {} +
	copy_sources "$t"
	# Newer than the build, as a pull's changed files are.
	find "$t" -path "$t/build" -prune -o -type f -exec touch -d '+2 seconds' {} +
	sleep 2
	[ -f "$t/contract/ibnet_floor_settings.c" ]
	run make -C "$t" -s build/spank_ibnet.so WITH_BPF=no
	assert_success
	refute_output --partial 'multiple definition'
	# The object of that name is made from contract/'s source, which has no floor parsing.
	run nm --defined-only "$t/build/pic/ibnet_a2a_settings.o"
	assert_success
	refute_output --partial ibnet_rto_parse
	run nm --defined-only "$t/build/pic/ibnet_floor_settings.o"
	assert_output --partial ibnet_rto_parse
}
