#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The rsocket gate against the real librspreload of rdma-core.
# No RDMA device exists here: librspreload's rsocket() fails and it falls
# back to kernel TCP, so traffic still flows; what is tested is that
# programs run, and which of them go through librspreload at all.

load ../helpers/common

setup() {
	[ -n "$RSPRELOAD" ] || skip "librspreload is not installed"
	PRE="$RSGATE:$RSPRELOAD"
}

# The bug is librspreload's (still there in rdma-core 65); which programs
# meet it depends on them: bash up to 5.2 (Debian 12 and 13) calls
# getpeername(0) before any other socket call at start-up, bash 5.3
# (Debian forky) no longer does. A program that does so always dies.
@test "the librspreload bug is real: a program whose first socket call is getpeername() dies with SIGSEGV, bash before 5.3 among them" {
	printf '#include <sys/socket.h>\nint main(void) { struct sockaddr sa; socklen_t n = sizeof(sa); getpeername(0, &sa, &n); return 0; }\n' \
		> "$BATS_TEST_TMPDIR/peer.c"
	cc -o "$BATS_TEST_TMPDIR/peer" "$BATS_TEST_TMPDIR/peer.c"
	run env LD_PRELOAD="$RSPRELOAD" "$BATS_TEST_TMPDIR/peer"
	[ "$status" -eq 139 ]
	run env LD_PRELOAD="$PRE" "$BATS_TEST_TMPDIR/peer"
	assert_success
	if [ "${BASH_VERSINFO[0]}" -lt 5 ] || { [ "${BASH_VERSINFO[0]}" -eq 5 ] && [ "${BASH_VERSINFO[1]}" -lt 3 ]; }; then
		run env LD_PRELOAD="$RSPRELOAD" bash -c 'echo hi'
		[ "$status" -eq 139 ]
	fi
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

@test "SLURM_IBNET_RSOCKET_DEBUG=0 (or empty, no, off, false) keeps the gate quiet; 1 prints its decision" {
	local v
	for v in 0 '' no off false; do
		run env SLURM_IBNET_RSOCKET_DEBUG="$v" LD_PRELOAD="$PRE" bash -c 'echo ran'
		assert_output 'ran'
	done
	run env SLURM_IBNET_RSOCKET_DEBUG=1 LD_PRELOAD="$PRE" bash -c 'echo ran'
	assert_line 'spank-ibnet rsgate: bash: kernel sockets'
	assert_line 'ran'
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

# Which librspreload code does a program's select() run? gdb breakpoints on
# librdmacm's rpoll() (librspreload's own select runs it) and on every poll()
# (the gate serves a chosen program's select through librspreload's poll).
# Every stop prints its frame and goes on: gdb 18 (Debian forky) also sets
# "break poll" in the gate's own poll(), which a chosen program's select()
# reaches first, and a batch gdb ends at its first stop.
select_under_gdb() {
	local py
	py=$(python3 -c 'import sys; print(sys.executable)')
	printf 'set breakpoint pending on\nbreak %s\ncommands\nsilent\nframe\ncontinue\nend\nrun\n' "$2" \
		> "$BATS_TEST_TMPDIR/gdb-cmds"
	timeout 60 gdb -q -batch -x "$BATS_TEST_TMPDIR/gdb-cmds" \
		--args env SLURM_IBNET_RSOCKET_PROGRAMS="$1" LD_PRELOAD="$PRE" "$py" -c \
		'import os, select; r, w = os.pipe(); select.select([r], [], [], 0.1); print("select returned")' 2>&1
}

@test "a program not chosen never runs librspreload's code (its rpoll hung mpirun at exit)" {
	command -v gdb >/dev/null || skip "gdb not installed"
	run select_under_gdb '*.exel' rpoll
	assert_output --partial 'select returned'
	refute_output --partial 'in rpoll ()'
	run select_under_gdb '*.exel' poll
	assert_output --partial 'select returned'
	refute_output --partial "poll () from $RSPRELOAD"
	# The breakpoints work: a chosen program's select reaches librspreload.
	run select_under_gdb 'python*' poll
	assert_output --partial "in poll () from $RSPRELOAD"
}

@test "librspreload 44's select: a chosen program's select() goes through its poll() and is right" {
	# rdma-core 44 has no accept4 in librspreload; 63, which fixed select, does.
	! nm -D --defined-only "$RSPRELOAD" | grep -qw accept4 || skip "this librspreload has a fixed select"
	run env SLURM_IBNET_RSOCKET_PROGRAMS='python*' SLURM_IBNET_RSOCKET_DEBUG=1 LD_PRELOAD="$PRE" \
		timeout 20 python3 -c '
import os, select, socket
a, b = socket.socketpair(); c, d = socket.socketpair()
r1, w1 = os.pipe()
d.send(b"x")                                     # only c is readable
r, w, x = select.select([a, c, r1], [b], [], 1)
print("readable", [s is c for s in r], "writable", len(w))
r, w, x = select.select([a, r1], [], [], 0.05)   # nothing ready: timeout
print("timeout", r == [] and w == [])
os.close(r1)
try:
    select.select([r1], [], [], 0)
except OSError as e:
    print("closed", e.errno == 9)'
	assert_success
	assert_line --partial 'sockets through librspreload, select() through its poll()'
	assert_line 'readable [True] writable 1'
	assert_line 'timeout True'
	assert_line 'closed True'
}

@test "a chosen program's select() with a huge timeout waits the longest poll() can, never forever (it wrapped negative)" {
	command -v gdb >/dev/null || skip "gdb not installed"
	! nm -D --defined-only "$RSPRELOAD" | grep -qw accept4 || skip "this librspreload has a fixed select"
	local py
	py=$(python3 -c 'import sys; print(sys.executable)')
	# Linux's select carries tv_usec's whole seconds over: 2,000,000 s plus 200,000 s.
	# The gate's poll() gets the timeout at librspreload's poll: print it, then stop.
	run timeout 60 gdb -q -batch -ex 'set breakpoint pending on' -ex 'break poll' -ex run \
		-ex 'print (int)$rdx' -ex kill --args env SLURM_IBNET_RSOCKET_PROGRAMS='python*' \
		LD_PRELOAD="$PRE" "$py" -c '
import ctypes, os
class timeval(ctypes.Structure):
    _fields_ = [("sec", ctypes.c_long), ("usec", ctypes.c_long)]
r, w = os.pipe()
bits = ctypes.c_ulong(1 << r)
ctypes.CDLL(None).select(r + 1, ctypes.byref(bits), None, None,
                         ctypes.byref(timeval(2000000, 200000000000)))'
	assert_output --partial "in poll () from $RSPRELOAD"
	assert_line '$1 = 2147483647'
}

@test "a chosen bash runs: the gate fills librspreload's table before main()" {
	run env SLURM_IBNET_RSOCKET_PROGRAMS=bash SLURM_IBNET_RSOCKET_DEBUG=1 LD_PRELOAD="$PRE" \
		bash -c 'echo hi'
	assert_success
	assert_line --regexp '^spank-ibnet rsgate: bash: sockets through librspreload(, select\(\) through its poll\(\))?$'
	assert_line hi
}

@test "the gate defines every call librspreload replaces, so none slips past it" {
	run bash -c "comm -23 <(nm -D --defined-only '$RSPRELOAD' | awk '\$2 == \"T\" { print \$3 }' | sort) \
		<(nm -D --defined-only '$RSGATE' | awk '\$2 == \"T\" { print \$3 }' | sort)"
	assert_success
	assert_output ''
	[ "$(nm -D --defined-only "$RSPRELOAD" | awk '$2 == "T"' | wc -l)" -ge 20 ]
}

@test "the gate defines every call of every librspreload release, up to rdma-core master" {
	# librdmacm/librspreload.map of rdma-core master (July 2026): v44's 26,
	# v63's accept4 dup fcntl64 sendfile64, and master's epoll calls.
	local upstream="accept accept4 bind close connect dup dup2 fcntl fcntl64 getpeername
		getsockname getsockopt listen poll read readv recv recvfrom recvmsg select send
		sendfile sendfile64 sendmsg sendto setsockopt shutdown socket write writev
		epoll_create epoll_create1 epoll_ctl epoll_wait"
	run bash -c "comm -23 <(tr -s ' \t\n' '\n' <<<'$upstream' | grep . | sort) \
		<(nm -D --defined-only '$RSGATE' | awk '\$2 == \"T\" { print \$3 }' | sort)"
	assert_success
	assert_output ''
}

@test "a librspreload exporting a call the gate does not know is refused with a sentence" {
	printf '%s\n' '#include <sys/socket.h>' \
		'int socket(int d, int t, int p) { (void)d; (void)t; (void)p; return -1; }' \
		'int sendmmsg(int s, void *m, unsigned n, int f) { (void)s; (void)m; (void)n; (void)f; return -1; }' \
		> "$BATS_TEST_TMPDIR/standin.c"
	cc -shared -fPIC -o "$BATS_TEST_TMPDIR/librspreload.so" "$BATS_TEST_TMPDIR/standin.c"
	run "$IBNET_HOSTS" --config "rspreload=$BATS_TEST_TMPDIR/librspreload.so rsgate=$RSGATE" --probe
	assert_failure
	assert_output "spank-ibnet: --transport=rsocket refused on this node: its librspreload ($BATS_TEST_TMPDIR/librspreload.so) replaces sendmmsg, which this spank-ibnet's rsocket gate does not know, so every program of the job would run librspreload's code there; update spank-ibnet, or use --transport=ipoib"
	# The real one passes, and a file that is no library is refused too.
	run "$IBNET_HOSTS" --config "rspreload=$RSPRELOAD rsgate=$RSGATE" --probe
	assert_success
	run "$IBNET_HOSTS" --config "rspreload=/etc/hostname rsgate=$RSGATE" --probe
	assert_failure
	assert_output --partial 'cannot read the exported calls of /etc/hostname'
}

@test "setuid programs: glibc drops the preload (secure mode), so the gate never runs in them" {
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	printf '%s\n' '#include <stdio.h>' '#include <string.h>' '#include <unistd.h>' \
		'int main(void) { char l[512]; int p = 0; FILE *f = fopen("/proc/self/maps", "r");' \
		'  while (f && fgets(l, sizeof l, f)) p |= strstr(l, "rsgate") || strstr(l, "librspreload");' \
		'  printf("euid=%d preloaded=%d\n", (int)geteuid(), p); return 0; }' > "$BATS_TEST_TMPDIR/suid.c"
	# A directory nobody can reach (bats' own is private), removed at the end.
	SUID_DIR=$(mktemp -d /tmp/ibnet-suid.XXXXXX)
	chmod 755 "$SUID_DIR"
	cc -o "$SUID_DIR/suid" "$BATS_TEST_TMPDIR/suid.c"
	chmod 4755 "$SUID_DIR/suid"
	run runuser -u nobody -- env LD_PRELOAD="$PRE" "$SUID_DIR/suid"
	rm -rf "$SUID_DIR"
	[ "$output" != "euid=65534 preloaded=1" ] || skip "setuid has no effect here (nosuid mount)"
	assert_output 'euid=0 preloaded=0'
	# The same preload in an ordinary program of the same user is loaded.
	run runuser -u nobody -- env LD_PRELOAD="$PRE" bash -c 'grep -c rsgate /proc/$$/maps'
	[ "$output" -ge 1 ]
}

@test "no SLURM_IBNET_* value ever puts a user's path in LD_PRELOAD or makes the gate load one" {
	local conf="ib_hostname=$PAPER_RULE rsgate=$RSGATE" evil=$BATS_TEST_TMPDIR/evil.so
	: > "$evil"
	run env -i PATH="$PATH" SLURM_IBNET_RSOCKET_PROGRAMS="$evil" SLURM_IBNET_ORIG_LD_PRELOAD="$evil" \
		SLURM_IBNET_MANAGED="LD_PRELOAD:-,SLURM_IBNET_RSGATE:00000000" SLURM_IBNET_RSGATE="$evil" \
		SLURM_IBNET_HOSTS="$evil" GAUSS_WDEF=c1-1 \
		"$IBNET_HOSTS" --config "$conf" --env --iface ib0 --transport=rsocket --nodelist c1-1
	assert_success
	refute_line --regexp "^export LD_PRELOAD=.*evil"
	# LD_PRELOAD was taken over by the (forged) bookkeeping: left alone, never set to evil.
	run env -i PATH="$PATH" SLURM_IBNET_ORIG_LD_PRELOAD="$evil" \
		"$IBNET_HOSTS" --config "$conf" --env --iface ib0 --transport=rsocket --nodelist c1-1
	assert_line "export LD_PRELOAD='$RSGATE:$RSPRELOAD'"
	# The gate reads only patterns from the job: a path there is a pattern that matches nothing.
	run env SLURM_IBNET_RSOCKET_PROGRAMS="$evil" SLURM_IBNET_RSOCKET_DEBUG=1 LD_PRELOAD="$PRE" \
		bash -c 'grep -c evil /proc/$$/maps'
	assert_output --partial 'bash: kernel sockets'
	assert_line 0
}
