#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench QUICK=1 as a smoke test: the outputs exist and parse, and the
# switch models behave as documented (drops only without flow control).
# Timings are not asserted: this machine is shared and noisy.

load ../helpers/common
load ../helpers/cluster

setup_file() {
	export BENCH_OUT=$BATS_FILE_TMPDIR/bench
	"$REPO/devel/ibnet-bench" --quick --out "$BENCH_OUT" > "$BATS_FILE_TMPDIR/bench.log" 2>&1 ||
		{ cat "$BATS_FILE_TMPDIR/bench.log" >&3; return 1; }
}

teardown_file() {
	cluster_down
}

@test "the bench shows progress and finishes" {
	run cat "$BATS_FILE_TMPDIR/bench.log"
	assert_line --regexp '^\[ *[0-9]+ [0-9:]+\] alltoall gige-lossy --transport=tcp default, 2 nodes x 1 \(round 1\)$'
	assert_line --regexp 'done: .*/benchmarks.md$'
}

@test "results.csv parses: every row complete, every workload present, numbers numeric" {
	run python3 - "$BENCH_OUT/bench/results.csv" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
assert len(rows) > 20, len(rows)
kinds = {r["bench"] for r in rows}
assert kinds == {"alltoall", "alltoall-paced-calls", "alltoall-fanin-check", "alltoall-nodes-check",
                 "pingpong", "linda", "linda-lossy", "srun-overhead", "hostmap"}, kinds
for r in rows:
    assert None not in r.values() and len(r) == 14, r
    assert float(r["median_s"]) > 0, r
    int(r["nodes"]); int(r["size_bytes"]); int(r["drops"])
a2a = {(r["scenario"], r["alltoall"]) for r in rows if r["bench"] == "alltoall"}
assert a2a == {(s, a) for s in ("gige-lossy", "gige-fc", "ipoib") for a in ("default", "pairwise", "paced")}, a2a
# The paced library served calls in every paced job of more than 2 ranks.
paced = [r for r in rows if r["bench"] == "alltoall" and r["alltoall"] == "paced" and int(r["ranks"]) > 2]
calls = [r for r in rows if r["bench"] == "alltoall-paced-calls"]
assert paced and len(calls) >= len({(r["scenario"], r["nodes"], r["ranks"]) for r in paced}), (len(calls), paced)
assert all(float(r["median_s"]) > 0 for r in calls), calls
# Two ranks per node ran too (4 x 2 on gige-lossy).
assert any(r["scenario"] == "gige-lossy" and int(r["ranks"]) == 2 * int(r["nodes"]) for r in paced)
assert {r["transport"] for r in rows if r["bench"] == "linda"} == {"tcp", "ipoib", "rsocket"}
# The fan-in rule paced every 4 KiB call on 4 x 2 (the bench itself fails otherwise).
fanin = [r for r in rows if r["bench"] == "alltoall-fanin-check"]
assert len(fanin) == 1 and int(fanin[0]["size_bytes"]) == 4096 and float(fanin[0]["median_s"]) >= int(fanin[0]["reps"]) > 0, fanin
# Asked for, 4 x 4 went node to node on every call, and right (the bench fails otherwise).
nodes = [r for r in rows if r["bench"] == "alltoall-nodes-check"]
assert len(nodes) == 1 and int(nodes[0]["ranks"]) == 16 and float(nodes[0]["median_s"]) >= int(nodes[0]["reps"]) > 0, nodes
# The Linda farm on gige-lossy, without and with the floor (which the bench saw applied).
lossy = [r for r in rows if r["bench"] == "linda-lossy"]
assert {r["alltoall"] for r in lossy} == {"tcp", "floor"}, lossy
assert all(int(r["timeouts"]) >= 0 for r in lossy), lossy
print("ok")
EOF
	assert_success
	assert_output ok
}

@test "the lossy switch drops packets in an all-to-all; the flow-controlled ones drop none" {
	run python3 - "$BENCH_OUT/bench/results.csv" <<'EOF'
import csv, sys
rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["bench"] == "alltoall"]
drops = lambda s: sum(int(r["drops"]) for r in rows if r["scenario"] == s)
print(drops("gige-lossy") > 0, drops("gige-fc"), drops("ipoib"))
EOF
	assert_output 'True 0 0'
}

@test "benchmarks.md has the papers' tables and the plugin's cost, and says what is simulated" {
	run cat "$BENCH_OUT/benchmarks.md"
	assert_line --partial 'QUICK smoke run'
	assert_output --partial '**The networks are simulated**'
	assert_line '| N x ranks | S | bound | default | pairwise | paced | paced/bound | paced/default | drops (default, pairwise, paced) |'
	assert_line --regexp '^\| 4 x 1 \| 64 KiB \| [0-9.]+ ms \| '
	assert_line --regexp '^\| 4 x 2 \| 64 KiB \| [0-9.]+ ms \| '
	assert_output --regexp 'paced library reported its own calls .*: [1-9][0-9]* `MPI_Alltoall` calls' 
	assert_line --regexp '^\| tcp \(gige-fc\) \| '
	assert_line --regexp '^\| 2 \| [0-9.]+ (ms|s) \| [0-9.]+ \| '
	assert_output --regexp 'Ratio of medians: [0-9.]+'
	assert_output --partial 'congestion control is CUBIC'
	assert_line --regexp '^\| `--transport=tcp --tcp-rto-min` \| [0-9.]+ (ms|s) '
	assert_output --regexp '10,000 hosts.*median [0-9.]+ ms'
}

@test "the plots are real PNG images" {
	run python3 - "$BENCH_OUT"/bench/{alltoall-gige-lossy,alltoall-gige-fc,alltoall-ipoib,linda-speedup}.png <<'EOF'
import struct, sys
for path in sys.argv[1:]:
    head = open(path, "rb").read(24)
    assert head[:8] == b"\x89PNG\r\n\x1a\n", path
    print(path.rsplit("/", 1)[1], struct.unpack(">II", head[16:24]))
EOF
	assert_success
	assert_line 'alltoall-gige-lossy.png (800, 500)'
	assert_line 'linda-speedup.png (800, 500)'
}
