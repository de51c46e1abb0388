-- sparkreport.catalog: the cited systems catalog (data/systems.csv, embedded, or SPARKREPORT_CATALOG_DIR's)
-- and its data files: the one loader, for Lua and C alike (the C code is handed these rows), parsing
-- and typing each cell, lookup by id and by role, and matching the machine under test to a row only
-- when it really is that system. Which figures a report prints is the sections' decision.
local bench = require "bench"

local M = { source = "data/systems.csv" }

-- RFC 4180 records: quoted fields may hold commas, doubled quotes and newlines. Each record is a list
-- of its fields with `line`, the line of the file it starts on; an empty line is no record, a byte
-- order mark before the header (a spreadsheet's UTF-8) is none. A quote never closed raises
-- "SOURCE:LINE: ..." (source: the file's name in messages).
local function parse_csv(text, source)
  local rows, row, field, i, n, line = {}, {}, {}, text:sub(1, 3) == "\xEF\xBB\xBF" and 4 or 1, #text, 1
  local quoted, start, opened = false, 1, nil
  local function finish()
    row[#row + 1] = table.concat(field); field = {}
    if not (#row == 1 and row[1] == "" and not row.quotes) then row.line = start; rows[#rows + 1] = row end
    row = {}
  end
  while i <= n do
    local c = text:sub(i, i)
    if quoted then
      if c == '"' and text:sub(i + 1, i + 1) == '"' then field[#field + 1] = '"'; i = i + 1
      elseif c == '"' then quoted = false
      else
        if c == "\n" then line = line + 1 end
        field[#field + 1] = c
      end
    elseif c == '"' then quoted, opened, row.quotes = true, line, true
    elseif c == "," then row[#row + 1] = table.concat(field); field = {}
    elseif c == "\n" or c == "\r" then
      if c == "\r" and text:sub(i + 1, i + 1) == "\n" then i = i + 1 end
      finish()
      line = line + 1
      start = line
    else field[#field + 1] = c end
    i = i + 1
  end
  if quoted then
    error(("%s:%d: a quoted field opened here is never closed (a '\"' missing?)"):format(source or "?", opened), 0)
  end
  if #field > 0 or #row > 0 then finish() end
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

-- A system of the scenario's own (sr.system { ... }): a row with systems.csv's columns, typed as the
-- file's cells are, that the projection takes as it takes a catalog row (its kind "scenario"). It has
-- no role and no recognition pattern (those are the catalog's), an id no catalog row has, and the
-- figures a projection needs; a bad field raises "sr.system 'ID': ..." naming it.
M.own_required = { "id", "name", "memory_gb", "mem_bw_gbs", "bf16_tflops", "sms" }
local OWN_TEXT = { id = true, name = true, memory = true, memory_unit = true, notes = true, sources = true,
                   confidence = true, gpu_source = true }
local OWN_MORE = { generation = true, span = true, unified = true, system_power_w = true }
function M.own_system(given)
  local row, fields = {}, {}
  for k in pairs(numeric) do if not k:find("^match_") then fields[#fields + 1] = k end end
  for k in pairs(OWN_TEXT) do fields[#fields + 1] = k end
  for k in pairs(OWN_MORE) do fields[#fields + 1] = k end
  table.sort(fields)
  local id = type(given.id) == "string" and given.id or "?"
  local function bad(fmt, ...) error(("sr.system '%s': " .. fmt):format(id, ...), 0) end
  for k, v in pairs(given) do
    if type(k) ~= "string" then bad("its fields are named (id = ..., name = ..., memory_gb = ...)") end
    if k == "roles" or k:find("^match_") then
      bad("%s is the catalog's: a system of the scenario's own is projected beside the compared systems, and no "
          .. "machine is recognised as it", k)
    elseif numeric[k] or k == "system_power_w" then
      if math.type(v) == nil or not (v > 0 and v < math.huge) then bad("%s = %s is not a number above 0", k, tostring(v)) end
      if k == "sms" and math.type(v) ~= "integer" and v ~= math.floor(v) then bad("sms = %s is not a whole number", v) end
      row[k] = v
    elseif OWN_TEXT[k] or k == "generation" then
      if type(v) ~= "string" or v == "" then bad("%s must be text, not %s", k, type(v) == "string" and "empty" or type(v)) end
      local why = k ~= "id" and bench.text_problem(v)
      if why then bad("%s: %s", k, why) end
      row[k] = k == "generation" and typed(k, v, ("sr.system '%s'"):format(id)) or v
    elseif k == "span" or k == "unified" then
      if type(v) ~= "boolean" then bad("%s must be true or false, not %s", k, type(v)) end
      if k == "span" then row.span = v or nil elseif v then row.memory = "unified" end
    else
      bad("no field '%s' (fields: %s)", k, table.concat(fields, ", "))
    end
  end
  for _, k in ipairs(M.own_required) do
    if row[k] == nil then bad("%s is missing; a system of your own needs %s", k, table.concat(M.own_required, ", ")) end
  end
  if not row.id:find("^[%l%d][%l%d%.%-]*$") or #row.id > 40 then
    bad("its id must be lower-case letters, digits, '.' and '-', at most 40 characters")
  end
  if M.find(row.id) then bad("the catalog has a system of that id: give yours an id of its own") end
  if row.memory_unit and row.memory_unit ~= "GB" and row.memory_unit ~= "GiB" then
    bad("memory_unit '%s' is not GB or GiB", row.memory_unit)
  end
  row.memory_unit = row.memory_unit or "GB"
  row.kind = "scenario"
  return row
end

local cache
function M.load()
  if cache then return cache end
  local text, from = bench.resource(M.source)     -- from: the file read (SPARKREPORT_CATALOG_DIR's or ours)
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
  local rows = parse_csv(text, M.fabric_source)
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
  local rows = parse_csv(assert(bench.resource(source)), source)
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
  local rows = parse_csv(text, source)
  local header = table.remove(rows, 1) or {}
  local list, by_id = {}, {}
  for _, r in ipairs(rows) do
    local row, line = {}, r.line
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
  local rows = parse_csv(text, source)
  local header = table.remove(rows, 1) or {}
  local list = {}
  for _, r in ipairs(rows) do
    local row, line = {}, r.line
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
-- results.json's energy_kwh is on it too, and the cost file's price per device (host included, dated)
-- as its price: one price per system in the document.
function M.projection_rows()
  local rows, costs = {}, M.costs().by_id
  for i, r in ipairs(M.load().rows) do
    local row = {}
    for k, v in pairs(r) do row[k] = v end
    row.system_power_w = costs[r.id] and costs[r.id].system_power_w or nil
    row.price_usd = costs[r.id] and costs[r.id].purchase_usd or nil
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

-- ---- the data files a user edits, checked before anything is measured ----------------------------
--
-- A user changes a price, adds an offer or a system by editing data/*.csv and rebuilding (they are
-- embedded into the program: tools/embed.sh). The run checks every file first (M.check_data, from
-- src/cmd/run.c before the scenario runs) against what its readers accept: the results reader's ranges
-- where results.json carries the row (sparkreport.schema), the C reader's checks where C reads it (the
-- team decision's offers, the projection's published runs and vendors' claims: bench.check_data), the
-- ids unique, the texts drawable by the report's fonts. A refusal names the file, line and column.

local schema = require "sparkreport.schema"
local catalog_row = schema.document.fields.catalog.fields.rows.spec.list.fields
local costs_row = schema.document.fields.catalog.fields.costs.spec.fields.rows.spec.list.fields

-- A spec range (data/spec-ranges.csv) within its figure's limits (the catalog column's range),
-- central between low and high, said to be a peak or a sustained rate.
local function spec_ranges(f, rows)
  for _, r in ipairs(rows) do
    local spec = numeric[r.field] and catalog_row[r.field]
    if not spec then
      error(("%s:%d: field (column 2) '%s' is not a number column of %s"):format(f.source, r.line, r.field, M.source), 0)
    end
    for _, k in ipairs { "low", "central", "high" } do
      local why = schema.range_problem(r[k], spec)
      if why then error(("%s:%d: %s = %s %s (as %s)"):format(f.source, r.line, k, tostring(r[k]), why, r.field), 0) end
    end
    if not (r.low <= r.central and r.central <= r.high) then
      error(("%s:%d: low %s, central %s, high %s: the central figure must lie between low and high")
            :format(f.source, r.line, tostring(r.low), tostring(r.central), tostring(r.high)), 0)
    end
    if r.central_is ~= "peak" and r.central_is ~= "sustained" then
      error(("%s:%d: central_is (column 6) '%s' must be peak or sustained"):format(f.source, r.line, r.central_is), 0)
    end
  end
end

local function number_spec(lo, integer)
  return schema.range(integer and "integer" or "number", lo, math.huge)
end

-- Per file: the columns that must be there and filled (`required`), the numbers (`numbers`: column ->
-- its spec, a range or "number"), lists of whole numbers (`lists`), the columns a row is known by
-- (`key`, unique in the file), the columns naming a catalog system (`system`), the texts a report
-- draws (`texts`; the other columns are ids and words the code reads), what the rows must hold
-- together (`rows`), and whether C reads its rows too (`reader`: bench.check_data runs them through
-- that reader).
local FILES = {
  { source = M.source, key = { "id" }, required = { "id", "name" }, numbers = {},
    texts = { "name", "memory", "confidence", "notes", "sources", "memory_unit" } },
  { source = "data/costs.csv", key = { "id" }, required = { "id" }, system = { "id" }, numbers = {},
    texts = { "purchase_covers", "purchase_source", "purchase_date", "rent_source", "rent_date",
              "system_power_covers", "system_power_source", "launch_date", "launch_source" } },
  { source = "data/offers.csv", key = { "id" }, system = { "system" }, lists = { instance_gpus = true }, reader = true,
    required = { "id", "system", "provider", "usd_per_gpu_hour", "instance_gpus", "billing_step_s", "min_billed_s",
                 "source", "date" },
    numbers = { usd_per_gpu_hour = "number", billing_step_s = "number", min_billed_s = "number" },
    texts = { "provider", "product", "source", "date", "notes" } },
  { source = M.fabric_source, key = { "id" }, required = { "id" }, system = { "id" },
    numbers = { nvlink_domain = number_spec(1, true), scaleup_gbs = number_spec(0), nic_gbs_per_gpu = number_spec(0) },
    texts = { "scaleup", "nic", "confidence", "notes", "sources" } },
  { source = "data/spec-ranges.csv", key = { "id", "field" }, system = { "id" },
    required = { "id", "field", "low", "high", "central", "central_is", "basis" },
    numbers = { low = schema.positive, high = schema.positive, central = schema.positive }, texts = { "basis" },
    rows = spec_ranges },
  { source = "data/gpu-runs.csv", key = { "id" }, system = { "system" }, reader = true,
    required = { "id", "system", "gpus", "layers", "hidden", "heads", "vocab", "seq", "micro_batch", "accum",
                 "precision", "stack", "tokens_per_s_per_gpu", "source" },
    numbers = { gpus = number_spec(1, true), tokens_per_s_per_gpu = schema.positive, mfu_published = number_spec(0),
                mem_bw_gbs = schema.positive, layers = number_spec(1, true), hidden = number_spec(1, true),
                heads = number_spec(1, true), vocab = number_spec(1, true), biases = number_spec(0, true),
                seq = number_spec(1, true), micro_batch = number_spec(1, true), accum = number_spec(1, true),
                checkpoint = number_spec(0, true), kv_heads = number_spec(0, true), ffn = number_spec(0, true),
                lora_rank = number_spec(0, true), tied = number_spec(0, true), head_dim = number_spec(0, true),
                doc_tokens = number_spec(0, true) },
    texts = { "model", "source" } },
  { source = "data/vendor-claims.csv", key = { "id" }, system = { "system" }, reader = true,
    required = { "id", "system", "workload", "tokens_per_s", "precision", "what", "source" },
    numbers = { tokens_per_s = schema.positive, seq = number_spec(2, true), batch = number_spec(1, true) },
    texts = { "what", "source" } },
}
for _, f in ipairs(FILES) do
  f.drawn = {}
  for _, key in ipairs(f.texts) do f.drawn[key] = true end
end
for k, spec in pairs(catalog_row) do if numeric[k] then FILES[1].numbers[k] = spec end end
for k, spec in pairs(costs_row) do if COST_NUMERIC[k] then FILES[2].numbers[k] = spec end end
M.data_files = FILES

local function cell_text(v) return #v > 40 and ("'%s...'"):format(v:sub(1, 40)) or ("'%s'"):format(v) end

-- The header's columns by name (col[name] = its number); raises when one is there twice or missing.
local function columns(f, header)
  local col = {}
  for j, key in ipairs(header) do
    if col[key] then error(("%s:1: column %s is there twice (columns %d and %d)"):format(f.source, key, col[key], j), 0) end
    col[key] = j
  end
  for _, key in ipairs(f.required) do
    if not col[key] then
      error(("%s:1: no column %s; the file needs %s"):format(f.source, key, table.concat(f.required, ", ")), 0)
    end
  end
  return col
end

-- One non-empty cell as its reader takes it: a number within its range, a list of whole numbers, or
-- text (drawable where the report draws it). bad(words) raises naming the cell.
local function read_cell(f, key, v, bad)
  if f.numbers[key] then
    local x = tonumber(v)
    if not x or x ~= x or x == math.huge or x == -math.huge then bad(" %s is not a number", cell_text(v)) end
    x = math.tointeger(x) or x
    local why = schema.range_problem(x, f.numbers[key])
    if why then bad(" = %s %s", v, why) end
    return x
  elseif f.lists and f.lists[key] then
    local list = {}
    for n in (v .. "|"):gmatch("([^|]*)|") do
      list[#list + 1] = math.tointeger(tonumber(n)) or bad(" %s is not a list of whole numbers like 1|2|4|8", cell_text(v))
    end
    return list
  end
  local why = f.drawn[key] and bench.text_problem(v)
  if why then bad(": %s", why) end
  return v
end

-- One file's text: its rows as the readers take them (numbers as numbers, lists as lists, empty cells
-- absent), each with its line, and its columns; raises "SOURCE:LINE: COLUMN (column N) ..." at the
-- first bad cell, and at a row whose key (f.key) an earlier row has, naming both lines.
local function check_file(f, text, ids)
  local rows = parse_csv(text, f.source)
  local header = table.remove(rows, 1) or {}
  local col, out, seen = columns(f, header), {}, {}
  for _, r in ipairs(rows) do
    local function bad(key, fmt, ...)
      error(("%s:%d: %s (column %d)%s"):format(f.source, r.line, key, col[key] or 0, fmt:format(...)), 0)
    end
    if #r > #header then
      error(("%s:%d: %d fields; the header has %d (a comma too many, or a field not quoted?)")
            :format(f.source, r.line, #r, #header), 0)
    end
    local row = { line = r.line }
    for j, key in ipairs(header) do
      if (r[j] or "") ~= "" then row[key] = read_cell(f, key, r[j], function(...) bad(key, ...) end) end
    end
    for _, key in ipairs(f.required) do
      if row[key] == nil then bad(key, " is empty; every row needs it") end
    end
    for _, key in ipairs(f.system or {}) do
      if not ids[row[key]] then bad(key, " %s is not a system of %s", cell_text(row[key]), M.source) end
    end
    local id, named = {}, {}
    for _, key in ipairs(f.key) do
      id[#id + 1], named[#named + 1] = tostring(row[key]), ("%s '%s'"):format(key, tostring(row[key]))
    end
    id = table.concat(id, "\0")
    if seen[id] then
      error(("%s:%d: %s is given on line %d too; give each row once"):format(f.source, r.line,
            table.concat(named, " and "), seen[id]), 0)
    end
    seen[id] = r.line
    out[#out + 1] = row
  end
  return out, col
end

-- The rows through the C reader that takes them (bench.check_data), its messages' fields named as
-- columns ("parameter 'x'", "WHERE.x" in C's words).
local function c_reader(f, rows, col)
  local where, plain = {}, {}
  for i, r in ipairs(rows) do
    where[i], plain[i] = ("%s:%d"):format(f.source, r.line), {}
    for k, v in pairs(r) do if k ~= "line" then plain[i][k] = v end end
  end
  local i, err = bench.check_data(f.source, plain, where, M.load().rows)
  if not i then return end
  local function column(name) return col[name] and ("%s (column %d)"):format(name, col[name]) end
  err = err:gsub("parameter '([%w_]+)'", column):gsub("^(" .. where[i]:gsub("%p", "%%%0") .. ")%.([%w_]+) ",
    function(at, name) return ("%s: %s "):format(at, column(name) or name) end)
  error(err, 0)
end

-- Every data file, checked as above: true, or raises the first problem ("data/offers.csv:4: ...").
-- texts: { [source] = text } in place of built-in files (the Lua tests give edited copies).
function M.check_data(texts)
  local ids = {}
  for _, f in ipairs(FILES) do
    local text, from = f.source, f.source
    if texts and texts[f.source] then text = texts[f.source] else text, from = bench.resource(f.source) end
    if not text then error(from, 0) end
    local g = {}                                  -- named as the file read (SPARKREPORT_CATALOG_DIR's or ours)
    for k, v in pairs(f) do g[k] = v end
    g.source = from
    local rows, col = check_file(g, text, ids)
    if f.source == M.source then
      for _, r in ipairs(rows) do ids[r.id] = true end
    end
    if f.rows then f.rows(g, rows) end
    if f.reader then c_reader(g, rows, col) end
  end
  return true
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
