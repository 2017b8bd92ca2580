#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The source tree says where each thing is decided (docs/architecture.md):
# the plugin (spank-ibnet/), the job's preload (alltoall/) and the rsocket
# gate (rsocket-gate/) share only what contract/ holds; a header's functions
# are in the source of the same name; every part of a step's plan is in the
# one list of ibnet_planner.h.

load ../helpers/common

# Our C files, outside the build directory.
c_files() {
	(cd "$REPO" && find spank-ibnet alltoall rsocket-gate contract tcp-floor-bpf tests \
		-path tests/cluster -prune -o -name '*.[ch]' -print | sort)
}

@test "no C file reaches into another folder with #include \"../" {
	run bash -c "cd '$REPO' && grep -n '#include \"\\.\\./' $(c_files | tr '\n' ' ')"
	echo "$output"
	assert_failure 1
	assert_output ''
}

# Each folder finds its own headers beside its sources and contract/'s by
# -I; contract/ includes only its own. So the plugin never includes the job
# libraries' headers, nor they the plugin's: what both read is in contract/.
@test "spank-ibnet/, alltoall/ and rsocket-gate/ include only their own headers and contract/'s" {
	local dir f name bad=0 n=0
	for dir in spank-ibnet alltoall rsocket-gate contract; do
		for f in "$REPO/$dir"/*.[ch]; do
			while read -r name; do
				n=$((n + 1))
				[ -e "$REPO/$dir/$name" ] && continue
				[ "$dir" != contract ] && [ -e "$REPO/contract/$name" ] && continue
				echo "$dir/${f##*/}: includes \"$name\", neither beside it nor in contract/"
				bad=$((bad + 1))
			done < <(sed -n 's/^#include "\([^"]*\)".*/\1/p' "$f")
		done
	done
	echo "$n includes, $bad outside"
	[ "$n" -gt 50 ] && [ "$bad" -eq 0 ]
}

# The build holds to it too: each side's objects are compiled with contract/
# on the include path and not the other side's folder, so an include across
# does not compile.
@test "the plugin, the job's preload and the gate are compiled with -Icontract and no other folder" {
	local obj
	for obj in pic/ibnet_config.o a2a/ibnet_tcp_floor.o pic/rsocket_gate.o; do
		run make -C "$REPO" -s -n B="$BATS_TEST_TMPDIR/b" "$BATS_TEST_TMPDIR/b/$obj"
		assert_success
		assert_output --partial ' -Icontract '
		refute_output --regexp '-I *(spank-ibnet|alltoall|rsocket-gate)'
	done
}

# A header's functions are defined in the source of the same name:
# ibnet_probe.h's in ibnet_probe.c, not elsewhere. What GCC records of each
# declaration and definition (-aux-info) across every source of the plugin,
# ibnet-hosts and the contract.
@test "every function a header of spank-ibnet/ or contract/ declares is defined in the source of its name" {
	local f aux=$BATS_TEST_TMPDIR/aux
	mkdir -p "$aux"
	for f in "$REPO"/spank-ibnet/*.c "$REPO"/contract/*.c; do
		(cd "$REPO" && cc -std=gnu11 -D_GNU_SOURCE -DIBNET_VERSION='"test"' -Icontract \
			-fsyntax-only -aux-info "$aux/${f##*/}.aux" "${f#"$REPO"/}") || return 1
	done
	run awk '
		# /* spank-ibnet/ibnet_probe.h:20:NC */ extern int ibnet_probe_x (...);
		match($0, /^\/\* [^:]+:[0-9]+:N[CF] \*\/ /) {
			split(substr($2, 1), loc, ":")
			kind = substr($2, length($2) - 1)
			rest = substr($0, RLENGTH + 1)
			if (rest ~ /^static /)
				next
			name = rest
			sub(/ \(.*/, "", name)
			sub(/.*[ *]/, "", name)
			if (kind == "NC" && loc[1] ~ /^(spank-ibnet|contract)\/.*\.h$/)
				declared[name] = loc[1]
			else if (kind == "NF")
				defined[name] = loc[1]
		}
		END {
			for (name in declared) {
				n++
				want = declared[name]
				sub(/\.h$/, ".c", want)
				if (defined[name] != want) {
					print name ": declared in " declared[name] ", defined in " \
						(defined[name] ? defined[name] : "no source")
					bad++
				}
			}
			print n " functions declared, " bad + 0 " elsewhere"
			exit bad > 0 || n < 100
		}' "$aux"/*.aux
	echo "$output"
	assert_success
}

# ibnet_planner.h lists every part of a step's plan, in the order
# ibnet_env_plan_build runs them, with the file that holds each.
@test "the planner's list names every part of a step's plan, in order, and where each is" {
	local listed called row name file
	listed=$(sed -n 's/^ \*   \(plan_[a-z_]*\|planner_[a-z_]*\) .*/\1/p' "$REPO/spank-ibnet/ibnet_planner.h")
	called=$(awk '/^int ibnet_env_plan_build\(/, /^}/' "$REPO/spank-ibnet/ibnet_env.c" |
		grep -o '\<\(plan_[a-z_]*\|planner_undo_previous\|planner_finish\)(' | tr -d '(')
	echo "listed: $(echo $listed)"
	echo "called: $(echo $called)"
	[ -n "$called" ]
	[ "$listed" = "$called" ]
	# Each row's file defines its part.
	while read -r row; do
		name=${row%% *} file=${row##* }
		grep -q "^[a-z].*[ *]$name(" "$REPO/spank-ibnet/$file" ||
			{ echo "$name: not defined in spank-ibnet/$file"; return 1; }
	done < <(sed -n 's/^ \*   \(plan_[a-z_]*\|planner_[a-z_]*\) .* \([a-z_]*\.c\)$/\1 \2/p' \
		"$REPO/spank-ibnet/ibnet_planner.h")
}
