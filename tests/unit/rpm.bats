#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The RPM, built here with rpmbuild from Debian's rpm (--nodeps: this
# machine's rpm database has no slurm-devel; the headers come from
# libslurm-dev). Not tested here: installing it on a real RHEL node.

load ../helpers/common

setup_file() {
	# The package has both paced builds (BuildRequires: openmpi-devel, mpich-devel).
	needs openmpi mpich
	make -C "$REPO" rpm > "$BATS_FILE_TMPDIR/rpm.log" 2>&1 || { tail -30 "$BATS_FILE_TMPDIR/rpm.log" >&3; return 1; }
}

rpmfile() { ls "$REPO"/build/rpm/RPMS/*/spank-ibnet-"$(cat "$REPO/VERSION")"-1*.rpm; }

@test "make rpm builds the package at the tree's version, for the Slurm release it was built against" {
	run rpm -qp --qf '%{VERSION}\n' "$(rpmfile)"
	assert_output "$(cat "$REPO/VERSION")"
	run rpm -qpR "$(rpmfile)"
	assert_line "slurm >= $("$REPO/packaging/slurm-release")"
	assert_line "slurm < $("$REPO/packaging/slurm-release" --next)"
}

@test "the RPM uses RHEL's paths, and its gate path is the one compiled into its plugin" {
	run rpm -qpl "$(rpmfile)"
	assert_line /usr/lib64/slurm/spank_ibnet.so
	assert_line /usr/lib64/spank-ibnet/libibnet-rsgate.so
	assert_line /usr/lib64/spank-ibnet/libibnet-alltoall.so
	assert_line /usr/lib64/spank-ibnet/libibnet-a2a-ompi.so
	assert_line /usr/lib64/spank-ibnet/libibnet-a2a-mpich.so
	assert_line /usr/lib64/spank-ibnet/ibnet_tcp_floor.bpf.o
	assert_line /usr/bin/ibnet-hosts
	assert_line /usr/share/spank-ibnet/ibnet.conf
	assert_line --regexp '^/usr/share/doc/spank-ibnet[^/]*/benchmarks\.md$'
	assert_line --regexp '^/usr/share/licenses/spank-ibnet[^/]*/COPYING$'
	refute_output --regexp '^/etc/'
	mkdir -p "$BATS_TEST_TMPDIR/x"
	(cd "$BATS_TEST_TMPDIR/x" && rpm2cpio "$(rpmfile)" | cpio -idm --quiet)
	grep -q /usr/lib64/spank-ibnet/libibnet-rsgate.so "$BATS_TEST_TMPDIR/x/usr/lib64/slurm/spank_ibnet.so"
	grep -q /usr/lib64/spank-ibnet/libibnet-alltoall.so "$BATS_TEST_TMPDIR/x/usr/lib64/slurm/spank_ibnet.so"
	run cat "$BATS_TEST_TMPDIR/x/usr/share/spank-ibnet/ibnet.conf"
	assert_output --partial "/usr/lib64/slurm/spank_ibnet.so"
}

@test "one version: VERSION, the Debian changelog, the spec's changelog and NEWS agree" {
	local v
	v=$(cat "$REPO/VERSION")
	run dpkg-parsechangelog -l "$REPO/packaging/debian/changelog" -S Version
	assert_output "$v"
	grep -q -- "- $v-1\$" "$REPO/packaging/rpm/spank-ibnet.spec"
	grep -q "^$v " "$REPO/NEWS"
	# Each version NEWS names is dated as its Debian changelog entry is, not "unreleased".
	local date
	date=$(date -u -d "$(dpkg-parsechangelog -l "$REPO/packaging/debian/changelog" -S Date)" +%F)
	grep -qx "$v ($date)" "$REPO/NEWS"
	run grep -c 'unreleased' "$REPO/NEWS"
	assert_output 0
}
