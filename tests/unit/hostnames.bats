#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Hostlist expansion and the IB hostname rules, through ibnet-hosts.

load ../helpers/common

c_side() {
	"$IBNET_HOSTS" --rule "$1" "$2" 2>/dev/null || echo ERROR
}

@test "every hostname-rule vector passes on the C side" {
	run check_vectors c_side
	assert_success
}

@test "the paper's rule maps a Slurm hostlist: c1-[1-4] -> cib1-1..cib1-4" {
	run "$IBNET_HOSTS" --rule "$PAPER_RULE" 'c1-[1-4]'
	assert_success
	assert_output 'cib1-1,cib1-2,cib1-3,cib1-4'
}

@test "without a rule the default is s/\$/-ib/" {
	run "$IBNET_HOSTS" 'node[7-8]'
	assert_success
	assert_output 'node7-ib,node8-ib'
}

@test "hostlists: zero padding, several items, several brackets" {
	run "$IBNET_HOSTS" --expand 'node[001-003,010],c[1-2]-[1-2],login'
	assert_success
	assert_output 'node001,node002,node003,node010,c1-1,c1-2,c2-1,c2-2,login'
}

@test "hostlists: --separator" {
	run "$IBNET_HOSTS" --expand --separator ' ' 'n[1-3]'
	assert_output 'n1 n2 n3'
}

@test "a name the rule does not match is an error naming the rule and the node" {
	run "$IBNET_HOSTS" --rule "$PAPER_RULE" 'c1-1,login1'
	assert_failure
	assert_output --partial "does not match node name 'login1'"
	assert_output --partial "$PAPER_RULE"
}

@test "bad hostlists are refused with the expression named" {
	local bad
	for bad in 'c[1-' 'c]1' 'c[3-1]' 'c[a-b]' 'c[]' 'a,,b' 'a,' ',a' 'c[1-2]x[' 'bad host' 'x;rm'; do
		run "$IBNET_HOSTS" --expand "$bad"
		assert_failure
		assert_output --partial "hostlist"
	done
}

@test "a 10,000-node job gets its full list, no truncation" {
	run "$IBNET_HOSTS" --rule "$PAPER_RULE" 'c[1-100]-[1-100]'
	assert_success
	[ "$(tr ',' '\n' <<<"$output" | wc -l)" -eq 10000 ]
	[ "$(tr ',' '\n' <<<"$output" | sort -u | wc -l)" -eq 10000 ]
	assert_output --regexp '^cib1-1,cib1-2,.*,cib100-100$'
}

@test "absurd hostlists are refused instead of exhausting memory" {
	run "$IBNET_HOSTS" --expand 'n[1-99999999]'
	assert_failure
	assert_output --partial "more than"
	run "$IBNET_HOSTS" --expand 'n[1-2000]x[1-2000]'
	assert_failure
	assert_output --partial "more than"
}

@test "a file: table with a duplicate node or a bad line is refused with its line" {
	printf 'c1-1 cib1-1\nc1-1 cib1-9\n' > "$BATS_TEST_TMPDIR/dup.txt"
	run "$IBNET_HOSTS" --rule "file:$BATS_TEST_TMPDIR/dup.txt" c1-1
	assert_failure
	assert_output --partial "listed twice"
	printf 'c1-1 cib1-1\nc1-2\n' > "$BATS_TEST_TMPDIR/bad.txt"
	run "$IBNET_HOSTS" --rule "file:$BATS_TEST_TMPDIR/bad.txt" c1-1
	assert_failure
	assert_output --partial "line 2"
}
