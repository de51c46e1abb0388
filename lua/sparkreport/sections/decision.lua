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

-- With a team decision (src/decide), a job's costs here are the team's: the rent of its cheapest
-- offer on that system, billed as the provider bills (setup included), and a bought system's price
-- spread at the use the team's jobs give it. nil for a results file without one.
local function team_costs(results)
  local t = require("sparkreport.sections.team").gather(results)
  if not t then return nil end
  local out = { rent = {}, use = {}, t = t }
  for _, r in ipairs(t.offers) do
    local k = r.workload .. "|" .. r.system
    local best = out.rent[k]
    if not best or (r.meets_deadline and not best.meets_deadline)
       or (r.meets_deadline == best.meets_deadline and r.usd < best.usd) then out.rent[k] = r end
  end
  for _, o in ipairs(t.order) do
    if o.system and o.utilisation and o.utilisation > 0 then out.use[o.system] = math.min(o.utilisation, 1) end
  end
  return out
end

-- Everything the tables and sentences need, gathered once.
local function gather(results, exp)
  local info, scn = exp.info, results.scenario or {}
  local ctx = { results = results, exp = exp, workloads = {}, systems = {}, recs = {},
                params = cost.params(scn), catalog = {} }
  ctx.costs, ctx.costs_source = cost.rows(results)
  for _, r in ipairs(results.catalog and results.catalog.rows or {}) do ctx.catalog[r.id] = r end
  for _, sy in ipairs(info.systems or {}) do ctx.systems[sy.id] = sy end
  for _, r in ipairs(R.records(exp, { series = "projection" })) do
    ctx.recs[tostring(r.workload) .. "|" .. tostring(r.system)] = r
  end
  -- the smallest count of devices that holds a job one device cannot (src/predict/project.c)
  ctx.multi = {}
  for _, r in ipairs(R.records(exp, { series = "projection_devices" })) do
    ctx.multi[tostring(r.workload) .. "|" .. tostring(r.system)] = r
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
  ctx.team = team_costs(results)
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
  local params = ctx.params
  if ctx.team then            -- the team's use of that system and its offers' bills
    local team = ctx.team.t.team
    params = { utilisation = ctx.team.use[id] or 1, life_years = team.life_years, kwh_usd = team.kwh_usd }
  end
  local out = cost.job(r.hours, num(r.gpus) or 1, row_of(ctx, id), ctx.costs[id], params)
  if ctx.team then
    local bill = ctx.team.rent[tostring(r.workload) .. "|" .. id]
    out.rent_usd = bill and bill.usd
    if not ctx.team.use[id] then out.capital_usd, out.buy_usd = nil, nil end
  end
  return out
end

-- ---- the numbers every part of the page uses ---------------------------------------------------

-- "46.9 h", "1,234 h", "292 h (12.2 days)": hours always, days only beside them.
local function hours(h, days)
  local t = fmt.hours(h)
  if days and h >= 48 then t = ("%s (%s days)"):format(t, fmt.rate(h / 24)) end
  return t
end

local function band_text(r)
  if not (num(r.hours_low) and num(r.hours_high)) then return "" end
  return ("%s–%s"):format(fmt.hours(r.hours_low, ""), fmt.hours(r.hours_high, ""))
end

-- "1 GPU", "8 GPUs", "2 devices": what a job configuration runs on.
local function devices(r)
  local n = num(r.gpus) or 1
  return n == 1 and "1" or fmt.int(n)
end

-- Every figure of one workload on one system, computed once: what the table prints, what the
-- verdict compares and what the tests recompute. nil when the system has no record.
local function figures(ctx, w, id, r)
  local own = false
  if not r then r, own = rec(ctx, w, id) end
  if not r then return nil end
  local f = { id = id, r = r, own = own, fits = r.fits, hours = num(r.hours), gpus = num(r.gpus) or 1 }
  if f.hours then
    f.cost = job(ctx, r, id)
    f.lo = num(r.hours_low) or f.hours
    f.hi = num(r.hours_high) or f.hours
  else
    f.cost = {}
  end
  return f
end

-- The cost of job f at `h` hours instead of its central figure (costs are linear in hours).
local function at_hours(f, usd, h) return usd and f.hours and usd * h / f.hours end

