#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# make install honours PREFIX, DESTDIR and SLURM_PLUGIN_DIR, and enables
# nothing: the example config goes under share/. Uses its own build dir.

load ../helpers/common

setup() {
	D=$BATS_TEST_TMPDIR/root
	MK=(make -C "$REPO" -s B="$BATS_TEST_TMPDIR/build" DESTDIR="$D" PREFIX=/usr
		SLURM_PLUGIN_DIR=/usr/lib/x86_64-linux-gnu/slurm-wlm)
}

@test "make install puts every file under DESTDIR, PREFIX and SLURM_PLUGIN_DIR" {
	local abi list
	list=$("${MK[@]}" install-list)
	run "${MK[@]}" install
	assert_success
	[ -x "$D/usr/lib/x86_64-linux-gnu/slurm-wlm/spank_ibnet.so" ]
	[ -x "$D/usr/lib/spank-ibnet/libibnet-rsgate.so" ]
	[ -x "$D/usr/lib/spank-ibnet/libibnet-alltoall.so" ]
	# Each MPI's paced build where make builds it (here and in CI: both).
	for abi in ompi mpich; do
		[[ "$list" != *"/libibnet-a2a-$abi.so"* ]] || [ -x "$D/usr/lib/spank-ibnet/libibnet-a2a-$abi.so" ]
	done
	[ -s "$D/usr/lib/spank-ibnet/ibnet_tcp_floor.bpf.o" ]
	grep -q /usr/lib/spank-ibnet/ibnet_tcp_floor.bpf.o "$D/usr/lib/x86_64-linux-gnu/slurm-wlm/spank_ibnet.so"
	[ -x "$D/usr/bin/ibnet-hosts" ]
	[ -f "$D/usr/share/man/man8/spank-ibnet.8" ]
	run cat "$D/usr/share/spank-ibnet/ibnet.conf"
	assert_line --regexp '^required /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_ibnet.so ib_hostname='
	assert_output --partial 'ln -s /usr/share/spank-ibnet/ibnet.conf /etc/slurm/plugstack.conf.d/ibnet.conf'
	# The installed plugin looks for the gate where it was installed.
	run "$D/usr/bin/ibnet-hosts" --check
	assert_line 'rsgate=/usr/lib/spank-ibnet/libibnet-rsgate.so'
	assert_line 'alltoall_lib=/usr/lib/spank-ibnet/libibnet-alltoall.so'
	grep -q /usr/lib/spank-ibnet/libibnet-rsgate.so "$D/usr/lib/x86_64-linux-gnu/slurm-wlm/spank_ibnet.so"
}

@test "make install ships the versioned gaussian-ib module, which knows where it was installed, and its scripts" {
	run "${MK[@]}" install
	assert_success
	local share=$D/usr/share/spank-ibnet
	# The module names its share directory (a site may copy it into its own tree).
	grep -q '^local root = "/usr/share/spank-ibnet"$' "$share/lmod-modules/gaussian-ib/$(cat "$REPO/VERSION").lua"
	# lua/ holds only the job_submit module (the hostname rules' Lua twin is gone for good),
	# and the installed example finds it there.
	[ "$(cd "$share/lua" && find . -type f | sort)" = "./spank_ibnet/job_submit.lua" ]
	grep -q '^package.path = "/usr/share/spank-ibnet/lua/?.lua;" .. package.path$' "$share/examples/job_submit.lua"
	[ -x "$share/scripts/gaussian-ib-bin/g16" ]
	[ "$(readlink "$share/scripts/gaussian-ib-bin/g09")" = g16 ]
	[ "$(readlink "$D/usr/bin/gaussian-ib-setup")" = /usr/share/spank-ibnet/scripts/gaussian-ib-setup ]
	run bash -c "source /usr/share/lmod/lmod/init/bash; module use '$share/lmod-modules'; module spider gaussian-ib 2>&1"
	assert_output --partial 'Gaussian Linda over Rsockets on InfiniBand'
	run bash -c "echo '%LindaWorkers=c1-1' | '$share/scripts/gaussian-ib-input' --rule '$PAPER_RULE'"
	assert_output '%LindaWorkers=cib1-1'
}

@test "make install enables nothing: no file under /etc, even with an admin's plugstack.conf.d" {
	mkdir -p "$D/etc/slurm/plugstack.conf.d"
	echo "# the admin's own" > "$D/etc/slurm/plugstack.conf.d/other.conf"
	run "${MK[@]}" install SYSCONFDIR=/etc/slurm
	assert_success
	run find "$D/etc" -type f
	assert_output "$D/etc/slurm/plugstack.conf.d/other.conf"
	# Nothing installed anywhere is a live plugstack.conf line outside share/.
	run grep -rl --exclude-dir=share '^required ' "$D"
	assert_failure
}

@test "one install list: what make install puts in DESTDIR is exactly make install-list, and uninstall removes it and only it" {
	run "${MK[@]}" install
	assert_success
	diff <(cd "$D" && find . -not -type d | sed 's/^\.//' | sort) <("${MK[@]}" install-list | sort)
	# A file the site added under our share directory survives uninstall; shared
	# directories (bin, man1) are left, and our own empty ones go.
	echo site > "$D/usr/share/spank-ibnet/site-notes"
	run "${MK[@]}" uninstall
	assert_success
	[ "$(cd "$D" && find . -not -type d)" = ./usr/share/spank-ibnet/site-notes ]
	[ -d "$D/usr/bin" ]
	[ ! -e "$D/usr/lib/spank-ibnet" ]
	[ ! -e "$D/usr/share/spank-ibnet/scripts" ]
}
