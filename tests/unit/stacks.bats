#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The test stacks: the package list fits the release it runs on, and
# devel/ibnet-stack finds the machine's mirror in either apt format.

load ../helpers/common

STACK=$REPO/devel/ibnet-stack

@test "install-deps names only packages this release has (Debian 13 has no libclang-rt-14-dev)" {
	local p missing=()
	[ -n "$(ls /var/lib/apt/lists/*_Packages* 2>/dev/null)" ] || skip "no apt lists on this machine (apt-get update)"
	for p in $("$REPO/devel/install-deps" --list); do
		apt-cache show "$p" >/dev/null 2>&1 || missing+=("$p")
	done
	echo "$(. /etc/os-release && echo "$VERSION_CODENAME") has none of: ${missing[*]}"
	[ ${#missing[@]} -eq 0 ]
}

@test "install-deps refuses a release the project is not tested on, naming it" {
	mkdir -p "$BATS_TEST_TMPDIR/etc"
	printf 'VERSION_CODENAME=sid\n' > "$BATS_TEST_TMPDIR/etc/os-release"
	# install-deps reads /etc/os-release; run it in a mount namespace that
	# shows it another one.
	run unshare -m sh -c 'mount --bind "$1/etc/os-release" /etc/os-release && exec "$2" --list' \
		sh "$BATS_TEST_TMPDIR" "$REPO/devel/install-deps"
	assert_failure
	assert_output --partial "Debian release 'sid' is not one the project is tested on (bookworm, trixie, forky)"
}

@test "ibnet-stack reads the mirrors from deb822 sources" {
	mkdir -p "$BATS_TEST_TMPDIR/apt/sources.list.d"
	cat > "$BATS_TEST_TMPDIR/apt/sources.list.d/debian.sources" <<-'EOF'
		Types: deb
		URIs: http://mirror.example/debian
		Suites: bookworm bookworm-updates
		Components: main

		Types: deb
		URIs: http://security.example/debian-security
		Suites: bookworm-security
		Components: main
	EOF
	IBNET_STACK_APT_ETC=$BATS_TEST_TMPDIR/apt run "$STACK" mirrors
	assert_success
	assert_output 'http://mirror.example/debian http://security.example/debian-security'
}

@test "ibnet-stack reads the mirrors from one-line sources, options included, and says when there is none" {
	mkdir -p "$BATS_TEST_TMPDIR/apt/sources.list.d"
	cat > "$BATS_TEST_TMPDIR/apt/sources.list" <<-'EOF'
		# a comment
		deb-src http://src.example/debian bookworm main
		deb [arch=amd64 signed-by=/usr/share/keyrings/k.gpg] http://mirror.example/debian bookworm main
		deb http://security.example/debian-security bookworm-security main
	EOF
	IBNET_STACK_APT_ETC=$BATS_TEST_TMPDIR/apt run "$STACK" mirrors
	assert_success
	assert_output 'http://mirror.example/debian http://security.example/debian-security'
	rm "$BATS_TEST_TMPDIR/apt/sources.list"
	IBNET_STACK_APT_ETC=$BATS_TEST_TMPDIR/apt run "$STACK" mirrors
	assert_failure
	assert_output --partial 'no Debian mirror in this machine'
}

@test "ibnet-stack names the stacks it knows and refuses others" {
	run "$STACK" list
	assert_output $'trixie\nforky'
	run "$STACK" root sid
	assert_failure
	assert_output "ibnet-stack: unknown stack 'sid' (known: trixie forky)"
}

# make dist inside a root asks git for the tree's files: the copy must be a
# repository there, also when the tree is a git worktree (whose .git is a
# file naming a directory outside the root).
@test "ibnet-stack sync: the copy in the root lists the tree's files through git, from a clone or a worktree" {
	mkdir -p "$BATS_TEST_TMPDIR/stacks/trixie"
	IBNET_STACK_DIR=$BATS_TEST_TMPDIR/stacks run "$STACK" sync trixie
	assert_success
	[ -d "$BATS_TEST_TMPDIR/stacks/trixie/srv/spank-ibnet/.git" ]
	run git -C "$BATS_TEST_TMPDIR/stacks/trixie/srv/spank-ibnet" ls-files Makefile devel/ibnet-stack
	assert_line Makefile
	assert_line devel/ibnet-stack
}
