#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# Gaussian over Rsockets without a cluster: gaussian-ib-setup, the
# linda-rsockets wrapper, gaussian-ib-input (ibnet-hosts --linda-input), the
# g16 wrapper, and the gaussian-ib modulefile under real Lmod.

bats_require_minimum_version 1.5.0

load ../helpers/common
load ../helpers/gaussian

setup() {
	G=$BATS_TEST_TMPDIR/gaussian
	make_standin_gaussian "$G"
}

teardown() {
	[ -z "${OPEN_TREE:-}" ] || rm -rf "$OPEN_TREE"
}

@test "gaussian-ib-setup creates linda-exe-ib: the wrapper and one link per executable" {
	run "$SETUP" "$G/g16"
	assert_success
	assert_output --partial "link $G/g16/linda-exe-ib/master.exel -> linda-rsockets"
	assert_output --partial "done: set GAUSS_LEXEDIR=$G/g16/linda-exe-ib"
	[ "$(readlink "$G/g16/linda-exe-ib/master.exel")" = linda-rsockets ]
	[ "$(readlink "$G/g16/linda-exe-ib/worker.exel")" = linda-rsockets ]
	[ -x "$G/g16/linda-exe-ib/linda-rsockets" ]
	grep -q "^IBNET_SETUP_RSPRELOAD='$RSPRELOAD'$" "$G/g16/linda-exe-ib/linda-rsockets"
	[ "$(ls "$G/g16/linda-exe-ib" | wc -l)" -eq 3 ]
}

@test "gaussian-ib-setup is idempotent, and follows linda-exe/ as it changes" {
	"$SETUP" "$G/g16"
	local before
	before=$(ls -l --time-style=+%s.%N "$G/g16/linda-exe-ib")
	run "$SETUP" "$G/g16"
	assert_success
	assert_output "$G/g16/linda-exe-ib is up to date (2 Linda executables); nothing changed"
	[ "$(ls -l --time-style=+%s.%N "$G/g16/linda-exe-ib")" = "$before" ]
	# A new executable gets its link; a removed one loses it.
	cp "$G/g16/master.exel" "$G/g16/l1002.exel" && ln -s ../l1002.exel "$G/g16/linda-exe/l1002.exel"
	rm "$G/g16/linda-exe/worker.exel"
	run "$SETUP" "$G/g16"
	assert_output --partial "link $G/g16/linda-exe-ib/l1002.exel -> linda-rsockets"
	assert_output --partial "remove $G/g16/linda-exe-ib/worker.exel"
	[ -L "$G/g16/linda-exe-ib/l1002.exel" ]
	[ ! -e "$G/g16/linda-exe-ib/worker.exel" ]
}

@test "gaussian-ib-setup --dry-run says what it would do and changes nothing" {
	run "$SETUP" --dry-run "$G/g16"
	assert_success
	assert_line "would create $G/g16/linda-exe-ib/"
	assert_line "dry run: 4 changes not made"
	[ ! -e "$G/g16/linda-exe-ib" ]
}

@test "gaussian-ib-setup refuses to touch what it did not create" {
	mkdir "$G/g16/linda-exe-ib"
	echo "precious" > "$G/g16/linda-exe-ib/notes.txt"
	run "$SETUP" "$G/g16"
	assert_failure
	assert_output "gaussian-ib-setup: $G/g16/linda-exe-ib holds notes.txt, which gaussian-ib-setup did not create; refusing to touch it (move it away, then run again)"
	[ "$(cat "$G/g16/linda-exe-ib/notes.txt")" = precious ]
	rm "$G/g16/linda-exe-ib/notes.txt"
	echo '#!/bin/sh' > "$G/g16/linda-exe-ib/linda-rsockets"
	run "$SETUP" "$G/g16"
	assert_failure
	assert_output --partial "holds linda-rsockets, which gaussian-ib-setup did not create"
}

@test "gaussian-ib-setup errors are one sentence and a non-zero exit" {
	run "$SETUP" "$BATS_TEST_TMPDIR/nowhere"
	assert_failure
	assert_output "gaussian-ib-setup: no such directory: $BATS_TEST_TMPDIR/nowhere"
	mkdir "$BATS_TEST_TMPDIR/empty"
	run "$SETUP" "$BATS_TEST_TMPDIR/empty"
	assert_failure
	assert_output --partial "no linda-exe/ in"
	run "$SETUP" --preload /nonexistent/librspreload.so "$G/g16"
	assert_failure
	assert_output "gaussian-ib-setup: no librspreload at /nonexistent/librspreload.so"
	run "$SETUP" --set 'RS_INLINE=$(id)' "$G/g16"
	assert_failure
	assert_output --partial "--set RS_INLINE=\$(id): expected"
	run "$SETUP" --frobnicate "$G/g16"
	assert_failure
	assert_output "gaussian-ib-setup: unknown option '--frobnicate'"
	# Without write permission: nobody on a root-owned tree it can read.
	OPEN_TREE=$(mktemp -d /tmp/ibnet-gaussian.XXXXXX)
	chmod 755 "$OPEN_TREE"
	make_standin_gaussian "$OPEN_TREE"
	run setpriv --reuid=65534 --regid=65534 --clear-groups "$SETUP" "$OPEN_TREE/g16"
	assert_failure
	assert_output "gaussian-ib-setup: cannot write to $OPEN_TREE/g16: run as the owner of the Gaussian installation"
}

