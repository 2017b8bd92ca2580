#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The licence, GPL-2.0-or-later (Slurm's own): the text, a line in every
# source file, and both packages' metadata.

load ../helpers/common

# sources: the tree's files that are code, man pages or scripts (by name, or
# by a #! line), one per line; data, corpora and prose are not.
sources() {
	local f
	git -C "$REPO" ls-files --cached --others --exclude-standard | while read -r f; do
		[ -f "$REPO/$f" ] && [ ! -L "$REPO/$f" ] || continue
		case $f in
		tests/fuzz/corpus/*|tests/fuzz/regressions/*) continue ;;
		*.c|*.h|*.map|*.f90|*.lua|*.1|*.8|*.bats|*.bash|*.py|*.spec|*.sh|*.conf|*.mk|Makefile|*/rules|.gitignore)
			echo "$f" ;;
		*)	[ "$(head -c2 "$REPO/$f")" != '#!' ] || echo "$f" ;;
		esac
	done
}

@test "COPYING is the GNU GPL, version 2" {
	run head -3 "$REPO/COPYING"
	assert_output --partial 'GNU GENERAL PUBLIC LICENSE'
	assert_output --partial 'Version 2, June 1991'
}

@test "every source file names its licence in its first lines (SPDX)" {
	command -v git >/dev/null && git -C "$REPO" rev-parse 2>/dev/null || skip "not a git work tree"
	local f n=0 missing=()
	while read -r f; do
		n=$((n + 1))
		head -3 "$REPO/$f" | grep -q 'SPDX-License-Identifier: GPL-2.0-or-later' || missing+=("$f")
	done < <(sources)
	echo "without the line: ${missing[*]}"
	[ "$n" -ge 90 ]
	[ ${#missing[@]} -eq 0 ]
}

@test "both packages' metadata say GPL-2.0-or-later" {
	run grep -E '^License: ' "$REPO/packaging/debian/copyright"
	assert_output 'License: GPL-2+'
	run grep -E '^License:' "$REPO/packaging/rpm/spank-ibnet.spec"
	assert_output --regexp '^License: +GPL-2\.0-or-later$'
	run grep -E '^%license COPYING$' "$REPO/packaging/rpm/spank-ibnet.spec"
	assert_success
}
