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