@test "the wrapper runs the real executable with librspreload, arguments untouched" {
	"$SETUP" --set RS_INLINE=64 "$G/g16"
	printf '#!/bin/sh\nfor a in "$@"; do echo "[$a]"; done\necho "LD_PRELOAD=$LD_PRELOAD"\necho "RS_INLINE=$RS_INLINE RS_SQ_SIZE=${RS_SQ_SIZE-}"\necho "PROGRAMS=$SLURM_IBNET_RSOCKET_PROGRAMS"\necho "me=$0"\n' > "$G/g16/echo.exel"
	chmod +x "$G/g16/echo.exel"
	ln -s ../echo.exel "$G/g16/linda-exe/echo.exel"
	"$SETUP" --set RS_INLINE=64 "$G/g16"
	# Through a chain of symlinks, from another directory, with hard arguments.
	ln -s "$G/g16/linda-exe-ib/echo.exel" "$BATS_TEST_TMPDIR/chain1"
	ln -s chain1 "$BATS_TEST_TMPDIR/chain2"
	cd /
	run env LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libm.so.6 RS_SQ_SIZE=128 \
		"$BATS_TEST_TMPDIR/chain2" 'two words' '' "q'\"x" '$HOME' '*'
	assert_success
	assert_line '[two words]'
	assert_line '[]'
	assert_line "[q'\"x]"
	assert_line '[$HOME]'
	assert_line '[*]'
	assert_line "LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libm.so.6:$RSGATE:$RSPRELOAD"
	assert_line 'RS_INLINE=64 RS_SQ_SIZE=128'
	assert_line 'PROGRAMS=*.exel,echo.exel'
	assert_line "me=$G/g16/linda-exe-ib/../echo.exel"
	# The site default yields to the user's own value.
	run env RS_INLINE=16 "$G/g16/linda-exe-ib/echo.exel"
	assert_line --partial 'RS_INLINE=16'
}

@test "the wrapper falls back to linda-exe/NAME, and refuses to run as itself" {
	printf '#!/bin/sh\necho "only in linda-exe: $0"\n' > "$G/g16/linda-exe/solo.exel"
	chmod +x "$G/g16/linda-exe/solo.exel"
	"$SETUP" "$G/g16"
	run "$G/g16/linda-exe-ib/solo.exel"
	assert_success
	assert_output "only in linda-exe: $G/g16/linda-exe-ib/../linda-exe/solo.exel"
	run "$G/g16/linda-exe-ib/linda-rsockets"
	assert_failure
	assert_output --partial 'run me through a symlink named after a Linda executable'
}

# echo_exel: a Linda executable that prints its LD_PRELOAD, set up under the wrapper.
echo_exel() {
	printf '#!/bin/sh\necho "LD_PRELOAD=$LD_PRELOAD"\n' > "$G/g16/echo.exel"
	chmod +x "$G/g16/echo.exel"
	ln -s ../echo.exel "$G/g16/linda-exe/echo.exel"
	"$SETUP" "$G/g16" >/dev/null
}

@test "the wrapper finds librspreload and the gate on the node where it runs, not where it was set up" {
	echo_exel
	# A node laid out differently: the paths found at setup do not exist there.
	sed -i -e "s|^IBNET_SETUP_RSPRELOAD=.*|IBNET_SETUP_RSPRELOAD='/elsewhere/librspreload.so'|" \
		-e "s|^IBNET_SETUP_RSGATE=.*|IBNET_SETUP_RSGATE='/elsewhere/libibnet-rsgate.so'|" \
		"$G/g16/linda-exe-ib/linda-rsockets"
	# The site's plugstack.conf on this node names its gate; ibnet-hosts --site --probe finds both.
	mkdir -p "$BATS_TEST_TMPDIR/bin" && ln -s "$IBNET_HOSTS" "$BATS_TEST_TMPDIR/bin/ibnet-hosts"
	printf 'required /x/spank_ibnet.so rsgate=%s\n' "$RSGATE" > "$BATS_TEST_TMPDIR/plugstack.conf"
	run env PATH="$BATS_TEST_TMPDIR/bin:$PATH" IBNET_PLUGSTACK_CONF="$BATS_TEST_TMPDIR/plugstack.conf" \
		LD_PRELOAD= "$G/g16/linda-exe-ib/echo.exel"
	assert_success
	assert_output "LD_PRELOAD=$RSGATE:$RSPRELOAD"
	# Nothing found anywhere (not even the ibnet-hosts of setup time, which in
	# this source tree would find the gate built beside it): one sentence, not
	# a Linda worker without Rsockets.
	sed -i -e "s|^IBNET_SETUP_HOSTS=.*|IBNET_SETUP_HOSTS='/elsewhere/ibnet-hosts'|" \
		"$G/g16/linda-exe-ib/linda-rsockets"
	run -127 env PATH=/usr/bin:/bin IBNET_PLUGSTACK_CONF=/nonexistent LD_PRELOAD= \
		"$G/g16/linda-exe-ib/echo.exel"
	assert_output --partial "linda-rsockets: no librspreload on $(uname -n): install"
}

