-- SPDX-License-Identifier: GPL-2.0-or-later
--[[
job_submit.lua for spank-ibnet: let the scheduler see each job's network.

sbatch, srun and salloc with spank-ibnet record what a job asked for in its
job control environment (job_desc.spank_job_env here; SPANK_IBNET_TRANSPORT
and SPANK_IBNET_ALLTOALL in prolog and epilog):

  IBNET_TRANSPORT=rsocket|ipoib|tcp      IBNET_ALLTOALL=ordered|default

A job that asks for nothing records nothing, and this script leaves it alone.
For the others it:
  - adds the node feature IB_FEATURE to the job's constraint when the
    transport needs InfiniBand, so the job never starts on a node without
    it (a job whose constraint no node can satisfy is refused at submit);
  - records the transport in the job's AdminComment, which sacct shows
    (sacct -o JobID,AdminComment) and users cannot set.

Install: copy to the directory of slurm.conf as job_submit.lua (or merge the
two functions into yours), set JobSubmitPlugins=lua, and mark nodes with
InfiniBand with Features=ib (or set IB_FEATURE to your site's name).
--]]

local IB_FEATURE = "ib"
local NEEDS_IB = { rsocket = true, ipoib = true }

-- The spank-ibnet variables of a job. spank_job_env is indexed from 0.
local function ibnet_request(job_desc)
	local found = {}
	local env = job_desc.spank_job_env
	if env == nil then return found end
	for _, kv in pairs(env) do
		local name, value = tostring(kv):match("^([^=]+)=(.*)$")
		if name then
			name = name:gsub("^SPANK_", "")
			if name == "IBNET_TRANSPORT" or name == "IBNET_ALLTOALL" then
				found[name] = value
			end
		end
	end
	return found
end

-- Is feature already required by itself in constraint? ("ib", "ib&x", "x&ib")
local function requires(constraint, feature)
	if constraint:find("[|%[%]%*]") then return false end
	for f in constraint:gmatch("[^&(),]+") do
		if f == feature then return true end
	end
	return false
end

local function add_feature(constraint, feature)
	if constraint == nil or constraint == "" then return feature end
	if requires(constraint, feature) then return constraint end
	-- An OR or a count in the user's constraint binds tighter with brackets.
	if constraint:find("[|%[%]%*]") then return "(" .. constraint .. ")&" .. feature end
	return constraint .. "&" .. feature
end

function slurm_job_submit(job_desc, part_list, submit_uid)
	local req = ibnet_request(job_desc)
	local transport = req.IBNET_TRANSPORT
	if transport == nil then return slurm.SUCCESS end
	local alltoall = req.IBNET_ALLTOALL or "default"

	local before = job_desc.features
	if NEEDS_IB[transport] then
		job_desc.features = add_feature(before, IB_FEATURE)
	end
	local note = "ibnet:transport=" .. transport .. ",alltoall=" .. alltoall
	local admin = job_desc.admin_comment
	job_desc.admin_comment = (admin == nil or admin == "") and note or (admin .. " " .. note)
	slurm.log_info("spank-ibnet job_submit: uid %u: transport=%s alltoall=%s constraint '%s' -> '%s'",
		submit_uid, transport, alltoall, before or "", job_desc.features or "")
	return slurm.SUCCESS
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
	return slurm.SUCCESS
end

return slurm.SUCCESS
