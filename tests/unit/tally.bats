#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The paced step's tally directory: made by the job's user in user_init,
# collected by root at the step's end. Root reads and removes only what the
# user made there, whatever the user renames onto its name (issue 26, M1),
# leaves nothing behind for a full or nested directory, and says so when no
# process reported (L6). tally_dir runs ibnet_tally.c as the plugin does.

load ../helpers/common

TALLY=$BUILD/tests/tally_dir
USER1=65534	# nobody: the job's user
USER2=64998	# another user (no passwd entry needed)

setup() {
	[ "$(id -u)" -eq 0 ] || skip "needs root: the collection runs as root, the users apart"
	command -v setpriv > /dev/null || skip "needs setpriv"
	# /tmp as it is: world-writable and sticky; readable to the two users.
	BASE=$(mktemp -d /tmp/ibnet-tally-test.XXXXXX)
	chmod 1777 "$BASE"
}

teardown() {
	[ -n "${BASE:-}" ] && rm -rf -- "$BASE"
}

as() {
	local uid=$1
	shift
	setpriv --reuid="$uid" --regid="$uid" --clear-groups "$@"
}

# make: as the job's user, as user_init does; sets REC="PATH DEV INO UID" and DIR.
make_dir() {
	REC=$(as $USER1 "$TALLY" make "$BASE/spank-ibnet-tally.")
	DIR=${REC%% *}
	[ -d "$DIR" ] && [ "$(stat -c %u "$DIR")" -eq $USER1 ]
}

@test "another user's directory renamed onto the tally's name: root reads and removes nothing of it" {
	make_dir
	# The other user's world-writable directory, with their file.
	as $USER2 mkdir -m 0777 "$BASE/shared" "$BASE/shared/victim"
	as $USER2 sh -c "echo precious > '$BASE/shared/victim/data'"
	# The job's user swaps it in before the step ends, and adds a file of their own.
	as $USER1 rmdir "$DIR"
	as $USER1 mv "$BASE/shared/victim" "$DIR"
	as $USER1 sh -c "printf 'MPI_Alltoall\tpaced\t1\n' > '$DIR/a2a.mine'"
	run "$TALLY" collect $REC
	assert_failure 1
	assert_output "$DIR is no longer the all-to-all tally directory made for this step (another directory, or another owner, now has its name); nothing in it was read or removed"
	[ "$(cat "$DIR/data")" = precious ]
	[ -f "$DIR/a2a.mine" ]
	# A symlink in its place is not followed.
	rm -rf -- "$DIR"
	ln -s "$BASE/shared" "$DIR"
	run "$TALLY" collect $REC
	assert_failure 1
	assert_output --partial 'cannot be opened'
	[ -d "$BASE/shared" ]
}

@test "the step's own directory: counts summed; the user's files and subdirectories removed, then the directory" {
	make_dir
	as $USER1 sh -c "printf 'MPI_Alltoall\tpaced\t3\n' > '$DIR/a2a.1'; : > '$DIR/a2a.empty';
		mkdir -p '$DIR/sub/deeper'; touch '$DIR/sub/f' '$DIR/sub/deeper/g'"
	run "$TALLY" collect $REC
	assert_success
	assert_output 'all-to-all calls of 1 process: MPI_Alltoall: 3 calls: 3 paced; 2 entries skipped (not a file of counts)'
	[ ! -e "$DIR" ]
}

@test "an entry that is not the job user's own stays, and so does the directory, with a sentence" {
	make_dir
	as $USER1 sh -c "printf 'MPI_Alltoall\tpaced\t2\n' > '$DIR/a2a.1'"
	echo other > "$DIR/theirs"
	chown $USER2 "$DIR/theirs"
	run "$TALLY" collect $REC
	assert_success
	assert_output "all-to-all calls of 1 process: MPI_Alltoall: 2 calls: 2 paced; 1 entry skipped (not a file of counts); $DIR left in place, with 1 entry that is not the job user's own files (or past 65536 entries, or 4 directories deep)"
	[ "$(cat "$DIR/theirs")" = other ]
	[ ! -e "$DIR/a2a.1" ]
}

@test "more than 4096 entries: 4096 read, the rest said, all removed" {
	make_dir
	as $USER1 bash -c "cd '$DIR' && printf 'MPI_Alltoall\tpaced\t1\n' | tee a2a.{1..4100} > /dev/null"
	run "$TALLY" collect $REC
	assert_success
	assert_output 'all-to-all calls of 4096 processes: MPI_Alltoall: 4096 calls: 4096 paced; 4 files not read (more than 4096)'
	[ ! -e "$DIR" ]
}

@test "a paced step whose processes left nothing: the node's line says no process reported, and why that happens" {
	make_dir
	run "$TALLY" collect $REC
	assert_success
	assert_output 'no process reported its all-to-all calls (a program that does not load the job preload leaves none: a static binary, or one started by a launcher that drops LD_PRELOAD)'
	[ ! -e "$DIR" ]
}

@test "ibnet-hosts --tally: an empty file is no process's" {
	mkdir "$BATS_TEST_TMPDIR/t"
	printf 'MPI_Alltoall\tpaced\t1\n' > "$BATS_TEST_TMPDIR/t/a"
	: > "$BATS_TEST_TMPDIR/t/empty"
	run "$IBNET_HOSTS" --tally "$BATS_TEST_TMPDIR/t"
	assert_success
	assert_line 'processes=1 skipped=1'
}

@test "a directory that cannot be made: nothing recorded, so nothing is ever removed by the name mkdtemp tried" {
	mkdir -m 0755 "$BASE/closed"
	run as $USER1 "$TALLY" make "$BASE/closed/spank-ibnet-tally."
	assert_failure 1
	assert_output "not made: Permission denied; path=''"
}

@test "a directory made but not handed to the step is discarded only while its name still leads to it" {
	make_dir
	run "$TALLY" discard $REC
	assert_success
	[ ! -e "$DIR" ]
	make_dir
	as $USER1 rmdir "$DIR"
	as $USER2 mkdir -m 0777 "$DIR"
	run "$TALLY" discard $REC
	assert_success
	[ -d "$DIR" ]
}