@test "in an rsocket job the wrapper keeps the plugin's preload and adds nothing twice" {
	echo_exel
	# The plugin's copies, at other paths than this node's search would find.
	mkdir -p "$BATS_TEST_TMPDIR/site"
	cp "$RSGATE" "$BATS_TEST_TMPDIR/site/libibnet-rsgate.so"
	cp "$RSPRELOAD" "$BATS_TEST_TMPDIR/site/librspreload.so"
	local pre="$BATS_TEST_TMPDIR/site/libibnet-rsgate.so:$BATS_TEST_TMPDIR/site/librspreload.so"
	run env LD_PRELOAD="$pre" "$G/g16/linda-exe-ib/echo.exel"
	assert_success
	assert_output "LD_PRELOAD=$pre"
}

@test "a stand-in Linda executable under the wrapper has librspreload mapped and runs" {
	"$SETUP" "$G/g16"
	local port=$((30000 + RANDOM % 20000))
	"$G/g16/linda-exe-ib/worker.exel" "$port" > "$BATS_TEST_TMPDIR/worker.out" &
	LINDA_STANDIN_NO_LAUNCH=1 run "$G/g16/linda-exe-ib/master.exel" "$port" 100000 localhost:4
	wait
	assert_success
	assert_line --regexp '^master host=.* rspreload=yes workers=localhost:4$'
	assert_line --regexp '^master -> localhost: host=.* rspreload=yes local=127\.0\.0\.1 bytes=100000$'
}

@test "gaussian-ib-input renames %LindaWorkers hosts, any case, :N kept, nothing else touched" {
	printf '%%NProcShared=4\r\n%%lindaworkers = c1-1:2,c1-2\n%%Chk=x.chk\n#p b3lyp opt\n\nc1-1 is a title\n\n0 1\nH 0 0 0\n--Link1--\n%%LINDAWORKERS=c1-3\n#p\n' > "$BATS_TEST_TMPDIR/in.gjf"
	run "$REPO/scripts/gaussian-ib-input" --rule "$PAPER_RULE" "$BATS_TEST_TMPDIR/in.gjf"
	assert_success
	assert_line $'%NProcShared=4\r'
	assert_line '%lindaworkers = cib1-1:2,cib1-2'
	assert_line 'c1-1 is a title'
	assert_line '%LINDAWORKERS=cib1-3'
	# A stream works the same, and a file without the line is unchanged to the byte.
	run bash -c "'$REPO/scripts/gaussian-ib-input' --rule '$PAPER_RULE' < '$BATS_TEST_TMPDIR/in.gjf' | cmp - <('$REPO/scripts/gaussian-ib-input' --rule '$PAPER_RULE' '$BATS_TEST_TMPDIR/in.gjf')"
	assert_success
	printf '%%Chk=a\n#p\n\nt\n\n0 1\nH\n' > "$BATS_TEST_TMPDIR/plain.gjf"
	run bash -c "'$REPO/scripts/gaussian-ib-input' '$BATS_TEST_TMPDIR/plain.gjf' | cmp - '$BATS_TEST_TMPDIR/plain.gjf'"
	assert_success
}

@test "gaussian-ib-input: the plugin's rule from plugstack.conf, and clear errors" {
	printf 'required /x/spank_ibnet.so default_transport=tcp ib_hostname=s/^n(.*)$/ib\\1/\n' > "$BATS_TEST_TMPDIR/plugstack.conf"
	run bash -c "echo '%LindaWorkers=n1,n2:3' | IBNET_PLUGSTACK_CONF='$BATS_TEST_TMPDIR/plugstack.conf' '$REPO/scripts/gaussian-ib-input'"
	assert_success
	assert_output '%LindaWorkers=ib1,ib2:3'
	run bash -c "printf '%%nproc=2\n%%LindaWorkers=login1\n' | '$REPO/scripts/gaussian-ib-input' --rule '$PAPER_RULE'"
	assert_failure
	assert_output "spank-ibnet: line 2: ib_hostname rule '$PAPER_RULE' does not match node name 'login1'"
	run bash -c "echo '%LindaWorkers=c1-1:x' | '$REPO/scripts/gaussian-ib-input' --rule '$PAPER_RULE'"
	assert_failure
	assert_output --partial "line 1: invalid GAUSS_WDEF 'c1-1:x' (expected host[:N],host[:N],...)"
	run bash -c "echo '%LindaWorkers=c1-1' | IBNET_PLUGSTACK_CONF=/nonexistent '$REPO/scripts/gaussian-ib-input'"
	assert_failure
	assert_output --partial "cannot read /nonexistent"
	printf '# nothing for us\n' > "$BATS_TEST_TMPDIR/other.conf"
	run bash -c "echo '%LindaWorkers=c1-1' | IBNET_PLUGSTACK_CONF='$BATS_TEST_TMPDIR/other.conf' '$REPO/scripts/gaussian-ib-input'"
	assert_failure
	assert_output --partial "spank_ibnet.so is not configured in $BATS_TEST_TMPDIR/other.conf"
	# A site line that does not parse is named with the file it is in.
	printf 'required /x/spank_ibnet.so ib_hostname=bogus\n' > "$BATS_TEST_TMPDIR/bad.conf"
	run bash -c "echo '%LindaWorkers=c1-1' | IBNET_PLUGSTACK_CONF='$BATS_TEST_TMPDIR/bad.conf' '$REPO/scripts/gaussian-ib-input'"
	assert_failure
	assert_output --partial "(the spank_ibnet.so line of $BATS_TEST_TMPDIR/bad.conf)"
}

