#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Bounded work for any rule an admin types: what once crashed slurmstepd,
# hung it, or ate its memory is refused at parse time with a sentence, in
# --check as in the plugin. (Findings of issue 12: TRE bugs #50 and #53,
# nested repetitions, file: tables that are not files.)

load ../helpers/common

# The bounds below are CPU seconds (ulimit -t: SIGXCPU past them), which a
# loaded machine does not stretch; the wall-clock timeouts only catch a hang
# (a 2 s wall-clock limit once failed in CI beside two other suites on a
# run that used 0.01 s of CPU).

# refused RULE WHY: --check refuses RULE within 2 s of CPU (and 1 GB), naming why.
refused() {
	run bash -c "ulimit -v 1000000 -t 2; timeout 60 '$IBNET_HOSTS' --rule \"\$0\" --check" "$1"
	[ "$status" -eq 1 ] || { echo "status $status for $1: $output"; return 1; }
	assert_output --partial "$2"
}

@test "nested counted repetitions that overflowed the matcher's stack are refused" {
	refused 's/((a{50}){50}){50}/x/' 'a repeated group expands to more than 256 states'
	refused 's/(x{1,255}){1,255}/y/' 'a repeated group expands to more than 256 states'
	refused "s/$(printf '[a-z]{255}%.0s' $(seq 1 8))/x/" 'expand to more than 2000 states'
	refused 's/a{256}/x/' 'bad interval'
	refused 's/a{3,2}/x/' 'bad interval'
	refused 's/a{x}/y/' 'bad interval'
}

@test "stacked repetitions and signed intervals (TRE crashed in tre_compile: found by fuzz_rule) are refused" {
	refused 's/]{1,8}{1,+8}{1,8}5/x$1/' 'bad interval'
	refused 's/a{1,8}{1,8}/x/' 'two repetitions in a row'
	refused 's/a+?/x/' 'two repetitions in a row'
	refused 's/a{1,+8}/x/' 'bad interval'
	refused 's/a{ 8}/x/' "bad interval"
	run "$IBNET_HOSTS" --rule 's/(a{1,8}){1,8}/x/' aaaa
	assert_output 'x'
}

@test "repeated groups that glibc's regcomp compiles in cubic time and memory are refused (found by fuzz_rule)" {
	# Before: (a?){1,255} took 15 s, (a{0,8}){0,200} 4.8 s and 1 GB, in every srun and slurmstepd.
	refused 's/^(a?){1,255}/x/' 'a repeated group expands to more than 256 states'
	refused 's/^(a?){1,40}/x/' 'more than 32 groups once repetitions are expanded'
	refused 's/^(a{0,8}){0,200}/x/' 'a repeated group expands to more than 256 states'
	refused 's/^(a|b)(a?|b?){1,32}/x/' 'more than 32 groups'
	refused 's/^()(a?()){1,255}()/x/' 'a repeated group expands to more than 256 states'	# the fuzzer's input
	refused 's/^(a{0,15}|b{0,15}){0,64}/x/' 'a repeated group expands to more than 256 states'
	# At the bounds: accepted, and compiled and applied in well under a second.
	run bash -c "ulimit -t 2; timeout 60 '$IBNET_HOSTS' --rule 's/^(a?|b?|c?|d?|e?|f?|g?|h?){1,16}c/x/' c1-1"
	assert_success
	assert_output 'x1-1'
	run bash -c "ulimit -t 2; timeout 60 '$IBNET_HOSTS' --rule 's/^(a?|b?){1,32}c/x/' c1-1"
	assert_output 'x1-1'
}

@test "a group repeated without bound that can match empty and holds an alternation, on which glibc's regexec loops without end, is refused (found by fuzz_rule)" {
	# Before: each of these mapped "b" (or "ab") without end in ibnet-hosts,
	# srun and slurmstepd (glibc 2.36's regexec, asked for \1's place).
	refused 's/[[:alpha:]2,8}c.-]?(a|\||||.|||`|)*$/x\1/' 'a group repeated without bound (*, +, {m,}) can match the empty string and holds an alternation'	# the fuzzer's input, shortened
	refused 's/(a?|b|c?)*/x\1/' 'can match the empty string and holds an alternation'
	refused 's/(()|b|())+/x/' 'can match the empty string and holds an alternation'
	refused 's/((a?|b|c?){1,3}){2,}/x/' 'can match the empty string and holds an alternation'
	refused 's/(^|b)*/x/' 'can match the empty string and holds an alternation'
	# What stays: bounded repetitions, groups that take a character, groups
	# without an alternation; each maps at once.
	local rule
	for rule in 's/(a?|b|c?){1,3}/x\1/' 's/(x(a?|b|c?))*/y\1/' 's/(b*)*/x\1/' 's/(a|b)+/x\1/'; do
		run bash -c "ulimit -t 2; timeout 60 '$IBNET_HOSTS' --rule \"\$0\" b" "$rule"
		assert_success
	done
}

