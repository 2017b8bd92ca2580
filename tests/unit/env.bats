#!/usr/bin/env bats
# The environment each transport and --ordered-alltoall produce, computed by
# the plugin's own code (ibnet-hosts --env), taking a clean environment as
# the job's. The same plan is what slurmstepd applies; tests/cluster checks
# it inside real jobs.

load ../helpers/common

setup() {
	CONF="ib_hostname=$PAPER_RULE rsgate=$RSGATE"
}

# plan VAR=VALUE... -- ARGS: print the job env after applying the plan.
plan() {
	local -a vars=()
	while [ "$1" != -- ]; do vars+=("$1"); shift; done
	shift
	env -i PATH="$PATH" "${vars[@]}" bash -c '
		set -e
		p=$("$0" "$@")
		eval "$p"
		env | grep -v -e ^PATH= -e ^PWD= -e ^SHLVL= -e ^_= | sort' \
		"$IBNET_HOSTS" --config "$CONF" --env "$@"
}

@test "tcp: MPI traffic on eth0, host names unchanged, no preload" {
	run plan -- --transport=tcp --nodelist 'c1-[1-3]'
	assert_success
	assert_line 'SLURM_IBNET_TRANSPORT=tcp'
	assert_line 'SLURM_IBNET_ALLTOALL=default'
	assert_line 'SLURM_IBNET_HOSTS=c1-1,c1-2,c1-3'
	assert_line 'GAUSS_WDEF=c1-1,c1-2,c1-3'
	assert_line 'OMPI_MCA_btl_tcp_if_include=eth0'
	assert_line 'OMPI_MCA_oob_tcp_if_include=eth0'
	assert_line 'UCX_NET_DEVICES=eth0'
	assert_line 'HYDRA_IFACE=eth0'
	assert_line 'I_MPI_FABRICS=shm:ofi'
	assert_line 'I_MPI_OFI_PROVIDER=tcp'
	assert_line 'FI_TCP_IFACE=eth0'
	assert_line 'I_MPI_HYDRA_IFACE=eth0'
	refute_line --partial 'LD_PRELOAD'
	refute_line --partial 'ALLTOALL_ALGORITHM'
}

@test "ipoib: MPI traffic on ib0, IB host names, Linda workers on IB names" {
	run plan -- --transport=ipoib --nodelist 'c1-[1-3]'
	assert_success
	assert_line 'SLURM_IBNET_HOSTS=cib1-1,cib1-2,cib1-3'
	assert_line 'GAUSS_WDEF=cib1-1,cib1-2,cib1-3'
	assert_line 'OMPI_MCA_btl_tcp_if_include=ib0'
	assert_line 'UCX_NET_DEVICES=ib0'
	assert_line 'FI_TCP_IFACE=ib0'
	refute_line --partial 'LD_PRELOAD'
}

@test "rsocket: our gate then librspreload in LD_PRELOAD, RDMA fabric left to the MPI" {
	run plan -- --transport=rsocket --nodelist 'c1-[1-2]'
	assert_success
	assert_line "LD_PRELOAD=$RSGATE:$RSPRELOAD"
	assert_line 'SLURM_IBNET_RSOCKET_PROGRAMS=*.exel'
	assert_line 'GAUSS_WDEF=cib1-1,cib1-2'
	assert_line 'OMPI_MCA_btl_tcp_if_include=ib0'
	refute_line --partial 'UCX_NET_DEVICES'
	refute_line --partial 'I_MPI_OFI_PROVIDER'
	refute_line --partial 'MV2_IBA_HCA'
}

@test "rsocket with rdma_device: UCX and MVAPICH2 are pointed at the HCA" {
	CONF="$CONF rdma_device=mlx5_0:1"
	run plan -- --transport=rsocket --nodelist 'c1-1'
	assert_success
	assert_line 'UCX_NET_DEVICES=mlx5_0:1'
	assert_line 'MV2_IBA_HCA=mlx5_0'
}

@test "--ordered-alltoall: each MPI library's pairwise all-to-all" {
	run plan -- --transport=tcp --ordered-alltoall --nodelist 'c1-1'
	assert_success
	assert_line 'SLURM_IBNET_ALLTOALL=ordered'
	assert_line 'OMPI_MCA_coll_tuned_use_dynamic_rules=1'
	assert_line 'OMPI_MCA_coll_tuned_alltoall_algorithm=2'
	assert_line 'MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=pairwise'
	assert_line 'I_MPI_ADJUST_ALLTOALL=3'
	assert_line 'MV2_ALLTOALL_TUNING=3'
}

@test "a one-node job gets no GAUSS_WDEF (Gaussian needs no Linda there)" {
	run plan -- --transport=ipoib --nodelist 'c1-1'
	assert_success
	refute_line --partial 'GAUSS_WDEF'
	assert_line 'SLURM_IBNET_HOSTS=cib1-1'
}

@test "the user's LD_PRELOAD is kept, ours added after it, never twice" {
	run plan LD_PRELOAD=/opt/mine.so -- --transport=rsocket --nodelist c1-1
	assert_success
	assert_line "LD_PRELOAD=/opt/mine.so:$RSGATE:$RSPRELOAD"
	run plan LD_PRELOAD="$RSGATE:$RSPRELOAD" -- --transport=rsocket --nodelist c1-1
	assert_line "LD_PRELOAD=$RSGATE:$RSPRELOAD"
}

