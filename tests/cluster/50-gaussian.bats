#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The chemist's story on the real cluster, with real Lmod:
#   module load gaussian-ib; sbatch -N3 --transport=rsocket g16.sh
# Gaussian is a stand-in of our own (tests/helpers/gaussian.bash); there is
# no InfiniBand, so librspreload falls back to TCP on the simulated ib0.

load ../helpers/common
load ../helpers/cluster
load ../helpers/gaussian

WATER=$'%NProcShared=2\n#p hf/sto-3g\n\nwater\n\n0 1\nO\n'

setup_file() {
	cluster_up -n 3 --sshd
	export GTREE=$BATS_FILE_TMPDIR/gaussian
	make_standin_gaussian "$GTREE"
	"$SETUP" "$GTREE/g16" >/dev/null
}

teardown_file() {
	cluster_down
}

# g16_script INPUT-TEXT [LINE]: the batch job a chemist writes, in g16.sh;
# LINE, if given, runs after the module is loaded.
g16_script() {
	printf '%s\n' "$1" > "$BATS_TEST_TMPDIR/job.gjf"
	cat > "$BATS_TEST_TMPDIR/g16.sh" <<EOF
#!/bin/bash
source $LMOD_INIT
module use $REPO/lmod-modules
export g16root=$GTREE PATH=\$PATH:$GTREE/g16   # what the site's gaussian module does
module load gaussian-ib || exit 1
${2-}
echo "GAUSS_WDEF=\$GAUSS_WDEF GAUSS_PDEF=\$GAUSS_PDEF"
cd $BATS_TEST_TMPDIR
g16 job.gjf
rc=\$?
cat job.log
exit \$rc
EOF
}

# run_g16 INPUT-TEXT: run that job; prints its output and then "ETH IB"
# bytes delivered to c1-2 and c1-3 during the job.
run_g16() {
	g16_script "$1"
	local b2 b3 a2 a3
	read -r -a b2 <<<"$("$CLUSTER" counters c1-2)"
	read -r -a b3 <<<"$("$CLUSTER" counters c1-3)"
	batch "$BATS_TEST_TMPDIR/out" -N3 -c2 --transport="${TRANSPORT:-rsocket}" "$BATS_TEST_TMPDIR/g16.sh" || return 1
	read -r -a a2 <<<"$("$CLUSTER" counters c1-2)"
	read -r -a a3 <<<"$("$CLUSTER" counters c1-3)"
	echo "counters $((a2[0] - b2[0] + a3[0] - b3[0])) $((a2[1] - b2[1] + a3[1] - b3[1]))"
}

@test "module load gaussian-ib + --transport=rsocket: Linda over Rsockets on IB names, bytes on ib0" {
	run run_g16 $'%NProcShared=2\n#p b3lyp/6-31g opt\n\nwater\n\n0 1\nO\nH 1 0.96\nH 1 0.96 2 104.5\n'
	assert_success
	# GAUSS_WDEF from the plugin; GAUSS_PDEF from the g16 wrapper (the cores per node).
	assert_line 'GAUSS_WDEF=cib1-1,cib1-2,cib1-3 GAUSS_PDEF='
	assert_line 'g16 stand-in: GAUSS_PDEF=2'
	# Linda started its workers through the module's launcher, as job steps.
	assert_line "g16 stand-in: GAUSS_SDEF=$REPO/scripts/linda-srun"
	assert_line "master: started a worker on cib1-2 with $REPO/scripts/linda-srun"
	assert_line 'g16 stand-in: Linda workers from GAUSS_WDEF: cib1-1,cib1-2,cib1-3'
	assert_line "g16 stand-in: GAUSS_LEXEDIR=$GTREE/g16/linda-exe-ib"
	assert_line --regexp '^master host=c1-1 rspreload=yes '
	local n
	for n in 1 2 3; do
		assert_line "master -> cib1-$n: host=c1-$n rspreload=yes local=198.18.1.1$n bytes=4000000"
	done
	read -r _ eth ib <<<"${lines[-1]}"
	[ "$ib" -gt 8000000 ]	# 4 MB to each of c1-2 and c1-3
	[ "$eth" -lt 2000000 ]
}

