#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Docs that cannot drift: every plugstack.conf key of the parser's table has
# its row in the admin guide, its entry in spank-ibnet(8) and its line in the
# example config, every SLURM_IBNET_* variable the shipped code uses is
# in the user guide, and every measured figure the guides quote is on a
# benchmark page (tests/programs/doc_drift.py).

load ../helpers/common

DRIFT=$REPO/tests/programs/doc_drift.py

# scratch: a copy of the code and docs the checker reads.
scratch() {
	mkdir -p "$BATS_TEST_TMPDIR/tree"
	cp -r "$REPO/spank-ibnet" "$REPO/contract" "$REPO/alltoall" "$REPO/rsocket-gate" \
		"$REPO/scripts" "$REPO/lmod-modules" "$REPO/docs" "$REPO/README.md" "$BATS_TEST_TMPDIR/tree/"
	echo "$BATS_TEST_TMPDIR/tree"
}

@test "every key and variable of the code is documented, and every documented one exists" {
	run python3 "$DRIFT" "$REPO"
	echo "$output"
	assert_success
	assert_output --regexp '^doc_drift: 1[5-9] keys and [0-9]+ variables, each documented$'
}

# add_key TREE: a new key in TREE's copy of the plugin, as an admin-facing
# key is added: one record in config_keys[], and the field it fills.
add_key() {
	sed -i '/^static const struct config_key config_keys\[\] = {$/a\
	{ .name = "burst_limit", .kind = \&kind_checked, .field = FIELD(burst_limit), .def = "4",\
	  .valid = device_valid, .expected = "a burst such as 4" },' "$1/spank-ibnet/ibnet_config.c"
	sed -i '/^struct ibnet_config {$/a\
	char *burst_limit;' "$1/spank-ibnet/ibnet_config.h"
	grep -q '"burst_limit"' "$1/spank-ibnet/ibnet_config.c"
	grep -q 'char \*burst_limit;' "$1/spank-ibnet/ibnet_config.h"
}

@test "a key added to the parser without its doc lines fails the check" {
	local tree
	tree=$(scratch)
	add_key "$tree"
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
	sed -i 's/"MV2_ALLTOALL_TUNING"/"MV2_ALLTOALL_NEW_TUNING"/' "$tree/contract/ibnet_a2a_settings.c"
	run python3 "$DRIFT" "$tree"
	assert_failure
	assert_line "MPI variable HYDRA_NEW_IFACE: the plugin sets it, the admin guide's \"What each transport sets\" table has no row"
	assert_line "MPI variable HYDRA_IFACE: in the admin guide's \"What each transport sets\" table, but the plugin never sets it"
	assert_line "MPI variable MV2_ALLTOALL_NEW_TUNING: the plugin sets it, the admin guide's \"What each transport sets\" table has no row"
}

# The figures (issue 43): a figure quoted in a guide must be one a benchmark
# page (docs/benchmarks.md, docs/bench/*.md) holds; one made up, or left
# from a run since replaced, is named with its file and line.
@test "a figure the guides quote that no benchmark page holds fails the check" {
	local tree line
	tree=$(scratch)
	sed -i '0,/^- On loss-free networks/s//- On loss-free networks (9.87x)/' "$tree/docs/admin-guide.md"
	line=$(grep -n '(9\.87x)' "$tree/docs/admin-guide.md" | cut -d: -f1)
	[ -n "$line" ]
	printf '\nIt took 4.56 ms, 7-9%% less (see `docs/benchmarks.md`).\n' >> "$tree/docs/user-guide.md"
	run python3 "$DRIFT" "$tree"
	assert_failure
	assert_line "figure '9.87x' (docs/admin-guide.md:$line): in no benchmark page (docs/benchmarks.md, docs/bench/*.md)"
	assert_line --partial "figure '4.56 ms' (docs/user-guide.md:"
	assert_line --partial "figure '7-9%' (docs/user-guide.md:"
	assert_equal "${#lines[@]}" 3
	# The same figure on a benchmark page passes.
	printf '\n| made up | 9.87x | 4.56 ms | 7-9%% |\n' >> "$tree/docs/bench/fast-links.md"
	run python3 "$DRIFT" "$tree"
	assert_success
}

# The whole of adding a key: with its record and its field, and nothing
# else, the plugin parses it, gives its default, checks its value, lists it
# among the known keys and prints it in --check, and the drift check names
# each document that does not have it yet.
@test "adding a key is one record and its field: parsed, defaulted, checked, printed, and the docs found missing" {
	local tree=$BATS_TEST_TMPDIR/whole
	copy_sources "$tree"
	add_key "$tree"
	make -C "$tree" -s WITH_BPF=no build/ibnet-hosts 2>/dev/null
	run "$tree/build/ibnet-hosts" --check
	assert_success
	assert_line 'burst_limit=4'
	run "$tree/build/ibnet-hosts" --config 'burst_limit=8' --check
	assert_success
	assert_line 'burst_limit=8'
	run "$tree/build/ibnet-hosts" --config 'burst_limit=$x' --check
	assert_failure
	assert_output "spank-ibnet: plugstack.conf: burst_limit='\$x': expected a burst such as 4"
	run "$tree/build/ibnet-hosts" --config 'burst=8' --check
	assert_failure
	assert_output --partial ', tcp_rto_min_transports'
	assert_output --partial 'burst_limit'
	run python3 "$DRIFT" "$tree"
	assert_failure
	assert_line "key burst_limit: no row in the admin guide's \"plugstack.conf keys\" table"
	assert_line 'key burst_limit: not in spank-ibnet(8) (docs/spank-ibnet.8)'
	assert_line 'key burst_limit: not in the example config (docs/examples/ibnet.conf)'
}


# ibnet-hosts(1) against the tool: every option its --help names (each mode
# among them) has its place in the man page.
@test "every option ibnet-hosts --help names is in ibnet-hosts(1)" {
	local opt missing=
	run "$IBNET_HOSTS" --help
	assert_success
	for opt in $(grep -oE -- '--[a-z][a-z-]*' <<<"$output" | sort -u); do
		grep -qF -- "$(sed 's/-/\\-/g' <<<"$opt")" "$REPO/docs/ibnet-hosts.1" || missing+=" $opt"
	done
	echo "not in docs/ibnet-hosts.1:$missing"
	[ -z "$missing" ]
	assert_output --partial '--linda-workers FILE'
}