@test "the user's own OMPI_MCA_*, UCX and MPICH variables are never overwritten" {
	run plan OMPI_MCA_btl_tcp_if_include=lo OMPI_MCA_coll_tuned_alltoall_algorithm=3 \
		MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=brucks UCX_NET_DEVICES=eth1 \
		-- --transport=ipoib --ordered-alltoall --nodelist c1-1
	assert_success
	assert_line 'OMPI_MCA_btl_tcp_if_include=lo'
	assert_line 'OMPI_MCA_coll_tuned_alltoall_algorithm=3'
	assert_line 'MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM=brucks'
	assert_line 'UCX_NET_DEVICES=eth1'
	assert_line 'OMPI_MCA_oob_tcp_if_include=ib0'
	refute_line --regexp '^SLURM_IBNET_MANAGED=.*OMPI_MCA_btl_tcp_if_include'
}

@test "the user's GAUSS_WDEF is renamed to IB names, :N counts kept" {
	run plan GAUSS_WDEF='c1-1:2,c1-2,c1-3:16' -- --transport=rsocket --nodelist 'c1-[1-3]'
	assert_success
	assert_line 'GAUSS_WDEF=cib1-1:2,cib1-2,cib1-3:16'
	assert_line 'SLURM_IBNET_ORIG_GAUSS_WDEF=c1-1:2,c1-2,c1-3:16'
	run plan GAUSS_WDEF='c1-1:2,c1-2' -- --transport=tcp --nodelist 'c1-[1-3]'
	assert_line 'GAUSS_WDEF=c1-1:2,c1-2'
	refute_line --partial 'SLURM_IBNET_ORIG_GAUSS_WDEF'
}

@test "a GAUSS_WDEF already in IB names is kept; a bad one is refused" {
	run plan GAUSS_WDEF='cib1-1:4,c1-2' -- --transport=ipoib --nodelist 'c1-[1-2]'
	assert_success
	assert_line 'GAUSS_WDEF=cib1-1:4,cib1-2'
	local bad
	for bad in 'c1-1 c1-2' 'c1-1:x' 'c1-1:' ',' 'login1' 'c1-1;id'; do
		run plan GAUSS_WDEF="$bad" -- --transport=ipoib --nodelist 'c1-[1-2]'
		assert_failure
		assert_output --partial 'spank-ibnet: '
	done
}

@test "a step's transport overrides the job's: ours undone, the user's restored" {
	# Batch step with rsocket, then srun --transport=tcp inside it.
	run env -i PATH="$PATH" LD_PRELOAD=/opt/mine.so GAUSS_WDEF='c1-1:2,c1-2' bash -c '
		eval "$("$0" --config "$1" --env --transport=rsocket --ordered-alltoall --nodelist "c1-[1-2]")"
		echo "job: $LD_PRELOAD $GAUSS_WDEF $OMPI_MCA_btl_tcp_if_include"
		eval "$("$0" --config "$1" --env --transport=tcp --nodelist "c1-[1-2]")"
		echo "step: $LD_PRELOAD $GAUSS_WDEF $OMPI_MCA_btl_tcp_if_include ${OMPI_MCA_coll_tuned_alltoall_algorithm-unset} ${SLURM_IBNET_ORIG_LD_PRELOAD-unset}"
		' "$IBNET_HOSTS" "$CONF"
	assert_success
	assert_line "job: /opt/mine.so:$RSGATE:$RSPRELOAD cib1-1:2,cib1-2 ib0"
	assert_line "step: /opt/mine.so c1-1:2,c1-2 eth0 unset unset"
}

@test "a variable the user changed after the plugin set it is the user's from then on" {
	run env -i PATH="$PATH" bash -c '
		eval "$("$0" --config "$1" --env --transport=ipoib --nodelist c1-1)"
		export OMPI_MCA_btl_tcp_if_include=lo
		eval "$("$0" --config "$1" --env --transport=tcp --nodelist c1-1)"
		echo "$OMPI_MCA_btl_tcp_if_include $OMPI_MCA_oob_tcp_if_include"
		' "$IBNET_HOSTS" "$CONF"
	assert_success
	assert_output 'lo eth0'
}

@test "10,000 nodes: the full worker list; beyond the kernel's 128 KiB, a clear refusal" {
	run "$IBNET_HOSTS" --config "$CONF" --env --transport=ipoib --nodelist 'c[1-100]-[1-100]'
	assert_success
	[ "$(grep '^export GAUSS_WDEF=' <<<"$output" | tr ',' '\n' | wc -l)" -eq 10000 ]
	run "$IBNET_HOSTS" --config "$CONF" --env --transport=ipoib --nodelist 'c[1-300]-[1-100]'
	assert_success
	assert_line --partial 'GAUSS_WDEF not set: over the kernel'
	assert_line 'unset SLURM_IBNET_HOSTS'
}

@test "SLURM_JOB_NODELIST is the default node list" {
	run env SLURM_JOB_NODELIST='c1-[2-3]' "$IBNET_HOSTS" --config "$CONF" --env --transport=ipoib
	assert_success
	assert_line "export SLURM_IBNET_HOSTS='cib1-2,cib1-3'"
}
