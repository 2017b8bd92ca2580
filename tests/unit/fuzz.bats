#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# make fuzz as a smoke test: every libFuzzer harness (tests/fuzz) replays its
# regression inputs and fuzzes for a bounded time under ASan and UBSan; any
# crash, leak, sanitizer report or input slower than 5 s fails (1 s in the
# long run: here the suite may share 2 cores with two others, as CI runs it;
# trixie's ASan build once took over 1 s on a regression input that takes
# 0.15 s alone). The long run (a million inputs each) is in docs/reliability.md.

load ../helpers/common

@test "every fuzz harness runs clean for its smoke time" {
	needs clang
	[ -x "$BUILD/fuzz/fuzz_env" ] || make -C "$REPO" -s fuzz-build
	run timeout 600 "$REPO/tests/fuzz/run" --seconds "${FUZZ_SMOKE_SECONDS:-15}" --timeout 5
	echo "$output"
	assert_success
	[ "$(grep -c '^fuzz [a-z]*: [0-9]* inputs' <<<"$output")" -eq 6 ]
}

@test "the fuzz run fails when a harness finds something" {
	needs clang
	[ -x "$BUILD/fuzz/fuzz_env" ] || make -C "$REPO" -s fuzz-build
	# A harness binary that aborts on every input stands in for a finding.
	mkdir -p "$BATS_TEST_TMPDIR/fuzz"
	printf '#include <stdlib.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; abort(); }\n' \
		> "$BATS_TEST_TMPDIR/abort.c"
	clang -fsanitize=fuzzer -o "$BATS_TEST_TMPDIR/fuzz/fuzz_config" "$BATS_TEST_TMPDIR/abort.c"
	run env IBNET_BUILD_DIR="$BATS_TEST_TMPDIR" "$REPO/tests/fuzz/run" --seconds 5 config
	assert_failure
	assert_output --partial 'fuzz config: FAILED'
}