@test "module load gaussian-ib + --transport=ipoib: the plugin's IB names; the wrapper adds librspreload itself" {
	TRANSPORT=ipoib run run_g16 "$WATER"
	assert_success
	assert_line 'GAUSS_WDEF=cib1-1,cib1-2,cib1-3 GAUSS_PDEF='
	assert_line "master: started a worker on cib1-3 with $REPO/scripts/linda-srun"
	assert_line 'master -> cib1-3: host=c1-3 rspreload=yes local=198.18.1.13 bytes=4000000'
	read -r _ eth ib <<<"${lines[-1]}"
	[ "$ib" -gt 8000000 ]
	[ "$eth" -lt 2000000 ]
}

@test "in a tcp job, module load gaussian-ib refuses with the reason, and the job says so" {
	printf '#!/bin/bash\nsource %s\nmodule use %s/lmod-modules\nexport g16root=%s\nmodule load gaussian-ib || echo "module refused"\n' \
		"$LMOD_INIT" "$REPO" "$GTREE" > "$BATS_TEST_TMPDIR/tcp.sh"
	batch "$BATS_TEST_TMPDIR/out" -N2 --transport=tcp "$BATS_TEST_TMPDIR/tcp.sh" > /dev/null || true
	# Lmod wraps its messages at any space: compare on one line.
	run bash -c "tr -s ' \n' '  ' < '$BATS_TEST_TMPDIR/out'"
	assert_output --partial "this job did not ask for InfiniBand (its transport is 'tcp')"
	assert_output --partial "module refused"
}

@test "an input naming c1-* hosts in %LindaWorkers works unchanged: the hosts become IB names" {
	run run_g16 $'%LindaWorkers=c1-1,c1-2:2,c1-3\n%NProcShared=2\n#p hf/sto-3g\n\nwater\n\n0 1\nO\n'
	assert_success
	assert_line 'g16 stand-in: Linda workers from input: cib1-1,cib1-2:2,cib1-3'
	assert_line 'master -> cib1-2: host=c1-2 rspreload=yes local=198.18.1.12 bytes=4000000'
	assert_line 'master -> cib1-3: host=c1-3 rspreload=yes local=198.18.1.13 bytes=4000000'
	read -r _ eth ib <<<"${lines[-1]}"
	[ "$ib" -gt 8000000 ]
	[ "$eth" -lt 2000000 ]
}


# steps JOBID: the job's running steps, "NAME NODE" a line.
steps() {
	squeue -h -s -j "$1" -o '%j %N' 2>/dev/null | sort
}

