#!/usr/bin/env bats
# The rsocket gate against the real librspreload of rdma-core.
# No RDMA device exists here: librspreload's rsocket() fails and it falls
# back to kernel TCP, so traffic still flows; what is tested is that
# programs run, and which of them go through librspreload at all.

load ../helpers/common

setup() {
	[ -n "$RSPRELOAD" ] || skip "librspreload is not installed"
	PRE="$RSGATE:$RSPRELOAD"
}

@test "the librspreload bug is real: bash alone under it dies with SIGSEGV" {
	run env LD_PRELOAD="$RSPRELOAD" bash -c 'echo hi'
	[ "$status" -eq 139 ]
}

@test "with the gate before it, bash runs" {
	run env LD_PRELOAD="$PRE" bash -c 'echo hi; grep -c librspreload /proc/$$/maps'
	assert_success
	assert_line hi
	[ "${lines[1]}" -ge 1 ]
}

@test "with the gate, python3 runs and opens a TCP socket" {
	run env LD_PRELOAD="$PRE" python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
s.bind(("127.0.0.1", 0)); s.listen(1)
print("port", s.getsockname()[1] > 0)
print("mapped", "librspreload" in open("/proc/self/maps").read())'
	assert_success
	assert_line 'port True'
	assert_line 'mapped True'
}

@test "iperf3 through librspreload (fallback to TCP) moves its bytes" {
	command -v iperf3 >/dev/null || skip "iperf3 not installed"
	local port=$((20000 + RANDOM % 20000))
	SLURM_IBNET_RSOCKET_PROGRAMS=iperf3 LD_PRELOAD="$PRE" \
		timeout 20 iperf3 -s -1 -B 127.0.0.1 -p "$port" >/dev/null 2>&1 &
	local server=$!
	sleep 0.5
	run env SLURM_IBNET_RSOCKET_PROGRAMS=iperf3 SLURM_IBNET_RSOCKET_DEBUG=1 LD_PRELOAD="$PRE" \
		timeout 20 iperf3 -c 127.0.0.1 -p "$port" -t 1 -J
	wait "$server" || true
	assert_success
	assert_output --partial 'spank-ibnet rsgate: iperf3: sockets through librspreload'
	local bytes
	bytes=$(sed -n '/"sum_received"/,/}/p' <<<"$output" | grep -m1 '"bytes"' | tr -dc 0-9)
	[ "$bytes" -gt 1000000 ]
}

@test "only the chosen programs go through librspreload; the rest get kernel sockets" {
	run env SLURM_IBNET_RSOCKET_DEBUG=1 LD_PRELOAD="$PRE" bash -c 'true'
	assert_output --partial 'bash: kernel sockets'
	run env SLURM_IBNET_RSOCKET_DEBUG=1 SLURM_IBNET_RSOCKET_PROGRAMS='*.exel,bas?' \
		LD_PRELOAD="$PRE" bash -c 'true'
	assert_output --partial 'bash: sockets through librspreload'
	run env SLURM_IBNET_RSOCKET_DEBUG=1 SLURM_IBNET_RSOCKET_PROGRAMS='*' \
		LD_PRELOAD="$PRE" sh -c 'true'
	assert_output --partial 'sh: sockets through librspreload'
}

# Where does a program's select() go? A breakpoint on librdmacm's rpoll()
# (librspreload's select runs it) says whether librspreload's code runs.
select_reaches_rpoll() {
	local py
	py=$(python3 -c 'import sys; print(sys.executable)')
	timeout 60 gdb -q -batch -ex 'set breakpoint pending on' -ex 'break rpoll' -ex run \
		--args env SLURM_IBNET_RSOCKET_PROGRAMS="$1" LD_PRELOAD="$PRE" "$py" -c \
		'import os, select; r, w = os.pipe(); select.select([r], [], [], 0.1); print("select returned")' 2>&1
}

@test "a program not chosen never runs librspreload's code (its rpoll hung mpirun at exit)" {
	command -v gdb >/dev/null || skip "gdb not installed"
	run select_reaches_rpoll '*.exel'
	assert_output --partial 'select returned'
	refute_output --partial 'in rpoll ()'
	run select_reaches_rpoll 'python*'
	assert_output --partial 'in rpoll ()'
}

@test "a chosen bash runs: the gate fills librspreload's table before main()" {
	run env SLURM_IBNET_RSOCKET_PROGRAMS=bash SLURM_IBNET_RSOCKET_DEBUG=1 LD_PRELOAD="$PRE" \
		bash -c 'echo hi'
	assert_success
	assert_line 'spank-ibnet rsgate: bash: sockets through librspreload'
	assert_line hi
}

@test "the gate defines every call librspreload replaces, so none slips past it" {
	run bash -c "comm -23 <(nm -D --defined-only '$RSPRELOAD' | awk '\$2 == \"T\" { print \$3 }' | sort) \
		<(nm -D --defined-only '$RSGATE' | awk '\$2 == \"T\" { print \$3 }' | sort)"
	assert_success
	assert_output ''
	[ "$(nm -D --defined-only "$RSPRELOAD" | awk '$2 == "T"' | wc -l)" -ge 20 ]
}
