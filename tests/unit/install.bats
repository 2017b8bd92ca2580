#!/usr/bin/env bats
# make install honours PREFIX, DESTDIR and SLURM_PLUGIN_DIR, and never
# overwrites an admin's plugstack.conf.d/ibnet.conf. Uses its own build dir.

load ../helpers/common

setup() {
	D=$BATS_TEST_TMPDIR/root
	MK=(make -C "$REPO" -s B="$BATS_TEST_TMPDIR/build" DESTDIR="$D" PREFIX=/usr
		SLURM_PLUGIN_DIR=/usr/lib/x86_64-linux-gnu/slurm-wlm SYSCONFDIR=/etc/slurm)
}

@test "make install puts every file under DESTDIR, PREFIX and SLURM_PLUGIN_DIR" {
	run "${MK[@]}" install
	assert_success
	[ -x "$D/usr/lib/x86_64-linux-gnu/slurm-wlm/spank_ibnet.so" ]
	[ -x "$D/usr/lib/spank-ibnet/libibnet-rsgate.so" ]
	[ -x "$D/usr/bin/ibnet-hosts" ]
	[ -f "$D/usr/share/man/man8/spank-ibnet.8" ]
	run cat "$D/etc/slurm/plugstack.conf.d/ibnet.conf"
	assert_line --regexp '^required /usr/lib/x86_64-linux-gnu/slurm-wlm/spank_ibnet.so ib_hostname='
	# The installed plugin looks for the gate where it was installed.
	run "$D/usr/bin/ibnet-hosts" --check
	assert_line 'rsgate=/usr/lib/spank-ibnet/libibnet-rsgate.so'
	grep -q /usr/lib/spank-ibnet/libibnet-rsgate.so "$D/usr/lib/x86_64-linux-gnu/slurm-wlm/spank_ibnet.so"
}

@test "make install ships the gaussian-ib module, its Lua library and scripts, usable in place" {
	run "${MK[@]}" install
	assert_success
	local share=$D/usr/share/spank-ibnet
	[ -f "$share/lua/ibnet/hostname.lua" ]
	[ -x "$share/scripts/gaussian-ib-bin/g16" ]
	[ "$(readlink "$share/scripts/gaussian-ib-bin/g09")" = g16 ]
	[ "$(readlink "$D/usr/bin/gaussian-ib-setup")" = /usr/share/spank-ibnet/scripts/gaussian-ib-setup ]
	run bash -c "source /usr/share/lmod/lmod/init/bash; module use '$share/lmod-modules'; module spider gaussian-ib 2>&1"
	assert_output --partial 'Gaussian Linda over Rsockets on InfiniBand'
	run bash -c "echo '%LindaWorkers=c1-1' | '$share/scripts/gaussian-ib-input' --rule '$PAPER_RULE'"
	assert_output '%LindaWorkers=cib1-1'
}

@test "make install keeps an existing ibnet.conf" {
	mkdir -p "$D/etc/slurm/plugstack.conf.d"
	echo "# the admin's own" > "$D/etc/slurm/plugstack.conf.d/ibnet.conf"
	run "${MK[@]}" install
	assert_success
	assert_output --partial "keeping existing"
	run cat "$D/etc/slurm/plugstack.conf.d/ibnet.conf"
	assert_output "# the admin's own"
}
