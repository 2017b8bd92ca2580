#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The environment each transport and --ordered-alltoall produce, computed by
# the plugin's own code (ibnet-hosts --env), taking a clean environment as
# the job's. The same plan is what slurmstepd applies; tests/cluster checks
# it inside real jobs.

load ../helpers/common

setup() {
	# A node without the paced library (tests/unit/alltoall.bats has it).
	CONF="ib_hostname=$PAPER_RULE rsgate=$RSGATE alltoall_lib=/opt/not-installed/libibnet-alltoall.so"
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
	# Open MPI 5's runtime (PRRTE) by its current name, not the deprecated synonym.
	assert_line 'PRTE_MCA_prte_if_include=eth0'
	refute_line --partial 'PRTE_MCA_oob_tcp_if_include'
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

@test "--ordered-alltoall without the paced library on the node: each MPI library's pairwise all-to-all, and the log says why" {
	run plan -- --transport=tcp --ordered-alltoall --nodelist 'c1-1'
	assert_success
	assert_line 'SLURM_IBNET_ALLTOALL=pairwise'
	assert_line --partial 'is not on this node: each MPI'"'"'s pairwise all-to-all instead'
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
		eval "$("$0" --config "$1" --env --iface ib0 --transport=rsocket --ordered-alltoall --nodelist "c1-[1-2]")"
		echo "job: $LD_PRELOAD $GAUSS_WDEF $OMPI_MCA_btl_tcp_if_include"
		eval "$("$0" --config "$1" --env --iface eth0 --transport=tcp --no-ordered-alltoall --nodelist "c1-[1-2]")"
		echo "step: $LD_PRELOAD $GAUSS_WDEF $OMPI_MCA_btl_tcp_if_include ${OMPI_MCA_coll_tuned_alltoall_algorithm-unset} ${SLURM_IBNET_ORIG_LD_PRELOAD-unset}"
		' "$IBNET_HOSTS" "$CONF"
	assert_success
	assert_line "job: /opt/mine.so:$RSGATE:$RSPRELOAD cib1-1:2,cib1-2 ib0"
	assert_line "step: /opt/mine.so c1-1:2,c1-2 eth0 unset unset"
}

@test "a variable the user changed after the plugin set it is the user's from then on" {
	run env -i PATH="$PATH" bash -c '
		eval "$("$0" --config "$1" --env --iface ib0 --transport=ipoib --nodelist c1-1)"
		export OMPI_MCA_btl_tcp_if_include=lo
		eval "$("$0" --config "$1" --env --iface eth0 --transport=tcp --nodelist c1-1)"
		echo "$OMPI_MCA_btl_tcp_if_include $OMPI_MCA_oob_tcp_if_include"
		' "$IBNET_HOSTS" "$CONF"
	assert_success
	assert_line 'lo eth0'
}

@test "10,000 nodes: the full worker list; beyond the kernel's 128 KiB, a clear refusal" {
	run "$IBNET_HOSTS" --config "$CONF" --env --iface ib0 --transport=ipoib --nodelist 'c[1-100]-[1-100]'
	assert_success
	[ "$(grep '^export GAUSS_WDEF=' <<<"$output" | tr ',' '\n' | wc -l)" -eq 10000 ]
	run "$IBNET_HOSTS" --config "$CONF" --env --iface ib0 --transport=ipoib --nodelist 'c[1-300]-[1-100]'
	assert_success
	assert_line --partial 'GAUSS_WDEF not set: over the kernel'
	assert_line 'unset SLURM_IBNET_HOSTS'
}

@test "SLURM_JOB_NODELIST is the default node list" {
	run env SLURM_JOB_NODELIST='c1-[2-3]' "$IBNET_HOSTS" --config "$CONF" --env --iface ib0 --transport=ipoib
	assert_success
	assert_line "export SLURM_IBNET_HOSTS='cib1-2,cib1-3'"
}

# --- Opt-in: a step that asks for nothing gets nothing. ---

@test "no option, no variable, default site config: not one byte of the environment changes" {
	run env -i PATH="$PATH" LD_PRELOAD=/opt/mine.so OMPI_MCA_btl_tcp_if_include=lo \
		SLURM_JOB_NODELIST='c1-[1-4]' GAUSS_WDEF=c1-1:2 bash -c '
		before=$(env | sort)
		plan=$("$0" --config "$1" --env) || exit 1
		[ -z "$plan" ] || { echo "plan not empty: $plan"; exit 1; }
		eval "$plan"
		[ "$(env | sort)" = "$before" ] && echo identical' "$IBNET_HOSTS" "$CONF"
	assert_success
	assert_line 'identical'
	assert_line 'spank-ibnet: transport=none (site default), alltoall=default (default); environment untouched'
}

@test "a site can still choose a default transport; the decision says where it came from" {
	CONF="$CONF default_transport=tcp"
	run plan -- --iface eth0 --nodelist 'c1-[1-2]'
	assert_success
	assert_line 'SLURM_IBNET_TRANSPORT=tcp'
	assert_line 'OMPI_MCA_btl_tcp_if_include=eth0'
	run "$IBNET_HOSTS" --config "$CONF" --env --iface eth0 --nodelist c1-1
	assert_line --regexp '^spank-ibnet: transport=tcp \(site default\), alltoall=default \(default\), interface eth0; [0-9]+ environment changes$'
	SLURM_IBNET_TRANSPORT=ipoib run "$IBNET_HOSTS" --config "$CONF" --env --iface ib0 --nodelist c1-1
	assert_line --regexp '^spank-ibnet: transport=ipoib \(SLURM_IBNET_TRANSPORT\)'
}

@test "--ordered-alltoall alone sets only the all-to-all, no network variables" {
	run plan -- --ordered-alltoall
	assert_success
	assert_line 'SLURM_IBNET_TRANSPORT=none'
	assert_line 'OMPI_MCA_coll_tuned_alltoall_algorithm=2'
	refute_line --partial 'if_include'
	refute_line --partial 'UCX_NET_DEVICES'
	refute_line --partial 'GAUSS_WDEF'
	refute_line --partial 'SLURM_IBNET_HOSTS'
}

# The one answer to "does this transport need InfiniBand", for the gaussian-ib
# module (job_submit.lua gets the same from the job control environment).
@test "the step says whether its transport needs InfiniBand: rsocket and ipoib yes, tcp no, none nothing" {
	local t
	for t in rsocket:yes ipoib:yes tcp:no; do
		run plan -- --transport="${t%%:*}" --nodelist 'c1-[1-2]'
		assert_success
		assert_line "SLURM_IBNET_NEEDS_INFINIBAND=${t#*:}"
	done
	run plan -- --ordered-alltoall
	assert_success
	refute_line --partial 'SLURM_IBNET_NEEDS_INFINIBAND'
	# A later step without a transport takes it away with the rest.
	run env -i PATH="$PATH" bash -c '
		eval "$("$0" --config "$1" --env --iface ib0 --transport=ipoib --nodelist c1-1 2>/dev/null)"
		echo "job: $SLURM_IBNET_NEEDS_INFINIBAND"
		eval "$("$0" --config "$1" --env --transport=none 2>/dev/null)"
		echo "step: ${SLURM_IBNET_NEEDS_INFINIBAND-unset}"
		' "$IBNET_HOSTS" "$CONF"
	assert_success
	assert_line 'job: yes'
	assert_line 'step: unset'
}

@test "srun --transport=none and --no-ordered-alltoall inside a job undo exactly what the job got" {
	run env -i PATH="$PATH" LD_PRELOAD=/opt/mine.so UCX_NET_DEVICES=mine bash -c '
		before=$(env | sort)
		eval "$("$0" --config "$1" --env --iface ib0 --transport=rsocket --ordered-alltoall --nodelist "c1-[1-2]" 2>/dev/null)"
		echo "job: $SLURM_IBNET_TRANSPORT $LD_PRELOAD $OMPI_MCA_coll_tuned_alltoall_algorithm"
		(eval "$("$0" --config "$1" --env --iface ib0 --no-ordered-alltoall 2>/dev/null)"
		 echo "step1: $SLURM_IBNET_TRANSPORT $SLURM_IBNET_ALLTOALL $LD_PRELOAD ${OMPI_MCA_coll_tuned_alltoall_algorithm-unset}")
		eval "$("$0" --config "$1" --env --transport=none --no-ordered-alltoall 2>/dev/null)"
		echo "step2: $SLURM_IBNET_TRANSPORT $SLURM_IBNET_ALLTOALL ${SLURM_IBNET_HOSTS-unset} ${GAUSS_WDEF-unset} $LD_PRELOAD $UCX_NET_DEVICES ${OMPI_MCA_btl_tcp_if_include-unset}"
		diff <(echo "$before") <(env | grep -v -e ^SLURM_IBNET_TRANSPORT= -e ^SLURM_IBNET_ALLTOALL= | sort) && echo "as before"
		' "$IBNET_HOSTS" "$CONF"
	assert_success
	assert_line "job: rsocket /opt/mine.so:$RSGATE:$RSPRELOAD 2"
	assert_line "step1: rsocket default /opt/mine.so:$RSGATE:$RSPRELOAD unset"
	assert_line 'step2: none default unset unset /opt/mine.so mine unset'
	assert_line 'as before'
}

@test "a variable the job unset stays unset in every later step, and the decision says so" {
	run env -i PATH="$PATH" bash -c '
		eval "$("$0" --config "$1" --env --iface ib0 --transport=rsocket --nodelist c1-1 2>/dev/null)"
		unset LD_PRELOAD UCX_NET_DEVICES
		eval "$("$0" --config "$1" --env --iface ib0 --transport=rsocket --nodelist c1-1)"
		echo "step1: ${LD_PRELOAD-unset} ${UCX_NET_DEVICES-unset} $OMPI_MCA_btl_tcp_if_include"
		eval "$("$0" --config "$1" --env --iface ib0 --transport=rsocket --nodelist c1-1)"
		echo "step2: ${LD_PRELOAD-unset} ${UCX_NET_DEVICES-unset}"
		' "$IBNET_HOSTS" "$CONF"
	assert_success
	assert_line 'step1: unset unset ib0'
	assert_line 'step2: unset unset'
	assert_line --partial 'LD_PRELOAD was unset by the job after spank-ibnet set it: left as the job has it'
}

@test "a SLURM_IBNET_ORIG_* the plugin did not plan is never 'restored' (found by fuzz_env)" {
	run env -i PATH="$PATH" SLURM_IBNET_ORIG_LD_PRELOAD=/x.so bash -c '
		eval "$("$0" --config "$1" --env --iface ib0 --transport=rsocket --nodelist c1-1 2>/dev/null)"
		echo "job: $LD_PRELOAD ${SLURM_IBNET_ORIG_LD_PRELOAD-unset}"
		eval "$("$0" --config "$1" --env --iface ib0 --transport=rsocket --nodelist c1-1 2>/dev/null)"
		echo "step: $LD_PRELOAD"' "$IBNET_HOSTS" "$CONF"
	assert_success
	assert_line "job: $RSGATE:$RSPRELOAD unset"
	assert_line "step: $RSGATE:$RSPRELOAD"
}

@test "a GAUSS_WDEF longer than 4 workers per node of the job is refused (it grows with the job)" {
	run plan GAUSS_WDEF="$(seq -s, -f 'c1-%g' 1 17)" -- --transport=ipoib --nodelist 'c1-[1-2]'
	assert_failure
	assert_output --partial 'spank-ibnet: GAUSS_WDEF lists 17 workers, more than 4 per node of this 2-node job'
	run plan GAUSS_WDEF="$(seq -s, -f 'c1-%g' 1 16)" -- --transport=ipoib --nodelist 'c1-[1-2]'
	assert_success
}

# PRRTE reads PRTE_MCA_oob_tcp_if_include as a deprecated synonym of
# prte_if_include; setting both makes every mpirun warn. A job's own
# synonym is its choice: it stands alone, and the decision line says why.
@test "a job's own PRTE_MCA_oob_tcp_if_include stands alone: prte_if_include is not added beside it" {
	run plan PRTE_MCA_oob_tcp_if_include=eth9 -- --transport=ipoib --nodelist 'c1-[1-2]'
	assert_success
	assert_line 'PRTE_MCA_oob_tcp_if_include=eth9'
	refute_line --regexp '^PRTE_MCA_prte_if_include='
	assert_line 'OMPI_MCA_btl_tcp_if_include=ib0'
	run env -i PATH="$PATH" PRTE_MCA_oob_tcp_if_include=eth9 "$IBNET_HOSTS" --config "$CONF" --env \
		--transport=ipoib --iface ib0 --nodelist c1-1
	assert_output --partial 'PRTE_MCA_oob_tcp_if_include is set by the job: PRTE_MCA_prte_if_include, its synonym, is left unset'
}
