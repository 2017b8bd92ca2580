#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The user's story on a real 4-node Slurm cluster: every way to ask for a
# transport, and what the batch script and the tasks on every node saw.

CLUSTER_NODES=4
load ../helpers/common
load ../helpers/cluster

# A batch script printing, for itself and each task, what the plugin set.
report_script() {
	cat > "$BATS_TEST_TMPDIR/report.sh" <<EOF
#!/bin/bash
$1
echo "batch \$(hostname) T=\$SLURM_IBNET_TRANSPORT H=\$SLURM_IBNET_HOSTS W=\${GAUSS_WDEF-} P=\${LD_PRELOAD-} O=\${OMPI_MCA_btl_tcp_if_include-}"
srun bash -c 'echo "task \$(hostname) T=\$SLURM_IBNET_TRANSPORT H=\$SLURM_IBNET_HOSTS W=\${GAUSS_WDEF-} P=\${LD_PRELOAD-} O=\${OMPI_MCA_btl_tcp_if_include-} M=\$(grep -c librspreload /proc/\$\$/maps)"'
EOF
	echo "$BATS_TEST_TMPDIR/report.sh"
}

@test "--transport and --ordered-alltoall are listed in sbatch, srun and salloc --help" {
	local cmd
	for cmd in sbatch srun salloc; do
		run "$cmd" --help
		assert_output --partial '--transport=rsocket|ipoib|tcp|none'
		assert_output --partial '--ordered-alltoall'
		assert_output --partial '--no-ordered-alltoall'
	done
}

@test "sbatch --transport=rsocket: IB names, worker list and preload in the script and every task" {
	run batch "$BATS_TEST_TMPDIR/out" -N4 --transport=rsocket "$(report_script)"
	assert_success
	assert_line --regexp "^batch c1-1 T=rsocket H=cib1-1,cib1-2,cib1-3,cib1-4 W=cib1-1,cib1-2,cib1-3,cib1-4 P=$RSGATE:$RSPRELOAD O=ib0$"
	local n
	for n in 1 2 3 4; do
		assert_line --regexp "^task c1-$n T=rsocket H=cib1-1,cib1-2,cib1-3,cib1-4 W=cib1-1,cib1-2,cib1-3,cib1-4 P=$RSGATE:$RSPRELOAD O=ib0 M=[1-9]"
	done
}

@test "#SBATCH --transport=ipoib in the script works like the option" {
	run batch "$BATS_TEST_TMPDIR/out" -N2 "$(report_script '#SBATCH --transport=ipoib')"
	assert_success
	assert_line --regexp '^batch c1-1 T=ipoib H=cib1-1,cib1-2 W=cib1-1,cib1-2 P= O=ib0$'
	assert_line --regexp '^task c1-2 T=ipoib .* O=ib0 M=0$'
}

@test "srun --transport=tcp: names unchanged, Ethernet, no preload" {
	run timeout 60 srun -N3 --transport=tcp bash -c \
		'echo "$(hostname) $SLURM_IBNET_TRANSPORT $SLURM_IBNET_HOSTS ${LD_PRELOAD-none} $OMPI_MCA_btl_tcp_if_include"'
	assert_success
	assert_line 'c1-2 tcp c1-1,c1-2,c1-3 none eth0'
	[ "${#lines[@]}" -eq 3 ]
}

@test "salloc --transport=ipoib: its srun steps get ipoib" {
	run timeout 60 salloc -N2 --transport=ipoib srun bash -c 'echo "$(hostname) $SLURM_IBNET_TRANSPORT $SLURM_IBNET_HOSTS"'
	assert_success
	assert_line 'c1-1 ipoib cib1-1,cib1-2'
	assert_line 'c1-2 ipoib cib1-1,cib1-2'
}

@test "SLURM_IBNET_TRANSPORT in the submitting environment is the user's default" {
	SLURM_IBNET_TRANSPORT=ipoib run batch "$BATS_TEST_TMPDIR/out" -N2 "$(report_script)"
	assert_success
	assert_line --regexp '^batch c1-1 T=ipoib '
	# ... and the option still wins over it.
	SLURM_IBNET_TRANSPORT=ipoib run timeout 60 srun -N1 --transport=tcp printenv SLURM_IBNET_TRANSPORT
	assert_output tcp
}

