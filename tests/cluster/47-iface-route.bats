#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Nodes whose interfaces are not eth0 and ib0 (predictable names, as on most
# hosts today: eno1, and ib0x here), with eth_iface and ib_iface left at
# their defaults: the plugin takes the interface of each node's route to the
# job's other nodes, and the log line says which and how
# (spank-ibnet/ibnet_iface_route.c). The names are changed in the nodes'
# network namespaces after the cluster is up; the cluster is taken down after.

load ../helpers/common
load ../helpers/cluster

teardown_file() {
	cluster_down
}

# rename_ifaces FROM TO I...: rename interface FROM to TO in nodes I (down,
# rename, up: the addresses stay, their routes come back with the link).
rename_ifaces() {
	local from=$1 to=$2 i ns
	shift 2
	for i in "$@"; do
		ns=ibnet-c1-$i
		ip -n "$ns" link set "$from" down
		ip -n "$ns" link set "$from" name "$to"
		ip -n "$ns" link set "$to" up
	done
}

@test "no eth0 or ib0 on the nodes (eno1, ib0x), eth_iface/ib_iface at their defaults: tcp, ipoib and rsocket steps take the interface of the route to the other nodes, said in the log line" {
	cluster_up -n 3
	rename_ifaces eth0 eno1 1 2 3
	rename_ifaces ib0 ib0x 1 2 3
	run timeout 60 srun -Q -N2 -w c1-[1-2] --transport=tcp printenv OMPI_MCA_btl_tcp_if_include
	assert_success
	assert_output $'eno1\neno1'
	run timeout 60 srun -Q -N2 -w c1-[1-2] --transport=ipoib printenv OMPI_MCA_btl_tcp_if_include
	assert_success
	assert_output $'ib0x\nib0x'
	run timeout 60 srun -Q -N2 -w c1-[2-3] --transport=rsocket printenv OMPI_MCA_btl_tcp_if_include
	assert_success
	assert_output $'ib0x\nib0x'
	run grep -h 'transport=tcp (--transport), alltoall=default (default), interface eno1 (the route to c1-2)' \
		"$IBNET_CLUSTER_DIR/log/slurmd-c1-1.log"
	assert_success
	run grep -h 'transport=ipoib (--transport), alltoall=default (default), interface ib0x (the route to cib1-1)' \
		"$IBNET_CLUSTER_DIR/log/slurmd-c1-2.log"
	assert_success
	# A job of one node: the interface of its own address.
	run timeout 60 srun -Q -N1 -w c1-3 --transport=tcp printenv OMPI_MCA_btl_tcp_if_include
	assert_success
	assert_output eno1
	run assert_daemons_healthy
	assert_success
}

@test "an admin's eth_iface is kept as given: eth0 missing fails the step with the sentence; naming route takes the route" {
	cluster_up -n 2 --plugin-args 'eth_iface=eth0'
	rename_ifaces eth0 eno1 1 2
	run timeout 60 srun -Q -N2 --transport=tcp true
	assert_failure
	assert_output --partial 'spank-ibnet: --transport=tcp needs network interface eth0, which is down or has no address on this node'
	cluster_up -n 2 --plugin-args 'eth_iface=eth0,route'
	rename_ifaces eth0 eno1 1 2
	run timeout 60 srun -Q -N2 --transport=tcp printenv OMPI_MCA_btl_tcp_if_include
	assert_success
	assert_output $'eno1\neno1'
	run nodes_state
	assert_line 'c1-1 idle'
	assert_line 'c1-2 idle'
}
