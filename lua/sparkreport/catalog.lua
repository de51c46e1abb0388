-- sparkreport.catalog: the cited systems catalog (data/systems.csv, embedded): parsing,
-- lookup, and matching the machine under test to a row only when it really is that system.
-- Which figures a report prints is the sections' decision.
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
  price_usd = true, host_memory_gb = true, host_bw_gbs = true, cpu_gpu_link_gbs = true,
}

local cache
function M.load()
  if cache then return cache end
  local text = assert(bench.resource(M.source))
  local rows = parse_csv(text)
  local header = table.remove(rows, 1)
  local list, by_id = {}, {}
  for _, r in ipairs(rows) do
    local row = {}
    for j, key in ipairs(header) do
      local v = r[j] or ""
      if numeric[key] then row[key] = tonumber(v) -- empty cell: unknown (nil), never zero
      elseif v ~= "" then row[key] = v end
    end
    list[#list + 1] = row
    by_id[row.id] = row
  end
  cache = { rows = list, by_id = by_id, sha256 = bench.sha256(text) }
  M.merge_ranges(by_id)
  M.load_fabric(cache)
  return cache
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
                       idle_power_w = true,
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
  costs_cache = costs_cache or M.parse_costs(assert(bench.resource(M.costs_source)), M.costs_source)
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
  offers_cache = offers_cache or M.parse_offers(assert(bench.resource(M.offers_source)), M.offers_source)
  return offers_cache
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

-- How a machine is recognised: GPU names, board names, CPU core mix. A row without a rule
-- is never matched; a machine that fits no rule is "this machine".
local rules = {
  { id = "dgx-spark", gpu = "GB10", board = "DGX Spark", cpu = "Cortex%-X925.*Cortex%-A725" },
  { id = "gh200-144g", gpu = "GH200 144G" }, { id = "gh200-96g", gpu = "GH200" },
  { id = "h200-sxm", gpu = "H200$" }, { id = "h100-sxm", gpu = "H100 80GB HBM3" },
  { id = "h100-pcie", gpu = "H100 PCIe" }, { id = "a100-80g-sxm", gpu = "A100%-SXM4%-80GB" },
  { id = "b200", gpu = "B200" }, { id = "b300", gpu = "B300" }, { id = "gb200", gpu = "GB200" },
  { id = "rtx-pro-6000", gpu = "RTX PRO 6000 Blackwell" }, { id = "rtx-5090", gpu = "RTX 5090" },
  { id = "mi300x", gpu = "MI300X" },
}

-- Returns row, reason or nil, reason.
function M.match(ctx)
  local gpus = ctx.cuda and ctx.cuda.devices or {}
  local board = ctx.os and ctx.os.board or {}
  local boardname = (board.product or "") .. " " .. (board.model or "")
  local cpu = ctx.cpu and ctx.cpu.model or ""
  for _, r in ipairs(rules) do
    for _, g in ipairs(gpus) do
      if r.gpu and g.name:find(r.gpu) then return M.find(r.id), "GPU name '" .. g.name .. "'" end
    end
    if r.board and boardname:find(r.board, 1, true) then
      return M.find(r.id), "board name '" .. boardname:gsub("^%s+", ""):gsub("%s+$", "") .. "'"
    end
    if r.cpu and cpu:find(r.cpu) and (ctx.cpu.logical_cpus or 0) == 20 then
      return M.find(r.id), "CPU cores '" .. cpu .. "'"
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
