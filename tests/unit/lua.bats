#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0-or-later
# The job_submit module (lua/spank_ibnet/job_submit.lua) and the example
# that requires it, under plain Lua without Slurm: a fake `slurm` table and
# job_desc as a plain table. Under lua5.1, the Lua Debian 12's
# job_submit_lua.so links, and every other Lua 5.x installed (lua5.3 comes
# with Lmod). The real slurmctld runs them in tests/cluster/82-job-submit.bats.

load ../helpers/common

setup() {
	command -v lua5.1 >/dev/null || fail "no lua5.1 (devel/install-deps installs it)"
	LUAS=()
	local v
	for v in 5.1 5.2 5.3 5.4; do
		if command -v "lua$v" >/dev/null; then LUAS+=("lua$v"); fi
	done
}

# in_lua LUA CODE...: the CODE chunks under LUA, after a prelude: this tree's
# lua/ on package.path, `ibnet` the module, `slurm` a fake whose log_info
# formats as Slurm's does (string.format) and prints "log: LINE", and
# submit(job), which calls ibnet.job_submit as slurmctld would and prints
# its result and the two fields the module may set.
in_lua() {
	local lua=$1 chunk args=()
	shift
	for chunk in "$@"; do
		args+=(-e "$chunk")
	done
	IBNET_LUA_DIR=$REPO/lua "$lua" -e '
package.path = os.getenv("IBNET_LUA_DIR") .. "/?.lua;" .. package.path
slurm = { SUCCESS = 0, ERROR = -1,
	log_info = function(fmt, ...) print("log: " .. string.format(fmt, ...)) end }
ibnet = require("spank_ibnet.job_submit")
function show(job)
	print("features=" .. tostring(job.features))
	print("admin_comment=" .. tostring(job.admin_comment))
end
function submit(job)
	print("rc=" .. tostring(ibnet.job_submit(job, {}, 1000)))
	show(job)
end' "${args[@]}"
}

# submits_as JOB OUTPUT: under every Lua, submitting the job table JOB prints exactly OUTPUT.
submits_as() {
	local lua
	for lua in "${LUAS[@]}"; do
		echo "$lua"
		run in_lua "$lua" "submit$1"
		assert_success
		assert_output "$2"
	done
}

# rsocket needs the IB nodes (features=ib); tcp runs anywhere, and is recorded all the same.
@test "an rsocket job gets the ib feature, a tcp job none; both an AdminComment, and slurmctld a log line" {
	local t feature
	for t in rsocket:ib tcp:; do
		feature=${t#*:} t=${t%%:*}
		submits_as "{ spank_job_env = { [0] = \"IBNET_TRANSPORT=$t\" } }" \
			"log: spank-ibnet job_submit: uid 1000: transport=$t alltoall=default constraint '' -> '$feature'
rc=0
features=${feature:-nil}
admin_comment=ibnet:transport=$t,alltoall=default"
	done
}

@test "an ipoib job with the ordered all-to-all: both recorded, among other variables, with or without SPANK_" {
	local lua job
	for lua in "${LUAS[@]}"; do
		for job in '{ spank_job_env = { [0] = "OTHER=IBNET_TRANSPORT=tcp",
			[1] = "IBNET_ALLTOALL=ordered", [2] = "IBNET_TRANSPORT=ipoib" } }' \
			'{ spank_job_env = { [0] = "SPANK_IBNET_TRANSPORT=ipoib",
			[1] = "SPANK_IBNET_ALLTOALL=ordered" } }'; do
			echo "$lua $job"
			run in_lua "$lua" "submit$job"
			assert_success
			assert_line 'features=ib'
			assert_line 'admin_comment=ibnet:transport=ipoib,alltoall=ordered'
		done
	done
}

# Which transports need InfiniBand is the plugin's answer (IBNET_NEEDS_INFINIBAND),
# not a list here: the record decides, whatever the transport's name; without
# it (a plugin before 0.9, the tests above), the answer those plugins gave.
@test "the plugin's IBNET_NEEDS_INFINIBAND decides the ib feature, with or without SPANK_" {
	local lua
	for lua in "${LUAS[@]}"; do
		echo "$lua"
		run in_lua "$lua" 'submit{ spank_job_env = { [0] = "IBNET_TRANSPORT=tcp",
			[1] = "IBNET_NEEDS_INFINIBAND=yes" } }'
		assert_success
		assert_line 'features=ib'
		assert_line 'admin_comment=ibnet:transport=tcp,alltoall=default'
		run in_lua "$lua" 'submit{ features = "gpu", spank_job_env = { [0] = "SPANK_IBNET_TRANSPORT=rsocket",
			[1] = "SPANK_IBNET_NEEDS_INFINIBAND=no" } }'
		assert_success
		assert_line 'features=gpu'
		assert_line 'admin_comment=ibnet:transport=rsocket,alltoall=default'
		# A transport this module has never heard of: the record is enough.
		run in_lua "$lua" 'submit{ spank_job_env = { [0] = "IBNET_TRANSPORT=newfabric",
			[1] = "IBNET_NEEDS_INFINIBAND=yes" } }'
		assert_success
		assert_line 'features=ib'
	done
}

@test "a job that asks for no transport is left alone, its own constraint and comment too, and not logged" {
	local lua
	for lua in "${LUAS[@]}"; do
		echo "$lua"
		run in_lua "$lua" 'submit{}'
		assert_success
		assert_output $'rc=0\nfeatures=nil\nadmin_comment=nil'
		# Names that only look like ours, and an all-to-all without a transport.
		run in_lua "$lua" 'submit{ features = "gpu", admin_comment = "site note",
			spank_job_env = { [0] = "IBNET_TRANSPORTS=rsocket", [1] = "MY_IBNET_TRANSPORT=ipoib",
				[2] = "IBNET_ALLTOALL=ordered" } }'
		assert_success
		assert_output $'rc=0\nfeatures=gpu\nadmin_comment=site note'
	done
}

