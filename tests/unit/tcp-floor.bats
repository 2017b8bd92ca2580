#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The TCP retransmission floor without Slurm: what the plugin plans
# (ibnet-hosts --env runs the plugin's own code, its kernel probe included)
# and what the preload does to real sockets on this machine's kernel.
# tests/cluster/38-tcp-floor.bats checks connections between test nodes.

load ../helpers/common
load ../helpers/floor-spread

A2A=$BUILD/libibnet-alltoall.so
HIDE=$BUILD/tests/libhide-rto-min.so

setup() {
	CONF="ib_hostname=$PAPER_RULE rsgate=$RSGATE alltoall_lib=$A2A"
	# Linux 6.15 and later: the machine's kernel must have the option for the
	# tests that expect a floor (the hidden-kernel test covers the rest).
	python3 -c 'import socket; s = socket.socket(); s.setsockopt(6, 45, 10000)' 2>/dev/null ||
		skip "this kernel has no TCP_RTO_MIN_US (Linux 6.15 or later)"
}

# rto PRELOAD-ENV...: tcpi_rto (us) of both ends of a loopback connection.
rto() {
	env "$@" python3 -c '
import socket, struct
l = socket.socket(); l.bind(("127.0.0.1", 0)); l.listen(1)
c = socket.create_connection(l.getsockname()); s, _ = l.accept()
rto = lambda x: struct.unpack_from("I", x.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, 104), 8)[0]
print("client=%d accepted=%d" % (rto(c), rto(s)))'
}

