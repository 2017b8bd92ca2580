#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Docs that cannot drift: every plugstack.conf key of the parser's table has
# its row in the admin guide, its entry in spank-ibnet(8) and its line in the
# example config, and every SLURM_IBNET_* variable the shipped code uses is
# in the user guide (tests/programs/doc_drift.py).

load ../helpers/common

DRIFT=$REPO/tests/programs/doc_drift.py

# scratch: a copy of the code and docs the checker reads.
scratch() {
	mkdir -p "$BATS_TEST_TMPDIR/tree"
	cp -r "$REPO/spank-ibnet" "$REPO/alltoall" "$REPO/scripts" "$REPO/lmod-modules" \
		"$REPO/docs" "$BATS_TEST_TMPDIR/tree/"
	echo "$BATS_TEST_TMPDIR/tree"
}

@test "every key and variable of the code is documented, and every documented one exists" {
	run python3 "$DRIFT" "$REPO"
	echo "$output"
	assert_success
	assert_output --regexp '^doc_drift: 1[5-9] keys and [0-9]+ variables, each documented$'
}

@test "a key added to the parser without its doc lines fails the check" {
	local tree
	tree=$(scratch)
	sed -i 's/"tcp_rto_min_transports", NULL/"tcp_rto_min_transports", "burst_limit", NULL/' \
		"$tree/spank-ibnet/ibnet_config.c"
	grep -q '"burst_limit"' "$tree/spank-ibnet/ibnet_config.c"
	run python3 "$DRIFT" "$tree"
	assert_failure
	assert_line "key burst_limit: no row in the admin guide's \"plugstack.conf keys\" table"
	assert_line 'key burst_limit: not in spank-ibnet(8) (docs/spank-ibnet.8)'
	assert_line 'key burst_limit: not in the example config (docs/examples/ibnet.conf)'
}

@test "a variable the code reads without a line in the user guide fails the check, and so does a stale one" {
	local tree
	tree=$(scratch)
	printf '/* getenv("SLURM_IBNET_BURST") */\n' >> "$tree/alltoall/ibnet_tcp_floor.c"
	printf '\n| `SLURM_IBNET_GONE` | removed long ago |\n' >> "$tree/docs/user-guide.md"
	run python3 "$DRIFT" "$tree"
	assert_failure
	assert_line 'variable SLURM_IBNET_BURST: the code uses it, the user guide does not say what it is'
	assert_line 'variable SLURM_IBNET_GONE: in the user guide, but no shipped code uses it'
}

# The MPI variables: the plan's two tables against the admin guide's
# "What each transport sets" table. (It found PRTE_MCA_oob_tcp_if_include
# there, a name the plugin had stopped setting in 0.6.0.)
@test "an MPI variable the plan sets without a row in the admin guide's table fails the check, and so does a stale row" {
	local tree
	tree=$(scratch)
	sed -i 's/{ "HYDRA_IFACE", T_NET/{ "HYDRA_NEW_IFACE", T_NET/' "$tree/spank-ibnet/ibnet_env_mpi.c"
	grep -q '"HYDRA_NEW_IFACE"' "$tree/spank-ibnet/ibnet_env_mpi.c"
	sed -i 's/"MV2_ALLTOALL_TUNING"/"MV2_ALLTOALL_NEW_TUNING"/' "$tree/alltoall/ibnet_a2a_settings.c"
	run python3 "$DRIFT" "$tree"
	assert_failure
	assert_line "MPI variable HYDRA_NEW_IFACE: the plugin sets it, the admin guide's \"What each transport sets\" table has no row"
	assert_line "MPI variable HYDRA_IFACE: in the admin guide's \"What each transport sets\" table, but the plugin never sets it"
	assert_line "MPI variable MV2_ALLTOALL_NEW_TUNING: the plugin sets it, the admin guide's \"What each transport sets\" table has no row"
}
