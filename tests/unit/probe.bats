#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# What a node has, as the plugin probes it in slurmstepd: the interface a
# transport uses (eth_iface/ib_iface lists and patterns). Uses "lo", which
# every machine has, and names no machine has.

load ../helpers/common

@test "the first interface of the list that has an address wins; the MPI variables get it" {
	run "$IBNET_HOSTS" --config 'ib_iface=nosuch0,lo' --env --transport=ipoib --nodelist c1-1
	assert_success
	assert_line "export OMPI_MCA_btl_tcp_if_include='lo'"
	assert_line "export UCX_NET_DEVICES='lo'"
	assert_line --partial 'interface lo;'
}

@test "a pattern picks the alphabetically first matching interface with an address" {
	run "$IBNET_HOSTS" --config 'eth_iface=nosuch*,l?' --env --transport=tcp --nodelist c1-1
	assert_success
	assert_line "export HYDRA_IFACE='lo'"
}

@test "no interface of the list on the node: a sentence naming the list" {
	run "$IBNET_HOSTS" --config 'ib_iface=nosuch0,nosuch*' --env --transport=rsocket --nodelist c1-1
	assert_failure
	assert_output "spank-ibnet: --transport=rsocket needs one of the network interfaces nosuch0,nosuch*, and none of them is up with an address on this node"
	run "$IBNET_HOSTS" --config 'ib_iface=nosuch0' --env --transport=ipoib --nodelist c1-1
	assert_failure
	assert_output "spank-ibnet: --transport=ipoib needs network interface nosuch0, which is down or has no address on this node"
}

@test "transport none probes nothing: no interface needed" {
	run "$IBNET_HOSTS" --config 'eth_iface=nosuch0 ib_iface=nosuch1' --env --transport=none
	assert_success
	assert_output 'spank-ibnet: transport=none (--transport), alltoall=default (default); environment untouched'
}

@test "in a source tree, --probe and --env take the libraries built beside ibnet-hosts; --check shows the installed paths" {
	[ ! -e /usr/local/lib/spank-ibnet/libibnet-rsgate.so ] || skip "spank-ibnet is installed under /usr/local"
	run "$IBNET_HOSTS" --probe
	assert_success
	assert_line "rsgate=$BUILD/libibnet-rsgate.so"
	run "$IBNET_HOSTS" --env --ordered-alltoall --iface eth0
	assert_success
	assert_line --partial "paced all-to-all $BUILD/libibnet-alltoall.so"
	run "$IBNET_HOSTS" --check
	assert_line 'rsgate=/usr/local/lib/spank-ibnet/libibnet-rsgate.so'
	assert_line 'alltoall_lib=/usr/local/lib/spank-ibnet/libibnet-alltoall.so'
	# A copy of ibnet-hosts with no libraries beside it still says what is missing.
	cp "$IBNET_HOSTS" "$BATS_TEST_TMPDIR/ibnet-hosts"
	run "$BATS_TEST_TMPDIR/ibnet-hosts" --probe
	assert_failure
	assert_output --partial 'the rsocket gate library is missing at /usr/local/lib/spank-ibnet/libibnet-rsgate.so'
}