@test "the preload gives every TCP socket the floor in SLURM_IBNET_TCP_RTO_MIN_US, accepted ones too; without it Linux's 200 ms stays" {
	run rto LD_PRELOAD="$A2A" SLURM_IBNET_TCP_RTO_MIN_US=12000 SLURM_IBNET_ALLTOALL_REPORT=1
	assert_success
	[[ "$output" =~ client=([0-9]+)\ accepted=([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" -lt 50000 ]
	[ "${BASH_REMATCH[2]}" -lt 50000 ]
	assert_output --regexp 'spank-ibnet tcp: pid [0-9]+: 2 TCP sockets given a 12000 us retransmission floor'
	# Preloaded but not asked (SLURM_IBNET_TCP_RTO_MIN_US unset): inert.
	run rto LD_PRELOAD="$A2A" SLURM_IBNET_ALLTOALL_REPORT=1
	assert_success
	[[ "$output" =~ client=([0-9]+)\ accepted=([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" -ge 200000 ]
	[ "${BASH_REMATCH[2]}" -ge 200000 ]
	refute_output --partial 'spank-ibnet tcp'
	# SLURM_IBNET_ALLTOALL_REPORT read as every yes/no variable is (ibnet_flag_on):
	# off, no, false, 0 and empty keep the floor's report quiet too.
	local off
	for off in off no false FALSE 0 ''; do
		run rto LD_PRELOAD="$A2A" SLURM_IBNET_TCP_RTO_MIN_US=12000 SLURM_IBNET_ALLTOALL_REPORT="$off"
		assert_success
		refute_output --partial 'spank-ibnet tcp'
	done
	run rto LD_PRELOAD="$A2A" SLURM_IBNET_TCP_RTO_MIN_US=12000 SLURM_IBNET_ALLTOALL_REPORT=yes
	assert_output --regexp 'spank-ibnet tcp: pid [0-9]+: 2 TCP sockets given'
	run rto LD_PRELOAD="$A2A" SLURM_IBNET_TCP_RTO_MIN_US=fast
	assert_output --partial "spank-ibnet tcp: SLURM_IBNET_TCP_RTO_MIN_US: 'fast' is not a number of microseconds (1000 to 200000); no retransmission floor"
	[[ "$output" =~ client=([0-9]+) ]] && [ "${BASH_REMATCH[1]}" -ge 200000 ]
}

@test "--ordered-alltoall brings the floor the kernel takes; a job that asks for nothing gets nothing" {
	run plan -- --transport=tcp --ordered-alltoall --nodelist 'c1-[1-2]'
	assert_success
	assert_line "LD_PRELOAD=$A2A"
	# 10 ms asked; the kernel reads back whole jiffies (12 ms at HZ=250).
	assert_line --regexp '^SLURM_IBNET_TCP_RTO_MIN_US=1[0-9]000$'
	assert_output --regexp 'TCP retransmission floor 1[0-9]000 us \(--ordered-alltoall\)'
	run plan --
	assert_success
	assert_output --partial 'environment untouched'
	refute_output --partial 'SLURM_IBNET'
	refute_output --partial 'LD_PRELOAD'
}

@test "--tcp-rto-min alone (Linda over tcp): the floor without the paced all-to-all, recorded for later steps; off turns it off" {
	run plan -- --transport=tcp --tcp-rto-min=20ms --nodelist 'c1-[1-2]'
	assert_success
	assert_line 'SLURM_IBNET_TCP_RTO_MIN=20ms'
	assert_line 'SLURM_IBNET_TCP_RTO_MIN_US=20000'
	assert_line 'SLURM_IBNET_ALLTOALL=default'
	assert_line "LD_PRELOAD=$A2A"
	refute_output --partial 'SLURM_IBNET_ALLTOALL_WINDOW'
	run plan -- --tcp-rto-min
	assert_line --regexp '^SLURM_IBNET_TCP_RTO_MIN=10ms$'
	run plan -- --ordered-alltoall --tcp-rto-min=off
	assert_line 'SLURM_IBNET_TCP_RTO_MIN=off'
	refute_output --partial 'SLURM_IBNET_TCP_RTO_MIN_US'
	# Below the kernel's 2 jiffies (8 ms at HZ=250) the probe raises it to what
	# the kernel takes; the kernel refuses 1 ms itself.
	run plan -- --transport=tcp --tcp-rto-min=1ms
	assert_success
	assert_line --regexp '^SLURM_IBNET_TCP_RTO_MIN_US=[0-9]+$'
	local got
	got=$(sed -n 's/^SLURM_IBNET_TCP_RTO_MIN_US=//p' <<<"$output")
	[ "$got" -ge 2000 ]
	[ "$got" -le 20000 ]
	refute_output --partial 'no TCP retransmission floor'
	# The job's variable is its default, like --transport's.
	run plan SLURM_IBNET_TCP_RTO_MIN=30 -- --transport=tcp
	assert_line 'SLURM_IBNET_TCP_RTO_MIN_US=32000'
}

@test "the floor is bounded: 1 ms to 200 ms; bad values are refused naming option and value; a site can switch it off or make it a transport's default" {
	run "$IBNET_HOSTS" --config "$CONF" --env --tcp-rto-min=300ms
	assert_failure
	assert_output "spank-ibnet: --tcp-rto-min: '300ms' is not a retransmission floor (1ms to 200ms, such as 10ms or 8000us, or off)"
	run plan SLURM_IBNET_TCP_RTO_MIN=soon -- --transport=tcp
	assert_failure
	assert_output --partial "SLURM_IBNET_TCP_RTO_MIN: 'soon' is not a retransmission floor"
	run "$IBNET_HOSTS" --config "tcp_rto_min=0" --check
	assert_failure
	assert_output --partial "plugstack.conf: tcp_rto_min: '0' is not a retransmission floor"
	CONF="$CONF tcp_rto_min=off"
	run plan -- --tcp-rto-min
	assert_failure
	assert_output --partial '--tcp-rto-min: this site has switched the TCP retransmission floor off (plugstack.conf tcp_rto_min=off)'
	run plan -- --transport=tcp --ordered-alltoall
	assert_success
	refute_output --partial 'SLURM_IBNET_TCP_RTO_MIN_US'
	assert_output --partial 'no TCP retransmission floor: the site has it off (tcp_rto_min=off)'
	CONF="ib_hostname=$PAPER_RULE rsgate=$RSGATE alltoall_lib=$A2A tcp_rto_min=40ms tcp_rto_min_transports=tcp"
	run plan -- --transport=tcp
	assert_line 'SLURM_IBNET_TCP_RTO_MIN_US=40000'
	run plan -- --transport=ipoib
	refute_output --partial 'SLURM_IBNET_TCP_RTO_MIN_US'
	run "$IBNET_HOSTS" --config "tcp_rto_min_transports=none" --check
	assert_failure
	assert_output --partial "tcp_rto_min_transports='none': 'none' is the step that asks for nothing"
}

@test "a job's own SLURM_IBNET_TCP_RTO_MIN_US stands if it is valid, and refuses the step with a sentence if not" {
	run plan SLURM_IBNET_TCP_RTO_MIN_US=50000 -- --ordered-alltoall
	assert_success
	assert_line 'SLURM_IBNET_TCP_RTO_MIN_US=50000'
	run plan SLURM_IBNET_TCP_RTO_MIN_US=5 -- --ordered-alltoall
	assert_failure
	assert_output --partial "SLURM_IBNET_TCP_RTO_MIN_US: '5' is not a number of microseconds (1000 to 200000)"
}

@test "a kernel without TCP_RTO_MIN_US (hidden from the probe), and the BPF tier off: the step runs without the floor, and the log line says why" {
	# The BPF tier, which such a kernel gets otherwise: tests/unit/tcp-floor-bpf.bats.
	CONF="$CONF tcp_rto_bpf=none"
	run env LD_PRELOAD="$HIDE" "$IBNET_HOSTS" --config "$CONF" --env --transport=tcp --iface eth0 \
		--ordered-alltoall --nodelist c1-1
	assert_success
	assert_output --partial "no TCP retransmission floor (--ordered-alltoall): this node's kernel has no TCP_RTO_MIN_US socket option (Linux 6.15 or later), and no BPF tier: the site has the BPF tier off (tcp_rto_bpf=none); the step's sockets keep Linux's 200 ms"
	refute_output --partial 'SLURM_IBNET_TCP_RTO_MIN_US'
	# The paced all-to-all is still preloaded (after the test's own preload,
	# which the plan takes for the user's): the floor is the only loss.
	assert_output --partial "export LD_PRELOAD='$HIDE:$A2A'"
	run env LD_PRELOAD="$HIDE" "$IBNET_HOSTS" --config "$CONF" --env --transport=tcp --iface eth0 \
		--tcp-rto-min
	assert_success
	refute_output --partial "$A2A"
	assert_output --partial "no TCP retransmission floor (--tcp-rto-min): this node's kernel has no TCP_RTO_MIN_US"
}

@test "what the floored sockets met: the preload's retransmission timeouts (TCP_INFO at close and at exit) match the kernel's TcpExtTCPTimeouts within 10%, written to the step's tally; not counted without a floor" {
	command -v nft >/dev/null || skip "nft is not installed (devel/install-deps)"
	local ns=spank-tcpfloor-$$ tally=$BATS_TEST_TMPDIR/tally
	mkdir "$tally"
	"$REPO/tests/helpers/lossy-ns" up "$ns"	# 10% of the data segments lost
	local before after
	before=$("$REPO/tests/helpers/lossy-ns" timeouts "$ns")
	run ip netns exec "$ns" env LD_PRELOAD="$A2A" SLURM_IBNET_TCP_RTO_MIN_US=10000 \
		SLURM_IBNET_ALLTOALL_TALLY="$tally" SLURM_IBNET_ALLTOALL_REPORT=1 \
		python3 "$REPO/tests/programs/tcp_lossy_pair.py" 300 20000 30
	after=$("$REPO/tests/helpers/lossy-ns" timeouts "$ns")
	"$REPO/tests/helpers/lossy-ns" down "$ns"
	assert_success
	[[ "$output" =~ rounds=300\ client_rto=([0-9]+) ]]
	[ "${BASH_REMATCH[1]}" -lt 50000 ]
	assert_output --regexp 'spank-ibnet tcp: pid [0-9]+: 2 TCP sockets given a 10000 us retransmission floor; [0-9]+ retransmission timeouts?, [0-9]+ segments? retransmitted'
	run "$IBNET_HOSTS" --tally "$tally"
	assert_success
	assert_line 'processes=0 skipped=0'
	[[ "$output" =~ floor:\ processes=1\ sockets=2\ timeouts=([0-9]+)\ retransmitted=([0-9]+) ]]
	local ours=${BASH_REMATCH[1]} retrans=${BASH_REMATCH[2]} kernel=$((after - before))
	echo "ours=$ours kernel=$kernel retrans=$retrans"
	[ "$kernel" -ge 5 ]
	[ $(( (ours - kernel) * (ours - kernel) * 100 )) -le $(( kernel * kernel )) ]
	[ "$retrans" -ge "$ours" ]
	# (Two sockets made: the listener and the client; the accepted one inherits
	# the floor in the kernel, and its timeouts are counted too.)
	# Preloaded without a floor: nothing counted, nothing written.
	rm -f "$tally"/*
	run env LD_PRELOAD="$A2A" SLURM_IBNET_ALLTOALL_TALLY="$tally" python3 "$REPO/tests/programs/tcp_lossy_pair.py" 3 100 5
	assert_success
	[ -z "$(ls -A "$tally")" ]
}

@test "tcp_rto_min_least: the site's least floor; a job asking less is refused by option and by variable, naming both values; the site's own tcp_rto_min below it and off are refused (issue 43)" {
	run "$IBNET_HOSTS" --check
	assert_success
	assert_line 'tcp_rto_min_least=1000us'
	run "$IBNET_HOSTS" --config "tcp_rto_min_least=5ms" --env --transport=tcp --iface lo --tcp-rto-min=2ms --nodelist c1-1
	assert_failure
	assert_output --partial "spank-ibnet: --tcp-rto-min: a retransmission floor of 2000us is below this site's least, 5000us (plugstack.conf tcp_rto_min_least)"
	SLURM_IBNET_TCP_RTO_MIN=3ms run "$IBNET_HOSTS" --config "tcp_rto_min_least=5ms" --env --transport=tcp --iface lo --nodelist c1-1
	assert_failure
	assert_output --partial "spank-ibnet: SLURM_IBNET_TCP_RTO_MIN: a retransmission floor of 3000us is below this site's least, 5000us"
	# At the least, and off, are the job's to ask.
	run "$IBNET_HOSTS" --config "tcp_rto_min_least=5ms" --env --transport=tcp --iface lo --tcp-rto-min=5ms --nodelist c1-1
	assert_success
	run "$IBNET_HOSTS" --config "tcp_rto_min_least=5ms" --env --transport=tcp --iface lo --tcp-rto-min=off --nodelist c1-1
	assert_success
	run "$IBNET_HOSTS" --config "tcp_rto_min_least=20ms" --check
	assert_failure
	assert_output --partial 'spank-ibnet: plugstack.conf: tcp_rto_min=10000us is below tcp_rto_min_least=20000us'
	run "$IBNET_HOSTS" --config "tcp_rto_min_least=off" --check
	assert_failure
	assert_output --partial 'tcp_rto_min_least=off: the least floor a job may ask for is a time'
}

@test "the BPF floor's rounding is the kernel's: every request 1-200 ms at HZ 100, 250, 300, 1000 and 1024 is whole jiffies the kernel keeps, and the rule applied twice changes nothing (issue 50: 12 ms at HZ=300 became 20 ms)" {
	run "$BUILD/tests/floor_rule"
	assert_success
	assert_line 'RULE ok'
}

@test "a job's own SLURM_IBNET_TCP_RTO_MIN_US under the site's least is refused, naming it, though the floor asked was allowed (issue 50)" {
	SLURM_IBNET_TCP_RTO_MIN_US=3000 run "$IBNET_HOSTS" --config "tcp_rto_min_least=5ms" --env --transport=tcp --iface lo --tcp-rto-min=10ms --nodelist c1-1
	assert_failure
	assert_output --partial "spank-ibnet: SLURM_IBNET_TCP_RTO_MIN_US: a retransmission floor of 3000us is below this site's least, 5000us (plugstack.conf tcp_rto_min_least)"
	# At the least it stands, as the job's own value.
	SLURM_IBNET_TCP_RTO_MIN_US=5000 run "$IBNET_HOSTS" --config "tcp_rto_min_least=5ms" --env --transport=tcp --iface lo --tcp-rto-min=10ms --nodelist c1-1
	assert_success
	refute_output --partial "below this site's least"
}

@test "the floor spread per socket (issue 49): at HZ 100, 250, 300, 1000 and 1024, every floor 1-200 ms is spread over whole jiffies from the floor's to twice it, each as likely, never below the floor nor above the kernel's 200 ms, kept by the kernel as it is" {
	run "$BUILD/tests/floor_spread"
	assert_success
	assert_line --regexp '^SPREAD ok: [0-9]+ draws'
}

@test "each socket's floor is a draw of its own (issue 49), accepted ones too: 32 loopback connections spread over the floor to twice it; SLURM_IBNET_TCP_RTO_SPREAD=off gives them all the one floor" {
	run env LD_PRELOAD="$A2A" SLURM_IBNET_TCP_RTO_MIN_US=12000 SLURM_IBNET_TCP_RTO_SPREAD=off \
		SLURM_IBNET_ALLTOALL_REPORT=1 python3 "$REPO/tests/programs/tcp_floor_pairs.py" 32
	assert_success
	assert_output --regexp 'given a 12000 us retransmission floor; .*; the floor not spread: SLURM_IBNET_TCP_RTO_SPREAD is off'
	# One value, the floor as this kernel keeps it (12000 us at HZ=250, 13333 at HZ=300).
	local floor
	floor=$(grep -E '^(listener|client|accepted) ' <<<"$output" | awk '{print $2}' | sort -u)
	echo "unspread: $floor"
	[[ "$floor" =~ ^[0-9]+$ ]]
	[ "$floor" -ge 12000 ]
	run env LD_PRELOAD="$A2A" SLURM_IBNET_TCP_RTO_MIN_US=12000 SLURM_IBNET_ALLTOALL_REPORT=1 \
		python3 "$REPO/tests/programs/tcp_floor_pairs.py" 32
	assert_success
	assert_output --regexp 'spank-ibnet tcp: pid [0-9]+: 33 TCP sockets given a 12000 us retransmission floor; .*; the floor spread to [0-9]+-[0-9]+ us per socket \(HZ [0-9]+\)'
	floor_spread_ok "$floor"
	# And every end holds its ACKs back no longer than one floor for all
	# would (the floor less a jiffy): a receiver whose draw was twice its
	# sender's held a lone segment's ACK past the sender's timeout.
	[[ "$output" =~ per\ socket\ \(HZ\ ([0-9]+)\) ]]
	floor_delack_ok "$floor" "${BASH_REMATCH[1]}"
}