@test "back-references, which make TRE backtrack without end, are refused" {
	refused 's/(m|\2*[a])*^()/x/' 'back-references'
	refused 's/(\0|x)+/y/' 'back-references'
	refused 's/^(([a-z]+)*)+\2\1$/x/' 'back-references'
}

@test "an unmatched ')' after an escaped backslash (TRE bug #50: endless allocation) is refused" {
	refused 's/\\)/x/' "unmatched ')'"
	refused 's/a\\)/x/' "unmatched ')'"
	refused 's/(a/x/' "unmatched '('"
	refused 's/[a/x/' "'[' is not closed"
	refused 's/*a/x/' 'follows nothing'
	refused "s/$(printf 'a%.0s' $(seq 1 513))/x/" 'longer than 512'
}

@test "ordinary rules stay accepted, at their bounds too" {
	run "$IBNET_HOSTS" --rule 's/^c([0-9]{1,4}-[0-9]{1,4})$/cib\1/' 'c1-[1-2]'
	assert_output 'cib1-1,cib1-2'
	run "$IBNET_HOSTS" --rule 's/a{255}/x/' --check
	assert_success
	run "$IBNET_HOSTS" --rule 's/[[:alpha:]]+([0-9]+)/ib\1/' 'node7'
	assert_output 'ib7'
	run "$IBNET_HOSTS" --rule 's/a[]b]c/x/' 'abc'
	assert_output 'x'
	run "$IBNET_HOSTS" --rule 's/(a\\)/x/' --check
	assert_success
}

@test "file: tables that are not plain files, or empty, are refused instead of read without end" {
	local p
	for p in / /dev/zero; do
		run bash -c "ulimit -v 1000000 -t 2; timeout 60 '$IBNET_HOSTS' --rule 'file:$p' --check"
		assert_failure 1
		assert_output "spank-ibnet: ib_hostname=file:'$p': not a regular file"
	done
	# /proc files look regular; a read error is an error, not the end of the table.
	run bash -c "ulimit -v 1000000 -t 2; timeout 60 '$IBNET_HOSTS' --rule 'file:/proc/self/mem' --check"
	assert_failure 1
	assert_output "spank-ibnet: ib_hostname=file:'/proc/self/mem': read error: Input/output error"
	: > "$BATS_TEST_TMPDIR/empty"
	run "$IBNET_HOSTS" --rule "file:$BATS_TEST_TMPDIR/empty" --check
	assert_failure
	assert_output "spank-ibnet: ib_hostname=file:'$BATS_TEST_TMPDIR/empty' lists no node"
	{ printf 'c1-1 '; printf 'x%.0s' $(seq 1 1100); echo; } > "$BATS_TEST_TMPDIR/long"
	run "$IBNET_HOSTS" --rule "file:$BATS_TEST_TMPDIR/long" --check
	assert_failure
	assert_output --partial 'line 1: longer than 1024 characters'
}

@test "a control byte in a bad replacement escape is shown escaped, not raw" {
	run "$IBNET_HOSTS" --rule $'s/a/\\\x01/' --check
	assert_failure
	assert_output --partial "unknown escape '\\<0x01>'"
	[[ "$output" != *$'\x01'* ]]
}

# Instructions counted by callgrind: the same on a busy machine as on an idle one.
instructions() {
	valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
		sed -n 's/.*Collected : \([0-9]*\).*/\1/p'
}

@test "a bracket of 20,000 ranges costs what 20,000 hosts of one range cost (it was quadratic)" {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	local many one
	many=$(instructions "$IBNET_HOSTS" --expand "n[$(seq -s, 0 2 39998)]")
	one=$(instructions "$IBNET_HOSTS" --expand 'n[0-19999]')
	echo "many ranges: $many, one range: $one"
	[ "$many" -gt 0 ]
	[ "$one" -gt 0 ]
	[ "$many" -lt $((one * 3)) ]
}

# forged VAR=VALUE...: plan an ipoib step of a one-node job whose environment
# also holds VARs, within 1 s and 1 GB; prints the decision line and the hosts.
forged() {
	env -i PATH="$PATH" SLURM_JOB_NODELIST=c1-1 SLURM_JOB_NUM_NODES=1 "$@" bash -c '
		ulimit -v 1000000 -t 1
		timeout 30 "$0" --rule "s/^c(.*)/cib\1/" --env --transport=ipoib --iface ib0 2>&1 |
			grep -e "^spank-ibnet" -e SLURM_IBNET_HOSTS= | cut -c1-2000' "$IBNET_HOSTS"
}