@test "no option anywhere: nothing at all is set (the site default is none)" {
	run timeout 60 srun -N2 bash -c 'echo "${SLURM_IBNET_TRANSPORT-unset} ${SLURM_IBNET_MANAGED-unset} ${OMPI_MCA_btl_tcp_if_include-unset} ${UCX_NET_DEVICES-unset}"'
	assert_success
	assert_line 'unset unset unset unset'
}

@test "a step's srun --transport overrides the job's, and a plain srun keeps the job's" {
	cat > "$BATS_TEST_TMPDIR/steps.sh" <<'EOF'
#!/bin/bash
srun -N2 bash -c 'echo "plain $(hostname) $SLURM_IBNET_TRANSPORT ${LD_PRELOAD:+preload} $OMPI_MCA_btl_tcp_if_include"'
srun -N2 --transport=tcp bash -c 'echo "tcp $(hostname) $SLURM_IBNET_TRANSPORT ${LD_PRELOAD:-nopreload} $OMPI_MCA_btl_tcp_if_include $GAUSS_WDEF"'
srun -N2 --transport=ipoib bash -c 'echo "ipoib $(hostname) $SLURM_IBNET_TRANSPORT ${LD_PRELOAD:-nopreload} $GAUSS_WDEF"'
EOF
	run batch "$BATS_TEST_TMPDIR/out" -N2 --transport=rsocket "$BATS_TEST_TMPDIR/steps.sh"
	assert_success
	assert_line 'plain c1-2 rsocket preload ib0'
	assert_line 'tcp c1-2 tcp nopreload eth0 c1-1,c1-2'
	assert_line 'ipoib c1-2 ipoib nopreload cib1-1,cib1-2'
}

@test "the user's LD_PRELOAD and OMPI_MCA_* are kept in the script and the tasks" {
	local lib
	lib=$(ls /usr/lib/x86_64-linux-gnu/libm.so.6)
	LD_PRELOAD=$lib OMPI_MCA_btl_tcp_if_include=lo run batch "$BATS_TEST_TMPDIR/out" \
		-N2 --transport=rsocket "$(report_script)"
	assert_success
	assert_line --regexp "^batch c1-1 T=rsocket .* P=$lib:$RSGATE:$RSPRELOAD O=lo$"
	assert_line --regexp "^task c1-2 T=rsocket .* P=$lib:$RSGATE:$RSPRELOAD O=lo M=[1-9]"
}

@test "a user's GAUSS_WDEF is rewritten to IB names with its :N counts kept" {
	GAUSS_WDEF='c1-2:4,c1-1:2' run batch "$BATS_TEST_TMPDIR/out" -N2 --transport=ipoib "$(report_script)"
	assert_success
	assert_line --regexp '^batch c1-1 .* W=cib1-2:4,cib1-1:2 '
	assert_line --regexp '^task c1-2 .* W=cib1-2:4,cib1-1:2 '
}

