#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Which network the bytes really cross, read off the switch-port counters of
# the receiving node (root-side veth ends). Simulated: ib0 is a veth network
# and librspreload falls back to kernel TCP, but the choice of network is real.

CLUSTER_NODES=2
load ../helpers/common
load ../helpers/cluster

# transfer TRANSPORT: 20 MB from c1-1 to the job's second host by its
# SLURM_IBNET_HOSTS name; prints "ETH_DELTA IB_DELTA" for c1-2. iperf3 -n
# ends when the sender has written 20 MB, so the receiver may count less:
# the tests ask for more than 5 MB on the chosen network, under 1 MB on the
# other (Slurm's own traffic is on eth0).
transfer() {
	local before after
	cat > "$BATS_TEST_TMPDIR/xfer.sh" <<'EOF2'
#!/bin/bash
export SLURM_IBNET_RSOCKET_PROGRAMS='*.exel,iperf3'
read -r -a hosts <<<"${SLURM_IBNET_HOSTS//,/ }"
srun --overlap -N1 -n1 -w c1-2 timeout 30 iperf3 -s -1 -p 5202 >/dev/null 2>&1 &
for try in $(seq 1 30); do
	SLURM_IBNET_RSOCKET_DEBUG=1 timeout 30 iperf3 -c "${hosts[1]}" -p 5202 -n 20M && break
	sleep 0.3
done
wait
EOF2
	read -r -a before <<<"$("$CLUSTER" counters c1-2)"
	batch "$BATS_TEST_TMPDIR/out" -N2 --transport="$1" "$BATS_TEST_TMPDIR/xfer.sh" >&2 || return 1
	read -r -a after <<<"$("$CLUSTER" counters c1-2)"
	echo "$((after[0] - before[0])) $((after[1] - before[1]))"
}

@test "--transport=tcp: the bytes cross eth0" {
	run transfer tcp
	assert_success
	read -r eth ib <<<"${lines[-1]}"
	[ "$eth" -gt 5000000 ]
	[ "$ib" -lt 100000 ]
}

@test "--transport=ipoib: the bytes cross ib0" {
	run transfer ipoib
	assert_success
	read -r eth ib <<<"${lines[-1]}"
	[ "$ib" -gt 5000000 ]
	[ "$eth" -lt 1000000 ]
}

@test "--transport=rsocket: the bytes cross ib0, through librspreload" {
	run transfer rsocket
	assert_success
	assert_output --partial 'spank-ibnet rsgate: iperf3: sockets through librspreload'
	read -r eth ib <<<"${lines[-1]}"
	[ "$ib" -gt 5000000 ]
	[ "$eth" -lt 1000000 ]
}
