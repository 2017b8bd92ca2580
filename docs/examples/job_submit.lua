-- SPDX-License-Identifier: GPL-2.0-or-later
--[[
job_submit.lua for spank-ibnet: the lines a site adds to its own
job_submit.lua so the scheduler sees each job's network. The logic is the
installed module spank_ibnet.job_submit (@DATADIR@/lua/spank_ibnet/):
rsocket and ipoib jobs get the node feature "ib" added to their constraint,
and every job that asked for a network gets ibnet:transport=T,alltoall=A in
its AdminComment. A job that asks for nothing is left alone.

Without a job_submit.lua of your own: copy this file beside slurm.conf as
job_submit.lua and set JobSubmitPlugins=lua. With one: add the two lines
below the comment to its top, and call ibnet.job_submit from your
slurm_job_submit (return its result if it is not slurm.SUCCESS). Mark
InfiniBand nodes with Features=ib, or set ibnet.ib_feature to your name.
slurmctld reloads job_submit.lua when that file changes, not when the
module does: after upgrading spank-ibnet, restart slurmctld.
--]]

package.path = "@DATADIR@/lua/?.lua;" .. package.path
local ibnet = require("spank_ibnet.job_submit")

function slurm_job_submit(job_desc, part_list, submit_uid)
	return ibnet.job_submit(job_desc, part_list, submit_uid)
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
	return ibnet.job_modify(job_desc, job_rec, part_list, modify_uid)
end

return slurm.SUCCESS
