-- sparkreport.sections.decision: the report's first pages, the answer to "a DGX Spark or HBM?":
-- per workload of the scenario's `decide` list, hours with band, fit, cost per job and energy on
-- each compared system, a verdict in plain words, what binds the Spark, what this run measured
-- and what it projected, and the costs' appendix. Draws from the model's projection records, which
-- it reads defensively (fields may be absent); the numbers themselves are the model's and cost's.
local appendix = require "sparkreport.appendix"
local catalog = require "sparkreport.catalog"
local cost = require "sparkreport.cost"
local fmt = require "sparkreport.format"
local R = require "sparkreport.results"

local S = {}

local SPARK = "dgx-spark"
local DEFAULT_DECIDE = { "gpt2-124m", "llama-3.1-8b-lora", "llama-3.1-8b", "llama-3.3-70b-qlora" }
local TFLOPS = { fp32 = "fp32_tflops", tf32 = "tf32_tflops", bf16 = "bf16_tflops", fp16 = "fp16_tflops",
                 fp8 = "fp8_tflops" }

local function p(text) return { text = text, kind = "projected" } end
local function s(text) return { text = text, kind = "spec" } end

local function num(x) return type(x) == "number" and x == x and x or nil end

-- 107 -> "4.5 days", 9.2 -> "9.2 h": a duration as a buyer says it (verdicts only; tables keep hours).
local function plain(h)
  if h >= 24 * 365 then return fmt.rate(h / (24 * 365.25)) .. " years" end
  if h >= 24 * 60 then return fmt.rate(h / (24 * 30.44)) .. " months" end
  if h >= 48 then return fmt.rate(h / 24) .. " days" end
  return fmt.rate(h) .. " h"
end

-- ---- what the section reads ------------------------------------------------------------------

-- The model experiment to answer from: one calibrated on a GPU when the run has it, else the first.
local function model_exp(results)
  local first
  for _, e in ipairs(R.experiments(results, "model")) do
    if (e.status == "complete" or e.status == "partial") and e.info then
      local cal = e.info.calibration
      if cal and cal.device == "gpu" then return e end
      first = first or e
    end
  end
  return first
end

local function cost_rows(results)
  local cat = results.catalog or {}
  if cat.costs and type(cat.costs.rows) == "table" then
    local by = {}
    for _, r in ipairs(cat.costs.rows) do by[r.id] = r end
    return by, cat.costs.source or catalog.costs_source
  end
  return catalog.costs().by_id, catalog.costs_source .. " of this sparkreport (the results file predates it)"
end

