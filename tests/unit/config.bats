#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# plugstack.conf arguments and the user's option values, as the plugin parses them.

load ../helpers/common

@test "defaults: none, all transports, s/\$/-ib/, eth0 and ib0, *.exel" {
	run "$IBNET_HOSTS" --check
	assert_success
	assert_line 'default_transport=none'
	assert_line 'allowed=tcp,ipoib,rsocket'
	assert_line 'ib_hostname=s/$/-ib/'
	assert_line 'eth_iface=eth0'
	assert_line 'ib_iface=ib0'
	assert_line 'rsocket_programs=*.exel'
	assert_line 'rspreload=(search)'
}

@test "every key is read" {
	run "$IBNET_HOSTS" --config "default_transport=ipoib allowed=ipoib,rsocket ib_hostname=$PAPER_RULE eth_iface=eno1 ib_iface=ib1 rspreload=/opt/rs/librspreload.so rsgate=/opt/g.so rsocket_programs=*.exel,iperf3 rdma_device=mlx5_0:1" --check
	assert_success
	assert_line 'default_transport=ipoib'
	assert_line 'allowed=ipoib,rsocket'
	assert_line "ib_hostname=$PAPER_RULE"
	assert_line 'eth_iface=eno1'
	assert_line 'ib_iface=ib1'
	assert_line 'rspreload=/opt/rs/librspreload.so'
	assert_line 'rsgate=/opt/g.so'
	assert_line 'rsocket_programs=*.exel,iperf3'
	assert_line 'rdma_device=mlx5_0:1'
}

@test "an unknown key is refused, naming key and value and listing the known keys" {
	run "$IBNET_HOSTS" --config 'transprot=tcp' --check
	assert_failure
	assert_output --partial "unknown key 'transprot' (value 'tcp')"
	assert_output --partial "known keys: default_transport, allowed"
}

@test "bad values are refused, naming key and value" {
	local arg
	for arg in 'default_transport=infiniband' 'allowed=tcp,carrier-pigeon' 'allowed=' \
		'eth_iface=eth0;reboot' 'ib_iface=waytoolonginterfacename' 'rspreload=relative.so' \
		'rspreload=/a:/b.so' 'rsgate=/x y' 'rsocket_programs=$(id)' 'rdma_device=mlx5 0' \
		'ib_hostname=bogus' 'ib_hostname=s/(/x/' 'noequals' '=value'; do
		run "$IBNET_HOSTS" --config "$arg" --check
		assert_failure
		assert_output --partial "spank-ibnet: "
	done
	run "$IBNET_HOSTS" --config 'eth_iface=eth0;reboot' --check
	assert_output --partial "eth_iface='eth0;reboot'"
}

@test "rsocket_programs takes shell patterns, bracket expressions included" {
	run "$IBNET_HOSTS" --config 'rsocket_programs=iperf[23],*.exel,l[!x]nda?' --check
	assert_success
	assert_line 'rsocket_programs=iperf[23],*.exel,l[!x]nda?'
}

@test "interface lists: names and patterns, comma-separated; bad lists refused" {
	run "$IBNET_HOSTS" --config 'eth_iface=eno*,ens[0-9]f0,eth0 ib_iface=ibp*s0,ib0' --check
	assert_success
	assert_line 'eth_iface=eno*,ens[0-9]f0,eth0'
	assert_line 'ib_iface=ibp*s0,ib0'
	local bad
	for bad in 'eth0,' ',eth0' 'eth0,,eth1' 'eth0;eth1' 'waytoolonginterfacename,eth0' \
		"$(printf 'e%d,' $(seq 1 17))e"; do
		run "$IBNET_HOSTS" --config "eth_iface=$bad" --check
		assert_failure
		assert_output --partial "spank-ibnet: plugstack.conf: eth_iface="
	done
}

@test "none is always allowed and never listed; a site default may be none or an allowed one" {
	run "$IBNET_HOSTS" --config 'allowed=ipoib' --check
	assert_line 'allowed=ipoib'
	assert_line 'default_transport=none'
	run "$IBNET_HOSTS" --config 'allowed=ipoib' --env --transport=none
	assert_success
}

@test "--no-ordered-alltoall turns it off, the last given wins; a bad SLURM_IBNET_ALLTOALL is refused by name" {
	run "$IBNET_HOSTS" --env --ordered-alltoall --no-ordered-alltoall
	assert_success
	assert_output --partial 'alltoall=default (--no-ordered-alltoall)'
	SLURM_IBNET_ALLTOALL=ordered run "$IBNET_HOSTS" --env --no-ordered-alltoall
	assert_output --partial 'alltoall=default (--no-ordered-alltoall)'
	SLURM_IBNET_ALLTOALL=sometimes run "$IBNET_HOSTS" --env
	assert_failure
	assert_output "spank-ibnet: invalid SLURM_IBNET_ALLTOALL 'sometimes' (expected ordered, paced, pairwise or default)"
}

