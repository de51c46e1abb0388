-- sparkreport.results: questions asked of a results document (which experiments ran, the
-- headline bandwidth record), shared by sections and tests so they agree on the answers.
local M = {}

function M.experiments(results, name, device)
  local out = {}
  for _, e in ipairs(results.experiments or {}) do
    if e.name == name and (device == nil or e.device == device) then out[#out + 1] = e end
  end
  return out
end

-- The experiments of a family for a section, or nil and the sentence that says there are none
-- (`word`: the family as the sentence names it, default its name).
function M.family(results, name, word)
  local exps = M.experiments(results, name)
  if #exps > 0 then return exps end
  return nil, ("Not measured: the scenario has no %s experiment."):format(word or name)
end

-- The catalog row the results carry for id (default: the row this machine matched), or nil.
function M.catalog_row(results, id)
  id = id or (results.catalog and results.catalog.match)
  for _, r in ipairs(results.catalog and results.catalog.rows or {}) do
    if r.id == id then return r end
  end
end

-- The roles of a model experiment's projected systems (data/systems.csv's roles, which the projection
-- copies onto info.systems): { subject = id or nil, compared = { ids, in the catalog's order },
-- shared = { [id] = true } }, among the systems it projected. A file written before the projection
-- recorded roles takes this sparkreport's catalog's.
function M.roles(exp)
  local systems, rows, projected = exp and exp.info and exp.info.systems or {}, {}, {}
  for _, s in ipairs(systems) do
    projected[s.id] = true
    if s.roles then rows[#rows + 1] = s end
  end
  if #rows == 0 then rows = require("sparkreport.catalog").load().rows end
  local out = { compared = {}, shared = {} }
  for _, r in ipairs(rows) do
    for _, role in ipairs(projected[r.id] and r.roles or {}) do
      if role == "subject" then out.subject = r.id
      elseif role == "compared" then out.compared[#out.compared + 1] = r.id
      elseif role == "shared" then out.shared[r.id] = true end
    end
  end
  return out
end

-- The subject's id (the system the report is about: data/systems.csv's role) in a results document:
-- its model experiment's systems' roles, else this sparkreport's catalog's.
function M.subject(results)
  for _, e in ipairs(type(results) == "table" and type(results.experiments) == "table" and results.experiments or {}) do
    if type(e) == "table" and e.name == "model" then
      local id = M.roles(e).subject
      if id then return id end
    end
  end
  for _, r in ipairs(require("sparkreport.catalog").load().rows) do
    for _, role in ipairs(r.roles or {}) do if role == "subject" then return r.id end end
  end
end

-- What experiments of a family did not measure, one row per reason: { items = "a, b", reason = "not
-- measured: ..." }; an experiment that did not complete counts as `whole` (e.g. "collectives").
function M.not_measured(exps, whole)
  local order, by = {}, {}
  local function add(item, why)
    if not by[why] then by[why] = {}; order[#order + 1] = why end
    table.insert(by[why], item)
  end
  for _, e in ipairs(exps) do
    for _, s in ipairs(e.skipped or {}) do add(s.item, s.reason) end
    if e.status ~= "complete" and e.status ~= "partial" then add(whole(e), e.reason or e.error or e.status or "?") end
  end
  local rows = {}
  for _, why in ipairs(order) do
    rows[#rows + 1] = { items = table.concat(by[why], ", "),
                        reason = (why:find("^not measured") and "" or "not measured: ") .. why }
  end
  return rows
end

-- Records of several experiments in one list, optionally filtered as M.records filters.
function M.all_records(exps, filter)
  local out = {}
  for _, e in ipairs(exps) do
    for _, r in ipairs(M.records(e, filter)) do out[#out + 1] = r end
  end
  return out
end

-- Records of one series, optionally filtered: M.records(exp, { series = "size", kernel = "triad" })
function M.records(exp, filter)
  local out = {}
  for _, r in ipairs(exp.results or {}) do
    local ok = true
    for k, v in pairs(filter or {}) do if r[k] ~= v then ok = false end end
    if ok then out[#out + 1] = r end
  end
  return out
end

local function prefer(list, key, order)
  for _, want in ipairs(order) do
    for _, r in ipairs(list) do if r[key] == want then return want end end
  end
  return list[1] and list[1][key]
end

-- The headline: triad (else the first kernel), fp64 (else the first precision), at the largest
-- working set of the size sweep, all threads. Returns the record and its experiment.
function M.headline(results)
  for _, exp in ipairs(M.experiments(results, "bandwidth", "cpu")) do
    local recs = M.records(exp, { series = "size", valid = true })
    if #recs > 0 then
      local kernel = prefer(recs, "kernel", { "triad", "copy", "add", "scale", "read", "fill" })
      local prec = prefer(recs, "precision", { "fp64", "fp32" })
      local best
      for _, r in ipairs(recs) do
        if r.kernel == kernel and r.precision == prec and (not best or r.working_set_bytes > best.working_set_bytes) then
          best = r
        end
      end
      return best, exp
    end
  end
end

-- The GPU headline: triad, FP64, device memory, largest working set of the sweep.
function M.gpu_headline(results)
  for _, exp in ipairs(M.experiments(results, "bandwidth", "gpu")) do
    local best
    for _, r in ipairs(M.records(exp, { series = "size", kernel = "triad", precision = "fp64", valid = true })) do
      if not best or r.working_set_bytes > best.working_set_bytes then best = r end
    end
    if best then return best, exp end
  end
end

-- Why an experiment measured nothing, when every item it had was skipped (a GPU experiment without
-- a device): the reason its items share, or how many reasons there are; nil when it measured something.
function M.skipped_reason(e)
  local skipped = type(e.skipped) == "table" and e.skipped or {}
  if #(e.results or {}) > 0 or #skipped == 0 then return nil end
  local first, same = skipped[1].reason, true
  for _, k in ipairs(skipped) do same = same and k.reason == first end
  if same then return first end
  return ("all %d items were skipped, for different reasons (listed in skipped)"):format(#skipped)
end

-- What fitting a projection record takes, in a table cell's words: "fits", "ckpt + accum 16",
-- "offload", "2 GPUs + ckpt", "does not fit" (fields read defensively: older records lack some).
-- Whether a workload's tokens are a figure the report assumes (the round figure every fine-tune is
-- given; a scenario's own job) rather than a published run's. Files before schema version 3 have no
-- tokens_basis: their fine-tunes say the round figure in their note.
function M.tokens_assumed(w)
  if w.tokens_basis then return w.tokens_basis == "assumed" or w.tokens_basis == "scenario" end
  return tostring(w.note or ""):find("^100M tokens: one round figure") ~= nil
end

function M.fit_short(r)
  if not r.fits then return "does not fit" end
  local parts, fit = {}, type(r.fit) == "string" and r.fit or ""
  if math.type(r.gpus) and r.gpus > 1 then parts[#parts + 1] = ("%d GPUs"):format(r.gpus) end
  if math.type(r.tp) and r.tp > 1 then parts[#parts + 1] = ("TP %d"):format(r.tp) end
  if r.offload and r.offload ~= "none" then parts[#parts + 1] = "offload" end
  if r.checkpoint == true or fit:find("checkpointing") then parts[#parts + 1] = "ckpt" end
  local accum = fit:match("gradient accumulation (%d+)")
  if accum then parts[#parts + 1] = "accum " .. accum end
  if #parts == 0 then return "fits" end
  return table.concat(parts, " + ")
end

return M