-- Everything the tables and sentences need, gathered once.
local function gather(results, exp)
  local info, scn = exp.info, results.scenario or {}
  local ctx = { results = results, exp = exp, workloads = {}, systems = {}, recs = {},
                params = cost.params(scn), catalog = {} }
  ctx.costs, ctx.costs_source = cost_rows(results)
  for _, r in ipairs(results.catalog and results.catalog.rows or {}) do ctx.catalog[r.id] = r end
  for _, sy in ipairs(info.systems or {}) do ctx.systems[sy.id] = sy end
  for _, r in ipairs(R.records(exp, { series = "projection" })) do
    ctx.recs[tostring(r.workload) .. "|" .. tostring(r.system)] = r
  end
  local wl = {}
  for _, w in ipairs(info.workloads or {}) do wl[w.id] = w end
  ctx.missing = {}
  for _, id in ipairs(type(scn.decide) == "table" and scn.decide or DEFAULT_DECIDE) do
    if wl[id] then ctx.workloads[#ctx.workloads + 1] = wl[id] else ctx.missing[#ctx.missing + 1] = id end
  end
  ctx.compare = {}
  for _, id in ipairs(scn.systems or scn.compare or results.catalog and (results.catalog.systems or results.catalog.compare) or {}) do
    if ctx.systems[id] or ctx.catalog[id] then ctx.compare[#ctx.compare + 1] = id end
  end
  return ctx
end

local function name_of(ctx, id)
  local row = ctx.catalog[id] or ctx.systems[id] or catalog.find(id)
  return row and row.name or id
end

local function row_of(ctx, id) return ctx.catalog[id] or catalog.find(id) end

-- The record of workload w on system id: this machine's own one when it is that system and the
-- model was calibrated on its GPU (a CPU calibration says nothing of the system's GPU).
local function rec(ctx, w, id)
  local match = ctx.results.catalog and ctx.results.catalog.match
  local cal = ctx.exp.info.calibration
  local own = match == id and cal and cal.device == "gpu" and ctx.recs[w.id .. "|this"]
  if own and own.hours then return own, true end
  return ctx.recs[w.id .. "|" .. id], false
end

local function job(ctx, r, id)
  if not r or not num(r.hours) then return {} end
  return cost.job(r.hours, num(r.gpus) or 1, row_of(ctx, id), ctx.costs[id], ctx.params)
end

-- ---- the per-workload table -----------------------------------------------------------------

local function system_row(ctx, w, id)
  local r, own = rec(ctx, w, id)
  local label = name_of(ctx, id) .. (own and " (measured here)" or "")
  if not r then return { label, "not projected", "", "", "", "", "" } end
  local c = job(ctx, r, id)
  local hours = num(r.hours) and p(fmt.rate(r.hours)) or (r.fits and "not projected" or "n/a")
  local band = num(r.hours_low) and num(r.hours_high)
    and p(("%s–%s"):format(fmt.rate(r.hours_low), fmt.rate(r.hours_high))) or ""
  return { label, hours, band, { text = R.fit_short(r), tone = r.fits and "good" or "bad" },
           c.buy_usd and p(cost.usd(c.buy_usd)) or "n/a", c.rent_usd and p(cost.usd(c.rent_usd)) or "n/a",
           c.energy_kwh and p(fmt.rate(c.energy_kwh)) or "n/a" }
end

-- One table for every workload: a row naming the workload, then a row per compared system.
local function decision_table(doc, ctx)
  local rows = {}
  for i, w in ipairs(ctx.workloads) do
    rows[#rows + 1] = { { text = ("(%d) %s"):format(i, w.name), tone = "neutral" },
                        "", "", ("%s tokens"):format(fmt.count(w.tokens)), "", "", (w.precision or "?"):upper() }
    for _, id in ipairs(ctx.compare) do rows[#rows + 1] = system_row(ctx, w, id) end
  end
  doc:table {
    columns = { { title = "Workload / system", width = 0.3 }, { title = "Hours", align = "right", width = 0.1 },
                { title = "Band, h", align = "right", width = 0.14 }, { title = "Fit", width = 0.15 },
                { title = "Buy\n$/job", align = "right", width = 0.1 }, { title = "Rent\n$/job", align = "right", width = 0.1 },
                { title = "kWh", align = "right" } },
    rows = rows,
    caption = "Hours: projected time for the workload's tokens, band low–high. Fit: what it takes (ckpt: activation "
      .. "checkpointing; accum N: gradient accumulation; offload: optimizer state to host memory). Cost and kWh: below.",
  }
end

-- ---- the verdict ----------------------------------------------------------------------------

-- The HBM system a verdict sets beside the Spark: the first compared one with hours.
local function reference(ctx, w)
  for _, id in ipairs(ctx.compare) do
    local r = id ~= SPARK and rec(ctx, w, id)
    if r and num(r.hours) then return id, r end
  end
end

-- The cheaper way to a job on a system: renting when it is published, else buying.
local function best_cost(c)
  if c.rent_usd and (not c.buy_usd or c.rent_usd < c.buy_usd) then return c.rent_usd, "rented" end
  return c.buy_usd, c.buy_usd and "bought"
end

local function verdict(ctx, w)
  local a = rec(ctx, w, SPARK)
  local bid, b = reference(ctx, w)
  local bname = bid and name_of(ctx, bid)
  if not a then return ("%s: not projected on the Spark in this run."):format(w.name) end
  if not a.fits then
    return ("%s: does not fit on the Spark (%s)%s."):format(w.name, (tostring(a.fit):gsub("^does not fit:%s*", "")),
      b and ("; the %s takes %s (%s)"):format(bname, plain(b.hours), R.fit_short(b)) or "")
  end
  if not num(a.hours) then return ("%s: fits on the Spark; not projected (%s)."):format(w.name, tostring(a.fit)) end
  local text = ("%s: the Spark needs %s (%s–%s h), %s"):format(w.name, plain(a.hours), fmt.rate(a.hours_low or a.hours),
    fmt.rate(a.hours_high or a.hours), R.fit_short(a))
  if not b then return text .. "; no HBM system was projected." end
  local ca, cb = job(ctx, a, SPARK), job(ctx, b, bid)
  local xa = ca.buy_usd
  local xb, how = best_cost(cb)
  text = text .. ("; the %s %s (%s). HBM is %.0fx faster"):format(bname, plain(b.hours), R.fit_short(b), a.hours / b.hours)
  if xa and xb and xb <= xa then
    text = text .. (", and cheaper per job: %s %s against %s for the Spark bought"):format(cost.usd(xb), how, cost.usd(xa))
  elseif xa and xb then
    text = text .. (", at %.1fx the cost per job: %s %s against %s for the Spark bought")
      :format(xb / xa, cost.usd(xb), how, cost.usd(xa))
  end
  return (text:gsub("%s+$", "")) .. "."
end

-- ---- what binds the Spark ---------------------------------------------------------------------

local function ratio_of(ctx, id, field)
  local a, b = row_of(ctx, SPARK), row_of(ctx, id)
  local x, y = a and num(a[field]), b and num(b[field])
  return x and y and y / x or nil
end

local function binds_table(doc, ctx)
  local cols = { { title = "System", width = 0.3 }, { title = "Memory\nGB/s", align = "right", width = 0.12 },
                 { title = "BF16 dense\nTFLOPS", align = "right", width = 0.14 } }
  local n = math.max(#ctx.workloads, 1)
  for i in ipairs(ctx.workloads) do cols[#cols + 1] = { title = ("Mem.\nbound\n(%d)"):format(i), align = "right", width = 0.44 / n } end
  local rows = {}
  for _, id in ipairs(ctx.compare) do
    local row = row_of(ctx, id) or {}
    local out = { name_of(ctx, id), num(row.mem_bw_gbs) and s(fmt.rate(row.mem_bw_gbs)) or "unknown",
                  num(row.bf16_tflops) and s(fmt.rate(row.bf16_tflops)) or "unknown" }
    for _, w in ipairs(ctx.workloads) do
      local r = rec(ctx, w, id)
      out[#out + 1] = r and num(r.memory_bound_share) and p(fmt.pct(r.memory_bound_share)) or "n/a"
    end
    rows[#rows + 1] = out
  end
  doc:table { columns = cols, rows = rows,
    caption = "Memory-bound (n): for workload (n) above, the share of the projected step time spent in ops whose "
      .. "memory time exceeds their compute time; the rest is compute-bound. Memory and compute: catalog spec figures." }
end

-- "HBM bandwidth alone": the Spark's step with only its memory-bound share sped up by the HBM ratio.
local function binds_text(ctx)
  local w = ctx.workloads[1]
  local a = w and rec(ctx, w, SPARK)
  local bid = w and reference(ctx, w)
  if not (a and num(a.memory_bound_share) and bid) then return nil end
  local m, kbw, kc = a.memory_bound_share, ratio_of(ctx, bid, "mem_bw_gbs"), ratio_of(ctx, bid, TFLOPS.bf16)
  if not kbw then return nil end
  local alone = 1 / ((1 - m) + m / kbw)
  return ("What binds the Spark: in %s, %s of its projected step is compute-bound and %s memory-bound. The %s has "
    .. "%.0fx its memory bandwidth%s (spec): with that bandwidth alone the Spark's step would shrink %.1fx, not %.0fx "
    .. "(projected), because the compute-bound share does not move. HBM alone would not close the gap.")
    :format(w.name, fmt.pct(1 - m), fmt.pct(m), name_of(ctx, bid), kbw,
            kc and (" and %.0fx its dense BF16 compute"):format(kc) or "", alone, kbw)
end

-- ---- measured, projected, kinds ------------------------------------------------------------

local WHAT = { bandwidth = "memory bandwidth", precision = "compute per precision", train = "training steps",
               compress = "compression", model = "the model's calibration and validation" }

-- "memory bandwidth (CPU), training steps (CPU)": what this run measured, from its experiments.
local function what_ran(results)
  local out, seen = {}, {}
  for _, e in ipairs(results.experiments or {}) do
    local devs = {}                   -- "all": the devices its records name
    for _, r in ipairs(e.device == "all" and e.results or {}) do
      if type(r.device) == "string" and not devs[r.device] then devs[r.device], devs[#devs + 1] = true, r.device:upper() end
    end
    local text = ("%s (%s)"):format(WHAT[e.name] or e.name, #devs > 0 and table.concat(devs, " and ") or (e.device or "?"):upper())
    if (e.status == "complete" or e.status == "partial") and #(e.results or {}) > 0 and not seen[text] then
      seen[text], out[#out + 1] = true, text
    end
  end
  return #out > 0 and table.concat(out, ", ") or "nothing"
end

-- The fitted GPU profile's leave-one-out summary: { n, mean, max } or nil.
local function stack_loo(results)
  local e = model_exp(results)
  for _, pr in ipairs(e and e.info and e.info.stack_profiles or {}) do
    local l = pr.leave_one_out
    if l and num(pr.fitted_runs) then return { n = pr.fitted_runs, mean = l.mean_abs_error, max = l.max_abs_error } end
  end
end

local function measured_text(ctx)
  local results = ctx.results
  local c, cu = results.context or {}, (results.context or {}).cuda or {}
  local cal = ctx.exp.info.calibration
  local v = ctx.exp.info.validation
  local gpu = cu.devices and #cu.devices > 0
    and ("the GPU %s"):format(cu.devices[1].name)
    or ("no GPU (%s): no GPU was measured on this run"):format(cu.reason or "no CUDA device")
  local out = ("Measured on this run, on %s (%s, %s): %s; %s."):format(c.host or "this machine",
    c.cpu and c.cpu.model or "unknown CPU", fmt.bytes(c.memory and c.memory.total_bytes or 0), what_ran(results), gpu)
  if v and num(v.n) then
    out = out .. (" The model predicted %d of this machine's own training configurations, then they were measured: "
      .. "mean error %s."):format(v.n, fmt.pct(v.mean_abs_error))
  end
  local loo = stack_loo(results)
  return out .. (" Projected: every hour, band, fit, cost and energy above, by the model from the catalog's spec "
    .. "figures with %s; the band is %s, widened by the catalog's recorded spec ranges (the Spark's BF16 rate). "
    .. "The CPU validation checks the method on this machine only; it does not bound the GPU rows. Spec: catalog "
    .. "figures, sources in the appendix. Kinds are marked per cell: m measured, s spec, p projected.")
    :format(cal and cal.device == "gpu" and "efficiencies measured on this run's GPU"
            or "software-stack efficiencies fitted on published GPU training runs (none measured on an HBM GPU here)",
            loo and ("the 10th to 90th percentile of those profiles' leave-one-out errors on %d published runs "
              .. "(mean %s, max %s)"):format(loo.n, fmt.pct(loo.mean), fmt.pct(loo.max)) or "the profiles' error")
end

local function cost_text(ctx)
  local pr = ctx.params
  return ("Cost per job. Buy: the purchase price per GPU spread over %s years at %s utilisation (scenario "
    .. "life_years, utilisation), plus the job's energy at $%.2f per kWh (kwh_usd). Rent: the published on-demand "
    .. "price per GPU-hour (it includes the provider's power). kWh: the job's hours at each system's power as a buyer "
    .. "pays for it, the whole system's share where the cost file gives one, else the chip's (the costs appendix "
    .. "says which, with sources and dates). n/a: no published figure.")
    :format(fmt.rate(pr.life_years), fmt.pct(pr.utilisation), pr.kwh_usd)
end

-- ---- appendix: the cost figures --------------------------------------------------------------

local function costs_appendix(doc, ctx)
  local rows = {}
  for _, id in ipairs(ctx.compare) do
    local row, c = row_of(ctx, id), ctx.costs[id] or {}
    local price, psrc = cost.price(row, c)
    local w, covers = cost.power(row, c)
    rows[#rows + 1] = { name_of(ctx, id), price and s(cost.usd(price)) or "n/a",
      price and (psrc or "") .. (c.purchase_date and not (row and row.price_usd) and (", " .. c.purchase_date) or "") or "none published",
      c.rent_usd_per_gpu_hour and s(cost.usd(c.rent_usd_per_gpu_hour)) or "n/a",
      c.rent_source and (c.rent_source .. ", " .. (c.rent_date or "undated")) or "none published",
      w and s(fmt.int(w) .. " W") or "n/a", w and ((covers or "") .. (c.system_power_source and ("; " .. c.system_power_source) or "")) or "none" }
  end
  doc:table {
    columns = { { title = "System", width = 0.14 }, { title = "Price", align = "right", width = 0.09 },
                { title = "Price source", width = 0.16 }, { title = "Rent /\nGPU-h", align = "right", width = 0.08 },
                { title = "Rent source, date", width = 0.2 }, { title = "Power", align = "right", width = 0.09 },
                { title = "Power covers; source" } },
    rows = rows,
    caption = ("From %s and the catalog (%s). Prices per GPU: for HBM parts the GPU alone, its host not included.")
      :format(ctx.costs_source, ctx.results.catalog and ctx.results.catalog.source or catalog.source),
  }
end

-- ---- the section --------------------------------------------------------------------------------

-- One sentence: whether the answer changed against the run this one was compared with (the
-- baseline block results/comparison.c records): which rows of the table moved beyond their noise
-- (sparkreport.compare's rule), or no change. nil without a baseline.
local function baseline_text(ctx)
  local b = ctx.results.baseline
  if type(b) ~= "table" then return nil end
  local pj = b.projections or { rows = {}, moved = {} }
  local compared, moved = {}, {}
  for _, k in ipairs(pj.rows or {}) do compared[k] = true end
  for _, m in ipairs(pj.moved or {}) do moved[m.workload .. "|" .. m.system] = m end
  local n, list = 0, {}
  for _, w in ipairs(ctx.workloads) do
    for _, id in ipairs(ctx.compare) do
      local r = rec(ctx, w, id)
      local key = r and (w.id .. "|" .. tostring(r.system))
      if key and compared[key] then
        n = n + 1
        local m = moved[key]
        if m then list[#list + 1] = ("%s on %s (%s)"):format(w.name or w.id, name_of(ctx, id), m.why) end
      end
    end
  end
  local against = ("Against the baseline run %s (finished %s, results sha256 %s): "):format(b.path, b.finished_utc or "?",
                                                                                         (b.sha256 or "?"):sub(1, 12))
  if n == 0 then return against .. "none of the rows above was projected in the baseline, so the answer cannot be compared." end
  if #list == 0 then
    return against .. ("no change: none of the %d rows above moved beyond its noise."):format(n)
  end
  return against .. ("the answer changed in %d of the %d rows above: %s."):format(#list, n, table.concat(list, "; "))
end

function S.decision(doc, results)
  require("sparkreport.sections.common").title_block(doc, results, "A DGX Spark or HBM GPUs? The answer first")
  local exp = model_exp(results)
  if not exp then
    doc:paragraph("Not projected: this run has no training-time model (add sr.model { } to the scenario), so there "
      .. "are no hours, costs or verdicts to give. What it measured follows.")
    return
  end
  local ctx = gather(results, exp)
  doc:paragraph("The question: is an NVIDIA DGX Spark enough to train these workloads, or are HBM GPUs needed? "
    .. "Per workload: hours with band on each compared system, fit, cost per job and energy; then a verdict.")
  decision_table(doc, ctx)
  local changed = baseline_text(ctx)
  if changed then doc:paragraph(changed) end
  for i, w in ipairs(ctx.workloads) do doc:paragraph(("(%d) %s"):format(i, verdict(ctx, w))) end
  if #ctx.missing > 0 then
    doc:paragraph(("Not projected in this run: %s (the scenario's decide list names them; sr.model's workloads "
      .. "does not)."):format(table.concat(ctx.missing, ", ")), "note")
  end
  doc:paragraph(cost_text(ctx), "small")
  local bt = binds_text(ctx)
  if bt then doc:paragraph(bt) end
  if #ctx.workloads > 0 then binds_table(doc, ctx) end
  doc:paragraph(measured_text(ctx), "small")
  local label = appendix.defer(doc, "Costs: prices, rental and power", function(d) costs_appendix(d, ctx) end)
  doc:paragraph(("Prices, rental rates and power with what each covers, their sources and dates: %s."):format(label), "small")
end

return S