# The one LD_PRELOAD rule (ibnet_preload.h), as linda-rsockets reads it.
@test "--probe composes LD_PRELOAD as the plugin does: gate before librspreload, after the job's, no second copy of a library by name" {
	local gate=$BUILD/libibnet-rsgate.so
	run env LD_PRELOAD= "$IBNET_HOSTS" --config "rsgate=$gate" --probe
	assert_success
	assert_line "ld_preload=$gate:$RSPRELOAD"
	assert_line 'rsocket_programs=*.exel'
	# A librspreload the job preloads itself (here with a version suffix) is
	# the one it uses: not searched for (the configured one does not exist),
	# not added twice. Only the gate is added, after it: the job put its own
	# librspreload first, and that stays its choice (the admin guide says the
	# gate then decides nothing for it).
	cp "$RSPRELOAD" "$BATS_TEST_TMPDIR/librspreload.so.1"
	run "$IBNET_HOSTS" --config "rsgate=$gate rspreload=/nonexistent/librspreload.so" --probe \
		--preloaded "$BATS_TEST_TMPDIR/librspreload.so.1"
	assert_success
	assert_line "rspreload=$BATS_TEST_TMPDIR/librspreload.so.1"
	assert_line "ld_preload=$BATS_TEST_TMPDIR/librspreload.so.1:$gate"
	cp "$RSPRELOAD" "$BATS_TEST_TMPDIR/librspreload.so"
	# --rspreload: the admin's librspreload over the arguments'.
	run env LD_PRELOAD= "$IBNET_HOSTS" --config "rsgate=$gate rspreload=/nonexistent/librspreload.so" \
		--probe --rspreload "$BATS_TEST_TMPDIR/librspreload.so"
	assert_success
	assert_line "rspreload=$BATS_TEST_TMPDIR/librspreload.so"
	# Checked as the plugstack.conf key is, and only with --probe.
	run "$IBNET_HOSTS" --probe --rspreload 'relative:path'
	assert_failure
	assert_output --partial "expected an absolute path without spaces, ':' or shell characters (--rspreload)"
	run "$IBNET_HOSTS" --env --rspreload "$BATS_TEST_TMPDIR/librspreload.so"
	assert_failure 2
}

@test "a library users cannot read is not taken, though root (the probe) can read it" {
	[ "$(id -u)" -eq 0 ] || skip "the probe runs as root in slurmstepd"
	cp "$BUILD/libibnet-rsgate.so" "$BATS_TEST_TMPDIR/gate.so"
	cp "$BUILD/libibnet-alltoall.so" "$BATS_TEST_TMPDIR/a2a.so"
	chmod 0600 "$BATS_TEST_TMPDIR/gate.so" "$BATS_TEST_TMPDIR/a2a.so"
	run env LD_PRELOAD= "$IBNET_HOSTS" --config "rsgate=$BATS_TEST_TMPDIR/gate.so" --probe
	assert_failure 1
	assert_output --partial "the rsocket gate library is missing at $BATS_TEST_TMPDIR/gate.so, or not a file every user can read"
	run "$IBNET_HOSTS" --config "alltoall_lib=$BATS_TEST_TMPDIR/a2a.so" --env --tcp-rto-min=10ms --iface eth0
	assert_success
	assert_output --partial "its preload $BATS_TEST_TMPDIR/a2a.so is not on this node, or not readable by every user"
	chmod 0644 "$BATS_TEST_TMPDIR/gate.so"
	run env LD_PRELOAD= "$IBNET_HOSTS" --config "rsgate=$BATS_TEST_TMPDIR/gate.so" --probe
	assert_line "rsgate=$BATS_TEST_TMPDIR/gate.so"
}

# The paced all-to-all is one dispatcher (alltoall_lib=) and a build per MPI
# ABI beside it, which the dispatcher loads for the job's MPI. The probe
# checks which builds the node has; the step's log line and --probe say so.
# paced_lib_dir BUILD...: a directory with the dispatcher and those builds.
paced_lib_dir() {
	local dir=$BATS_TEST_TMPDIR/lib b
	mkdir -p "$dir"
	cp "$BUILD/libibnet-alltoall.so" "$dir/"
	for b in "$@"; do
		# The probe reads only that it is there and readable by users.
		cp "$BUILD/$b" "$dir/$b" 2>/dev/null || : > "$dir/$b"
		chmod 0644 "$dir/$b"
	done
	echo "$dir"
}

# paced_step DIR: the log line and environment of a paced step on this node.
paced_step() {
	run env -i PATH="$PATH" "$IBNET_HOSTS" --config "alltoall_lib=$1/libibnet-alltoall.so" \
		--env --ordered-alltoall --transport=tcp --iface eth0 --nodelist c1-1
}

paced_probe() {
	run env LD_PRELOAD= "$IBNET_HOSTS" --config "alltoall_lib=$1/libibnet-alltoall.so rsgate=$RSGATE" --probe
}