@test "a user's own heterogeneous-job variables in a job that is not one are not taken: the job's nodes, in milliseconds, with a sentence" {
	# Issue 26, M2: 39 s and 1 GB per node in user_init expanding a forged list.
	run forged SLURM_HET_SIZE=1 'SLURM_JOB_NODELIST_HET_GROUP_0=n[0-999999]' SLURM_JOB_NUM_NODES_HET_GROUP_0=1000000
	assert_success
	assert_line --partial "SLURM_HET_SIZE='1' ignored: a heterogeneous job has 2 to 128 components"
	assert_line "export SLURM_IBNET_HOSTS='cib1-1'"
	# Two components, counts that claim a million nodes: over the cap of 65,536.
	run forged SLURM_HET_SIZE=2 SLURM_JOB_NODELIST_HET_GROUP_0=c1-1 SLURM_JOB_NUM_NODES_HET_GROUP_0=1 \
		'SLURM_JOB_NODELIST_HET_GROUP_1=n[0-999999]' SLURM_JOB_NUM_NODES_HET_GROUP_1=1000000
	assert_success
	assert_line --partial "SLURM_HET_SIZE ignored: SLURM_JOB_NUM_NODES_HET_GROUP_1 is not set to a count of nodes up to 65536"
	assert_line "export SLURM_IBNET_HOSTS='cib1-1'"
	# No count: the list alone is not Slurm's.
	run forged SLURM_HET_SIZE=2 SLURM_JOB_NODELIST_HET_GROUP_0=c1-1 SLURM_JOB_NUM_NODES_HET_GROUP_0=1 \
		'SLURM_JOB_NODELIST_HET_GROUP_1=n[0-999999]'
	assert_success
	assert_line --partial "SLURM_HET_SIZE ignored: SLURM_JOB_NUM_NODES_HET_GROUP_1 is not set"
	# Components none of which is the step's own SLURM_JOB_NODELIST.
	run forged SLURM_HET_SIZE=2 SLURM_JOB_NODELIST_HET_GROUP_0=c9-1 SLURM_JOB_NUM_NODES_HET_GROUP_0=1 \
		SLURM_JOB_NODELIST_HET_GROUP_1=c9-2 SLURM_JOB_NUM_NODES_HET_GROUP_1=1
	assert_success
	assert_line --partial "SLURM_HET_SIZE ignored: no component's SLURM_JOB_NODELIST_HET_GROUP_N is this job's SLURM_JOB_NODELIST"
	assert_line "export SLURM_IBNET_HOSTS='cib1-1'"
	# A heterogeneous job as Slurm writes it: every component's hosts.
	run forged SLURM_HET_SIZE=2 SLURM_JOB_NODELIST_HET_GROUP_0=c1-1 SLURM_JOB_NUM_NODES_HET_GROUP_0=1 \
		'SLURM_JOB_NODELIST_HET_GROUP_1=c1-[2-3]' SLURM_JOB_NUM_NODES_HET_GROUP_1=2
	assert_success
	assert_line "export SLURM_IBNET_HOSTS='cib1-1,cib1-2,cib1-3'"
	refute_output --partial ignored
}

@test "a job's list may name at most 65,536 hosts, whatever count it claims: refused in milliseconds with a sentence" {
	run env -i PATH="$PATH" 'SLURM_JOB_NODELIST=n[0-999999]' bash -c '
		ulimit -v 1000000 -t 1
		timeout 30 "$0" --env --transport=ipoib --iface ib0' "$IBNET_HOSTS"
	assert_failure 1
	assert_output "spank-ibnet: hostlist 'n[0-999999]' has more than 65536 hosts"
}

# managed N: plan an ipoib step whose SLURM_IBNET_MANAGED holds N entries of
# variables that were since unset, within 1 s; prints the decision line (stderr).
managed() {
	local value
	value=$(seq -f 'V%.0f:00000000' 0 $(($1 - 1)) | paste -sd,)
	env -i PATH="$PATH" SLURM_JOB_NODELIST=c1-1 SLURM_IBNET_MANAGED="$value" bash -c '
		ulimit -t 1
		timeout 30 "$0" --config "" --env --transport=ipoib --iface ib0 2>&1 >/dev/null' \
		"$IBNET_HOSTS"
}

@test "a huge SLURM_IBNET_MANAGED is not read, in milliseconds, with a sentence; every log line stays under 1 KiB" {
	# Issue 26, M3: 128 KB of it cost quadratic time and made a 1.2 MB line in slurmd.log.
	run managed 8500	# 126 KB, near the kernel's limit for one variable
	assert_success
	assert_output "spank-ibnet: transport=ipoib (--transport), alltoall=default (default), interface ib0; 14 environment changes; SLURM_IBNET_MANAGED not read: longer than 8192 bytes, which spank-ibnet never writes; what an earlier step set is left as it is"
	# Under the bound, each entry handed back says so, and the line is cut at 1 KiB with "...".
	run managed 580	# 8 KB
	assert_success
	[ "${#output}" -eq 1023 ]
	[[ "$output" == *'V0 was unset by the job after spank-ibnet set it'* ]]
	[[ "$output" == *'...' ]]
}