@test "ibnet-hosts --site finds the site's line as Slurm does: PlugStackConfig, includes, the last line" {
	mkdir -p "$BATS_TEST_TMPDIR/etc/plugstack.conf.d"
	printf 'PlugStackConfig = %s/etc/ps.conf # ours\n' "$BATS_TEST_TMPDIR" > "$BATS_TEST_TMPDIR/etc/slurm.conf"
	printf 'optional /x/spank_other.so\ninclude plugstack.conf.d/*.conf\n' > "$BATS_TEST_TMPDIR/etc/ps.conf"
	printf 'required /usr/lib/slurm/spank_ibnet.so ib_hostname=s/$/-opa/ # the site\n' \
		> "$BATS_TEST_TMPDIR/etc/plugstack.conf.d/ibnet.conf"
	run env -u IBNET_PLUGSTACK_CONF SLURM_CONF="$BATS_TEST_TMPDIR/etc/slurm.conf" "$IBNET_HOSTS" --site 'c1-[1-2]'
	assert_success
	assert_output 'c1-1-opa,c1-2-opa'
	# Without PlugStackConfig: plugstack.conf beside slurm.conf.
	printf 'ClusterName=x\n' > "$BATS_TEST_TMPDIR/etc/slurm.conf"
	cp "$BATS_TEST_TMPDIR/etc/ps.conf" "$BATS_TEST_TMPDIR/etc/plugstack.conf"
	run env -u IBNET_PLUGSTACK_CONF SLURM_CONF="$BATS_TEST_TMPDIR/etc/slurm.conf" "$IBNET_HOSTS" --site c1-3
	assert_output 'c1-3-opa'
	# Includes that loop are cut, with a sentence.
	printf 'include %s/etc/loop.conf\n' "$BATS_TEST_TMPDIR" > "$BATS_TEST_TMPDIR/etc/loop.conf"
	run env IBNET_PLUGSTACK_CONF="$BATS_TEST_TMPDIR/etc/loop.conf" "$IBNET_HOSTS" --site c1-1
	assert_failure
	assert_output --partial "includes nested deeper than 8"
	run "$IBNET_HOSTS" --site --config 'ib_hostname=s/$/x/' c1-1
	assert_failure
	assert_output --partial "--site and --config both give the arguments"
}