@test "a paced step's log line names the per-MPI builds the node has: both" {
	local dir
	dir=$(paced_lib_dir libibnet-a2a-ompi.so libibnet-a2a-mpich.so)
	paced_step "$dir"
	assert_success
	assert_line --partial "paced all-to-all $dir/libibnet-alltoall.so"
	assert_line --regexp '; paced builds: ompi, mpich(;|$)'
	paced_probe "$dir"
	assert_success
	assert_line "alltoall_lib=$dir/libibnet-alltoall.so"
	assert_line "alltoall_builds=paced builds: ompi, mpich"
	# Only a paced step is told: the floor alone needs no build.
	run env -i PATH="$PATH" "$IBNET_HOSTS" --config "alltoall_lib=$dir/libibnet-alltoall.so" \
		--env --tcp-rto-min=10ms --transport=tcp --iface eth0 --nodelist c1-1
	assert_success
	refute_output --partial 'paced build'
}

@test "a node with one per-MPI build: paced, and the log line says which MPI's jobs get their own all-to-all" {
	local dir
	dir=$(paced_lib_dir libibnet-a2a-ompi.so)
	paced_step "$dir"
	assert_success
	assert_line "export SLURM_IBNET_ALLTOALL='paced'"
	assert_line --partial "; paced builds: ompi (libibnet-a2a-mpich.so missing: MPICH-ABI jobs here get their MPI's own all-to-all)"
	paced_probe "$dir"
	assert_line "alltoall_builds=paced builds: ompi (libibnet-a2a-mpich.so missing: MPICH-ABI jobs here get their MPI's own all-to-all)"
	dir=$(paced_lib_dir libibnet-a2a-mpich.so)
	rm "$dir/libibnet-a2a-ompi.so"
	paced_step "$dir"
	assert_success
	assert_line --partial "; paced builds: mpich (libibnet-a2a-ompi.so missing: Open MPI jobs here get their MPI's own all-to-all)"
}

@test "a node with no per-MPI build: still preloaded (the floor, the ranks' agreement), and the log line says every all-to-all is the MPI's own" {
	local dir
	dir=$(paced_lib_dir)
	paced_step "$dir"
	assert_success
	assert_line "export SLURM_IBNET_ALLTOALL='paced'"
	assert_line "export LD_PRELOAD='$dir/libibnet-alltoall.so'"
	assert_line --partial "; no paced build on this node: every all-to-all goes to the MPI's own"
	paced_probe "$dir"
	assert_success
	assert_line "alltoall_builds=no paced build on this node: every all-to-all goes to the MPI's own"
}

@test "a per-MPI build users cannot read counts as missing, though root (the probe) can read it" {
	local dir
	dir=$(paced_lib_dir libibnet-a2a-ompi.so libibnet-a2a-mpich.so)
	chmod 0640 "$dir/libibnet-a2a-mpich.so"
	paced_step "$dir"
	assert_success
	assert_line --partial "; paced builds: ompi (libibnet-a2a-mpich.so missing: MPICH-ABI jobs here get their MPI's own all-to-all)"
	# A directory of that name is not a library either.
	rm "$dir/libibnet-a2a-mpich.so"
	mkdir -m 0755 "$dir/libibnet-a2a-mpich.so"
	paced_step "$dir"
	assert_line --partial "; paced builds: ompi (libibnet-a2a-mpich.so missing: MPICH-ABI jobs here get their MPI's own all-to-all)"
}