@test "a key given twice is refused" {
	run "$IBNET_HOSTS" --config 'eth_iface=eth0 eth_iface=eth1' --check
	assert_failure
	assert_output --partial "given twice"
}

@test "default_transport must be one of allowed" {
	run "$IBNET_HOSTS" --config 'default_transport=rsocket allowed=tcp' --check
	assert_failure
	assert_output --partial "default_transport=rsocket is not in allowed="
}

@test "--transport values: bogus, empty, 10,000 characters, shell metacharacters" {
	local long
	long=$(printf 'x%.0s' $(seq 1 10000))
	run "$IBNET_HOSTS" --env --transport=bogus
	assert_failure
	assert_output "spank-ibnet: invalid --transport 'bogus' (expected rsocket, ipoib, tcp or none)"
	run "$IBNET_HOSTS" --env --transport=
	assert_failure
	assert_output "spank-ibnet: invalid --transport '' (expected rsocket, ipoib, tcp or none)"
	run "$IBNET_HOSTS" --env --transport="$long"
	assert_failure
	assert_output --partial "(10000 characters)"
	[ "${#output}" -lt 300 ]
	run "$IBNET_HOSTS" --env --transport='rsocket;rm -rf /'
	assert_failure
	assert_output --partial "'rsocket;rm -rf /'"
	run "$IBNET_HOSTS" --env --transport=$'tcp\n\x01'
	assert_failure
	assert_output --partial "'tcp\\x0a\\x01'"
}

@test "a transport the site does not allow is refused, naming the allowed ones" {
	run "$IBNET_HOSTS" --config 'allowed=tcp,ipoib' --env --transport=rsocket --nodelist n1
	assert_failure
	assert_output "spank-ibnet: --transport=rsocket is not allowed on this cluster (allowed: tcp, ipoib)"
}

@test "--check --nodelist maps every node as the plugin would, and fails on the first it cannot" {
	run "$IBNET_HOSTS" --config "ib_hostname=$PAPER_RULE" --check --nodelist 'c1-[1-4]'
	assert_success
	assert_line 'nodes: 4, each mapped (first: c1-1 -> cib1-1)'
	run "$IBNET_HOSTS" --config "ib_hostname=$PAPER_RULE" --check --nodelist 'c1-[1-4],login1'
	assert_failure
	assert_output --partial "does not match node name 'login1'"
}

@test "--nodelist takes what sinfo -h -o %N prints: one hostlist per line, blanks around them" {
	run "$IBNET_HOSTS" --config "ib_hostname=$PAPER_RULE" --check --nodelist "$(printf 'c1-[1-4]\n c2-[1-2] \n\n')"
	assert_success
	assert_line 'nodes: 6, each mapped (first: c1-1 -> cib1-1)'
	run "$IBNET_HOSTS" --env --transport=tcp --iface eth0 --nodelist "$(printf 'c1-[1-2]\nc2-1')"
	assert_success
	assert_line "export SLURM_IBNET_HOSTS='c1-1,c1-2,c2-1'"
	# Within a line a space is still not a separator.
	run "$IBNET_HOSTS" --check --nodelist 'c1 c2'
	assert_failure
	assert_output --partial "invalid hostlist 'c1 c2'"
}

@test "a HOSTLIST argument takes sinfo's lines too" {
	run "$IBNET_HOSTS" --rule "$PAPER_RULE" "$(printf 'c1-[1-2]\nc1-3\n')"
	assert_success
	assert_output 'cib1-1,cib1-2,cib1-3'
}

@test "--check checks every file the line names on this node and says which is missing, by key; present ones and alltoall_lib=none say nothing (issue 43)" {
	cp "$BUILD/libibnet-rsgate.so" "$BATS_TEST_TMPDIR/gate.so"
	chmod 0644 "$BATS_TEST_TMPDIR/gate.so"
	mkdir "$BATS_TEST_TMPDIR/dir.o"
	run "$IBNET_HOSTS" --config "rspreload=/opt/rs/librspreload.so rsgate=$BATS_TEST_TMPDIR/gate.so alltoall_lib=none tcp_rto_bpf=$BATS_TEST_TMPDIR/dir.o" --check
	# Said, not refused: a login node needs only the plugin.
	assert_success
	assert_line 'missing: rspreload=/opt/rs/librspreload.so: not on this node (a step that needs it is refused, or runs without it, on such a node)'
	assert_line "missing: tcp_rto_bpf=$BATS_TEST_TMPDIR/dir.o: not a plain file (a step that needs it is refused, or runs without it, on such a node)"
	refute_output --partial "missing: rsgate="
	refute_output --partial "missing: alltoall_lib="
}
