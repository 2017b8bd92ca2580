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
