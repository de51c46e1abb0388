-- sparkreport.sections.decision: the per-job pages of the decision report: every job (the team's and
-- the scenario's decide list) on every compared system, hours with band, fit, cost bought and rented
-- and energy, each row its own configuration; without a team, the verdict per workload, the cost
-- basis and the sensitivity; what binds the Spark; what this run measured and what it projected; the
-- costs' appendix. It draws the team decision stage's records (src/decide: job_row, verdict, info)
-- and computes nothing: every figure is a field the stage wrote (STYLE.md rule 26).
local appendix = require "sparkreport.appendix"
local catalog = require "sparkreport.catalog"
local fmt = require "sparkreport.format"
local R = require "sparkreport.results"

local S = {}


local function p(text) return { text = text, kind = "projected" } end
local function s(text) return { text = text, kind = "spec" } end

local function num(x) return type(x) == "number" and x == x and x or nil end

-- ---- what the section reads ------------------------------------------------------------------

-- The model experiment the projection came from: one calibrated on a GPU when the run has it, else
-- the first (src/decide/read.c's rule).
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

-- The stage's per-job records, gathered once: the workloads in its order, each with its rows (in the
-- stage's order: per system, the projection's configuration, the fewest devices that hold it, the
-- cheapest to rent) and its verdict.
local function gather(results, exp)
  local td = results.team_decision
  local ctx = { results = results, exp = exp, workloads = {}, by = {}, catalog = {}, prices = {}, compare = {},
                info = td.info or {}, subject = R.subject(results) }
  for _, r in ipairs(results.catalog and results.catalog.rows or {}) do ctx.catalog[r.id] = r end
  for _, pr in ipairs(ctx.info.prices or {}) do ctx.prices[pr.system] = pr; ctx.compare[#ctx.compare + 1] = pr.system end
  for _, j in ipairs(ctx.info.jobs or {}) do
    local w = { id = j.workload, name = j.name, job = j, rows = {}, systems = {} }
    ctx.by[j.workload] = w
  end
  for _, r in ipairs(td.results or {}) do
    local w = ctx.by[r.workload or ""]
    if w and r.series == "job_row" then
      w.rows[#w.rows + 1] = r
      if not w.systems[r.system] or r.role == "projection" then w.systems[r.system] = r end
    elseif w and r.series == "verdict" then
      w.verdict = r
    end
  end
  for _, j in ipairs(ctx.info.jobs or {}) do
    local w = ctx.by[j.workload]
    if #w.rows > 0 then ctx.workloads[#ctx.workloads + 1] = w end
  end
  ctx.missing = {}
  for _, id in ipairs(type(results.scenario.decide) == "table" and results.scenario.decide or {}) do
    if not (ctx.by[id] and #ctx.by[id].rows > 0) then ctx.missing[#ctx.missing + 1] = id end
  end
  ctx.team = ctx.info.basis == "team"
  return ctx
end

local function name_of(ctx, id)
  local row = ctx.catalog[id] or catalog.find(id)
  return row and row.name or id
end

local function short_name(ctx, id) return (name_of(ctx, id):gsub("^NVIDIA ", "")) end

-- ---- the per-workload table -----------------------------------------------------------------

local function band_text(r)
  if not (num(r.hours_low) and num(r.hours_high)) then return "" end
  return ("%s–%s"):format(fmt.hours(r.hours_low, ""), fmt.hours(r.hours_high, ""))
end

-- "DGX Spark (GB10) x1.16, B200 (HGX) x1.08": the extrapolated systems and their bands' factors.
local function extrapolations(ctx)
  local out, seen = {}, {}
  for _, w in ipairs(ctx.workloads) do
    for _, r in ipairs(w.rows) do
      local key = r.extrapolated and num(r.extrapolation_spread)
        and ("%s x%s"):format(short_name(ctx, r.system), fmt.rate(r.extrapolation_spread))
      if key and not seen[key] then seen[key], out[#out + 1] = true, key end
    end
  end
  return table.concat(out, ", ")
end

-- The fit, and for a marginal one what the job becomes if it does not fit after all.
local function fit_cell(r)
  local text = R.fit_short(r)
  if num(r.zero) and r.role == "devices" then text = ("ZeRO-%d + %s"):format(r.zero, text) end
  if r.fits and r.marginal then
    local alt = { fits = r.if_not_fit_fits, fit = r.if_not_fit, gpus = r.if_not_fit_gpus or r.gpus, offload = r.if_not_fit_offload,
                  checkpoint = r.if_not_fit_checkpoint }
    local zero = num(r.if_not_fit_zero) and r.if_not_fit_zero > 0 and ("ZeRO-%d + "):format(r.if_not_fit_zero) or ""
    text = text .. ", marginal; if not: " .. (r.if_not_fit_fits and num(r.if_not_fit_hours)
      and ("%s%s, %s h"):format(zero, R.fit_short(alt), fmt.hours(r.if_not_fit_hours, "")) or "does not fit")
  end
  return { text = text, tone = r.fits and "good" or "bad" }
end

-- How much faster the row runs the job than the Spark configuration compared with, per job and per
-- device, as the stage wrote them; a cell that has no ratio says why.
local function faster_cells(r)
  if r.spark_base then return "base", "base" end
  if not r.fits then return "n/a: no fit", "n/a: no fit" end
  if not num(r.faster_per_job) then return "no Spark fits", "no Spark fits" end
  return p(fmt.factor(r.faster_per_job)), p(fmt.factor(r.faster_per_device))
end

local ROLE = { projection = "%s", devices = "%s x %s", rent = "%s x %s, to rent" }

local function row_cells(ctx, r)
  local name = short_name(ctx, r.system)
  local label = r.role == "projection" and name or ROLE[r.role]:format(fmt.int(r.gpus), name)
  label = label .. (r.own and " (this machine)" or "") .. (r.extrapolated and "*" or "")
    .. (type(r.calibrated) == "table" and (r.calibrated.here and " (your run)" or " (by your run)") or "")
  if not r.fits then
    return { label, fmt.int(r.gpus), "n/a", "n/a: no fit", "n/a: no fit", fit_cell(r), "n/a", "n/a", "n/a" }
  end
  local per_job, per_dev = faster_cells(r)
  return { label, fmt.int(r.gpus), p(("%s (%s)"):format(fmt.hours(r.hours, ""), band_text(r))), per_job, per_dev,
           fit_cell(r), num(r.buy_usd) and p(fmt.usd(r.buy_usd)) or "n/a",
           num(r.rent_usd) and p(fmt.usd(r.rent_usd)) or "n/a", num(r.kwh) and p(fmt.rate(r.kwh)) or "n/a" }
end

local FIT_WORDS = "ckpt: activation checkpointing; accum N: gradient accumulation over N micro-batches; offload: "
  .. "optimizer state in host memory; N GPUs: data parallel on N GPUs of one node (ZeRO sharding where the "
  .. "appendix names it); a row \"N x system\", fit ZeRO-K: the smallest of 2, 4, 8 devices that holds a job one "
  .. "device cannot, sharded over them (ZeRO-1: the optimizer state; ZeRO-2: also the gradients; ZeRO-3: also "
  .. "the weights), their traffic over the system's link (Sparks: ConnectX-7); a row \"N x system, to rent\": the "
  .. "configuration the job is cheapest to rent in, where it is not a row above. LoRA rank 16: rank-16 adapters "
  .. "trained, base weights frozen; QLoRA, NF4: the same over 4-bit NormalFloat base weights; 8-bit Adam: optimizer "
  .. "state in 8 bits."

-- The software stack a workload's rows were projected with, as fitted: "Hugging Face + PEFT, fitted
-- on 18 runs (2023)"; a profile that takes another's efficiencies says whose.
local function profile_text(ctx, w)
  local r, cal
  for _, x in ipairs(w.rows) do
    r = r or (x.stack_name and x)
    cal = cal or (type(x.calibrated) == "table" and x.calibrated)
  end
  if not r then return nil end
  if cal then     -- the team's own measured rate: its row comes out at it, the others by the model's ratios
    return ("%s, calibrated on your run (%s: %s tokens/s per GPU measured on %s); every other row moves by the "
      .. "model's ratio to that one"):format(r.stack_name, cal.source, fmt.rate(cal.measured_tokens_per_s),
      short_name(ctx, cal.on))
  end
  local era = type(r.stack_era) == "string" and r.stack_era:match("^([^:]+):") or nil
  if r.stack_fitted_on and r.stack_fitted_on ~= r.stack_name then
    return ("%s on %s's efficiencies, fitted on %s runs"):format(r.stack_name, r.stack_fitted_on,
                                                               fmt.int(num(r.stack_runs) or 0))
  end
  return ("%s, fitted on %s runs%s"):format(r.stack_name, fmt.int(num(r.stack_runs) or 0), era and (" of " .. era) or "")
end

local TOKEN_KIND = { assumed = "assumed", published = "spec" }

-- One table for every workload: a row naming the workload and its size, then its rows.
local function decision_table(doc, ctx)
  local rows, groups, stacks = {}, {}, {}
  for i, w in ipairs(ctx.workloads) do
    local prof = profile_text(ctx, w)
    if prof then stacks[#stacks + 1] = ("(%d) %s"):format(i, prof) end
    local j = w.job
    rows[#rows + 1] = { { text = ("(%d) %s"):format(i, w.name), tone = "neutral" }, "",
                        { text = ("%s tokens"):format(fmt.count(j.tokens)), kind = TOKEN_KIND[j.tokens_basis] },
                        "", "", "", "", "", "" }
    for _, r in ipairs(w.rows) do rows[#rows + 1] = row_cells(ctx, r) end
    groups[#groups + 1] = #w.rows + 1
  end
  doc:table {
    columns = { { title = "Workload / system", width = 0.2 }, { title = "GPUs", align = "center", width = 0.05 },
                { title = "Hours (band)", align = "right", width = 0.16 },
                { title = "Faster\nper job", align = "right", width = 0.08 },
                { title = "Faster per\ndevice", align = "right", width = 0.08 }, { title = "Fit", width = 0.15 },
                { title = "Buy\n$/job", align = "right", width = 0.09 }, { title = "Rent\n$/job", align = "right", width = 0.09 },
                { title = "kWh", align = "right" } },
    rows = rows, groups = groups,
    caption = "Hours: projected time of the whole job configuration (GPUs column) for the job's tokens, band "
      .. "low–high. " .. (#stacks > 0 and ("Software stack each workload is projected on, with the published runs it "
      .. "was fitted on: " .. table.concat(stacks, "; ") .. ". ") or "") .. (extrapolations(ctx) ~= ""
      and ("*: extrapolated: that stack has no runs on this GPU generation, its efficiencies borrowed from another "
      .. "stack's ratio between generations, the band widened by a factor (" .. extrapolations(ctx) .. "). ") or "")
      .. "Marginal: less than a tenth of the usable memory left; if not: what the job takes "
      .. "if it does not fit after all. Tokens: a pre-training run's published size (s, its source in the projection "
      .. "appendix); a team's job, the size the team gave; a fine-tune otherwise, the round figure this report assumes "
      .. "for every fine-tune so that rows compare (a; time scales linearly with tokens). Faster per job: the Spark's "
      .. "hours / this row's hours, the configurations as they run (base: the Spark configuration compared with, one "
      .. "Spark or, where one cannot hold the job, the fewest linked Sparks that can); faster per device: the same per "
      .. "GPU (device-hours against device-hours). Fit: " .. FIT_WORDS .. " Buy, Rent, kWh: on the one cost basis below.",
  }
end

-- ---- the verdict (a results file without a team) ------------------------------------------------

-- "1 x B200 (HGX) rented, 2.44 h: $18.3"
local function alt_text(ctx, v)
  if not v.alt_system then return "no HBM system was projected" end
  return ("%s x %s %s, %s: %s"):format(fmt.int(v.alt_gpus), short_name(ctx, v.alt_system), v.alt_how,
    fmt.hours(v.alt_hours), fmt.usd(v.alt_usd))
end

local function case_text(ctx, w)
  local v = w.verdict
  local sp = w.systems[ctx.subject]
  if v.kind == "no-spark" then return sp and "the Spark's hours or cost are not projected" or "not projected on the Spark" end
  if v.kind == "too-big" then
    local need = sp and tostring(sp.fit):match("needs ([%d.]+ [GMT]i?B)")
    local have = sp and tostring(sp.fit):match("([%d.]+ [GMT]i?B) usable")
    have = have and (have .. " usable") or sp and tostring(sp.fit):match("([%d.]+ [GMT]i?B) here")
    local two = ""
    if num(v.spark_gpus) and v.spark_gpus > 1 then
      two = (" %s Sparks over their ConnectX-7 link hold it: %s, %s bought per job;"):format(fmt.int(v.spark_gpus),
        fmt.hours_days(v.spark_hours), num(v.spark_usd) and fmt.usd(v.spark_usd) or "price n/a")
    end
    return ("does not fit on a Spark%s;%s %s per job."):format(need and have and (" (needs %s, %s)"):format(need,
      have) or "", two, alt_text(ctx, v))
  end
  local head = ("Spark bought, %s: %s; %s."):format(fmt.hours_days(v.spark_hours), fmt.usd(v.spark_usd), alt_text(ctx, v))
  if v.kind == "tie" then return head .. " A tie within the hours bands." end
  if v.kind == "buy" then return head .. " The Spark is cheaper per job." end
  return head .. (" Renting is cheaper at %s utilisation."):format(fmt.pct(v.utilisation))
end

local function flips_text(w)
  local v = w.verdict
  if v.kind == "too-big" then return "only a Spark with more memory: the job does not fit one" end
  if v.kind == "no-spark" then return "nothing to flip: no Spark cost was projected" end
  local up, t = v.kind ~= "buy", {}
  t[#t + 1] = num(v.break_even_utilisation) and v.break_even_utilisation <= 1
    and ("utilisation %s %s"):format(up and "above" or "below", fmt.pct(v.break_even_utilisation))
    or "no utilisation (break-even above 100 %)"
  if num(v.rent_usd_per_gpu_hour_tie) then
    t[#t + 1] = ("rent %s %s/GPU-h"):format(up and "above" or "below", fmt.usd(v.rent_usd_per_gpu_hour_tie))
  end
  if num(v.kwh_usd_tie) then t[#t + 1] = ("electricity %s %s/kWh"):format(up and "below" or "above", fmt.usd(v.kwh_usd_tie)) end
  if num(v.bf16_tie_tflops) then
    t[#t + 1] = ("Spark BF16 %s %s TFLOPS (%s spec)"):format(up and "at" or "below", fmt.rate(v.bf16_tie_tflops),
      fmt.factor(v.bf16_tie_factor))
  elseif up and num(v.memory_bound_share) then   -- the memory-bound floor: faster compute cannot tie
    t[#t + 1] = ("no Spark BF16 rate: its memory-bound %s alone costs more"):format(fmt.pct(v.memory_bound_share))
  end
  return table.concat(t, "; ")
end

local KIND_ORDER = { "buy", "tie", "rent", "too-big", "no-spark" }
local KIND_HEAD = { buy = "Buy a DGX Spark", tie = "Either: a tie", rent = "Rent HBM GPU time",
                    ["too-big"] = "Too big for a Spark: rent HBM", ["no-spark"] = "Not decided" }
local KIND_TONE = { buy = "good", tie = "neutral", rent = "bad", ["too-big"] = "bad", ["no-spark"] = "neutral" }

local function verdict_box(doc, ctx)
  local rows, groups = {}, {}
  for _, k in ipairs(KIND_ORDER) do
    local n = 0
    for i, w in ipairs(ctx.workloads) do
      if w.verdict and w.verdict.kind == k then
        rows[#rows + 1] = { n == 0 and { text = KIND_HEAD[k], tone = KIND_TONE[k] } or "",
          ("(%d) %s"):format(i, w.name), case_text(ctx, w), flips_text(w) }
        n = n + 1
      end
    end
    if n > 0 then groups[#groups + 1] = n end
  end
  doc:table { columns = { { title = "Verdict", width = 0.14 }, { title = "Workload", width = 0.19 },
                          { title = "Per job (projected)", width = 0.36 }, { title = "Flips when, each alone" } },
              rows = rows, groups = groups }
  local sp = ctx.prices[ctx.subject] or {}
  doc:paragraph(("A Spark costs %s, %s (spec; sources in the costs appendix); an HBM GPU is priced as its share "
    .. "of its 8-GPU server, host included (cost basis below). Break-even, rent, electricity and Spark price "
    .. "thresholds: the sensitivity table. A driver update moves the Spark's measured rates: rerun the scenario "
    .. "against this run (the command is in the technical annex, its last appendix), and the rows that moved are "
    .. "named under the table."):format(sp.purchase_usd and fmt.usd(sp.purchase_usd) or "n/a (no published price)",
    sp.purchase_covers or "its price not published"), "small")
end

local function sensitivity_table(doc, ctx)
  local rows, u0 = {}, ctx.info.utilisation
  for i, w in ipairs(ctx.workloads) do
    local v = w.verdict
    if v and (v.kind == "buy" or v.kind == "rent" or v.kind == "tie") then
      local be = num(v.break_even_utilisation)
      rows[#rows + 1] = { ("(%d) %s"):format(i, w.name), p(fmt.usd(v.spark_usd_at_25)), p(fmt.usd(v.spark_usd)),
        p(fmt.usd(v.spark_usd_at_100)), p(("%s, %s %s"):format(fmt.usd(v.alt_usd), short_name(ctx, v.alt_system), v.alt_how)),
        p(be and (be <= 1 and fmt.pct(be) or ("none (%s)"):format(fmt.pct(be))) or "none"),
        num(v.rent_usd_per_gpu_hour_tie) and p(fmt.usd(v.rent_usd_per_gpu_hour_tie)) or "n/a",
        num(v.kwh_usd_tie) and p(fmt.usd(v.kwh_usd_tie)) or "none",
        num(v.spark_price_tie) and p(fmt.usd(v.spark_price_tie)) or "none" }
    end
  end
  if #rows == 0 then return end
  doc:table {
    columns = { { title = "Workload", width = 0.17 }, { title = "Spark $/job\nat 25 %", align = "right", width = 0.09 },
                { title = ("at %.0f %%"):format(100 * u0), align = "right", width = 0.08 },
                { title = "at 100 %", align = "right", width = 0.08 },
                { title = "Cheapest HBM\n$/job", width = 0.15 },
                { title = "Break-even\nutilisation", align = "right", width = 0.16 },
                { title = "HBM rent\nthat ties", align = "right", width = 0.09 },
                { title = "kWh price\nthat ties", align = "right", width = 0.09 },
                { title = "Spark price\nthat ties", align = "right" } },
    rows = rows,
    caption = ("Sensitivity, each term alone, the others as stated: the Spark bought per job at 25 %%, %s and 100 %% "
      .. "utilisation (its price over its life and busy hours, its electricity training and idle); the cheapest HBM "
      .. "way to the job; the utilisation above which the Spark bought is cheaper (above 100 %%: none); the rent per "
      .. "GPU-hour of that offer, the electricity price and the Spark price at which the two cost the same.")
      :format(fmt.pct(u0)),
  }
end

-- ---- what binds the Spark ---------------------------------------------------------------------

local function binds_table(doc, ctx)
  local cols = { { title = "System", width = 0.3 }, { title = "Memory\nGB/s", align = "right", width = 0.12 },
                 { title = "BF16 dense\nTFLOPS", align = "right", width = 0.14 } }
  local n = math.max(#ctx.workloads, 1)
  for i in ipairs(ctx.workloads) do cols[#cols + 1] = { title = ("Mem.\nbound\n(%d)"):format(i), align = "right", width = 0.44 / n } end
  local rows = {}
  for _, id in ipairs(ctx.compare) do
    local row = ctx.catalog[id] or catalog.find(id) or {}
    local out = { name_of(ctx, id), num(row.mem_bw_gbs) and s(fmt.rate(row.mem_bw_gbs)) or "unknown",
                  num(row.bf16_tflops) and s(fmt.rate(row.bf16_tflops)) or "unknown" }
    for _, w in ipairs(ctx.workloads) do
      local r = w.systems[id]
      out[#out + 1] = r and num(r.memory_bound_share) and p(fmt.pct(r.memory_bound_share)) or "n/a"
    end
    rows[#rows + 1] = out
  end
  doc:table { columns = cols, rows = rows,
    caption = "Memory-bound (n): for workload (n) above, the share of the projected step time spent in ops whose "
      .. "memory time exceeds their compute time; the rest is compute-bound. Memory and compute: catalog spec figures." }
end

-- "HBM bandwidth alone": the first workload's Spark step with only its memory-bound share sped up.
local function binds_text(ctx)
  local w = ctx.workloads[1]
  local v = w and w.verdict
  if not (v and num(v.memory_bound_share) and num(v.shrink_with_bandwidth) and v.alt_system) then return nil end
  return ("What binds the Spark: in %s, %s of its projected step is compute-bound and %s memory-bound. The %s has "
    .. "%sx its memory bandwidth%s (spec): with that bandwidth alone the Spark's step would shrink %sx, not %sx "
    .. "(projected), because the compute-bound share does not move. HBM alone would not close the gap.")
    :format(w.name, fmt.pct(v.compute_bound_share), fmt.pct(v.memory_bound_share), name_of(ctx, v.alt_system),
            fmt.int(v.hbm_bandwidth_ratio), num(v.hbm_bf16_ratio) and (" and %sx its dense BF16 compute"):format(
            fmt.int(v.hbm_bf16_ratio)) or "", fmt.rate(v.shrink_with_bandwidth), fmt.int(v.hbm_bandwidth_ratio))
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
  local on_spark = match and match == ctx.subject and cal and cal.device == "gpu"
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

-- ---- the cost basis ------------------------------------------------------------------------------

local function term_value(ctx, field)
  for _, t in ipairs(ctx.info.terms or {}) do if t.field == field then return t.value end end
end

-- Without a team: the one cost basis, stated once.
local function cost_basis(doc, ctx)
  local rows = {}
  for _, id in ipairs(ctx.compare) do
    local pr = ctx.prices[id] or {}
    rows[#rows + 1] = { name_of(ctx, id), pr.purchase_usd and s(fmt.usd(pr.purchase_usd)) or "n/a",
      pr.purchase_usd and (pr.purchase_covers or "") or "no whole-system price we can cite: not priced bought; its rent is its only cost" }
  end
  doc:table {
    columns = { { title = "Bought: the price of a whole system per device, host included", width = 0.32 },
                { title = "Price", align = "right", width = 0.1 }, { title = "What it covers" } },
    rows = rows,
    caption = ("Cost basis, one for every system. Buy: that price spread over %s years at %s utilisation (the "
      .. "scenario's figures), plus the job's electricity at %s per kWh, its share of the idle hours' electricity "
      .. "where an idle power is cited, and for a server its room, power at the room's overhead and support (the team "
      .. "terms' defaults, in the appendix). kWh: the job's hours x devices x the whole system's power per device at "
      .. "its maximum. Rent: the row's own configuration on its cheapest offer, billed in the offer's steps with %s h "
      .. "setup, the whole instance (the offers in the appendix); nobody rents a Spark by the hour. A cost difference "
      .. "inside the hours bands is called a tie."):format(fmt.rate(term_value(ctx, "life_years")),
      fmt.pct(ctx.info.utilisation), fmt.usd(term_value(ctx, "kwh_usd")), fmt.rate(term_value(ctx, "setup_h"))),
  }
end

-- With a team: the per-job table's basis in the team's terms.
local function team_cost_text(ctx)
  local uses, seen = {}, {}
  for _, w in ipairs(ctx.workloads) do
    for _, r in ipairs(w.rows) do
      if num(r.buy_utilisation) and not seen[r.system] then
        seen[r.system], uses[#uses + 1] = true, ("%s %s"):format(short_name(ctx, r.system), fmt.pct(r.buy_utilisation))
      end
    end
  end
  return ("Cost per job in this table, on the team's basis (first page): Buy is what an hour of that system's "
    .. "machines costs the team at the use its jobs give them (%s): the purchase over its life, electricity training "
    .. "and idle, and for a server its room and support, times the job's device-hours; a system the team would not "
    .. "buy shows n/a. Rent is the row's own configuration on its cheapest offer, billed as the provider bills it "
    .. "(whole billing steps, setup included, the whole instance). kWh: the job's hours x devices x the whole "
    .. "system's power per device."):format(#uses > 0 and table.concat(uses, ", ") or "none")
end

-- ---- appendix: the cost figures --------------------------------------------------------------

local function costs_appendix(doc, ctx)
  local rows, groups = {}, {}
  for _, id in ipairs(ctx.compare) do
    local pr = ctx.prices[id] or {}
    rows[#rows + 1] = { name_of(ctx, id), "Buy, per device", pr.purchase_usd and s(fmt.usd(pr.purchase_usd)) or "n/a",
      pr.purchase_usd and ("%s; %s, %s"):format(pr.purchase_covers or "", pr.purchase_source or "", pr.purchase_date or "undated")
        or "no whole-system price we can cite (not priced bought)" }
    rows[#rows + 1] = { "", "Power, per device", pr.system_power_w and s(fmt.int(pr.system_power_w) .. " W") or "n/a",
      pr.system_power_w and ((pr.system_power_covers or "") .. (pr.system_power_source and ("; " .. pr.system_power_source) or ""))
        or "none" }
    rows[#rows + 1] = { "", "Idle power", pr.idle_power_w and s(fmt.int(pr.idle_power_w) .. " W") or "n/a",
      pr.idle_power_w and ((pr.idle_power_covers or "") .. "; " .. (pr.idle_power_source or ""))
        or "none we can cite: idle hours are not costed" }
    groups[#groups + 1] = 3
  end
  local cat = ctx.results.catalog or {}
  doc:table {
    columns = { { title = "System", width = 0.18 }, { title = "Figure", width = 0.15 },
                { title = "Value", align = "right", width = 0.1 }, { title = "What it covers; source, date" } },
    rows = rows, groups = groups,
    caption = ("From %s (the whole-system price per device, power and idle power) and the catalog (%s). Rents are "
      .. "the offers'%s.")
      :format(cat.costs and cat.costs.source or catalog.costs_source, cat.source or catalog.source,
              ctx.team and " (the team decision's appendix)" or ", below"),
  }
  if not ctx.team then
    require("sparkreport.sections.team").offers_table(doc, ctx.info.offers or {}, function(id) return short_name(ctx, id) end)
  end
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
      local r = w.systems[id]
      local key = r and (w.id .. "|" .. (r.own and "this" or id))
      if key and compared[key] then
        n = n + 1
        local m = moved[key]
        if m then list[#list + 1] = ("%s on %s (%s)"):format(w.name, name_of(ctx, id), m.why) end
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
  local common = require "sparkreport.sections.common"
  local team_page = type(results.team_decision) == "table" and (results.scenario or {}).team   -- the team section drew the title
  if not team_page then
    local f = common.filing(results)
    common.title_block(doc, results, ("The answer first, prepared for %s; the machine that ran it: the technical "
                       .. "annex."):format(f.team), common.decision_title(results))
  end
  local exp = model_exp(results)
  if not exp then
    doc:paragraph("Not projected: this run has no training-time model (its scenario has no model experiment), so "
      .. "there are no hours, costs or verdicts to give. What it measured: the technical annex.")
    return
  end
  local td = results.team_decision
  if type(td) ~= "table" or td.error then
    doc:paragraph(("No per-job answer: the decision could not be made (%s)."):format(type(td) == "table" and td.error
      or "this run's scenario has neither a team nor a list of workloads to decide"))
    return
  end
  local ctx = gather(results, exp)
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
  if ctx.team then doc:paragraph(team_cost_text(ctx), "small") else cost_basis(doc, ctx); sensitivity_table(doc, ctx) end
  local bt = binds_text(ctx)
  if bt then doc:paragraph(bt) end
  if #ctx.workloads > 0 then binds_table(doc, ctx) end
  doc:paragraph(measured_text(ctx), "small")
  if not ctx.team then
    local f = common.filing(results)
    doc:paragraph(("Prepared for %s from run %s of %s, %s.%s"):format(f.team, f.run, f.date, f.tool,
      ctx.info.derived_at_render and (" The per-job figures were derived again by %s when this report was drawn: the "
        .. "results file predates the decision's records."):format(ctx.info.derived_at_render) or ""), "small")
  end
  local label = appendix.defer(doc, "Costs: prices, power and idle power", function(d) costs_appendix(d, ctx) end)
  doc:paragraph(("Prices, power and idle power with what each covers, their sources and dates: %s."):format(label), "small")
end

return S
