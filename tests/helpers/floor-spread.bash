# SPDX-License-Identifier: GPL-2.0-or-later
# The floor spread per socket (issue 49), as tests/unit/tcp-floor.bats (the
# preload) and tests/unit/tcp-floor-bpf.bats (the BPF tier) check it.

# floor_spread_ok FLOOR: the spread floors in $output (tests/programs/tcp_floor_pairs.py)
# within FLOOR (as this kernel keeps it) to twice its jiffies (said in whole
# microseconds rounded down: at most 2 x FLOOR + 1), at least 3 distinct among
# the clients and among the accepted ends.
floor_spread_ok() {
	local floor=$1 end value clients accepted
	while read -r end value; do
		[ "$value" -ge "$floor" ] && [ "$value" -le $((2 * floor + 1)) ] ||
			{ echo "$end $value outside $floor-$((2 * floor))"; return 1; }
	done < <(grep -E '^(client|accepted) ' <<<"$output")
	clients=$(grep '^client ' <<<"$output" | sort -u | wc -l)
	accepted=$(grep '^accepted ' <<<"$output" | sort -u | wc -l)
	echo "distinct floors: clients $clients, accepted $accepted"
	[ "$clients" -ge 3 ] && [ "$accepted" -ge 3 ]
}

# floor_delack_ok FLOOR HZ: every end's delayed-ACK bound in $output ("delack
# client D", "delack accepted D") is the floor's jiffies less one, as one
# floor for all would have it (ibnet_floor_delack_us), whatever its own draw:
# FLOOR less a jiffy, to the microsecond the kernel rounds down.
floor_delack_ok() {
	local floor=$1 hz=$2 want n
	want=$((floor - 1000000 / hz))
	n=$(grep -c '^delack ' <<<"$output" || true)
	[ "$n" -gt 0 ] || { echo "no delack lines"; return 1; }
	if grep '^delack ' <<<"$output" | awk -v w="$want" '$3 < w - 1 || $3 > w + 1 { bad = 1 } END { exit !bad }'; then
		echo "a delayed-ACK bound other than $want us:"; grep '^delack ' <<<"$output" | sort | uniq -c
		return 1
	fi
	echo "delayed-ACK bound: $want us on all $n ends"
}
