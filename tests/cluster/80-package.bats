#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package, as a site gets it: built by 'make deb' (dpkg-buildpackage),
# checked by lintian, installed with dpkg, running the demo's rsocket job on the
# test cluster from the installed files, upgraded, and purged. This test
# installs the package on this machine and purges it at the end; it refuses to
# touch a spank-ibnet package it did not install itself.

load ../helpers/common
load ../helpers/cluster

ADMIN_CONF=/etc/slurm/plugstack.conf.d/spank-ibnet.conf
MULTIARCH=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || echo x86_64-linux-gnu)
PLUGIN_SO=/usr/lib/$MULTIARCH/slurm-wlm/spank_ibnet.so
GATE_SO=/usr/lib/$MULTIARCH/spank-ibnet/libibnet-rsgate.so
STATE=$BATS_FILE_TMPDIR

setup_file() {
	if dpkg-query -W -f='${Status}' spank-ibnet 2>/dev/null | grep -q installed; then
		echo "# spank-ibnet is already installed on this machine; not touching it" >&3
		touch "$STATE/skip"
		return 0
	fi
	VERSION=$(cat "$REPO/VERSION")
	make -C "$REPO" deb > "$STATE/deb.log" 2>&1 || { tail -30 "$STATE/deb.log" >&3; return 1; }
	cp "$REPO"/build/deb/spank-ibnet_"$VERSION"_*.deb "$STATE/old.deb"
	# The upgrade: the same tree, one Debian revision later.
	local tree=$REPO/build/deb/spank-ibnet-$VERSION
	{
		printf 'spank-ibnet (%s+upgradetest1) unstable; urgency=medium\n\n  * Upgrade test.\n\n' "$VERSION"
		printf ' -- test <test@example.invalid>  %s\n\n' "$(date -R)"
		cat "$tree/debian/changelog"
	} > "$STATE/changelog"
	cp "$STATE/changelog" "$tree/debian/changelog"
	(cd "$tree" && dpkg-buildpackage -us -uc -b) > "$STATE/deb2.log" 2>&1 ||
		{ tail -30 "$STATE/deb2.log" >&3; return 1; }
	cp "$REPO"/build/deb/spank-ibnet_"$VERSION"+upgradetest1_*.deb "$STATE/new.deb"
	[ -d /etc/slurm/plugstack.conf.d ] || { mkdir -p /etc/slurm/plugstack.conf.d && touch "$STATE/made-confd"; }
}

teardown_file() {
	cluster_down
	[ -f "$STATE/skip" ] && return 0
	dpkg --purge spank-ibnet >/dev/null 2>&1 || true
	rm -f "$ADMIN_CONF"
	[ ! -f "$STATE/made-confd" ] || rmdir /etc/slurm/plugstack.conf.d 2>/dev/null || true
}

setup() {
	[ ! -f "$STATE/skip" ] || skip "spank-ibnet is already installed here"
}

@test "lintian: no errors (its whole output is in the test log)" {
	run lintian --fail-on error "$REPO"/build/deb/spank-ibnet_*_amd64.changes
	# Shown in the TAP log, warnings included.
	printf '# lintian: %s\n' "${lines[@]:-(nothing)}" >&3
	assert_success
	refute_output --regexp '^E: '
}

@test "the package depends on the Slurm release it was built against" {
	local rel next
	rel=$("$REPO/packaging/slurm-release")
	next=$("$REPO/packaging/slurm-release" --next)
	run dpkg-deb -f "$STATE/old.deb" Depends
	assert_output --partial "slurm-wlm-basic-plugins (>= $rel~), slurm-wlm-basic-plugins (<< $next~)"
}

@test "install: the plugin, the gate, ibnet-hosts, the man page, the module; nothing enabled" {
	dpkg -i "$STATE/old.deb"
	[ -f "$PLUGIN_SO" ]
	[ -f "$GATE_SO" ]
	run /usr/bin/ibnet-hosts --version
	assert_output --partial "$(cat "$REPO/VERSION")"
	[ -f /usr/share/man/man8/spank-ibnet.8.gz ]
	[ -f "/usr/share/spank-ibnet/lmod-modules/gaussian-ib/$(cat "$REPO/VERSION").lua" ]
	[ -f /usr/share/spank-ibnet/examples/job_submit.lua ]
	# The guides link to the benchmarks, so they ship too; the licence is the package's copyright.
	ls /usr/share/doc/spank-ibnet/benchmarks.md* /usr/share/doc/spank-ibnet/bench/alltoall-gige-lossy.png
	grep -q '^License: GPL-2+' /usr/share/doc/spank-ibnet/copyright
	# The example line names the installed plugin; no file under /etc is the package's.
	run cat /usr/share/spank-ibnet/ibnet.conf
	assert_output --partial "$PLUGIN_SO"
	run bash -c "dpkg -L spank-ibnet | grep '^/etc/'"
	assert_output ""
	# The installed gate path is compiled into the installed plugin.
	grep -q "$GATE_SO" "$PLUGIN_SO"
}

@test "the installed plugin runs the demo's rsocket job on the test cluster" {
	local out=$BATS_TEST_TMPDIR/demo.out jid
	cluster_up -n 3 --plugin "$PLUGIN_SO"
	grep -q "^required $PLUGIN_SO " "$IBNET_CLUSTER_DIR/plugstack.conf"
	jid=$(sbatch --parsable -N3 --transport=rsocket -o "$out" "$REPO/devel/demo-job.sh")
	"$CLUSTER" wait "$jid" 120
	cat "$out"
	run sacct_state "$jid"
	assert_output COMPLETED
	# librspreload behind the installed gate, in a task on the second node.
	grep -q "LD_PRELOAD: *$GATE_SO:.*librspreload" "$out"
	grep -q "librspreload mapped: *yes" "$out"
	grep -q "20 MB sent to: *cib1-2 by iperf3 (sockets through librspreload" "$out"
	run grep -h "spank-ibnet: version $(cat "$REPO/VERSION") loaded" "$IBNET_CLUSTER_DIR"/log/slurmd-c1-1.log
	assert_success
	cluster_down
}

@test "upgrade keeps the admin's config; purge removes every file of the package and keeps it" {
	local files
	echo "required $PLUGIN_SO ib_hostname=s/\$/-ib/  # the admin's edit" > "$ADMIN_CONF"
	dpkg -i "$STATE/new.deb"
	run dpkg-query -W -f='${Version}' spank-ibnet
	assert_output --partial "+upgradetest1"
	[ -f "$PLUGIN_SO" ]
	grep -q "the admin's edit" "$ADMIN_CONF"
	files=$(dpkg -L spank-ibnet | while read -r f; do [ -f "$f" ] && echo "$f"; done)
	[ -n "$files" ]
	dpkg --purge spank-ibnet
	run dpkg-query -W -f='${Status}' spank-ibnet
	refute_output --partial "installed"
	for f in $files; do
		[ ! -e "$f" ] || { echo "left behind: $f"; false; }
	done
	[ ! -d /usr/share/spank-ibnet ]
	grep -q "the admin's edit" "$ADMIN_CONF"
}
