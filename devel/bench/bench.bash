# SPDX-License-Identifier: GPL-2.0-or-later
# What the cluster benchmarks (devel/ibnet-bench, a2a-many, floor-tiers) share,
# sourced after they set $cluster (devel/ibnet-cluster): the switches' table,
# a job line's fields, the switch the cluster is shaped as, and the
# retransmission timeouts its nodes have counted.

. "$(dirname "${BASH_SOURCE[0]}")/switches.bash"	# SHAPE: the simulated switches

# progress TEXT: a timestamped line on stderr.
progress() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }

# field NAME LINE: the value of NAME=VALUE among LINE's words.
# A rank's stdout goes through a pty, which can hand mpirun a line apart from
# its newline, so the library's first report line (stderr) can be glued to
# the end of a RESULT line in a job's output: nothing from "spank-ibnet" on
# is the line's.
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<" ${2%%spank-ibnet*}"; }

# shape SWITCH: shape the cluster as SWITCH (a key of SHAPE), only when it
# changes; shape_forget after the cluster is made again.
shaped_as=""
shape() {
	[ "$shaped_as" = "$1" ] && return
	# shellcheck disable=SC2086 # the shape arguments are words
	"$cluster" shape ${SHAPE[$1]} >/dev/null
	shaped_as=$1
}
shape_forget() { shaped_as=""; }

# timeouts: the TCP retransmission timeouts so far, summed over the nodes'
# network namespaces.
timeouts() {
	local n total=0 t
	for n in $(cat "$("$cluster" where nodes)"); do
		t=$(nsenter --net="$("$cluster" where netns "$n")" awk '
			/^TcpExt:/ { if (!h) { for (i = 1; i <= NF; i++) c[$i] = i; h = 1 } else print $c["TCPTimeouts"] }' \
			/proc/net/netstat)
		total=$((total + ${t:-0}))
	done
	echo "$total"
}