@test "--ordered-alltoall reaches the script and the tasks; without it, default" {
	run timeout 60 srun -N2 --ordered-alltoall bash -c 'echo "$SLURM_IBNET_ALLTOALL ${LD_PRELOAD##*/} $SLURM_IBNET_ALLTOALL_WINDOW ${OMPI_MCA_coll_tuned_alltoall_algorithm-unset} ${MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM-unset}"'
	assert_success
	# The window's default is auto since issue 40 (16384 before).
	assert_line 'paced libibnet-alltoall.so auto unset unset'
	# Asked for by name, the MPI's own pairwise, as before 0.4.0.
	# The job preload comes for the TCP floor an ordered step implies (0.5);
	# SLURM_IBNET_ALLTOALL=pairwise keeps its all-to-all out of the way.
	SLURM_IBNET_ALLTOALL=pairwise run timeout 60 srun -N2 bash -c 'echo "$SLURM_IBNET_ALLTOALL ${LD_PRELOAD##*/} $OMPI_MCA_coll_tuned_alltoall_algorithm $MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM"'
	assert_success
	assert_line 'pairwise libibnet-alltoall.so 2 pairwise'
	SLURM_IBNET_ALLTOALL=pairwise SLURM_IBNET_TCP_RTO_MIN=off run timeout 60 srun -N2 bash -c 'echo "$SLURM_IBNET_ALLTOALL ${LD_PRELOAD-unset} $OMPI_MCA_coll_tuned_alltoall_algorithm $MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM"'
	assert_success
	assert_line 'pairwise unset 2 pairwise'
	run timeout 60 srun -N1 bash -c 'echo "${SLURM_IBNET_ALLTOALL-unset} ${OMPI_MCA_coll_tuned_alltoall_algorithm-unset}"'
	assert_output 'unset unset'
}

@test "one step opts out: srun --transport=none and --no-ordered-alltoall inside a job" {
	cat > "$BATS_TEST_TMPDIR/steps.sh" <<'EOF'
#!/bin/bash
srun -N2 bash -c 'echo "plain $(hostname) $SLURM_IBNET_TRANSPORT $SLURM_IBNET_ALLTOALL ${LD_PRELOAD:+preload} ${OMPI_MCA_coll_tuned_alltoall_algorithm-unset}"'
srun -N2 --no-ordered-alltoall bash -c 'echo "a2a-off $(hostname) $SLURM_IBNET_TRANSPORT $SLURM_IBNET_ALLTOALL ${OMPI_MCA_coll_tuned_alltoall_algorithm-unset}"'
srun -N2 --transport=none --no-ordered-alltoall bash -c 'echo "none $(hostname) $SLURM_IBNET_TRANSPORT ${SLURM_IBNET_HOSTS-unset} ${LD_PRELOAD-unset} ${GAUSS_WDEF-unset} ${OMPI_MCA_btl_tcp_if_include-unset} ${OMPI_MCA_coll_tuned_alltoall_algorithm-unset}"'
EOF
	run batch "$BATS_TEST_TMPDIR/out" -N2 --transport=rsocket --ordered-alltoall "$BATS_TEST_TMPDIR/steps.sh"
	assert_success
	assert_line 'plain c1-2 rsocket paced preload unset'
	assert_line 'a2a-off c1-2 rsocket default unset'
	assert_line 'none c1-2 none unset unset unset unset unset'
}

@test "a variable the batch script unsets stays unset in every later step" {
	cat > "$BATS_TEST_TMPDIR/unset.sh" <<'EOF'
#!/bin/bash
unset LD_PRELOAD UCX_NET_DEVICES
srun -N2 bash -c 'echo "step1 $(hostname) ${LD_PRELOAD-unset} ${UCX_NET_DEVICES-unset} $OMPI_MCA_btl_tcp_if_include"'
srun -N1 bash -c 'echo "step2 $(hostname) ${LD_PRELOAD-unset} ${UCX_NET_DEVICES-unset}"'
EOF
	run batch "$BATS_TEST_TMPDIR/out" -N2 --transport=ipoib "$BATS_TEST_TMPDIR/unset.sh"
	assert_success
	assert_line 'step1 c1-2 unset unset ib0'
	assert_line 'step2 c1-1 unset unset'
	run grep -h 'UCX_NET_DEVICES was unset by the job after spank-ibnet set it' "$IBNET_CLUSTER_DIR"/log/slurmd-c1-2.log
	assert_success
}

