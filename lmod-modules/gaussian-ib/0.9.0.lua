-- SPDX-License-Identifier: GPL-2.0-or-later
-- gaussian-ib: Gaussian's Linda workers over Rsockets on InfiniBand (spank-ibnet).
--
-- Needs the site's Gaussian (g16root or g09root set, as the site's gaussian
-- module or g16.profile does; GAUSS_EXEDIR as a fallback) and an admin's
-- one-time `gaussian-ib-setup GAUSSIAN_DIR`.
--
-- The IB host names are not made here: in a job whose transport needs
-- InfiniBand (--transport=rsocket or ipoib; the plugin says so in
-- SLURM_IBNET_NEEDS_INFINIBAND), the spank-ibnet plugin has already put them
-- in GAUSS_WDEF and SLURM_IBNET_HOSTS, with the site's rule; the g16/g09 wrapper renames the
-- hosts of an input's %LindaWorkers line with that same rule (ibnet-hosts).
-- The module only points Gaussian at the Rsockets Linda executables and puts
-- the wrapper first on PATH, whatever the environment, so that unloading it
-- (in or out of a job) undoes exactly what loading did.

help([[
gaussian-ib: run Gaussian's Linda workers over Rsockets on InfiniBand.

  sbatch --transport=rsocket -N4 g16.sh     (g16.sh: module load gaussian-ib; g16 input.gjf)

Sets GAUSS_LEXEDIR to the linda-exe-ib directory the admin made with
gaussian-ib-setup, whose Linda executables run with librspreload, and puts
a g16/g09 wrapper first on PATH. The job's --transport=rsocket (or ipoib)
gives GAUSS_WDEF, one Linda worker per node under its IB host name (a
GAUSS_WDEF you set has its hosts renamed). The wrapper renames the hosts of
a %LindaWorkers line in your input the same way, so an unchanged input file
works, and sets GAUSS_PDEF to the cores Slurm gave you per node unless you
set it. In a job without --transport=rsocket or ipoib, loading it is an
error that says so: there are no IB names to give Linda.
]])

whatis("Name: gaussian-ib")
whatis("Version: " .. myModuleVersion())
whatis("Description: Gaussian Linda over Rsockets on InfiniBand (spank-ibnet)")
whatis("Category: chemistry, networking")
whatis("Keywords: Gaussian, Linda, Rsockets, InfiniBand, GAUSS_LEXEDIR, GAUSS_WDEF")

-- Another module that points Linda somewhere else cannot be loaded with this.
family("gaussian_linda")
conflict("gaussian-tcp")

-- spank-ibnet's share directory: written here by `make install`, so a site
-- can copy this file into its own module tree; in a source tree, three
-- levels up from this file (lmod-modules/gaussian-ib/VERSION.lua).
local root = "@DATADIR@"
if root:sub(1, 1) == "@" then
  root = myFileName():match("^(.*)/[^/]*/[^/]*/[^/]*$")
end

-- The Gaussian directory holding linda-exe/: $g16root/g16, $g09root/g09,
-- then each entry of GAUSS_EXEDIR.
local function find_gaussian()
  local tried = {}
  for _, g in ipairs({ "g16", "g09" }) do
    local r = os.getenv(g .. "root")
    if r then
      tried[#tried + 1] = r .. "/" .. g
      if isDir(r .. "/" .. g .. "/linda-exe") then return r .. "/" .. g end
    end
  end
  for d in (os.getenv("GAUSS_EXEDIR") or ""):gmatch("[^:]+") do
    tried[#tried + 1] = d
    if isDir(d .. "/linda-exe") then return d end
  end
  if #tried == 0 then
    LmodError("gaussian-ib: cannot find Gaussian: load your site's Gaussian module first ",
      "(it sets g16root or g09root), or set GAUSS_EXEDIR.")
  end
  LmodError("gaussian-ib: no linda-exe/ in ", table.concat(tried, " or "),
    ": is this a Gaussian installation with Linda?")
end

local lexedir
if mode() == "load" then
  local gdir = find_gaussian()
  lexedir = gdir .. "/linda-exe-ib"
  local f = io.open(lexedir .. "/linda-rsockets", "r")
  local ok = f and (f:read("a") or ""):find("# spank-ibnet linda-rsockets wrapper", 1, true)
  if f then f:close() end
  if not ok then
    LmodError("gaussian-ib: ", lexedir, " is not set up. Ask your admin to run: ",
      "gaussian-ib-setup ", gdir)
  end
  -- In a job, the plugin says whether its transport needs InfiniBand, and so
  -- whether there are IB names (SLURM_IBNET_NEEDS_INFINIBAND, yes or no).
  -- Plugins before 0.9 did not say; their answer was fixed: rsocket and ipoib.
  if os.getenv("SLURM_JOB_ID") then
    local t = os.getenv("SLURM_IBNET_TRANSPORT")
    local needs = os.getenv("SLURM_IBNET_NEEDS_INFINIBAND")
    if needs == nil then
      needs = (t == "rsocket" or t == "ipoib") and "yes" or "no"
    end
    if needs ~= "yes" then
      -- One string: Lmod may break a message between its arguments.
      LmodError(string.format("gaussian-ib: this job did not ask for InfiniBand (its "
        .. "transport is %s), so Linda has no IB host names. Submit it with "
        .. "--transport=rsocket (sbatch --transport=rsocket ...), or use your site's "
        .. "Gaussian module alone for Linda over Ethernet.", t and ("'" .. t .. "'") or "not set"))
    end
  end
else
  -- Unload (and show): the value does not matter, pushenv's undo does.
  lexedir = os.getenv("GAUSS_LEXEDIR") or ""
end
pushenv("GAUSS_LEXEDIR", lexedir)
-- Linda starts its workers with this instead of ssh: each becomes a step of
-- the job (its cgroup, accounting and network), and needs no ssh keys.
pushenv("GAUSS_SDEF", root .. "/scripts/linda-srun")
prepend_path("PATH", root .. "/scripts/gaussian-ib-bin")
