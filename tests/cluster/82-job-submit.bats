#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Scheduler visibility: the plugin records each job's transport in the job
# control environment, and the example job_submit.lua (docs/examples/), by
# the module it requires (lua/spank_ibnet/job_submit.lua, found in this tree:
# ibnet-cluster puts the tree where the example says @DATADIR@), turns it
# into a node constraint and an AdminComment that sacct shows. Real
# slurmctld with JobSubmitPlugins=lua, real slurmdbd on a private MariaDB.
# Only c1-2 and c1-3 have the feature "ib" (simulated: no node has real IB).

load ../helpers/common
load ../helpers/cluster

setup_file() {
	cluster_up -n 3 --ib-nodes 2,3 --job-submit "$REPO/docs/examples/job_submit.lua" --accounting
}

teardown_file() {
	cluster_down
}

# submit ARGS...: an sbatch that holds its node a moment (so three at once
# spread over the nodes), waited for; prints the job id.
submit() {
	local jid
	jid=$(sbatch --parsable -N1 -o /dev/null "$@" --wrap 'sleep 1') || return 1
	"$CLUSTER" wait "$jid" 120 >/dev/null || return 1
	echo "$jid"
}

# acct JOBID FIELD [set]: one field of the job as sacct (slurmdbd) has it.
# slurmdbd gets the end of a job a moment after slurmctld: wait for it,
# boundedly; with "set", also wait for the field to be non-empty (seen once
# in CI: a constraint sacct showed empty just after the job ended).
acct() {
	local i v
	for i in $(seq 1 40); do
		v=$(sacct -n -X -P -j "$1" -o State,"$2" 2>/dev/null | head -1)
		case $v in COMPLETED\|*|FAILED\|*)
			if [ "${3:-}" != set ] || [ -n "${v#*|}" ] || [ "$i" = 40 ]; then
				echo "${v#*|}"
				return 0
			fi ;;
		esac
		sleep 0.25
	done
	echo "sacct never showed job $1 ended: '$v'" >&2
	return 1
}

@test "rsocket and ipoib jobs land only on nodes with the ib feature; sacct shows their transport" {
	local j node jobs=()
	# Six at once: without the constraint, c1-1 (idle, first) would get some.
	for j in 1 2 3; do
		jobs+=("$(sbatch --parsable -N1 -o /dev/null --transport=rsocket --wrap 'sleep 1')")
		jobs+=("$(sbatch --parsable -N1 -o /dev/null --transport=ipoib --ordered-alltoall --wrap 'sleep 1')")
	done
	for j in "${jobs[@]}"; do
		"$CLUSTER" wait "$j" 120
	done
	for j in "${jobs[@]}"; do
		node=$(acct "$j" NodeList set)
		echo "job $j ran on $node"
		[[ "$node" == c1-2 || "$node" == c1-3 ]]
		run acct "$j" Constraints set
		assert_output ib
	done
	run acct "${jobs[0]}" AdminComment set
	assert_output "ibnet:transport=rsocket,alltoall=default"
	run acct "${jobs[1]}" AdminComment set
	assert_output "ibnet:transport=ipoib,alltoall=ordered"
	# And the decision is in slurmctld's log, one line per job.
	run grep -c "spank-ibnet job_submit: .* transport=rsocket" "$IBNET_CLUSTER_DIR/log/slurmctld.log"
	assert_output 3
}

@test "a tcp job is recorded but not constrained; a job that asks for nothing is left alone" {
	local tcp none
	tcp=$(submit -w c1-1 --transport=tcp)
	none=$(submit -w c1-1)
	run acct "$tcp" AdminComment set
	assert_output "ibnet:transport=tcp,alltoall=default"
	run acct "$tcp" Constraints
	assert_output ""
	run acct "$none" AdminComment
	assert_output ""
	run acct "$none" Constraints
	assert_output ""
}

@test "the user's own constraint is kept: an OR gets brackets, and an impossible one is refused at submit" {
	local j
	j=$(submit --transport=rsocket -C 'ib|ib')
	# What slurmctld scheduled the job with, then what accounting kept.
	run scontrol -o show job "$j"
	assert_output --partial " Features=(ib|ib)&ib "
	run acct "$j" Constraints set
	assert_output "(ib|ib)&ib"
	# Only c1-1 is in this list: it has no ib, so Slurm refuses before queueing.
	run sbatch -N1 -w c1-1 --transport=ipoib --wrap true
	assert_failure
	assert_output --partial "Requested node configuration is not available"
}

@test "a SLURM_IBNET_TRANSPORT default is recorded like the option" {
	local j
	j=$(SLURM_IBNET_TRANSPORT=ipoib submit)
	run acct "$j" AdminComment set
	assert_output "ibnet:transport=ipoib,alltoall=default"
	run acct "$j" NodeList set
	assert_output --regexp '^c1-[23]$'
}
