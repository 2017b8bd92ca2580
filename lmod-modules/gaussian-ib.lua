-- gaussian-ib: Gaussian's Linda workers over Rsockets on InfiniBand (spank-ibnet).
--
-- Needs the site's Gaussian (g16root or g09root set, as the site's gaussian
-- module or g16.profile does; GAUSS_EXEDIR as a fallback) and an admin's
-- one-time `gaussian-ib-setup GAUSSIAN_DIR`. Every change is undone by
-- `module unload` (pushenv restores what was there before).

help([[
gaussian-ib: run Gaussian's Linda workers over Rsockets on InfiniBand.

  module load gaussian-ib
  sbatch --transport=rsocket -N4 g16.sh

Sets GAUSS_LEXEDIR to the linda-exe-ib directory the admin made with
gaussian-ib-setup, whose Linda executables run with librspreload. Inside a
Slurm job it also sets GAUSS_WDEF (one Linda worker per node, by IB host
name; a GAUSS_WDEF you set has its hosts renamed) and GAUSS_PDEF (the cores
Slurm gave you per node, unless you set it). A g16/g09 wrapper first on PATH
renames the hosts of a %LindaWorkers line in your input to IB names, so an
unchanged input file works. The IB names follow the site's spank-ibnet rule.
]])

whatis("Name: gaussian-ib")
whatis("Description: Gaussian Linda over Rsockets on InfiniBand (spank-ibnet)")
whatis("Category: chemistry, networking")
whatis("Keywords: Gaussian, Linda, Rsockets, InfiniBand, GAUSS_LEXEDIR, GAUSS_WDEF")

-- Another module that points Linda somewhere else cannot be loaded with this.
family("gaussian_linda")
conflict("gaussian-tcp")

-- The shared Lua library, beside this file's directory (source tree or
-- share/spank-ibnet). Lmod's sandbox has its own `package`, so load by path.
local root = myFileName():match("^(.*)/[^/]*/[^/]*$")
local hostname = assert(loadfile(root .. "/lua/ibnet/hostname.lua"))()

local in_job = os.getenv("SLURM_JOB_NODELIST") ~= nil

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

if mode() == "load" then
  local gdir = find_gaussian()
  local lexedir = gdir .. "/linda-exe-ib"
  local f = io.open(lexedir .. "/linda-rsockets", "r")
  local ok = f and (f:read("a") or ""):find("# spank-ibnet linda-rsockets wrapper", 1, true)
  if f then f:close() end
  if not ok then
    LmodError("gaussian-ib: ", lexedir, " is not set up. Ask your admin to run: ",
      "gaussian-ib-setup ", gdir)
  end
  pushenv("GAUSS_LEXEDIR", lexedir)
  if in_job then
    local spec, err = hostname.configured_rule()
    local rule = spec and hostname.parse(spec)
    if not spec or not rule then
      LmodError("gaussian-ib: ", err or select(2, hostname.parse(spec)))
    end
    local ib_hosts, herr = hostname.map(rule, os.getenv("SLURM_JOB_NODELIST"))
    if not ib_hosts then LmodError("gaussian-ib: ", herr) end
    local wdef = os.getenv("GAUSS_WDEF")
    if wdef then
      local werr
      wdef, werr = hostname.rewrite_workers(rule, wdef, ib_hosts)
      if not wdef then LmodError("gaussian-ib: GAUSS_WDEF: ", werr) end
    else
      wdef = table.concat(ib_hosts, ",")
    end
    pushenv("GAUSS_WDEF", wdef)
    pushenv("GAUSS_PDEF", os.getenv("GAUSS_PDEF") or os.getenv("SLURM_CPUS_ON_NODE") or "1")
  end
elseif mode() == "unload" then
  -- Reversed by Lmod: the values do not matter, the calls do.
  pushenv("GAUSS_LEXEDIR", os.getenv("GAUSS_LEXEDIR") or "")
  if in_job then
    pushenv("GAUSS_WDEF", os.getenv("GAUSS_WDEF") or "")
    pushenv("GAUSS_PDEF", os.getenv("GAUSS_PDEF") or "")
  end
end

prepend_path("PATH", root .. "/scripts/gaussian-ib-bin")