@test "SLURM_IBNET_TRANSPORT survives srun and sbatch --export=NONE (Slurm keeps SLURM_* variables)" {
	SLURM_IBNET_TRANSPORT=ipoib run timeout 60 srun -N1 --export=NONE /usr/bin/printenv SLURM_IBNET_TRANSPORT OMPI_MCA_btl_tcp_if_include
	assert_success
	assert_output $'ipoib\nib0'
	# The controller may place the job on any node (the one a test before
	# used can still be completing): the IB name must be this node's own.
	printf '#!/bin/bash\necho "batch $SLURM_IBNET_TRANSPORT $SLURM_IBNET_HOSTS $OMPI_MCA_btl_tcp_if_include $(hostname)"\n' \
		> "$BATS_TEST_TMPDIR/export-none.sh"
	SLURM_IBNET_TRANSPORT=ipoib run batch "$BATS_TEST_TMPDIR/out" -N1 --export=NONE "$BATS_TEST_TMPDIR/export-none.sh"
	assert_success
	assert_output --regexp '^batch ipoib cib1-[0-9]+ ib0 c1-[0-9]+$'
	local node=${output##* }
	assert_output "batch ipoib cib${node#c} ib0 $node"
}

@test "a heterogeneous job: the batch script and its steps get the hosts of every component" {
	cat > "$BATS_TEST_TMPDIR/het.sh" <<'EOF'
#!/bin/bash
#SBATCH -N1
#SBATCH hetjob
#SBATCH -N2
echo "batch $SLURM_JOB_NODELIST $SLURM_IBNET_HOSTS $GAUSS_WDEF"
srun --het-group=0,1 bash -c 'echo "task $(hostname) $SLURM_IBNET_HOSTS"'
EOF
	run batch "$BATS_TEST_TMPDIR/out" --transport=ipoib "$BATS_TEST_TMPDIR/het.sh"
	assert_success
	assert_line 'batch c1-1 cib1-1,cib1-2,cib1-3 cib1-1,cib1-2,cib1-3'
	assert_line 'task c1-3 cib1-1,cib1-2,cib1-3'
}

# Issue 18: ibnet-hosts --env and the plugin plan a step with one function
# (ibnet_step_plan). Here both meet the same inputs: in a batch script that
# asked for nothing, ibnet-hosts --site plans "srun --transport=ipoib
# --ordered-alltoall" from the script's environment on c1-1, and then that
# srun runs there. The node's log line must be ibnet-hosts' decision line,
# and every variable ibnet-hosts would export must be in the task as it said.
@test "ibnet-hosts --env and the plugin give one step the same plan: the same decision line and the same variables" {
	local d=$BATS_TEST_TMPDIR
	cat > "$d/same.sh" <<EOF
#!/bin/bash
"$IBNET_HOSTS" --site --env --transport=ipoib --ordered-alltoall > "$d/planned.sh" 2> "$d/planned.err"
srun -N1 -n1 -w c1-1 --transport=ipoib --ordered-alltoall env > "$d/task.env"
EOF
	run batch "$d/out" -N2 -w c1-[1-2] "$d/same.sh"
	assert_success
	local line summary
	# The decision: what ibnet-hosts printed, after "spank-ibnet: ".
	summary=$(sed -n 's/^spank-ibnet: //p' "$d/planned.err")
	[ -n "$summary" ]
	[[ "$summary" == "transport=ipoib (--transport), alltoall="* ]]
	run grep -F ": job " "$IBNET_CLUSTER_DIR/log/slurmd-c1-1.log"
	assert_output --partial " step 0 on c1-1: $summary"
	# The variables: each export in the task, each unset absent from it.
	local n=0 name value
	while IFS= read -r line; do
		case $line in
		"export "*)
			name=${line#export }; name=${name%%=*}
			value=$(bash -c "$line; printf %s \"\$$name\"")
			grep -qxF "$name=$value" "$d/task.env" || { echo "task lacks $name=$value"; return 1; }
			n=$((n + 1)) ;;
		"unset "*)
			if grep -q "^${line#unset }=" "$d/task.env"; then echo "task has ${line#unset}"; return 1; fi ;;
		esac
	done < "$d/planned.sh"
	# The plan is not empty: the interface, the paced all-to-all and its settings at least.
	[ "$n" -ge 8 ]
	grep -q '^export OMPI_MCA_btl_tcp_if_include=' "$d/planned.sh"
	grep -q '^export SLURM_IBNET_ALLTOALL_WINDOW=' "$d/planned.sh"
}