-- The cheapest way to the job on an HBM system: renting where a rate is published, buying where a
-- whole-system price is. Returns figures, usd, "rented" | "bought" (nil: none).
local function cheapest_hbm(ctx, wf)
  local best, usd, how
  for _, id in ipairs(ctx.compare) do
    local f = wf.by[id]
    if id ~= SPARK and f and f.hours then
      for _, k in ipairs { "rent_usd", "buy_usd" } do
        local x = f.cost[k]
        if x and (not usd or x < usd) then best, usd, how = f, x, k == "rent_usd" and "rented" or "bought" end
      end
    end
  end
  return best, usd, how
end

-- One workload's answer: { w, by = { id -> figures }, spark, alt, alt_usd, alt_how, kind, u, ... }.
-- kind: "no-spark" (not projected), "too-big" (does not fit), "buy" (the Spark bought is cheaper
-- per job beyond the bands), "rent" (the HBM alternative is), "tie" (the two costs' ranges over
-- the hours bands overlap).
local function decide(ctx, w)
  local wf = { w = w, by = {}, multi = {} }
  for _, id in ipairs(ctx.compare) do
    wf.by[id] = figures(ctx, w, id)
    local m = ctx.multi[w.id .. "|" .. id]    -- written only where one device cannot hold the job
    if m and num(m.hours) then
      wf.multi[id] = figures(ctx, w, id, m)
    end
  end
  local a = wf.by[SPARK]
  wf.spark = a
  wf.alt, wf.alt_usd, wf.alt_how = cheapest_hbm(ctx, wf)
  if not a or (a.fits and not a.hours) then wf.kind = "no-spark"; return wf end
  if not a.fits then wf.kind = "too-big"; return wf end
  local buy = a.cost.buy_usd
  if not (buy and wf.alt_usd) then wf.kind = "no-spark"; return wf end
  wf.u = cost.break_even_utilisation(a.cost, wf.alt_usd)
  local lo_a, hi_a = at_hours(a, buy, a.lo), at_hours(a, buy, a.hi)
  local lo_b, hi_b = at_hours(wf.alt, wf.alt_usd, wf.alt.lo), at_hours(wf.alt, wf.alt_usd, wf.alt.hi)
  if math.max(lo_a, lo_b) <= math.min(hi_a, hi_b) then wf.kind = "tie"
  elseif buy < wf.alt_usd then wf.kind = "buy" else wf.kind = "rent" end
  -- what would flip it, each other term as it is
  local rate = ctx.costs[wf.alt.id] and ctx.costs[wf.alt.id].rent_usd_per_gpu_hour
  if wf.alt_how == "rented" and rate then wf.rate_flip = buy / (wf.alt.hours * wf.alt.gpus) end
  wf.kwh_flip = cost.break_even_kwh_usd(a.cost, wf.alt_usd)
  local price = cost.price(row_of(ctx, SPARK), ctx.costs[SPARK])
  wf.price_flip = price and cost.break_even_price(a.cost, price, wf.alt_usd)
  -- the Spark's hours at which it ties, and the BF16 rate that would give them: only the
  -- compute-bound share of the step scales with the rate
  local per_h = buy / a.hours
  local ratio, m = wf.alt_usd / per_h / a.hours, num(a.r.memory_bound_share)
  if m and ratio > m then wf.bf16_flip = (1 - m) / (ratio - m) end
  return wf
end

-- ---- the per-workload table -----------------------------------------------------------------

-- "*": a row whose GPU generation its profile has no runs of (the caption says how much wider its band is).
local function extrapolated(r)
  return r and r.extrapolated and "*" or ""
end