@test "one GAUSS_WDEF grammar: gaussian-ib-input accepts and refuses exactly what the plugin does" {
	local list want got
	for list in 'c1-1' 'c1-1:2,c1-2' 'c1-1,' ',c1-1' 'c1-1:1234567' 'c1-1:123456' 'c1-1:' 'c1-1:x' \
		'c1-1,,c1-2' 'cib1-2,c1-3:4' 'c1_1' 'c1-1:02'; do
		# The plugin's view: a job step with this GAUSS_WDEF (ibnet-hosts --env is its code).
		if want=$(GAUSS_WDEF=$list "$IBNET_HOSTS" --config "ib_hostname=$PAPER_RULE" --env \
			--transport=ipoib --iface lo --nodelist 'c1-[1-3]' 2>/dev/null); then
			want=$(sed -n "s/^export GAUSS_WDEF='\(.*\)'$/\1/p" <<<"$want")
			[ -n "$want" ] || want=$list
		else
			want=REFUSED
		fi
		got=$(echo "%LindaWorkers=$list" | SLURM_JOB_NODELIST='c1-[1-3]' \
			"$REPO/scripts/gaussian-ib-input" --rule "$PAPER_RULE" 2>/dev/null) || got=REFUSED
		got=${got#%LindaWorkers=}
		echo "'$list': plugin '$want', input '$got'"
		[ "$got" = "$want" ]
	done
}

# ibnet-hosts --linda-workers FILE: the C rule that renames %LindaWorkers
# lines (ibnet_linda_input_has_workers) says whether a file has one, for the
# g16 wrapper, which has grepped for it itself.
@test "ibnet-hosts --linda-workers: 0 with a %LindaWorkers line in any case or indent, 1 without, 3 naming a file it cannot read, 2 a usage error" {
	local f=$BATS_TEST_TMPDIR/in.gjf
	printf '%%NProcShared=4\n%%LindaWorkers=c1-1,c1-2:2\n#p\n' > "$f"
	run "$IBNET_HOSTS" --linda-workers "$f"
	assert_success
	assert_output ''
	printf '%%chk=a\n  \t%%lindaWORKERS = c1-1\r\n#p\n' > "$f"
	run "$IBNET_HOSTS" --linda-workers "$f"
	assert_success
	assert_output ''
	# Not one: the line in a title, another Link 0 line, no list at all.
	printf '%%NProcLinda=2\n#p\n\n%%LindaWorkers=c1-1 as a title\n\n0 1\n' > "$f"
	run "$IBNET_HOSTS" --linda-workers "$f"
	assert_failure 1
	assert_output ''
	: > "$f"
	run "$IBNET_HOSTS" --linda-workers "$f"
	assert_failure 1
	run "$IBNET_HOSTS" --linda-workers "$BATS_TEST_TMPDIR/missing.gjf"
	assert_failure 3
	assert_output "spank-ibnet: cannot read $BATS_TEST_TMPDIR/missing.gjf: No such file or directory"
	run "$IBNET_HOSTS" --linda-workers "$BATS_TEST_TMPDIR"
	assert_failure 3
	assert_output "spank-ibnet: cannot read $BATS_TEST_TMPDIR"
	# It goes alone.
	run "$IBNET_HOSTS" --linda-workers "$f" --check
	assert_failure 2
	run "$IBNET_HOSTS" --linda-workers
	assert_failure 2
}

# The grep the g16 wrapper has used, against the C rule, line by line.
@test "--linda-workers answers as the g16 wrapper's grep on every form it accepts: any case, leading blanks, blanks around =" {
	local grep_rule='^[[:space:]]*%[Ll][Ii][Nn][Dd][Aa][Ww][Oo][Rr][Kk][Ee][Rr][Ss][[:space:]]*='
	local f=$BATS_TEST_TMPDIR/in.gjf line by_grep by_c
	local -a lines=(
		'%LindaWorkers=c1-1' '%lindaworkers=c1-1:2,c1-2' '%LINDAWORKERS=c1-1' '%LiNdAwOrKeRs=c1-1'
		'  %LindaWorkers=c1-1' $'\t%LindaWorkers=c1-1' $'\f\v %LindaWorkers=c1-1'
		'%LindaWorkers =c1-1' $'%LindaWorkers\t= c1-1' '%LindaWorkers=c1-1   ' $'%LindaWorkers=c1-1\r'
		'%LindaWorker=c1-1' '%LindaWorkerss=c1-1' '#LindaWorkers=c1-1' 'x %LindaWorkers=c1-1'
		'% LindaWorkers=c1-1' '%LindaWorkers' '%LindaWorkers: c1-1' '%NProcLinda=2' '')
	for line in "${lines[@]}"; do
		printf '%%chk=a\n%s\n#p\n' "$line" > "$f"
		grep -qE "$grep_rule" "$f" && by_grep=0 || by_grep=1
		"$IBNET_HOSTS" --linda-workers "$f" && by_c=0 || by_c=$?
		echo "$(printf '%q' "$line"): grep $by_grep, C $by_c"
		[ "$by_grep" = "$by_c" ]
	done
	# Where they differ, the grep says yes to a line with no list, or a list
	# with a blank inside, which the rule that renames does not take as one:
	# gaussian-ib-input hands those inputs on unchanged, so the real g16
	# gets the same input either way.
	for line in '%LindaWorkers=' '%LindaWorkers=  ' '%LindaWorkers=c1-1 c1-2'; do
		printf '%%chk=a\n%s\n#p\n' "$line" > "$f"
		grep -qE "$grep_rule" "$f"
		run "$IBNET_HOSTS" --linda-workers "$f"
		assert_failure 1
		run bash -c "IBNET_PLUGSTACK_CONF=/nonexistent '$IBNET_HOSTS' --linda-input '$f' | cmp - '$f'"
		assert_success
	done
}

@test "the g16 wrapper feeds the rewritten input to the real g16; other inputs pass untouched" {
	mkdir -p "$BATS_TEST_TMPDIR/realbin"
	printf '#!/bin/sh\necho "real g16 args: $*"\nif [ $# -ge 1 ] && [ -f "$1" ]; then cat "$1"; else cat; fi\n' > "$BATS_TEST_TMPDIR/realbin/g16"
	chmod +x "$BATS_TEST_TMPDIR/realbin/g16"
	printf 'required /x/spank_ibnet.so ib_hostname=%s\n' "$PAPER_RULE" > "$BATS_TEST_TMPDIR/plugstack.conf"
	printf '%%LindaWorkers=c1-1,c1-2:2\n#p\n' > "$BATS_TEST_TMPDIR/job.gjf"
	export IBNET_PLUGSTACK_CONF=$BATS_TEST_TMPDIR/plugstack.conf
	export PATH=$REPO/scripts/gaussian-ib-bin:$BATS_TEST_TMPDIR/realbin:$PATH
	cd "$BATS_TEST_TMPDIR"
	run g16 -c=0-3 job.gjf
	assert_success
	run cat job.log
	assert_line 'real g16 args: -c=0-3'
	assert_line '%LindaWorkers=cib1-1,cib1-2:2'
	run bash -c 'g16 < job.gjf'
	assert_line '%LindaWorkers=cib1-1,cib1-2:2'
	printf '#p\n' > plain.gjf
	run g16 plain.gjf out.txt
	assert_line 'real g16 args: plain.gjf out.txt'
	run -127 g09 job.gjf
	assert_output --partial 'no real g09 on PATH'
}

# Whether an input has a %LindaWorkers line is the plugin's grammar
# (ibnet-hosts --linda-workers): an input it cannot read is its sentence, and
# no Gaussian is started on it.
@test "the g16 wrapper asks ibnet-hosts whether an input has %LindaWorkers; an unreadable one starts nothing" {
	mkdir -p "$BATS_TEST_TMPDIR/realbin"
	printf '#!/bin/sh\necho "real g16 args: $*"\n' > "$BATS_TEST_TMPDIR/realbin/g16"
	chmod +x "$BATS_TEST_TMPDIR/realbin/g16"
	export PATH=$REPO/scripts/gaussian-ib-bin:$BATS_TEST_TMPDIR/realbin:$PATH
	run -2 g16 "$BATS_TEST_TMPDIR/missing.gjf"
	refute_output --partial 'real g16'
	assert_output --partial 'cannot read'
	# An ibnet-hosts without the mode (a usage error, 2) cannot answer: a
	# sentence, and no Gaussian; not taken for an unreadable file.
	local t=$BATS_TEST_TMPDIR/oldtree
	mkdir -p "$t/scripts/gaussian-ib-bin" "$t/build"
	cp "$REPO/scripts/gaussian-ib-bin/g16" "$t/scripts/gaussian-ib-bin/"
	cp "$REPO/scripts/ibnet-hosts-find.sh" "$REPO/scripts/gaussian-ib-input" "$t/scripts/"
	printf '#!/bin/sh\necho "usage: ibnet-hosts [options] HOSTLIST" >&2\nexit 2\n' > "$t/build/ibnet-hosts"
	chmod +x "$t/build/ibnet-hosts"
	printf '%%LindaWorkers=c1-1\n#p\n' > "$BATS_TEST_TMPDIR/in.gjf"
	run -2 "$t/scripts/gaussian-ib-bin/g16" "$BATS_TEST_TMPDIR/in.gjf"
	refute_output --partial 'real g16'
	assert_output --partial "cannot tell whether $BATS_TEST_TMPDIR/in.gjf has a %LindaWorkers line (status 2"
}

# One way to find ibnet-hosts (scripts/ibnet-hosts-find.sh), for every script:
# its own installation, its own source tree, this node's PATH, a recorded one.
@test "the scripts find ibnet-hosts one way: their installation, their source tree, PATH, then a recorded path" {
	local t=$BATS_TEST_TMPDIR/find tool
	mkdir -p "$t/usr/share/spank-ibnet/scripts" "$t/usr/bin" "$t/src/scripts" "$t/src/build" "$t/path" "$t/recorded"
	for tool in "$t/usr/bin" "$t/src/build" "$t/path" "$t/recorded"; do
		printf '#!/bin/sh\n' > "$tool/ibnet-hosts" && chmod +x "$tool/ibnet-hosts"
	done
	find_in() {
		env -i PATH="$1" /bin/sh -c '. "$0"; ibnet_hosts_find "$1" "$2"' \
			"$REPO/scripts/ibnet-hosts-find.sh" "$2" "${3-}"
	}
	run find_in "$t/path" "$t/usr/share/spank-ibnet/scripts"
	assert_output "$t/usr/share/spank-ibnet/scripts/../../../bin/ibnet-hosts"
	run find_in "$t/path" "$t/src/scripts"
	assert_output "$t/src/scripts/../build/ibnet-hosts"
	# A source tree without a build: its ../../bin is not its installation.
	mkdir -p "$t/opt/src/scripts" "$t/bin"
	printf '#!/bin/sh\n' > "$t/bin/ibnet-hosts" && chmod +x "$t/bin/ibnet-hosts"
	run find_in "$t/path" "$t/opt/src/scripts"
	assert_output "$t/path/ibnet-hosts"
	# No tree (the linda-rsockets wrapper): this node's, else the recorded one.
	run find_in "$t/path" "" "$t/recorded/ibnet-hosts"
	assert_output "$t/path/ibnet-hosts"
	run find_in /nonexistent "" "$t/recorded/ibnet-hosts"
	assert_output "$t/recorded/ibnet-hosts"
	run find_in /nonexistent "$t/path" "$t/nothing-here"
	assert_failure
	assert_output ''
	# What install ships beside the scripts that source it.
	"${MAKE:-make}" -s -C "$REPO" install-list | grep -qx '.*/share/spank-ibnet/scripts/ibnet-hosts-find.sh'
}

lmod() {
	bash -c "source $LMOD_INIT; module use $REPO/lmod-modules; $1" 2>&1
}

# Lmod wraps its messages at any space: compare them on one line.
lmod_flat() {
	lmod "$1" | tr -s ' \n' '  '
	return "${PIPESTATUS[0]}"
}

@test "module load gaussian-ib outside a job: GAUSS_LEXEDIR and the g16 wrapper; unload restores" {
	"$SETUP" "$G/g16"
	export g16root=$G GAUSS_LEXEDIR=/site/linda-exe
	run lmod 'module load gaussian-ib && echo "LEX=$GAUSS_LEXEDIR" && command -v g16 && echo "W=${GAUSS_WDEF-unset}"
		module unload gaussian-ib; echo "after LEX=$GAUSS_LEXEDIR"; command -v g16 || echo "no g16"'
	assert_success
	assert_line "LEX=$G/g16/linda-exe-ib"
	assert_line "$REPO/scripts/gaussian-ib-bin/g16"
	assert_line 'W=unset'
	assert_line 'after LEX=/site/linda-exe'
	assert_line 'no g16'
}

@test "module load gaussian-ib finds Gaussian by g09root and by GAUSS_EXEDIR" {
	mv "$G/g16" "$G/g09"
	"$SETUP" "$G/g09"
	run lmod "g09root=$G module load gaussian-ib && echo \$GAUSS_LEXEDIR"
	assert_line "$G/g09/linda-exe-ib"
	run lmod "GAUSS_EXEDIR=$G/g09/bsd:$G/g09 module load gaussian-ib && echo \$GAUSS_LEXEDIR"
	assert_line "$G/g09/linda-exe-ib"
}

@test "module load gaussian-ib in an rsocket job leaves the plugin's GAUSS_WDEF alone, loaded and unloaded anywhere" {
	"$SETUP" "$G/g16"
	export g16root=$G
	# What the plugin gives an rsocket job (tests/cluster/50-gaussian.bats runs the real one).
	local job='SLURM_JOB_ID=7 SLURM_IBNET_TRANSPORT=rsocket GAUSS_WDEF=cib1-1,cib1-2'
	run lmod "export $job; module load gaussian-ib && echo \"L=\$GAUSS_LEXEDIR W=\$GAUSS_WDEF\"; module unload gaussian-ib; echo \"after L=\${GAUSS_LEXEDIR-unset} W=\$GAUSS_WDEF\""
	assert_success
	assert_line "L=$G/g16/linda-exe-ib W=cib1-1,cib1-2"
	assert_line 'after L=unset W=cib1-1,cib1-2'
	# Loaded on the login node, unloaded inside the job (Lmod 8.6 wiped the
	# plugin's GAUSS_WDEF here before): the job's variables survive.
	run lmod "module load gaussian-ib; export $job; module unload gaussian-ib; echo \"after L=\${GAUSS_LEXEDIR-unset} W=\$GAUSS_WDEF\"; command -v g16 || echo no-g16"
	assert_line 'after L=unset W=cib1-1,cib1-2'
	assert_line no-g16
	# And the other way round.
	run lmod "export $job; module load gaussian-ib; unset SLURM_JOB_ID SLURM_IBNET_TRANSPORT; module unload gaussian-ib; echo \"after L=\${GAUSS_LEXEDIR-unset} W=\$GAUSS_WDEF\""
	assert_line 'after L=unset W=cib1-1,cib1-2'
}

@test "module load gaussian-ib in a tcp job, or one that asked for nothing, says what it needs" {
	"$SETUP" "$G/g16"
	export g16root=$G
	run lmod_flat 'SLURM_JOB_ID=7 SLURM_IBNET_TRANSPORT=tcp module load gaussian-ib'
	assert_failure
	assert_output --partial "this job did not ask for InfiniBand (its transport is 'tcp'), so Linda has no IB host names. Submit it with --transport=rsocket"
	run lmod_flat 'SLURM_JOB_ID=7 module load gaussian-ib; echo "L=${GAUSS_LEXEDIR-unset}"'
	assert_output --partial "(its transport is not set)"
	assert_output --partial "L=unset"
	run lmod 'SLURM_JOB_ID=7 SLURM_IBNET_TRANSPORT=ipoib module load gaussian-ib && echo "L=$GAUSS_LEXEDIR"'
	assert_line "L=$G/g16/linda-exe-ib"
}

# Whether the job has IB names is the plugin's answer (SLURM_IBNET_NEEDS_INFINIBAND),
# not a list of transports in the module; without it (a plugin before 0.9, the
# test above), the answer those plugins gave.
@test "module load gaussian-ib follows the plugin's SLURM_IBNET_NEEDS_INFINIBAND, whatever the transport's name" {
	"$SETUP" "$G/g16"
	export g16root=$G
	run lmod 'SLURM_JOB_ID=7 SLURM_IBNET_TRANSPORT=newfabric SLURM_IBNET_NEEDS_INFINIBAND=yes module load gaussian-ib && echo "L=$GAUSS_LEXEDIR"'
	assert_line "L=$G/g16/linda-exe-ib"
	run lmod_flat 'SLURM_JOB_ID=7 SLURM_IBNET_TRANSPORT=rsocket SLURM_IBNET_NEEDS_INFINIBAND=no module load gaussian-ib'
	assert_failure
	assert_output --partial "this job did not ask for InfiniBand (its transport is 'rsocket')"
}

@test "the g16 wrapper sets GAUSS_PDEF to the job's cores on the node, unless the user set it" {
	mkdir -p "$BATS_TEST_TMPDIR/realbin"
	printf '#!/bin/sh\necho "PDEF=${GAUSS_PDEF-unset}"\n' > "$BATS_TEST_TMPDIR/realbin/g16"
	chmod +x "$BATS_TEST_TMPDIR/realbin/g16"
	export PATH=$REPO/scripts/gaussian-ib-bin:$BATS_TEST_TMPDIR/realbin:$PATH
	printf '#p\n' > "$BATS_TEST_TMPDIR/plain.gjf"
	run env SLURM_JOB_ID=7 SLURM_CPUS_ON_NODE=8 g16 "$BATS_TEST_TMPDIR/plain.gjf" /dev/stdout
	assert_output 'PDEF=8'
	run env SLURM_JOB_ID=7 SLURM_CPUS_ON_NODE=8 GAUSS_PDEF=2 g16 "$BATS_TEST_TMPDIR/plain.gjf" /dev/stdout
	assert_output 'PDEF=2'
	run env -u SLURM_JOB_ID g16 "$BATS_TEST_TMPDIR/plain.gjf" /dev/stdout
	assert_output 'PDEF=unset'
}

@test "module load gaussian-ib says what to do when it cannot work" {
	run lmod_flat 'module load gaussian-ib'
	assert_failure
	assert_output --partial "cannot find Gaussian: load your site's Gaussian module first (it sets g16root or g09root), or set GAUSS_EXEDIR."
	export g16root=$G
	run lmod_flat 'module load gaussian-ib'
	assert_failure
	assert_output --partial "is not set up. Ask your admin to run: gaussian-ib-setup $G/g16"
}

@test "module spider and whatis find and explain gaussian-ib" {
	run lmod 'module spider gaussian-ib'
	assert_success
	assert_output --partial "gaussian-ib/$(cat "$REPO/VERSION")"
	run lmod "module spider gaussian-ib/$(cat "$REPO/VERSION")"
	assert_success
	assert_output --partial 'Gaussian Linda over Rsockets on InfiniBand (spank-ibnet)'
	assert_output --partial 'module load gaussian-ib'
	run lmod 'module whatis gaussian-ib'
	assert_output --partial 'Category: chemistry, networking'
	run lmod 'module help gaussian-ib'
	assert_output --partial 'GAUSS_LEXEDIR'
}

# Issue 18: the wrapper decides nothing of its own. The programs default is
# the site's rsocket_programs (it was a "*.exel" written again in the shell),
# and LD_PRELOAD is what ibnet-hosts --probe composes by the plugin's rule.
@test "the wrapper takes the site's rsocket_programs and LD_PRELOAD from ibnet-hosts --probe, deciding neither itself" {
	echo_exel
	mkdir -p "$BATS_TEST_TMPDIR/bin" && ln -s "$IBNET_HOSTS" "$BATS_TEST_TMPDIR/bin/ibnet-hosts"
	printf 'required /x/spank_ibnet.so rsgate=%s rsocket_programs=*.exel,iperf3\n' "$RSGATE" \
		> "$BATS_TEST_TMPDIR/plugstack.conf"
	printf '#!/bin/sh\necho "PROGRAMS=$SLURM_IBNET_RSOCKET_PROGRAMS"\necho "LD_PRELOAD=$LD_PRELOAD"\n' > "$G/g16/echo.exel"
	run env PATH="$BATS_TEST_TMPDIR/bin:$PATH" IBNET_PLUGSTACK_CONF="$BATS_TEST_TMPDIR/plugstack.conf" \
		LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libm.so.6 "$G/g16/linda-exe-ib/echo.exel"
	assert_success
	assert_line 'PROGRAMS=*.exel,iperf3,echo.exel'
	# The same line ibnet-hosts gives, from the same LD_PRELOAD.
	local want
	want=$(env IBNET_PLUGSTACK_CONF="$BATS_TEST_TMPDIR/plugstack.conf" LD_PRELOAD=/usr/lib/x86_64-linux-gnu/libm.so.6 \
		"$IBNET_HOSTS" --site --probe | sed -n 's/^ld_preload=//p')
	[ "$want" = "/usr/lib/x86_64-linux-gnu/libm.so.6:$RSGATE:$RSPRELOAD" ]
	assert_line "LD_PRELOAD=$want"
}