# route_ns SCRIPT: SCRIPT in a network namespace of its own (spank-routetest-PID,
# deleted after) whose interfaces are eno1 (198.18.250.1/24) and ib0x
# (198.19.250.1/24), a route to 10.99.0.0/24 through a gateway on ib0x, and
# an /etc/hosts naming peer, peer-ib and far-ib, then the lines of
# ROUTE_NS_HOSTS. ROUTE_NS_SETUP: commands run before, with the namespace
# in $ns; ROUTE_NS_RESOLV, ROUTE_NS_GAI: the namespace's /etc/resolv.conf
# and /etc/gai.conf.
route_ns() {
	local ns=spank-routetest-$$ hosts=$BATS_TEST_TMPDIR/hosts i rc=0
	local resolv=$BATS_TEST_TMPDIR/resolv.conf gai=$BATS_TEST_TMPDIR/gai.conf
	printf '127.0.0.1 localhost\n198.18.250.2 peer\n198.19.250.2 peer-ib\n10.99.0.2 far-ib\n%s' \
		"${ROUTE_NS_HOSTS:+$ROUTE_NS_HOSTS$'\n'}" > "$hosts"
	if [ -n "${ROUTE_NS_RESOLV:-}" ]; then printf '%s\n' "$ROUTE_NS_RESOLV"; else cat /etc/resolv.conf; fi > "$resolv"
	if [ -n "${ROUTE_NS_GAI:-}" ]; then printf '%s\n' "$ROUTE_NS_GAI"; else cat /etc/gai.conf; fi > "$gai"
	ip netns add "$ns"
	ip -n "$ns" link set lo up
	ip -n "$ns" link add eno1 type veth peer name eno1p
	ip -n "$ns" link add ib0x type veth peer name ib0xp
	ip -n "$ns" addr add 198.18.250.1/24 dev eno1
	ip -n "$ns" addr add 198.19.250.1/24 dev ib0x
	for i in eno1 eno1p ib0x ib0xp; do ip -n "$ns" link set "$i" up; done
	ip -n "$ns" route add 10.99.0.0/24 via 198.19.250.254 dev ib0x onlink
	eval "${ROUTE_NS_SETUP:-}"
	ip netns exec "$ns" unshare -m --propagation private env IBNET_HOSTS="$IBNET_HOSTS" \
		sh -c 'mount --bind "$1" /etc/hosts && mount --bind "$3" /etc/resolv.conf &&
			mount --bind "$4" /etc/gai.conf && eval "$2"' _ "$hosts" "$1" "$resolv" "$gai" || rc=$?
	ip netns del "$ns"
	return $rc
}

@test "no eth0 or ib0 on the node and eth_iface/ib_iface left at their defaults: the interface of the route to the job's other nodes (their IB names for ipoib and rsocket), said how; never one reached by a gateway for IB; an admin's list is kept unless it names route (issue 43)" {
	[ "$(id -u)" -eq 0 ] || skip "making a network namespace needs root"
	run route_ns '
		for t in tcp ipoib; do $IBNET_HOSTS --env --transport=$t --nodelist "$(hostname),peer" 2>&1 | head -1; done
		$IBNET_HOSTS --env --transport=ipoib --nodelist "$(hostname),far" 2>&1 | head -1
		$IBNET_HOSTS --config "eth_iface=eth0" --env --transport=tcp --nodelist "$(hostname),peer" 2>&1 | head -1
		$IBNET_HOSTS --config "eth_iface=eth0,route" --env --transport=tcp --nodelist "$(hostname),peer" 2>&1 | head -1
		$IBNET_HOSTS --env --transport=tcp --nodelist "$(hostname),peer" 2>/dev/null | grep "^export OMPI_MCA_btl_tcp_if_include="'
	assert_success
	assert_line 'spank-ibnet: transport=tcp (--transport), alltoall=default (default), interface eno1 (the route to peer); 15 environment changes'
	assert_line 'spank-ibnet: transport=ipoib (--transport), alltoall=default (default), interface ib0x (the route to peer-ib); 15 environment changes'
	assert_line "spank-ibnet: --transport=ipoib needs network interface ib0, which is down or has no address on this node, nor one by route: far-ib (10.99.0.2) is not on the network of ib0x, the interface of this node's route to it (a gateway's)"
	assert_line 'spank-ibnet: --transport=tcp needs network interface eth0, which is down or has no address on this node'
	# The default's and eth0,route's.
	[ "$(grep -c '^spank-ibnet: transport=tcp (--transport), alltoall=default (default), interface eno1 (the route to peer); 15 environment changes$' <<<"$output")" -eq 2 ]
	assert_line "export OMPI_MCA_btl_tcp_if_include='eno1'"
}

