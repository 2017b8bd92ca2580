-- ibnet/hostname.lua - spank-ibnet's IB host name rules, for Lmod and scripts.
--
-- The same rules as the plugin's C side (spank-ibnet/ibnet_rule.c): a rule
-- is "s/REGEX/REPLACEMENT/" (POSIX extended regex, first match replaced,
-- \1..\9 groups, \\ a backslash, \/ a slash, no flags) or "file:PATH" (a
-- table of "NODENAME IBNAME" lines, # comments). A node the rule does not
-- match is an error. The regex runs in TRE, a POSIX regex library, through
-- lrexlib (rex_tre): the very engine the C side uses; both sides must pass
-- tests/vectors/hostname-rules.tsv.
--
-- Functions return a value, or nil and a message starting "spank-ibnet: ".

local rex = require("rex_tre")

local M = {}

M.DEFAULT_RULE = "s/$/-ib/"
local PREFIX = "spank-ibnet: "
local HOSTLIST_MAX = 1048576

local function quote(s)
  s = tostring(s)
  local shown = s:sub(1, 60):gsub("[^\32-\126]", function(c)
    return string.format("\\x%02x", c:byte())
  end)
  if #s > 60 then
    return string.format("'%s...' (%d characters)", shown, #s)
  end
  return "'" .. shown .. "'"
end

-- A host name as the plugin accepts it: letters, digits, - . _ ; 1..255.
function M.valid_hostname(s)
  return type(s) == "string" and #s >= 1 and #s <= 255 and s:find("^[%w%-%._]+$") ~= nil
end

-- Split one '/'-delimited field at position i; "\/" becomes "/".
local function take_field(spec, i)
  local out = {}
  while i <= #spec do
    local c = spec:sub(i, i)
    if c == "/" then
      return table.concat(out), i + 1
    elseif c == "\\" and i < #spec then
      local n = spec:sub(i + 1, i + 1)
      out[#out + 1] = (n == "/") and "/" or (c .. n)
      i = i + 2
    else
      out[#out + 1] = c
      i = i + 1
    end
  end
  return nil
end

local function count_groups(regex)
  -- Every unescaped '(' opens a group in ERE (outside bracket expressions).
  local n, i, in_bracket = 0, 1, false
  while i <= #regex do
    local c = regex:sub(i, i)
    if c == "\\" then
      i = i + 1
    elseif in_bracket then
      if c == "]" then in_bracket = false end
    elseif c == "[" then
      in_bracket = true
      if regex:sub(i + 1, i + 1) == "^" then i = i + 1 end
      if regex:sub(i + 1, i + 1) == "]" then i = i + 1 end
    elseif c == "(" then
      n = n + 1
    end
    i = i + 1
  end
  return n
end

local function parse_regex_rule(spec)
  local regex, i = take_field(spec, 3)
  local repl
  if regex then repl, i = take_field(spec, i) end
  if not regex or not repl then
    return nil, PREFIX .. "ib_hostname rule " .. quote(spec) .. ": expected s/REGEX/REPLACEMENT/"
  end
  if i <= #spec then
    return nil, PREFIX .. "ib_hostname rule " .. quote(spec) .. ": unexpected " ..
      quote(spec:sub(i)) .. " after the last '/' (flags are not supported)"
  end
  local ok, re = pcall(rex.new, regex)
  if not ok then
    return nil, PREFIX .. "ib_hostname rule " .. quote(spec) .. ": bad regular expression: " .. tostring(re)
  end
  local groups = count_groups(regex)
  local j = 1
  while j <= #repl do
    if repl:sub(j, j) == "\\" then
      local n = repl:sub(j + 1, j + 1)
      if n:match("^[1-9]$") then
        if tonumber(n) > groups then
          return nil, PREFIX .. "ib_hostname rule " .. quote(spec) .. ": \\" .. n ..
            " refers to a group the regex does not have"
        end
      elseif n ~= "\\" then
        return nil, PREFIX .. "ib_hostname rule " .. quote(spec) .. ": unknown escape '\\" ..
          n .. "' in the replacement (use \\1..\\9 or \\\\)"
      end
      j = j + 2
    else
      j = j + 1
    end
  end
  return { spec = spec, re = re, repl = repl }
end

local function parse_table_rule(spec)
  local path = spec:sub(6)
  if path:sub(1, 1) ~= "/" then
    return nil, PREFIX .. "ib_hostname=file:" .. quote(path) .. ": the path must be absolute"
  end
  local f, err = io.open(path, "r")
  if not f then
    return nil, PREFIX .. "ib_hostname=file:" .. quote(path) .. ": cannot read: " .. tostring(err)
  end
  local map, lineno = {}, 0
  for line in f:lines() do
    lineno = lineno + 1
    line = line:gsub("#.*", "")
    local fields = {}
    for w in line:gmatch("%S+") do fields[#fields + 1] = w end
    if #fields > 0 then
      if #fields ~= 2 or not M.valid_hostname(fields[1]) or not M.valid_hostname(fields[2]) then
        f:close()
        return nil, PREFIX .. "ib_hostname=file:" .. quote(path) .. " line " .. lineno ..
          ": expected \"NODENAME IBNAME\""
      end
      if map[fields[1]] then
        f:close()
        return nil, PREFIX .. "ib_hostname=file:" .. quote(path) .. ": node " ..
          quote(fields[1]) .. " is listed twice"
      end
      map[fields[1]] = fields[2]
    end
  end
  f:close()
  return { spec = spec, map = map }
end

-- Parse a rule; returns the rule or nil, message.
function M.parse(spec)
  if type(spec) ~= "string" then
    return nil, PREFIX .. "no ib_hostname rule"
  end
  if spec:sub(1, 2) == "s/" then
    return parse_regex_rule(spec)
  elseif spec:sub(1, 5) == "file:" then
    return parse_table_rule(spec)
  end
  return nil, PREFIX .. "invalid ib_hostname rule " .. quote(spec) ..
    " (expected s/REGEX/REPLACEMENT/ or file:PATH)"
end

local function apply_regex(rule, node)
  local s, e, caps = rule.re:exec(node)
  if not s then
    return nil, PREFIX .. "ib_hostname rule " .. quote(rule.spec) ..
      " does not match node name " .. quote(node)
  end
  local out, j, repl = {}, 1, rule.repl
  while j <= #repl do
    local c = repl:sub(j, j)
    if c == "\\" then
      local n = repl:sub(j + 1, j + 1)
      local g = tonumber(n)
      if g then
        local gs, ge = caps[2 * g - 1], caps[2 * g]
        if gs then out[#out + 1] = node:sub(gs, ge) end
      else
        out[#out + 1] = n
      end
      j = j + 2
    else
      out[#out + 1] = c
      j = j + 1
    end
  end
  return node:sub(1, s - 1) .. table.concat(out) .. node:sub(e + 1)
end

-- The IB name of one node; or nil, message.
function M.apply(rule, node)
  local ib, err
  if rule.map then
    ib = rule.map[node]
    if not ib then
      return nil, PREFIX .. "node " .. quote(node) .. " is not listed in ib_hostname=" .. quote(rule.spec)
    end
  else
    ib, err = apply_regex(rule, node)
    if not ib then return nil, err end
  end
  if not M.valid_hostname(ib) then
    return nil, PREFIX .. "ib_hostname rule " .. quote(rule.spec) .. " turns " .. quote(node) ..
      " into " .. quote(ib) .. ", which is not a host name"
  end
  return ib
end

-- Expand a Slurm hostlist ("c1-[1-4,7],login1") into a list of names.
function M.expand(expr)
  if type(expr) ~= "string" or expr == "" then
    return nil, PREFIX .. "empty hostlist"
  end
  local hosts = {}
  local function bad(why)
    return nil, PREFIX .. "invalid hostlist " .. quote(expr) .. ": " .. why
  end
  -- Split on commas outside brackets.
  local items, depth, start = {}, 0, 1
  for i = 1, #expr do
    local c = expr:sub(i, i)
    if c == "[" then depth = depth + 1
    elseif c == "]" and depth > 0 then depth = depth - 1
    elseif c == "," and depth == 0 then
      items[#items + 1] = expr:sub(start, i - 1)
      start = i + 1
    end
  end
  items[#items + 1] = expr:sub(start)
  for _, item in ipairs(items) do
    if item == "" then return bad("empty item") end
    -- Segments: text, or a list of {lo, hi, width} ranges.
    local segs, i = {}, 1
    while i <= #item do
      if item:sub(i, i) == "[" then
        local close = item:find("]", i, true)
        if not close then return bad("'[' without ']'") end
        local ranges = {}
        for r in (item:sub(i + 1, close - 1) .. ","):gmatch("([^,]*),") do
          local lo, hi = r:match("^(%d+)%-(%d+)$")
          if not lo then lo = r:match("^(%d+)$"); hi = lo end
          if not lo or #lo > 18 or #hi > 18 or tonumber(hi) < tonumber(lo) then
            return bad("bad range list [" .. item:sub(i + 1, close - 1) .. "]")
          end
          ranges[#ranges + 1] = { tonumber(lo), tonumber(hi), #lo }
        end
        segs[#segs + 1] = ranges
        i = close + 1
      else
        local j = item:find("[%[%]]", i) or (#item + 1)
        if j == i then return bad("']' without '['") end
        segs[#segs + 1] = item:sub(i, j - 1)
        i = j
      end
    end
    -- Cartesian product, last bracket fastest, as Slurm prints them.
    local names = { "" }
    for _, seg in ipairs(segs) do
      local nxt = {}
      for _, prefix in ipairs(names) do
        if type(seg) == "string" then
          nxt[#nxt + 1] = prefix .. seg
        else
          for _, r in ipairs(seg) do
            if #nxt + (r[2] - r[1]) + #hosts > HOSTLIST_MAX then
              return nil, PREFIX .. "hostlist " .. quote(expr) .. " has more than " ..
                HOSTLIST_MAX .. " hosts"
            end
            for v = r[1], r[2] do
              nxt[#nxt + 1] = prefix .. string.format("%0" .. r[3] .. "d", v)
            end
          end
        end
      end
      names = nxt
    end
    for _, n in ipairs(names) do
      if not M.valid_hostname(n) then
        return bad(quote(n) .. " is not a host name")
      end
      hosts[#hosts + 1] = n
    end
  end
  return hosts
end

-- Map every host of a hostlist; or nil, message.
function M.map(rule, expr)
  local hosts, err = M.expand(expr)
  if not hosts then return nil, err end
  local out = {}
  for i, h in ipairs(hosts) do
    out[i], err = M.apply(rule, h)
    if not out[i] then return nil, err end
  end
  return out
end

-- Rewrite a Linda worker list ("c1-1:2,c1-2") to IB names, keeping ":N".
-- Hosts already among ib_hosts (the job's IB names) are kept as they are.
function M.rewrite_workers(rule, list, ib_hosts)
  local known = {}
  for _, h in ipairs(ib_hosts or {}) do known[h] = true end
  local out = {}
  for item in (list .. ","):gmatch("([^,]*),") do
    local host, count = item:match("^([^:]*):(%d+)$")
    host = host or item
    if item == "" or not M.valid_hostname(host) or (item:find(":") and not count) then
      return nil, PREFIX .. "invalid Linda worker list " .. quote(list) ..
        " (expected host[:N],host[:N],...)"
    end
    local ib, err = host, nil
    if not known[host] then
      ib, err = M.apply(rule, host)
      if not ib then return nil, err end
    end
    out[#out + 1] = count and (ib .. ":" .. count) or ib
  end
  return table.concat(out, ",")
end

-- The rule the admin gave the plugin: ib_hostname= on the spank_ibnet.so
-- line of plugstack.conf (found as slurm.conf's PlugStackConfig, else
-- beside slurm.conf; IBNET_PLUGSTACK_CONF names it directly), following
-- "include" lines. Returns the rule spec (the default if the line has
-- none), and the file it came from; or nil, message.
function M.configured_rule(getenv)
  getenv = getenv or os.getenv
  local plugstack = getenv("IBNET_PLUGSTACK_CONF")
  if not plugstack then
    local slurm_conf = getenv("SLURM_CONF") or "/etc/slurm/slurm.conf"
    plugstack = slurm_conf:gsub("[^/]*$", "") .. "plugstack.conf"
    local f = io.open(slurm_conf, "r")
    if f then
      for line in f:lines() do
        local v = line:match("^%s*[Pp][Ll][Uu][Gg][Ss][Tt][Aa][Cc][Kk][Cc][Oo][Nn][Ff][Ii][Gg]%s*=%s*(%S+)")
        if v then plugstack = v end
      end
      f:close()
    end
  end
  local function scan(path, depth)
    if depth > 8 then return nil end
    local f = io.open(path, "r")
    if not f then return nil end
    for line in f:lines() do
      line = line:gsub("#.*", "")
      local words = {}
      for w in line:gmatch("%S+") do words[#words + 1] = w end
      if words[1] == "include" and words[2] then
        local ok, glob = pcall(require, "posix.glob")
        local paths = ok and glob.glob(words[2]) or { words[2] }
        for _, p in ipairs(paths or {}) do
          local spec, from = scan(p, depth + 1)
          if spec then f:close(); return spec, from end
        end
      elseif (words[1] == "required" or words[1] == "optional") and words[2] and
          words[2]:match("spank_ibnet%.so$") then
        f:close()
        for k = 3, #words do
          local v = words[k]:match("^ib_hostname=(.*)$")
          if v then return v, path end
        end
        return M.DEFAULT_RULE, path
      end
    end
    f:close()
    return nil
  end
  local spec, from = scan(plugstack, 0)
  if not spec then
    return nil, PREFIX .. "spank_ibnet.so is not configured in " .. plugstack ..
      " (set IBNET_PLUGSTACK_CONF to the plugstack.conf that loads it)"
  end
  return spec, from
end

return M