@test "the user's own constraint is kept: an OR or a count gets brackets, ib already required is not added again" {
	local lua
	for lua in "${LUAS[@]}"; do
		echo "$lua"
		# The cluster test's case, through the hook.
		run in_lua "$lua" 'submit{ features = "ib|ib", spank_job_env = { [0] = "IBNET_TRANSPORT=rsocket" } }'
		assert_success
		assert_line "log: spank-ibnet job_submit: uid 1000: transport=rsocket alltoall=default constraint 'ib|ib' -> '(ib|ib)&ib'"
		assert_line 'features=(ib|ib)&ib'
		run in_lua "$lua" '
for _, c in ipairs{ "", "bigmem", "ib", "bigmem&ib", "ib&bigmem", "(bigmem&ib)", "ibx",
		"bigmem|gpu", "ib|gpu", "[rack1|rack2]", "gpu*2" } do
	print(c .. " -> " .. ibnet.add_feature(c, "ib"))
end
print("nil -> " .. ibnet.add_feature(nil, "ib"))'
		assert_success
		assert_output " -> ib
bigmem -> bigmem&ib
ib -> ib
bigmem&ib -> bigmem&ib
ib&bigmem -> ib&bigmem
(bigmem&ib) -> (bigmem&ib)
ibx -> ibx&ib
bigmem|gpu -> (bigmem|gpu)&ib
ib|gpu -> (ib|gpu)&ib
[rack1|rack2] -> ([rack1|rack2])&ib
gpu*2 -> (gpu*2)&ib
nil -> ib"
	done
}

@test "an AdminComment already set is kept, the transport after it" {
	local lua
	for lua in "${LUAS[@]}"; do
		echo "$lua"
		run in_lua "$lua" 'submit{ admin_comment = "site note", spank_job_env = { [0] = "IBNET_TRANSPORT=tcp" } }'
		assert_success
		assert_line 'admin_comment=site note ibnet:transport=tcp,alltoall=default'
		run in_lua "$lua" 'submit{ admin_comment = "", spank_job_env = { [0] = "IBNET_TRANSPORT=tcp" } }'
		assert_success
		assert_line 'admin_comment=ibnet:transport=tcp,alltoall=default'
	done
}

@test "a site's own feature name for its InfiniBand nodes" {
	local lua
	for lua in "${LUAS[@]}"; do
		echo "$lua"
		run in_lua "$lua" 'ibnet.ib_feature = "mlx"' \
			'submit{ features = "bigmem", spank_job_env = { [0] = "IBNET_TRANSPORT=rsocket" } }'
		assert_success
		assert_line 'features=bigmem&mlx'
	done
}

@test "job_modify changes nothing; slurm is the one there when a hook runs, not when the module loaded" {
	local lua
	for lua in "${LUAS[@]}"; do
		echo "$lua"
		run in_lua "$lua" '
local job = { features = "gpu", spank_job_env = { [0] = "IBNET_TRANSPORT=rsocket" } }
print("rc=" .. tostring(ibnet.job_modify(job, {}, {}, 1000)))
show(job)'
		assert_success
		assert_output $'rc=0\nfeatures=gpu\nadmin_comment=nil'
		# Loaded with no slurm at all; the hooks answer with the later one's values.
		run in_lua "$lua" '
slurm = nil
package.loaded["spank_ibnet.job_submit"] = nil
local m = require("spank_ibnet.job_submit")
slurm = { SUCCESS = "later-success", log_info = function() print("later log") end }
print(m.job_submit({ spank_job_env = { [0] = "IBNET_TRANSPORT=tcp" } }, {}, 1000))
print(m.job_modify({}, {}, {}, 1000))'
		assert_success
		assert_output $'later log\nlater-success\nlater-success'
	done
}

@test "the example, its @DATADIR@ replaced as install does, requires the module and hands both hooks to it" {
	local lua example=$BATS_TEST_TMPDIR/job_submit.lua
	grep -q '^package.path = "@DATADIR@/lua/?.lua;" .. package.path$' "$REPO/docs/examples/job_submit.lua"
	# With DATADIR this tree, as devel/ibnet-cluster writes it for slurmctld.
	sed -e "s|@DATADIR@|$REPO|g" "$REPO/docs/examples/job_submit.lua" > "$example"
	run grep -c '@DATADIR@' "$example"
	assert_output 0
	for lua in "${LUAS[@]}"; do
		echo "$lua"
		# A fresh package.path and slurm, as slurmctld's new Lua state has.
		IBNET_EXAMPLE=$example run "$lua" -e '
slurm = { SUCCESS = 0, ERROR = -1,
	log_info = function(fmt, ...) print("log: " .. string.format(fmt, ...)) end }
print("loaded=" .. tostring(dofile(os.getenv("IBNET_EXAMPLE"))))
local job = { features = "ib|ib", spank_job_env = { [0] = "IBNET_TRANSPORT=rsocket" } }
print("submit=" .. tostring(slurm_job_submit(job, {}, 1000)))
print("modify=" .. tostring(slurm_job_modify(job, {}, {}, 1000)))
print("features=" .. job.features .. " admin_comment=" .. job.admin_comment)'
		assert_success
		assert_output "loaded=0
log: spank-ibnet job_submit: uid 1000: transport=rsocket alltoall=default constraint 'ib|ib' -> '(ib|ib)&ib'
submit=0
modify=0
features=(ib|ib)&ib admin_comment=ibnet:transport=rsocket,alltoall=default"
	done
}
