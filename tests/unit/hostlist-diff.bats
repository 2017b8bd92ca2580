#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Our hostlist expander against Slurm's own (scontrol show hostnames and
# show hostlist: libslurm's hostlist code, with a minimal slurm.conf and no
# cluster). tests/programs/hostlist_diff.py generates the expressions.

load ../helpers/common

setup() {
	printf 'ClusterName=difftest\nSlurmctldHost=localhost\n' > "$BATS_TEST_TMPDIR/slurm.conf"
	export SLURM_CONF=$BATS_TEST_TMPDIR/slurm.conf
}

@test "every list Slurm produces, and every generated expression both accept, expands as Slurm expands it, order included" {
	run timeout 600 python3 "$REPO/tests/programs/hostlist_diff.py" "$IBNET_HOSTS" 7 1500
	echo "$output" | tail -5
	assert_success
	assert_line --regexp '^slurm-produced lists: 300, generated: 1500, accepted by both: [0-9]{3,}$'
	assert_line 'mismatches: 0'
}

@test "three or more brackets: Slurm's order (the last bracket fastest, then the first)" {
	run "$IBNET_HOSTS" --expand 'a[1-2][1-2][1-2]' --separator ' '
	assert_output 'a111 a112 a211 a212 a121 a122 a221 a222'
	[ "$output " = "$(scontrol show hostnames 'a[1-2][1-2][1-2]' | tr '\n' ' ')" ]
}

# slurm_accepts EXPR: does scontrol expand it?
slurm_accepts() {
	local out
	out=$(scontrol show hostnames "$1" 2>&1) && [ -n "$out" ] && [[ "$out" != *Invalid* ]]
}

# slurm_at_least MAJOR MINOR: is this machine's Slurm (scontrol --version) that release or later?
slurm_at_least() {
	local v
	v=$(scontrol --version | awk '{ print $2 }')
	[ "${v%%.*}" -gt "$1" ] || { [ "${v%%.*}" -eq "$1" ] && [ "$(echo "$v" | cut -d. -f2)" -ge "$2" ]; }
}

@test "deliberate differences: what we accept that Slurm refuses, and what we refuse that Slurm accepts" {
	local e
	# Accepted here, refused by Slurm: one range of more than 65,536 hosts
	# (our cap is 1,048,576 in all).
	run "$IBNET_HOSTS" --expand 'n[1-70000]'
	assert_success
	run slurm_accepts 'n[1-70000]'
	assert_failure
	# Refused here (failing closed), accepted by Slurm: spaces as separators or in
	# brackets, empty items, an unbalanced ']'. SLURM_JOB_NODELIST never has them.
	for e in 'a b' 'n[1-2],,n3' 'n[ 1-2]' 'n1-3]'; do
		run "$IBNET_HOSTS" --expand "$e"
		assert_failure
		assert_output --partial 'spank-ibnet: invalid hostlist'
		run slurm_accepts "$e"
		assert_success
	done
	# Refused by both: an empty range ("[2,]"), descending or negative ranges.
	for e in 'c[2,]' 'n[3-1]' 'n[-1]'; do
		run "$IBNET_HOSTS" --expand "$e"
		assert_failure
		run slurm_accepts "$e"
		assert_failure
	done
}

# Slurm's own parser changed between the releases the project is tested on
# (checked on 22.05.8 and 24.11.5; releases between are taken as 22.05):
# 24.11 expands text after the last bracket, as we always did, and refuses an
# unclosed '[', as we always did; 22.05 did the opposite of both.
@test "text after a bracket and an unclosed '[': as Slurm does since 24.11, a difference before" {
	run "$IBNET_HOSTS" --expand 'a[1-2]b' --separator ' '
	assert_output 'a1b a2b'
	run "$IBNET_HOSTS" --expand 'n[1-3'
	assert_failure
	assert_output --partial "'[' without ']'"
	if slurm_at_least 24 11; then
		[ "$(scontrol show hostnames 'a[1-2]b' | tr '\n' ' ')" = 'a1b a2b ' ]
		run slurm_accepts 'n[1-3'
		assert_failure
	else
		run slurm_accepts 'a[1-2]b'
		assert_failure
		run slurm_accepts 'n[1-3'
		assert_success
	fi
}