@test "Linda workers started through linda-srun are steps of the job, and scancel leaves none behind" {
	local jid i pid n=0
	g16_script "$WATER"
	mkdir -p "$BATS_TEST_TMPDIR/pids"
	jid=$(LINDA_STANDIN_HOLD=30 LINDA_STANDIN_PIDDIR=$BATS_TEST_TMPDIR/pids \
		sbatch --parsable -N3 --transport=rsocket -o "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/g16.sh")
	for i in $(seq 1 60); do
		[ "$(steps "$jid" | grep -c '^linda-worker ')" -eq 3 ] && [ "$(ls "$BATS_TEST_TMPDIR/pids" | wc -l)" -eq 3 ] && break
		sleep 0.5
	done
	run steps "$jid"
	assert_line 'linda-worker c1-1'
	assert_line 'linda-worker c1-2'
	assert_line 'linda-worker c1-3'
	scancel "$jid"
	"$CLUSTER" wait "$jid" 60
	for pid in $(cat "$BATS_TEST_TMPDIR"/pids/*.pid); do
		n=$((n + 1))
		for i in $(seq 1 20); do kill -0 "$pid" 2>/dev/null || break; sleep 0.25; done
		! kill -0 "$pid" 2>/dev/null || { echo "worker pid $pid survived scancel"; false; }
	done
	[ "$n" -eq 3 ]
}

@test "one Linda worker that fails fails the job, at once, with the reason" {
	local jid start
	g16_script "$WATER"
	start=$SECONDS
	jid=$(LINDA_STANDIN_FAIL_ON=c1-2 sbatch --parsable -N3 --transport=rsocket \
		-o "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/g16.sh")
	"$CLUSTER" wait "$jid" 120
	cat "$BATS_TEST_TMPDIR/out"
	run sacct_state "$jid"
	assert_output FAILED
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line --partial "worker on c1-2: failing as asked"
	assert_line 'master: the worker on cib1-2 failed (exit 3)'
	assert_line 'master: stopped the worker on cib1-3'
	# Bounded by the failure, not by a timeout: the master's retries stop when
	# the worker's launcher ends.
	echo "the job took $((SECONDS - start)) s"
	[ $((SECONDS - start)) -lt 40 ]
	run steps "$jid"
	assert_output ""
}

@test "linda-srun maps IB names back to nodes, and refuses hosts outside the job with a sentence" {
	cat > "$BATS_TEST_TMPDIR/map.sh" <<EOF
#!/bin/bash
$REPO/scripts/linda-srun cib1-2 hostname
$REPO/scripts/linda-srun -n c1-3 echo one 'two three'
$REPO/scripts/linda-srun cib1-9 true; echo "rc=\$?"
$REPO/scripts/linda-srun c1-2 'exit 7'; echo "rc=\$?"
$REPO/scripts/linda-srun c1-3 'kill -USR1 \$\$'; echo "signal rc=\$?"
EOF
	chmod +x "$BATS_TEST_TMPDIR/map.sh"
	run batch "$BATS_TEST_TMPDIR/out" -N3 --transport=ipoib "$BATS_TEST_TMPDIR/map.sh"
	assert_line c1-2
	assert_line 'one two three'	# joined with spaces, as rsh does
	assert_line --partial 'linda-srun: cib1-9 is not a node of job'
	assert_line 'rc=255'
	assert_line 'rc=7'
	# A worker killed by a signal: its launcher fails too (srun: 128 + the signal).
	assert_line 'signal rc=138'
	run "$REPO/scripts/linda-srun" c1-1 true
	assert_failure 255
	assert_output --partial 'not inside a Slurm job'
}

@test "the ssh path sites run today: workers over a real sshd reach the IB names, outside the job" {
	local jid i pid ssh_cfg=$IBNET_CLUSTER_DIR/ssh/ssh_config
	# What a site without linda-srun has: Linda's own ssh, host keys scanned, root's key.
	g16_script "$WATER" "export GAUSS_SDEF='ssh -F $ssh_cfg'"
	local pids=()
	# ssh passes no environment: the workers are found by their command line
	# (looked at, never signalled).
	# The master holds its workers until the test has looked at them (60 s
	# at most): the CI runs three test clusters on two cores, and a fixed
	# 4 s hold with a 10 s look missed them there.
	jid=$(LINDA_STANDIN_HOLD=60 LINDA_STANDIN_RELEASE=$BATS_TEST_TMPDIR/release \
		sbatch --parsable -N3 --transport=rsocket \
		-o "$BATS_TEST_TMPDIR/out" "$BATS_TEST_TMPDIR/g16.sh")
	for i in $(seq 1 240); do
		mapfile -t pids < <(pgrep -f "$GTREE/g16/linda-exe-ib/../worker.exel 5301")
		[ "${#pids[@]}" -eq 3 ] && break
		sleep 0.25
	done
	[ "${#pids[@]}" -eq 3 ] || { touch "$BATS_TEST_TMPDIR/release"; false; }
	# The workers run, but not as steps of the job, and without its environment.
	run steps "$jid"
	refute_output --partial linda-worker
	for pid in "${pids[@]}"; do
		run bash -c "tr '\\0' '\\n' < /proc/$pid/environ | grep -c '^SLURM_JOB_ID=' || true"
		assert_output 0
	done
	touch "$BATS_TEST_TMPDIR/release"
	"$CLUSTER" wait "$jid" 120
	run cat "$BATS_TEST_TMPDIR/out"
	assert_line "g16 stand-in: GAUSS_SDEF=ssh -F $ssh_cfg"
	# Still Rsockets on IB names: the wrapper found librspreload on its own.
	assert_line 'master -> cib1-2: host=c1-2 rspreload=yes local=198.18.1.12 bytes=4000000'
	assert_line 'master -> cib1-3: host=c1-3 rspreload=yes local=198.18.1.13 bytes=4000000'
	run sacct_state "$jid"
	assert_output COMPLETED
	grep -q 'Accepted publickey for root from 198.18.1.11' "$IBNET_CLUSTER_DIR/log/sshd-c1-2.log"
}
