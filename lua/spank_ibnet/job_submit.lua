-- SPDX-License-Identifier: GPL-2.0-or-later
--[[
spank_ibnet.job_submit - let the scheduler see each job's network, as a
module a site's own job_submit.lua requires (a site has one job_submit.lua,
so it cannot install ours; it calls this one from its own).

sbatch, srun and salloc with spank-ibnet record what a job asked for in its
job control environment (job_desc.spank_job_env here; SPANK_IBNET_TRANSPORT,
SPANK_IBNET_ALLTOALL and SPANK_IBNET_NEEDS_INFINIBAND in prolog and epilog):

  IBNET_TRANSPORT=rsocket|ipoib|tcp      IBNET_ALLTOALL=ordered|default
  IBNET_NEEDS_INFINIBAND=yes|no          (the plugin's answer for the transport)

A job that asks for nothing records nothing, and job_submit leaves it alone.
For the others it:
  - adds the node feature M.ib_feature ("ib") to the job's constraint when
    the plugin says the transport needs InfiniBand, so the job never starts
    on a node without it (a job whose constraint no node can satisfy is
    refused at submit);
  - records the transport in the job's AdminComment, which sacct shows
    (sacct -o JobID,AdminComment) and users cannot set;
  - logs one line to slurmctld's log.

Use (docs/examples/job_submit.lua; installed in DATADIR/lua/spank_ibnet/):

  package.path = "/usr/share/spank-ibnet/lua/?.lua;" .. package.path
  local ibnet = require("spank_ibnet.job_submit")
  -- ibnet.ib_feature = "mlx"   -- if your IB nodes' feature is not "ib"
  function slurm_job_submit(job_desc, part_list, submit_uid)
      return ibnet.job_submit(job_desc, part_list, submit_uid)
  end

The only global used is `slurm`, the table job_submit/lua gives the script,
and it is read when a function runs, not when the module loads: the module
can be required before `slurm` exists (as a unit test does, with a fake).
Nothing version-specific (Lua 5.1 to 5.4): Debian 12's job_submit_lua.so
links liblua5.1, and tests/unit/lua.bats runs this under every lua5.x found.
--]]

local M = {}

-- The node feature of InfiniBand nodes (slurm.conf Features=ib). A site with
-- another name sets it after require.
M.ib_feature = "ib"

-- The variables the plugin records; which transports need InfiniBand is
-- its decision (IBNET_NEEDS_INFINIBAND), not this module's.
local RECORDED = { IBNET_TRANSPORT = true, IBNET_ALLTOALL = true, IBNET_NEEDS_INFINIBAND = true }

-- Plugins before 0.9 recorded the transport only. Their answer is fixed, and
-- the only one that can be missing: rsocket and ipoib needed InfiniBand.
local NEEDS_IB_BEFORE_0_9 = { rsocket = true, ipoib = true }

-- request(job_desc): the spank-ibnet variables of a job, as a table
-- { IBNET_TRANSPORT = ..., IBNET_ALLTOALL = ..., IBNET_NEEDS_INFINIBAND = ... }
-- (empty: it asked for nothing).
-- spank_job_env is indexed from 0, so pairs, not ipairs. A SPANK_ prefix
-- (the names prolog and epilog see) is taken off.
function M.request(job_desc)
	local found = {}
	local env = job_desc.spank_job_env
	if env == nil then return found end
	for _, kv in pairs(env) do
		local name, value = tostring(kv):match("^([^=]+)=(.*)$")
		if name then
			name = name:gsub("^SPANK_", "")
			if RECORDED[name] then
				found[name] = value
			end
		end
	end
	return found
end

-- needs_infiniband(req): does the job's transport need InfiniBand, as the
-- plugin recorded it? Any answer but "no" is taken as yes: a constraint too
-- many only narrows the nodes, a missing one would start the job where it fails.
-- Without an answer (a plugin before 0.9), the answer those plugins gave.
function M.needs_infiniband(req)
	local needs = req.IBNET_NEEDS_INFINIBAND
	if needs == nil then return NEEDS_IB_BEFORE_0_9[req.IBNET_TRANSPORT] == true end
	return needs ~= "no"
end

-- An OR, a count or a bracket in a constraint: a feature added with & would
-- bind to its last term only.
local function compound(constraint)
	return constraint:find("[|%[%]%*]") ~= nil
end

-- requires(constraint, feature): is feature already required by itself in
-- constraint? ("ib", "ib&x", "x&ib"; never in a compound one)
function M.requires(constraint, feature)
	if compound(constraint) then return false end
	for f in constraint:gmatch("[^&(),]+") do
		if f == feature then return true end
	end
	return false
end

-- add_feature(constraint, feature): constraint (nil or "" for none) that
-- also requires feature; the user's own is kept, in brackets if compound.
function M.add_feature(constraint, feature)
	if constraint == nil or constraint == "" then return feature end
	if M.requires(constraint, feature) then return constraint end
	if compound(constraint) then return "(" .. constraint .. ")&" .. feature end
	return constraint .. "&" .. feature
end

-- job_submit(job_desc, part_list, submit_uid): Slurm's slurm_job_submit
-- hook, arguments as given to it. Changes job_desc in place (features,
-- admin_comment) and returns slurm.SUCCESS; it refuses no job itself.
function M.job_submit(job_desc, part_list, submit_uid)
	local req = M.request(job_desc)
	local transport = req.IBNET_TRANSPORT
	if transport == nil then return slurm.SUCCESS end
	local alltoall = req.IBNET_ALLTOALL or "default"

	local before = job_desc.features
	if M.needs_infiniband(req) then
		job_desc.features = M.add_feature(before, M.ib_feature)
	end
	local note = "ibnet:transport=" .. transport .. ",alltoall=" .. alltoall
	local admin = job_desc.admin_comment
	job_desc.admin_comment = (admin == nil or admin == "") and note or (admin .. " " .. note)
	slurm.log_info("spank-ibnet job_submit: uid %u: transport=%s alltoall=%s constraint '%s' -> '%s'",
		submit_uid, transport, alltoall, before or "", job_desc.features or "")
	return slurm.SUCCESS
end

-- job_modify(job_desc, job_rec, part_list, modify_uid): Slurm's
-- slurm_job_modify hook. Changes nothing: the constraint and AdminComment
-- are set at submit.
function M.job_modify(job_desc, job_rec, part_list, modify_uid)
	return slurm.SUCCESS
end

return M
