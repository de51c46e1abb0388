-- sparkreport.catalog: the cited systems catalog (data/systems.csv, embedded, or SPARKREPORT_DATA_DIR's)
-- and its data files: the one loader, for Lua and C alike (the C code is handed these rows), parsing
-- and typing each cell, lookup by id and by role, and matching the machine under test to a row only
-- when it really is that system. Which figures a report prints is the sections' decision.
local bench = require "bench"

local M = { source = "data/systems.csv" }

-- RFC 4180 fields: quoted fields may hold commas, doubled quotes and newlines.
local function parse_csv(text)
  local rows, row, field, i, n = {}, {}, {}, 1, #text
  local quoted = false
  while i <= n do
    local c = text:sub(i, i)
    if quoted then
      if c == '"' and text:sub(i + 1, i + 1) == '"' then field[#field + 1] = '"'; i = i + 1
      elseif c == '"' then quoted = false
      else field[#field + 1] = c end
    elseif c == '"' then quoted = true
    elseif c == "," then row[#row + 1] = table.concat(field); field = {}
    elseif c == "\n" or c == "\r" then
      if c == "\r" and text:sub(i + 1, i + 1) == "\n" then i = i + 1 end
      row[#row + 1] = table.concat(field); field = {}
      rows[#rows + 1] = row; row = {}
    else field[#field + 1] = c end
    i = i + 1
  end
  if #field > 0 or #row > 0 then row[#row + 1] = table.concat(field); rows[#rows + 1] = row end
  return rows
end

local numeric = {
  memory_gb = true, mem_bw_gbs = true, fp64_tflops = true, fp32_tflops = true, tf32_tflops = true,
  bf16_tflops = true, fp16_tflops = true, fp8_tflops = true, fp4_tflops = true, power_w = true,
  price_usd = true, host_memory_gb = true, host_bw_gbs = true, cpu_gpu_link_gbs = true, sms = true,
  match_cpus = true,
}
-- What each role means (a row's `roles`, "subject|shared"): the code asks for a role, never an id.
M.roles = {
  subject = "the system the report is about (the DGX Spark): exactly one row",
  compared = "the HBM systems the report compares it with, in the file's order",
  shared = "a system whose projection shows N people sharing one device (the tenants)",
}

-- The typed cells of systems.csv's GPU and role columns (data/README.md): generation one of the
-- stack profiles' (bench.generations, src/predict/stack.c), span 1 or empty, roles a |-list of M.roles,
-- numbers above 0; anything else raises "SOURCE:LINE: ...", naming the value.
local function typed(key, v, where)
  local function bad(what) error(("%s: %s '%s' %s"):format(where, key, v, what), 0) end
  if key == "generation" then
    for _, g in ipairs(bench.generations) do if g == v then return v end end
    bad("is not a GPU generation the stack profiles know (" .. table.concat(bench.generations, ", ") .. ")")
  elseif key == "span" then
    if v ~= "1" then bad("is not 1 (or empty)") end
    return true
  elseif key == "roles" then
    local list = {}
    for r in v:gmatch("[^|]+") do
      if not M.roles[r] then bad("names a role other than subject, compared, shared") end
      list[#list + 1] = r
    end
    return list
  elseif numeric[key] then
    local x = tonumber(v)
    if not x or x <= 0 then bad("is not a number above 0") end
    return x
  end
  return v
end

-- systems.csv's text as { rows, by_id, sha256 }: empty cells unknown (absent, never zero), numbers
-- and the GPU and role columns typed; a bad cell, an id given twice, or not exactly one subject
-- raises "SOURCE:LINE: ..." (SOURCE alone for the subject).
function M.parse_systems(text, source)
  local rows = parse_csv(text)
  local header = table.remove(rows, 1) or {}
  local list, by_id, subject = {}, {}, {}
  for i, r in ipairs(rows) do
    local row, where = {}, ("%s:%d"):format(source, i + 1)
    for j, key in ipairs(header) do
      local v = r[j] or ""
      if v ~= "" then row[key] = typed(key, v, where) end
    end
    if not row.id or by_id[row.id] then
      error(("%s: id '%s' is %s"):format(where, tostring(row.id), row.id and "given twice" or "empty"), 0)
    end
    for _, role in ipairs(row.roles or {}) do if role == "subject" then subject[#subject + 1] = row.id end end
    list[#list + 1], by_id[row.id] = row, row
  end
  if #subject ~= 1 then
    error(("%s: %d rows have the role 'subject' (%s); exactly one must: %s"):format(source, #subject,
          table.concat(subject, ", "), M.roles.subject), 0)
  end
  return { rows = list, by_id = by_id, sha256 = bench.sha256(text) }
end

local cache
function M.load()
  if cache then return cache end
  local text, from = bench.resource(M.source)     -- from: the file read (SPARKREPORT_DATA_DIR's or ours)
  if not text then error(from, 0) end
  cache = M.parse_systems(text, from)
  M.merge_ranges(cache.by_id)
  M.load_fabric(cache)
  return cache
end

-- The ids of the rows with a role (M.roles), in the file's order.
function M.with_role(role, rows)
  local ids = {}
  for _, r in ipairs(rows or M.load().rows) do
    for _, x in ipairs(r.roles or {}) do if x == role then ids[#ids + 1] = r.id end end
  end
  return ids
end

-- A scenario's `systems`: its list, or for the keyword "compared" (the default) the subject and the
-- systems it is compared with, in that order.
function M.systems(v)
  if v ~= "compared" then return v end
  local ids = M.with_role("subject")
  for _, id in ipairs(M.with_role("compared")) do ids[#ids + 1] = id end
  return ids
end

-- Each system's scale-out fabric (data/fabric.csv: NVLink domain, scale-up link, NICs, with
-- sources) joins its row as fabric_* fields; a system without a fabric row has none.
M.fabric_source = "data/fabric.csv"
local fabric_numeric = { nvlink_domain = true, scaleup_gbs = true, nic_gbs_per_gpu = true }
function M.load_fabric(cat)
  local text = assert(bench.resource(M.fabric_source))
  local rows = parse_csv(text)
  local header = table.remove(rows, 1)
  cat.fabric_sha256 = bench.sha256(text)
  for _, r in ipairs(rows) do
    local row = cat.by_id[r[1]]
    for j, key in ipairs(header) do
      local v = r[j] or ""
      if row and key ~= "id" and v ~= "" then row["fabric_" .. key] = fabric_numeric[key] and tonumber(v) or v end
    end
  end
end

-- Another cited data file beside the catalog (data/*.csv): its rows as tables of strings, keyed
-- by the header; empty cells absent. What the numbers mean is the reader's business.
function M.data(source)
  local rows = parse_csv(assert(bench.resource(source)))
  local header, list = table.remove(rows, 1), {}
  for _, r in ipairs(rows) do
    local row = {}
    for j, key in ipairs(header) do
      if (r[j] or "") ~= "" then row[key] = r[j] end
    end
    list[#list + 1] = row
  end
  return list
end

-- data/spec-ranges.csv: a figure the sources disagree on, as FIELD_low, FIELD_high and
-- FIELD_basis on its catalog row, and FIELD_sustained when the row's own figure is a measured
-- sustained rate rather than a peak.
function M.merge_ranges(by_id)
  for _, r in ipairs(M.data("data/spec-ranges.csv")) do
    local row = assert(by_id[r.id], "data/spec-ranges.csv: unknown catalog system " .. tostring(r.id))
    row[r.field .. "_low"], row[r.field .. "_high"] = tonumber(r.low), tonumber(r.high)
    row[r.field .. "_basis"] = r.basis
    row[r.field .. "_sustained"] = r.central_is == "sustained"
  end
end

function M.find(id) return M.load().by_id[id] end

-- The cost file (data/costs.csv, embedded): per catalog id, a purchase price where the catalog has
-- none, cloud rental per GPU-hour and the power of the whole system per GPU, each with what it
-- covers, its source and its date. Returns { rows = {...}, by_id = {...}, sha256 = ... }; a bad
-- cell raises "data/costs.csv:LINE: ...", naming the value.
M.costs_source = "data/costs.csv"
local COST_NUMERIC = { purchase_usd = true, rent_usd_per_gpu_hour = true, system_power_w = true, launch_usd = true,
                       server_gpus = true }

function M.parse_costs(text, source)
  local rows = parse_csv(text)
  local header = table.remove(rows, 1) or {}
  local list, by_id = {}, {}
  for i, r in ipairs(rows) do
    local row, line = {}, i + 1
    for j, key in ipairs(header) do
      local v = r[j] or ""
      if COST_NUMERIC[key] and v ~= "" then
        row[key] = tonumber(v)
        if not row[key] or row[key] < 0 then
          error(("%s:%d: %s '%s' is not a number of at least 0"):format(source, line, key, v), 0)
        end
      elseif v ~= "" then row[key] = v end
    end
    if not row.id or not M.find(row.id) then
      error(("%s:%d: '%s' is not a system of %s"):format(source, line, tostring(row.id), M.source), 0)
    end
    list[#list + 1], by_id[row.id] = row, row
  end
  return { rows = list, by_id = by_id, sha256 = bench.sha256(text) }
end

local costs_cache
function M.costs()
  costs_cache = costs_cache or M.parse_costs(assert(bench.resource(M.costs_source)))
  return costs_cache
end

-- The rental offers (data/offers.csv, embedded): per offer a catalog system, a provider's instance,
-- its price per GPU-hour, the GPU counts an instance can have ("1|2|4|8", "8"), its billing step and
-- least billed time in seconds, with source and date. Numbers become numbers and the sizes a list; a
-- bad cell raises "data/offers.csv:LINE: ...". Which offer a job takes is the team decision's.
M.offers_source = "data/offers.csv"
local OFFER_NUMERIC = { usd_per_gpu_hour = true, billing_step_s = true, min_billed_s = true }

function M.parse_offers(text, source)
  local rows = parse_csv(text)
  local header = table.remove(rows, 1) or {}
  local list = {}
  for i, r in ipairs(rows) do
    local row, line = {}, i + 1
    for j, key in ipairs(header) do
      local v = r[j] or ""
      if OFFER_NUMERIC[key] then
        row[key] = tonumber(v)
        if not row[key] then error(("%s:%d: %s '%s' is not a number"):format(source, line, key, v), 0) end
      elseif key == "instance_gpus" then
        row[key] = {}
        for n in v:gmatch("[^|]+") do
          local x = math.tointeger(tonumber(n))
          if not x then error(("%s:%d: instance_gpus '%s' is not a list of GPU counts like 1|2|4|8"):format(source, line, v), 0) end
          row[key][#row[key] + 1] = x
        end
      elseif v ~= "" then row[key] = v end
    end
    if not row.system or not M.find(row.system) then
      error(("%s:%d: '%s' is not a system of %s"):format(source, line, tostring(row.system), M.source), 0)
    end
    list[#list + 1] = row
  end
  return { rows = list, sha256 = bench.sha256(text) }
end

local offers_cache
function M.offers()
  offers_cache = offers_cache or M.parse_offers(assert(bench.resource(M.offers_source)))
  return offers_cache
end

-- The rows the projection stage is handed (bench.project; src/predict/project.c and stack.c read
-- them, and the unit tests take them from here): each catalog row with the whole system's power
-- per device from the cost file (system_power_w), the basis of the decision pages' kWh, so that
-- results.json's energy_kwh is on it too.
function M.projection_rows()
  local rows, costs = {}, M.costs().by_id
  for i, r in ipairs(M.load().rows) do
    local row = {}
    for k, v in pairs(r) do row[k] = v end
    row.system_power_w = costs[r.id] and costs[r.id].system_power_w or nil
    rows[i] = row
  end
  return rows
end

function M.ids()
  local ids = {}
  for _, r in ipairs(M.load().rows) do ids[#ids + 1] = r.id end
  return ids
end

-- Every id of a list of catalog systems is a row's: true, or nil and a message naming the id and
-- the field (`field`, default "systems"; a keyword such as "all" is not a list and passes).
function M.check_ids(ids, field)
  for _, id in ipairs(type(ids) == "table" and ids or {}) do
    if not M.find(id) then
      return nil, ("unknown catalog system '%s' in '%s' (valid: %s)"):format(id, field or "systems",
                                                                            table.concat(M.ids(), ", "))
    end
  end
  return true
end

-- An experiment's parameters checked against its C table (bench.check), and a list of catalog
-- systems it names (the model's `systems`) against the catalog: normalised params, or nil and a
-- message "NAME: ..." naming the field and the value (the constructors and the runner use it).
function M.check_params(name, given)
  local params, err = bench.check(name, given)
  if not params then return nil, err end
  local ok, cerr = M.check_ids(params.systems, "systems")
  if not ok then return nil, name .. ": " .. cerr end
  return params
end

-- How a machine is recognised, from each row's match_* columns: match_gpu a Lua pattern on a CUDA
-- device's name (where several rows' patterns match, the longest match wins: "GH200 144G" over
-- "GH200", "GB200" over "B200"), match_board plain text in the board's product and model names,
-- match_cpu a Lua pattern on the CPU model with match_cpus logical CPUs. A row without them is
-- never matched; a machine that fits none is "this machine".

-- text:find(pattern) for a row's match_* pattern; one Lua cannot read (it says so only once it gets
-- that far into a text) raises naming the file, the row and the cell.
local function found(text, r, key)
  local ok, a, b = pcall(string.find, text, r[key])
  if not ok then error(("%s: %s of '%s' ('%s') is not a Lua pattern: %s"):format(M.source, key, r.id, r[key],
                       tostring(a):gsub("^.-:%d+: ", "")), 0) end
  return a, b
end

-- The row whose match_gpu fits a device name best, or nil; rows: the catalog's (default) or parsed ones.
function M.gpu_row(name, rows)
  local best, len = nil, 0
  for _, r in ipairs(rows or M.load().rows) do
    local a, b
    if r.match_gpu then a, b = found(name, r, "match_gpu") end
    if a and b - a + 1 > len then best, len = r, b - a + 1 end
  end
  return best
end

-- The subject's id when a GPU calibrated here is recognised as its GPU (a GB10 is a DGX Spark's), else
-- nil: the subject's projection is then this run's measurements instead of the catalog's figures
-- (src/predict/project.c); another system's GPU stays "this machine" beside its catalog row, which
-- is projected like the rest of the set it belongs to.
function M.subject_gpu(name, rows)
  local row = M.gpu_row(name, rows)
  for _, role in ipairs(row and row.roles or {}) do
    if role == "subject" then return row.id end
  end
end

-- Returns row, reason or nil, reason; rows as gpu_row's.
function M.match(ctx, rows)
  rows = rows or M.load().rows
  local gpus = ctx.cuda and ctx.cuda.devices or {}
  local board = ctx.os and ctx.os.board or {}
  local boardname = (board.product or "") .. " " .. (board.model or "")
  local cpu = ctx.cpu and ctx.cpu.model or ""
  for _, g in ipairs(gpus) do
    local r = M.gpu_row(g.name, rows)
    if r then return r, "GPU name '" .. g.name .. "'" end
  end
  for _, r in ipairs(rows) do
    if r.match_board and boardname:find(r.match_board, 1, true) then
      return r, "board name '" .. boardname:gsub("^%s+", ""):gsub("%s+$", "") .. "'"
    end
  end
  local ncpu = ctx.cpu and ctx.cpu.logical_cpus
  for _, r in ipairs(rows) do
    if r.match_cpu and found(cpu, r, "match_cpu") and (not r.match_cpus or ncpu == r.match_cpus) then
      return r, "CPU cores '" .. cpu .. "'"
    end
  end
  return nil, ("no catalog system has this machine's GPU or CPU (CPU: %s; GPU: %s)")
              :format(cpu ~= "" and cpu or "unknown", #gpus > 0 and gpus[1].name or "none")
end

-- The memory bandwidth a CPU stream on `row` can reach: the host memory where it is separate
-- from the GPU's, the one pool where memory is unified.
function M.cpu_bandwidth(row)
  if row.host_bw_gbs then return row.host_bw_gbs, "host_bw_gbs" end
  if row.memory and row.memory:find("unified") then return row.mem_bw_gbs, "mem_bw_gbs" end
  return nil
end

return M
