# SPDX-License-Identifier: GPL-2.0-or-later
# Shared by every bats file: paths, and bats-support/bats-assert.
REPO=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
BUILD=${IBNET_BUILD_DIR:-$REPO/build}
IBNET_HOSTS=$BUILD/ibnet-hosts
VECTORS=$REPO/tests/vectors
RSPRELOAD=$(for p in /usr/lib/x86_64-linux-gnu/rsocket/librspreload.so \
	/usr/lib64/rsocket/librspreload.so; do [ -e "$p" ] && echo "$p" && break; done)
RSGATE=$BUILD/libibnet-rsgate.so
PAPER_RULE='s/^c([0-9]+-[0-9]+)$/cib\1/'

load /usr/lib/bats/bats-support/load
load /usr/lib/bats/bats-assert/load

# check_vectors FN: every vector of tests/vectors/hostname-rules.tsv through
# "FN RULE NODE", which prints the IB name or ERROR; prints the mismatches
# and fails on any.
check_vectors() {
	local fn=$1 failures=0 n=0 rule node want got
	while IFS=$'\t' read -r rule node want; do
		case $rule in ''|'#'*) continue ;; esac
		rule=${rule//@VECTORS@/$VECTORS}
		n=$((n + 1))
		got=$("$fn" "$rule" "$node")
		if [ "$got" != "$want" ]; then
			echo "$fn: rule '$rule' node '$node': want '$want', got '$got'"
			failures=$((failures + 1))
		fi
	done < "$VECTORS/hostname-rules.tsv"
	[ "$n" -ge 35 ] && [ "$failures" -eq 0 ]
}

# plan VAR=VALUE... -- ARGS: print the job env after applying the plan of
# "ibnet-hosts --config \"$CONF\" --env ARGS" to a clean environment plus VARs.
# The node's interface is given (--iface) as the probe would find it on a
# cluster node: eth0 for tcp, ib0 otherwise; tests/unit/probe.bats tests
# the probe itself.
plan() {
	local -a vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	case " $* " in
	*" --transport=tcp "*) set -- --iface eth0 "$@" ;;
	*" --transport="*) set -- --iface ib0 "$@" ;;
	esac
	env -i PATH="$PATH" "${vars[@]}" bash -c '
		set -e
		p=$("$0" "$@")
		eval "$p"
		env | grep -v -e ^PATH= -e ^PWD= -e ^SHLVL= -e ^_= | sort' \
		"$IBNET_HOSTS" --config "$CONF" --env "$@"
}

# copy_sources DIR: the work tree's sources into DIR (made if need be), without
# its build/, .git and test cluster, for a test that builds or edits a copy.
copy_sources() {
	mkdir -p "$1"
	tar -C "$REPO" --exclude=./build --exclude=./.git --exclude=./.cluster -cf - . | tar -C "$1" -xf -
}

# needs PART...: this test runs what the test builds make for PART: openmpi,
# mpich (that MPI's programs and paced test build), clang (the fuzz
# harnesses). Where the build left PART out (mk/optional.mk decides, and
# make says so once), $BUILD/tests/left-out names it with the reason: the
# test is skipped with that reason, or fails where every part is expected:
# IBNET_REQUIRE_ALL=1, or CI=true with IBNET_REQUIRE_ALL unset (make's rule).
needs() {
	local part why require=${IBNET_REQUIRE_ALL-}
	[ -n "${IBNET_REQUIRE_ALL+set}" ] || [ "${CI:-}" != true ] || require=1
	for part in "$@"; do
		why=$(sed -n "s/^$part: //p" "$BUILD/tests/left-out" 2>/dev/null)
		[ -n "$why" ] || continue
		if [ "$require" = 1 ]; then
			fail "the test builds left out $part ($why); CI=true or IBNET_REQUIRE_ALL=1 requires it"
		fi
		skip "the test builds left out $part ($why)"
	done
}