@test "the interface by route knows this node by its Slurm name and by its own address as well as its host name, never takes a loopback address for it, and in a job of one node whose name is 127.0.1.1 (Debian's /etc/hosts) takes the default route's interface (issue 50, finding 10)" {
	[ "$(id -u)" -eq 0 ] || skip "making a network namespace needs root"
	ROUTE_NS_HOSTS="127.0.1.1 $(hostname)
198.18.250.1 node1
198.19.250.1 node1-ib
127.0.1.1 loopy" \
	ROUTE_NS_SETUP='ip -n "$ns" route add default via 198.18.250.254 dev eno1 onlink' \
	ROUTE_NS_RESOLV='nameserver 127.0.0.1' \
	run route_ns '
		$IBNET_HOSTS --env --transport=tcp --nodelist "$(hostname)" 2>&1 | head -1
		$IBNET_HOSTS --env --transport=ipoib --nodelist "$(hostname)" 2>&1 | head -1
		SLURMD_NODENAME=node1 $IBNET_HOSTS --env --transport=tcp --nodelist "node1,peer" 2>&1 | head -1
		SLURMD_NODENAME=node1 $IBNET_HOSTS --env --transport=tcp --nodelist "node1" 2>&1 | head -1
		$IBNET_HOSTS --env --transport=ipoib --nodelist "node1,peer" 2>&1 | head -1
		$IBNET_HOSTS --env --transport=tcp --nodelist "$(hostname),loopy,peer" 2>&1 | head -1'
	assert_success
	assert_line "spank-ibnet: transport=tcp (--transport), alltoall=default (default), interface eno1 (the interface of this node's default route; $(hostname) has only a loopback address here); 14 environment changes"
	# IB is never taken from a default route, a gateway's.
	assert_line "spank-ibnet: --transport=ipoib needs network interface ib0, which is down or has no address on this node, nor one by route: $(hostname)-ib has no IPv4 address here (getaddrinfo)"
	assert_line 'spank-ibnet: transport=tcp (--transport), alltoall=default (default), interface eno1 (the route to peer); 15 environment changes'
	assert_line "spank-ibnet: transport=tcp (--transport), alltoall=default (default), interface eno1 (the interface of this node's own address (node1)); 14 environment changes"
	assert_line "spank-ibnet: transport=ipoib (--transport), alltoall=default (default), interface ib0x (the route to peer-ib; node1-ib is this node (198.19.250.1 is its own address)); 15 environment changes"
	assert_line "spank-ibnet: transport=tcp (--transport), alltoall=default (default), interface eno1 (the route to peer; loopy has only a loopback address here); 15 environment changes"
}

@test "the interface by route: the job's other nodes looked up together within 2 s, a name server that does not answer said in a sentence; of a peer's addresses the one a network of this node holds, not the first (issue 50, finding 10)" {
	[ "$(id -u)" -eq 0 ] || skip "making a network namespace needs root"
	# A name server on eno1's network that never answers (its packets go nowhere).
	ROUTE_NS_RESOLV='nameserver 198.18.250.99' \
	ROUTE_NS_SETUP='ip -n "$ns" neigh add 198.18.250.99 lladdr 02:00:00:00:00:99 dev eno1 nud permanent' \
	ROUTE_NS_HOSTS="10.99.0.3 multi-ib
198.19.250.3 multi-ib" \
	ROUTE_NS_GAI='precedence ::1/128 50
precedence ::/0 40
precedence ::ffff:0:0/96 10
precedence ::ffff:10.99.0.0/120 100' \
	run route_ns '
		start=$(date +%s%N)
		$IBNET_HOSTS --env --transport=tcp --nodelist "$(hostname),slow1,slow2,slow3,peer" 2>&1 | head -1
		echo "took $(( ($(date +%s%N) - start) / 1000000 )) ms"
		$IBNET_HOSTS --env --transport=tcp --nodelist "$(hostname),slow1" 2>&1 | head -1
		getent ahostsv4 multi-ib | head -1
		$IBNET_HOSTS --env --transport=ipoib --nodelist "$(hostname),multi" 2>&1 | head -1'
	assert_success
	assert_line 'spank-ibnet: transport=tcp (--transport), alltoall=default (default), interface eno1 (the route to peer; slow1, slow2, slow3 not resolved within 2000 ms); 15 environment changes'
	local took
	took=$(sed -n 's/^took \([0-9]*\) ms$/\1/p' <<<"$output")
	[ "$took" -lt 4000 ]
	assert_line 'spank-ibnet: --transport=tcp needs network interface eth0, which is down or has no address on this node, nor one by route: slow1 not resolved within 2000 ms'
	# The resolver gives the gateway's address first here (gai.conf), as a site's may.
	assert_line --regexp '^10\.99\.0\.3 +STREAM multi-ib$'
	assert_line 'spank-ibnet: transport=ipoib (--transport), alltoall=default (default), interface ib0x (the route to multi-ib); 15 environment changes'
}