-- "DGX Spark (GB10) x1.16, B200 (HGX) x1.08": the extrapolated systems and their bands' factors.
local function extrapolations(ctx)
  local out, seen = {}, {}
  for _, wf in ipairs(ctx.answers) do
    for _, id in ipairs(ctx.compare) do
      local f = wf.by[id] or wf.multi[id]
      local sp = f and f.r.extrapolated and num(f.r.extrapolation_spread)
      local key = sp and ("%s x%s"):format(name_of(ctx, id):gsub("^NVIDIA ", ""), fmt.rate(sp))
      if key and not seen[key] then seen[key], out[#out + 1] = true, key end
    end
  end
  return table.concat(out, ", ")
end

-- The fit, and for a marginal one what the job becomes if it does not fit after all.
local function fit_cell(r)
  local text = R.fit_short(r)
  if r.fits and r.marginal then
    local alt = type(r.if_not_fit) == "table" and r.if_not_fit or {}
    local zero = num(alt.zero) and alt.zero > 0 and ("ZeRO-%d + "):format(alt.zero) or ""
    text = text .. ", marginal; if not: " .. (num(alt.hours) and ("%s%s, %s h"):format(zero, R.fit_short(alt),
      fmt.hours(alt.hours, "")) or "does not fit")
  end
  return { text = text, tone = r.fits and "good" or "bad" }
end

-- The Spark configuration the "faster" columns compare with: one Spark where it holds the job, else
-- the fewest linked Sparks that do; nil when none does.
local function spark_base(wf)
  local a = wf.spark
  if a and a.hours then return a end
  local m = wf.multi[SPARK]
  return m and m.hours and m or nil
end

-- How much faster configuration f runs the job than the Spark base, per job and per device; a cell
-- that has no ratio says why.
local function faster_cells(wf, f)
  local b = spark_base(wf)
  if f == b then return "base", "base" end
  if not b then return "no Spark fits", "no Spark fits" end
  if not (f and f.hours) then return "n/a: no fit", "n/a: no fit" end
  return p(fmt.factor(b.hours / f.hours)), p(fmt.factor(b.hours * b.gpus / (f.hours * f.gpus)))
end

local function system_row(ctx, wf, id)
  local f = wf.by[id]
  local label = name_of(ctx, id):gsub("^NVIDIA ", "") .. (f and f.own and " (measured here)" or "")
                .. extrapolated(f and f.r)
  if not f then return { label, "", "not projected", "n/a", "n/a", "", "", "", "" } end
  local c = f.cost
  local per_job, per_dev = faster_cells(wf, f)
  local hrs = f.hours and p(("%s (%s)"):format(fmt.hours(f.hours, ""), band_text(f.r)))
              or (f.fits and "not projected" or "n/a")
  return { label, devices(f.r), hrs, per_job, per_dev, fit_cell(f.r),
           c.buy_usd and p(cost.usd(c.buy_usd)) or "n/a", c.rent_usd and p(cost.usd(c.rent_usd)) or "n/a",
           c.energy_kwh and p(fmt.rate(c.energy_kwh)) or "n/a" }
end

-- The smallest count of devices that holds a job one device cannot: "2 x DGX Spark", fit "ZeRO-3 + ...".
local function multi_row(ctx, wf, id)
  local f, c = wf.multi[id], wf.multi[id].cost
  local label = ("%s x %s"):format(fmt.int(f.gpus), (name_of(ctx, id):gsub("^NVIDIA ", ""))) .. extrapolated(f.r)
  local per_job, per_dev = faster_cells(wf, f)
  local fc = fit_cell(f.r)
  fc.text = ("ZeRO-%d + %s"):format(num(f.r.zero) or 0, fc.text)
  return { label, devices(f.r), p(("%s (%s)"):format(fmt.hours(f.hours, ""), band_text(f.r))), per_job, per_dev, fc,
           c.buy_usd and p(cost.usd(c.buy_usd)) or "n/a", c.rent_usd and p(cost.usd(c.rent_usd)) or "n/a",
           c.energy_kwh and p(fmt.rate(c.energy_kwh)) or "n/a" }
end

local FIT_WORDS = "ckpt: activation checkpointing; accum N: gradient accumulation over N micro-batches; offload: "
  .. "optimizer state in host memory; N GPUs: data parallel on N GPUs of one node (ZeRO sharding where the "
  .. "appendix names it); a row \"N x system\", fit ZeRO-K: the smallest of 2, 4, 8 devices that holds a job one "
  .. "device cannot, sharded over them (ZeRO-1: the optimizer state; ZeRO-2: also the gradients; ZeRO-3: also "
  .. "the weights), their traffic over the system's link (Sparks: ConnectX-7). LoRA rank 16: rank-16 adapters trained, base weights frozen; QLoRA, NF4: the same over "
  .. "4-bit NormalFloat base weights; 8-bit Adam: optimizer state in 8 bits."

-- The software stack a workload's rows were projected with, as fitted: "Hugging Face + PEFT, fitted
-- on 18 runs (2023)"; a profile that takes another's efficiencies says whose.
local function profile_text(wf)
  local r
  for _, f in pairs(wf.by) do r = r or (f.r and f.r.stack_name and f.r) end
  if not r then return nil end
  local era = type(r.stack_era) == "string" and r.stack_era:match("^([^:]+):") or nil
  if r.stack_fitted_on ~= r.stack_name then
    return ("%s on %s's efficiencies, fitted on %s runs"):format(r.stack_name, r.stack_fitted_on,
                                                               fmt.int(num(r.stack_runs) or 0))
  end
  return ("%s, fitted on %s runs%s"):format(r.stack_name, fmt.int(num(r.stack_runs) or 0), era and (" of " .. era) or "")
end

-- One table for every workload: a row naming the workload, then a row per compared system, kept
-- on one page together.
local function decision_table(doc, ctx)
  local rows, groups, stacks = {}, {}, {}
  for i, wf in ipairs(ctx.answers) do
    local w = wf.w
    local prof = profile_text(wf)
    if prof then stacks[#stacks + 1] = ("(%d) %s"):format(i, prof) end
    local assumed = R.tokens_assumed(w)
    rows[#rows + 1] = { { text = ("(%d) %s"):format(i, w.name), tone = "neutral" }, "",
                        { text = ("%s tokens"):format(fmt.count(w.tokens)), kind = assumed and "assumed" or "spec" },
                        "", "", "", "", "", (w.precision or "?"):upper() }
    local n = 1
    for _, id in ipairs(ctx.compare) do
      rows[#rows + 1], n = system_row(ctx, wf, id), n + 1
      if wf.multi[id] then rows[#rows + 1], n = multi_row(ctx, wf, id), n + 1 end
    end
    groups[#groups + 1] = n
  end
  doc:table {
    columns = { { title = "Workload / system", width = 0.2 }, { title = "GPUs", align = "center", width = 0.05 },
                { title = "Hours (band)", align = "right", width = 0.16 },
                { title = "Faster\nper job", align = "right", width = 0.08 },
                { title = "Faster per\ndevice", align = "right", width = 0.08 }, { title = "Fit", width = 0.15 },
                { title = "Buy\n$/job", align = "right", width = 0.09 }, { title = "Rent\n$/job", align = "right", width = 0.09 },
                { title = "kWh", align = "right" } },
    rows = rows, groups = groups,
    caption = "Hours: projected time of the whole job configuration (GPUs column) for the workload's tokens, band "
      .. "low–high. Software stack each workload is projected on, with the published runs it was fitted on: "
      .. table.concat(stacks, "; ") .. ". *: extrapolated: that stack has no runs on this GPU generation, its "
      .. "efficiencies borrowed from another stack's ratio between generations, the band widened by a factor ("
      .. extrapolations(ctx) .. "). Marginal: less than a tenth "
      .. "of the usable memory left; if not: what the job takes if it does not fit after all. "
      .. "Tokens: a pre-training run's published size (s, its source in the projection appendix); a "
      .. "fine-tune's, the round figure this report assumes for every fine-tune so that rows compare (a; time scales "
      .. "linearly with tokens). Faster per job: the Spark's hours / this row's hours, the configurations as they "
      .. "run (base: the Spark configuration compared with, one Spark or, where one cannot hold the job, the fewest "
      .. "linked Sparks that can); faster per device: the same per GPU (device-hours against device-hours). Fit: "
      .. FIT_WORDS
      .. " Buy, Rent, kWh: on the one cost basis below.",
  }
end

-- ---- the verdict ----------------------------------------------------------------------------

local function wname(wf) return wf.w.name end

-- "8 NVIDIA B200 (HGX) rented, 0.28 h: $8.87"
local function alt_text(ctx, wf)
  local f = wf.alt
  if not f then return "no HBM system was projected" end
  return ("%s%s %s, %s: %s"):format(f.gpus > 1 and (fmt.int(f.gpus) .. " x ") or "", name_of(ctx, f.id), wf.alt_how,
    fmt.hours(f.hours), cost.usd(wf.alt_usd))
end

local function pct0(x) return ("%.0f %%"):format(100 * x) end

-- One workload's case in the verdict box: the costs compared and the condition it holds under.
local function case_text(ctx, wf)
  local a = wf.spark
  if wf.kind == "no-spark" then
    return a and "the Spark's hours or cost are not projected" or "not projected on the Spark"
  end
  if wf.kind == "too-big" then
    local need = tostring(a.r.fit):match("needs ([%d.]+ [GMT]i?B)")
    local have = tostring(a.r.fit):match("([%d.]+ [GMT]i?B) usable")
    have = have and (have .. " usable") or tostring(a.r.fit):match("([%d.]+ [GMT]i?B) here")
    local m, two = wf.multi[SPARK], ""
    if m then
      two = (" %s Sparks over their ConnectX-7 link (ZeRO-%d) hold it: %s, %s bought per job;"):format(fmt.int(m.gpus),
        num(m.r.zero) or 0, hours(m.hours, true), m.cost.buy_usd and cost.usd(m.cost.buy_usd) or "price n/a")
    end
    return ("does not fit on a Spark%s;%s %s per job."):format(need and have and (" (needs %s, %s)"):format(need, have)
      or "", two, alt_text(ctx, wf))
  end
  local head = ("Spark bought, %s: %s; %s."):format(hours(a.hours, true), cost.usd(a.cost.buy_usd), alt_text(ctx, wf))
  if wf.kind == "tie" then return head .. " A tie within the hours bands." end
  if wf.kind == "buy" then return head .. " The Spark is cheaper per job." end
  return head .. (" Renting is cheaper at %s utilisation."):format(pct0(ctx.params.utilisation))
end

-- What would flip one workload's answer, each threshold alone; where nothing can, why.
local function flips_text(ctx, wf)
  if wf.kind == "too-big" then return "only a Spark with more memory: the job does not fit one" end
  if wf.kind == "no-spark" then return "nothing to flip: no Spark cost was projected" end
  local spark_row, up = row_of(ctx, SPARK) or {}, wf.kind ~= "buy"
  local t = {}
  t[#t + 1] = wf.u and wf.u <= 1 and ("utilisation %s %s"):format(up and "above" or "below", pct0(wf.u))
              or "no utilisation (break-even above 100 %)"
  if wf.rate_flip then t[#t + 1] = ("rent %s %s/GPU-h"):format(up and "above" or "below", cost.usd(wf.rate_flip)) end
  if wf.kwh_flip then t[#t + 1] = ("electricity %s %s/kWh"):format(up and "below" or "above", fmt.usd(wf.kwh_flip)) end
  if wf.bf16_flip and num(spark_row.bf16_tflops) then
    t[#t + 1] = ("Spark BF16 %s %s TFLOPS (%s spec)"):format(up and "at" or "below",
      fmt.rate(spark_row.bf16_tflops * wf.bf16_flip), fmt.factor(wf.bf16_flip))
  elseif up and num(wf.spark.r.memory_bound_share) then   -- the memory-bound floor: faster compute cannot tie
    t[#t + 1] = ("no Spark BF16 rate: its memory-bound %s alone costs more"):format(
      fmt.pct(wf.spark.r.memory_bound_share))
  end
  return table.concat(t, "; ")
end

local KIND_ORDER = { "buy", "tie", "rent", "too-big", "no-spark" }
local KIND_HEAD = { buy = "Buy a DGX Spark", tie = "Either: a tie", rent = "Rent HBM GPU time",
                    ["too-big"] = "Too big for a Spark: rent HBM", ["no-spark"] = "Not decided" }
local KIND_TONE = { buy = "good", tie = "neutral", rent = "bad", ["too-big"] = "bad", ["no-spark"] = "neutral" }

-- The verdict box: one recommendation per group of workloads, each workload's case and what
-- would flip it; the Spark's price; what else would change the answer.
local function verdict_box(doc, ctx)
  local rows, groups = {}, {}
  for _, k in ipairs(KIND_ORDER) do
    local n = 0
    for i, wf in ipairs(ctx.answers) do
      if wf.kind == k then
        rows[#rows + 1] = { n == 0 and { text = KIND_HEAD[k], tone = KIND_TONE[k] } or "",
          ("(%d) %s"):format(i, wname(wf)), case_text(ctx, wf), flips_text(ctx, wf) or "" }
        n = n + 1
      end
    end
    if n > 0 then groups[#groups + 1] = n end
  end
  doc:table { columns = { { title = "Verdict", width = 0.14 }, { title = "Workload", width = 0.19 },
                          { title = "Per job (projected)", width = 0.36 }, { title = "Flips when, each alone" } },
              rows = rows, groups = groups }
  local price, _, covers = cost.price(row_of(ctx, SPARK), ctx.costs[SPARK])
  doc:paragraph(("A Spark costs %s, %s (spec; sources in the costs appendix); an HBM GPU is priced as its share "
    .. "of its 8-GPU server, host included (cost basis below). Break-even, rent, electricity and Spark price "
    .. "thresholds: the sensitivity table. A driver update moves the Spark's measured rates: rerun the scenario "
    .. "against this run (the command is in the technical annex, its last appendix), and the rows that moved are "
    .. "named under the table."):format(price and cost.usd(price) or "n/a (no published price)",
    covers or "its price not published"), "small")
end

-- ---- sensitivity ---------------------------------------------------------------------------

local function sensitivity_table(doc, ctx)
  local rows, u0 = {}, ctx.params.utilisation
  for i, wf in ipairs(ctx.answers) do
    if wf.kind == "buy" or wf.kind == "rent" or wf.kind == "tie" then
      local a = wf.spark
      local function at(u) return p(cost.usd(a.cost.capital_full_usd / u + (a.cost.energy_usd or 0))) end
      rows[#rows + 1] = { ("(%d) %s"):format(i, wname(wf)), at(0.25), at(u0), at(1.0),
        p(("%s, %s %s"):format(cost.usd(wf.alt_usd), name_of(ctx, wf.alt.id), wf.alt_how)),
        p(wf.u and (wf.u <= 1 and pct0(wf.u) or ("none (%s)"):format(pct0(wf.u))) or "none"),
        wf.rate_flip and p(cost.usd(wf.rate_flip)) or "n/a", wf.kwh_flip and p(fmt.usd(wf.kwh_flip)) or "none",
        wf.price_flip and p(cost.usd(wf.price_flip)) or "none" }
    end
  end
  if #rows == 0 then return end
  doc:table {
    columns = { { title = "Workload", width = 0.17 }, { title = "Spark $/job\nat 25 %", align = "right", width = 0.09 },
                { title = ("at %s"):format(pct0(u0)), align = "right", width = 0.08 },
                { title = "at 100 %", align = "right", width = 0.08 },
                { title = "Cheapest HBM\n$/job", width = 0.15 },
                { title = "Break-even\nutilisation", align = "right", width = 0.16 },
                { title = "HBM rent\nthat ties", align = "right", width = 0.09 },
                { title = "kWh price\nthat ties", align = "right", width = 0.09 },
                { title = "Spark price\nthat ties", align = "right" } },
    rows = rows,
    caption = ("Sensitivity, each term alone, the others as stated: the Spark bought per job at 25 %%, %s and 100 %% "
      .. "utilisation; the cheapest HBM way to the job; the utilisation above which the Spark bought is cheaper "
      .. "(capital at 100 %% / (the HBM cost - the Spark's energy cost); above 100 %%: none); the HBM rent per "
      .. "GPU-hour, the electricity price and the Spark price at which the two cost the same."):format(pct0(u0)),
  }
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
  local wf = ctx.answers[1]
  local a = wf and wf.spark
  local bid = wf and wf.alt and wf.alt.id
  if not (a and num(a.r.memory_bound_share) and bid) then return nil end
  local m, kbw, kc = a.r.memory_bound_share, ratio_of(ctx, bid, "mem_bw_gbs"), ratio_of(ctx, bid, TFLOPS.bf16)
  if not kbw then return nil end
  local alone = 1 / ((1 - m) + m / kbw)
  return ("What binds the Spark: in %s, %s of its projected step is compute-bound and %s memory-bound. The %s has "
    .. "%.0fx its memory bandwidth%s (spec): with that bandwidth alone the Spark's step would shrink %.1fx, not %.0fx "
    .. "(projected), because the compute-bound share does not move. HBM alone would not close the gap.")
    :format(wf.w.name, fmt.pct(1 - m), fmt.pct(m), name_of(ctx, bid), kbw,
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

-- The page's first lines: what this run measured, on what, and so what on the page is measured.
local function kinds_text(ctx)
  local results = ctx.results
  local c, cu = results.context or {}, (results.context or {}).cuda or {}
  local cal = ctx.exp.info.calibration
  local gpu = cu.devices and #cu.devices > 0 and cu.devices[1].name
  local match = results.catalog and results.catalog.match
  local on_spark = match == SPARK and cal and cal.device == "gpu"
  local out = ("This run measured %s on %s (%s, %s; %s)."):format(what_ran(results), c.host or "this machine",
    c.cpu and c.cpu.model or "unknown CPU", fmt.bytes(c.memory and c.memory.total_bytes or 0),
    gpu and ("GPU " .. gpu) or "no GPU measured")
  if on_spark then
    return out .. " The DGX Spark rows are projected from this run's own GPU measurements (m where a figure is "
      .. "measured); the HBM rows from catalog spec figures (s). Every hour, cost and kWh is projected (p)."
  end
  return out .. (" It is %s: nothing on this page was measured on a Spark or a GPU. Every hour, cost and kWh "
    .. "below is projected (p) by the model from catalog spec figures (s).")
    :format(match and ("a " .. name_of(ctx, match) .. " without its GPU measured") or "not a system of the catalog")
end

local function measured_text(ctx)
  local results = ctx.results
  local cal = ctx.exp.info.calibration
  local v = ctx.exp.info.validation
  local out = ""
  if v and num(v.n) then
    out = ("The model predicted %d of this machine's own training configurations, then they were measured: mean "
      .. "error %s (%s). "):format(v.n, fmt.pct(v.mean_abs_error),
      require("sparkreport.annex").cite("The training-time model: calibration and validation", true))
  end
  local loo = stack_loo(results)
  return out .. ("Projected: every hour, band, fit, cost and energy on this page, by the model from the catalog's spec "
    .. "figures with %s; the band is %s, widened by the catalog's recorded spec ranges (the Spark's BF16 rate). "
    .. "The CPU validation checks the method on this machine only; it does not bound the GPU rows. Spec: catalog "
    .. "figures, sources in the appendix. Kinds are marked per cell: m measured, s spec, p projected, a assumption.")
    :format(cal and cal.device == "gpu" and "efficiencies measured on this run's GPU"
            or "software-stack efficiencies fitted on published GPU training runs (none measured on an HBM GPU here)",
            loo and ("the 10th to 90th percentile of those profiles' leave-one-out errors on %d published runs "
              .. "(mean %s, max %s)"):format(loo.n, fmt.pct(loo.mean), fmt.pct(loo.max)) or "the profiles' error")
end

-- The provider a rental rate comes from: its source up to " blog", a quote or a comma.
local function provider(src)
  return src and (src:match("^(.-) blog") or src:match("^([^,'(]+)")):gsub("%s+$", "") or nil
end

-- Where the rental rates come from: one provider's rate card when one covers every rented system;
-- else that provider's systems, and for each other system the provider and date used instead.
local function rent_text(ctx)
  local by, order = {}, {}
  for _, id in ipairs(ctx.compare) do
    local c = ctx.costs[id] or {}
    local p = c.rent_usd_per_gpu_hour and provider(c.rent_source)
    if p then
      if not by[p] then by[p], order[#order + 1] = {}, p end
      by[p][#by[p] + 1] = id
    end
  end
  if #order == 0 then return "none published" end
  table.sort(order, function(a, b) return #by[a] > #by[b] or (#by[a] == #by[b] and a < b) end)
  local main, names = order[1], {}
  for _, id in ipairs(by[main]) do names[#names + 1] = name_of(ctx, id) end
  local text = ("%s (%s)"):format(main, table.concat(names, ", "))
  for k = 2, #order do
    for _, id in ipairs(by[order[k]]) do
      text = text .. ("; %s has no %s rate we can cite, so its rent is %s's of %s, another rate card and date: "
        .. "compare it with care"):format(name_of(ctx, id), main, order[k], ctx.costs[id].rent_date or "undated")
    end
  end
  return text
end

-- The one cost basis, stated once.
local function cost_basis(doc, ctx)
  local pr = ctx.params
  local rows = {}
  for _, id in ipairs(ctx.compare) do
    local price, _, covers = cost.price(row_of(ctx, id), ctx.costs[id])
    local rents = (ctx.costs[id] or {}).rent_usd_per_gpu_hour
    rows[#rows + 1] = { name_of(ctx, id), price and { text = cost.usd(price), kind = "spec" } or "n/a",
      price and (covers or "") or ("no whole-system price we can cite: not priced bought%s")
        :format(rents and "; its rent is its only cost" or "") }
  end
  doc:table {
    columns = { { title = "Bought: the price of a whole system per device, host included", width = 0.32 },
                { title = "Price", align = "right", width = 0.1 }, { title = "What it covers" } },
    rows = rows,
    caption = ("Cost basis, one for every system. Buy: that price spread over %s years at %s utilisation (the "
      .. "scenario's figures), plus the job's energy at %s per kWh. kWh: the job's hours x devices x the whole "
      .. "system's power per device at its maximum, the same figure on this page and in the appendices. Rent: a "
      .. "specialty GPU cloud's on-demand price per GPU-hour (power included), dated, from %s; nobody rents a Spark by "
      .. "the hour. Sources and dates: the costs appendix. A cost difference inside the hours bands is called a tie.")
      :format(fmt.rate(pr.life_years), fmt.pct(pr.utilisation), fmt.usd(pr.kwh_usd), rent_text(ctx)),
  }
end

-- ---- appendix: the cost figures --------------------------------------------------------------

-- One row per system and figure: what it is, what it covers, its source and date.
local function costs_appendix(doc, ctx)
  local rows, groups = {}, {}
  for _, id in ipairs(ctx.compare) do
    local row, c = row_of(ctx, id), ctx.costs[id] or {}
    local price, psrc, pcovers = cost.price(row, c)
    local w, covers = cost.power(row, c)
    rows[#rows + 1] = { name_of(ctx, id), "Buy, per device", price and s(cost.usd(price)) or "n/a",
      price and ("%s; %s, %s"):format(pcovers or "", psrc or "", c.purchase_date or "undated")
        or "no whole-system price we can cite (not priced bought)" }
    if not ctx.team then          -- with a team, rents are its offers' (their own appendix)
      rows[#rows + 1] = { "", "Rent, per GPU-hour", c.rent_usd_per_gpu_hour and s(cost.usd(c.rent_usd_per_gpu_hour)) or "n/a",
        c.rent_source and (c.rent_source .. ", " .. (c.rent_date or "undated")) or "none published" }
    end
    rows[#rows + 1] = { "", "Power, per device", w and s(fmt.int(w) .. " W") or "n/a",
      w and ((covers or "") .. (c.system_power_source and ("; " .. c.system_power_source) or "")) or "none" }
    groups[#groups + 1] = ctx.team and 2 or 3
  end
  doc:table {
    columns = { { title = "System", width = 0.18 }, { title = "Figure", width = 0.15 },
                { title = "Value", align = "right", width = 0.1 }, { title = "What it covers; source, date" } },
    rows = rows, groups = groups,
    caption = ("From %s (the whole-system price per device, rental and power) and the catalog (%s). The catalog's "
      .. "price_usd of an HBM part is the GPU board alone and is not used for the cost per job.")
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

-- The cost basis of the per-job table under a team decision: in the team's terms, no field names.
local function team_cost_text(ctx)
  local uses = {}
  for _, id in ipairs(ctx.compare) do
    local u = ctx.team.use[id]
    if u then uses[#uses + 1] = ("%s %s"):format((name_of(ctx, id):gsub("^NVIDIA ", "")), fmt.pct(u)) end
  end
  return ("Cost per job in this table, on the team's basis (first page): Buy is the system's price per device "
    .. "spread over its life at the use the team's jobs give it (%s), plus the job's electricity; a system the team "
    .. "would not buy shows n/a. Rent is the job's cheapest offer of that GPU type, billed as the provider bills it "
    .. "(whole billing steps, setup included, the whole instance). kWh: the job's hours x devices x the whole "
    .. "system's power per device. A cost difference inside the hours bands is a tie.")
    :format(#uses > 0 and table.concat(uses, ", ") or "none")
end

function S.decision(doc, results)
  local common = require "sparkreport.sections.common"
  local team_page = type(results.team_decision) == "table"      -- the team section drew the title and answer
  if not team_page then
    common.title_block(doc, results, "The answer first; the machine that ran it: the technical annex",
                       common.decision_title(results))
  end
  local exp = model_exp(results)
  if not exp then
    doc:paragraph("Not projected: this run has no training-time model (its scenario has no model experiment), so "
      .. "there are no hours, costs or verdicts to give. What it measured: the technical annex.")
    return
  end
  local ctx = gather(results, exp)
  ctx.answers = {}
  for _, w in ipairs(ctx.workloads) do ctx.answers[#ctx.answers + 1] = decide(ctx, w) end
  if ctx.team then
    doc:section("Each job on each system", 2)
  else
    doc:paragraph(kinds_text(ctx))
    verdict_box(doc, ctx)
  end
  decision_table(doc, ctx)
  local changed = baseline_text(ctx)
  if changed then doc:paragraph(changed) end
  if #ctx.missing > 0 then
    doc:paragraph(("Not projected in this run: %s (the scenario asks for them; its model experiment does not "
      .. "project them)."):format(table.concat(ctx.missing, ", ")), "note")
  end
  if ctx.team then doc:paragraph(team_cost_text(ctx), "small") else cost_basis(doc, ctx) end
  if not ctx.team then sensitivity_table(doc, ctx) end
  local bt = binds_text(ctx)
  if bt then doc:paragraph(bt) end
  if #ctx.workloads > 0 then binds_table(doc, ctx) end
  doc:paragraph(measured_text(ctx), "small")
  local label = appendix.defer(doc, "Costs: prices, rental and power", function(d) costs_appendix(d, ctx) end)
  doc:paragraph(("Prices, rental rates and power with what each covers, their sources and dates: %s."):format(label), "small")
end

return S
