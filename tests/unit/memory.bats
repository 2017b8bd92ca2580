#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The C decision layer under valgrind and under AddressSanitizer/UBSan: every
# path the plugin takes in slurmstepd (hostlists, rules, config errors, the
# env plan with undo of a previous step) must be free of leaks and errors.

load ../helpers/common

# check TOOL...: run every case under TOOL; fail on the first memory error.
check_cases() {
	local conf="ib_hostname=$PAPER_RULE rsgate=$RSGATE" previous
	: > "$BATS_TEST_TMPDIR/empty-table"
	# The environment of a batch step planned for rsocket, with user values,
	# so the cases also exercise the undo path.
	previous=$(env LD_PRELOAD=/opt/mine.so GAUSS_WDEF='c1-1:2,c1-2' \
		"$IBNET_HOSTS" --config "$conf" --env --iface ib0 --transport=rsocket --nodelist 'c1-[1-3]')
	one() {
		env LD_PRELOAD=/opt/mine.so GAUSS_WDEF='c1-1:2,c1-2' OMPI_MCA_btl_tcp_if_include=lo \
			bash -c 'eval "$1"; shift; exec "$@"' _ "$previous" "$@" \
			>/dev/null 2>"$BATS_TEST_TMPDIR/err" || true
		if grep -q -e 'ERROR SUMMARY: [1-9]' -e 'definitely lost: [1-9]' \
			-e 'indirectly lost: [1-9]' -e 'ERROR: AddressSanitizer' \
			-e 'ERROR: LeakSanitizer' -e 'runtime error:' "$BATS_TEST_TMPDIR/err"; then
			echo "memory error in: $*"
			cat "$BATS_TEST_TMPDIR/err"
			return 1
		fi
	}
	one "$@" --rule "$PAPER_RULE" 'c1-[1-4]' &&
	one "$@" --rule "file:$VECTORS/ib-table.txt" 'c1-[1-2],node9' &&
	one "$@" --rule "file:$VECTORS/ib-table.txt" c1-9 &&
	one "$@" --rule 's/(/x/' c1 &&
	one "$@" --rule 's/a/\2/' a &&
	one "$@" --rule 's/((a{50}){50}){50}/x/' a &&
	one "$@" --rule 's/^(([a-z]+)*)+\2\1$/x/' a &&
	one "$@" --rule 's/[a/x/' a &&
	one "$@" --rule "file:$BATS_TEST_TMPDIR/empty-table" a &&
	one "$@" --rule 'file:/' a &&
	one "$@" --expand 'node[001-010],c[1-2]-[1-3]' &&
	one "$@" --expand 'c[1-' &&
	one "$@" --expand 'n[1-99999999]' &&
	one "$@" --config 'default_transport=bogus' --check &&
	one "$@" --config 'transprot=tcp' --check &&
	one "$@" --config "allowed=tcp,ipoib rdma_device=mlx5_0:1 $conf" --check &&
	one "$@" --config "$conf" --env --iface ib0 --transport=rsocket --ordered-alltoall --nodelist 'c1-[1-3]' &&
	one "$@" --config "$conf rdma_device=mlx5_0:1" --env --iface ib0 --transport=rsocket --nodelist 'c[1-30]-[1-30]' &&
	one "$@" --config "$conf" --env --iface ib0 --transport=ipoib --nodelist 'c[1-300]-[1-100]' &&
	one "$@" --config "$conf" --env --iface ib0 --transport=ipoib --nodelist login1 &&
	one "$@" --config "$conf" --env --iface eth0 --transport=tcp --nodelist 'c1-[1-2]' &&
	one "$@" --config "$conf ib_iface=nosuch0,l?,lo" --env --transport=ipoib --nodelist c1-1 &&
	one "$@" --config "$conf ib_iface=nosuch0,nosuch*" --env --transport=ipoib --nodelist c1-1 &&
	one "$@" --config "$conf" --env --transport=none --ordered-alltoall &&
	one "$@" --config "$conf" --env
}

@test "valgrind: no memory errors and no leaks in any case" {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	run check_cases valgrind --leak-check=full --errors-for-leak-kinds=definite,indirect \
		"$IBNET_HOSTS"
	assert_success
}

@test "ASan/UBSan: no memory errors and no leaks in any case" {
	[ -x "$BUILD/asan/ibnet-hosts" ] || skip "run 'make asan' first"
	run check_cases "$BUILD/asan/ibnet-hosts"
	assert_success
}

@test "the checks can fail: valgrind reports a deliberate leak" {
	command -v valgrind >/dev/null || skip "valgrind not installed"
	printf '#include <stdlib.h>\nint main(void){ void *volatile p = malloc(64); p = 0; return p != 0; }\n' \
		> "$BATS_TEST_TMPDIR/leak.c"
	cc -g -O0 -o "$BATS_TEST_TMPDIR/leak" "$BATS_TEST_TMPDIR/leak.c"
	run bash -c "valgrind --leak-check=full '$BATS_TEST_TMPDIR/leak' 2>&1"
	assert_output --regexp 'definitely lost: [1-9]'
}

@test "the checks can fail: AddressSanitizer reports a deliberate leak" {
	printf '#include <stdlib.h>\nint main(void){ void *volatile p = malloc(64); p = 0; return p != 0; }\n' \
		> "$BATS_TEST_TMPDIR/leak.c"
	cc -g -fsanitize=address -o "$BATS_TEST_TMPDIR/leak" "$BATS_TEST_TMPDIR/leak.c"
	run "$BATS_TEST_TMPDIR/leak"
	assert_failure
	assert_output --partial 'ERROR: LeakSanitizer'
}
