-- sparkreport.sections.team: page 1, the decision for the scenario's team: the answer in one
-- sentence with its condition, then each option's cash outlay, cost a year, cost per job, use and
-- time to result, what flips the answer in a buyer's words, the rent per GPU type that ties Sparks,
-- how many people share one Spark, the prices with their dates, risks and the next step, and one
-- line on the machine that ran the report. It draws the team decision stage's records
-- (src/decide) and computes nothing the stage did not; the per-job tables follow (decision.lua).
local appendix = require "sparkreport.appendix"
local catalog = require "sparkreport.catalog"
local fmt = require "sparkreport.format"
local R = require "sparkreport.results"

local S = {}

local SPARK = "dgx-spark"

local function p(text) return { text = text, kind = "projected" } end
local function s(text) return { text = text, kind = "spec" } end

-- ---- what the page reads ----------------------------------------------------------------------

-- The team decision's records, gathered once: options by id, the answer, flips, ties, people.
function S.gather(results)
  local td = results.team_decision
  if type(td) ~= "table" or td.error or type(td.results) ~= "table" then return nil end
  local t = { results = results, team = results.scenario.team, info = td.info or {}, options = {}, order = {},
              jobs = {}, offers = {}, ties = {}, flips = {}, people = {}, names = {}, rows = {}, costs = {} }
  for _, r in ipairs(results.catalog and results.catalog.rows or {}) do t.rows[r.id] = r end
  for _, r in ipairs(results.catalog and results.catalog.costs and results.catalog.costs.rows or {}) do t.costs[r.id] = r end
  for _, e in ipairs(results.experiments or {}) do
    for _, w in ipairs(e.name == "model" and e.info and e.info.workloads or {}) do t.names[w.id] = w.name end
  end
  for _, r in ipairs(td.results) do
    if r.series == "option" then
      t.options[r.option], t.order[#t.order + 1] = r, r
      if r.answer then t.answer = r end
    elseif r.series == "option_job" then
      t.jobs[r.option .. "|" .. r.workload] = r
    elseif r.series == "offer_job" then
      t.offers[#t.offers + 1] = r
    elseif r.series == "tying_rent" then
      t.ties[r.system] = t.ties[r.system] or {}
      t.ties[r.system][r.utilisation] = r
    elseif r.series == "flip" then
      t.flips[#t.flips + 1] = r
    elseif r.series == "people_per_spark" then
      t.people[#t.people + 1] = r
    end
  end
  local alt = t.info.answer and t.info.answer.alternative
  t.alternative = alt and t.options[alt]
  return t.answer and t or nil
end

local function sys_name(t, id)
  local row = t.rows[id] or catalog.find(id)
  return ((row and row.name or id):gsub("^NVIDIA ", ""))
end

local function job_name(t, id) return t.names[id] or id end

-- "6 DGX Sparks", "rented HBM GPUs", "one H100 SXM5 server (8 GPUs)", "2 B200 (HGX) servers (8 GPUs each)"
local function option_name(t, o)
  if o.kind == "rent" then return "rented HBM GPUs" end
  if o.kind == "spark" then
    return o.count == 1 and "one DGX Spark" or ("%s DGX Sparks"):format(fmt.int(o.count))
  end
  if o.count == 1 then
    return ("one %s server (%s GPUs)"):format(sys_name(t, o.system), fmt.int(o.server_gpus or 8))
  end
  return ("%s %s servers (%s GPUs each)"):format(fmt.int(o.count), sys_name(t, o.system), fmt.int(o.server_gpus or 8))
end

-- The verb phrase of an answer: "Rent HBM GPU time", "Buy 4 DGX Sparks", "Buy one B200 (HGX) server".
local function option_verb(t, o)
  if o.kind == "rent" then return "Rent HBM GPU time" end
  return "Buy " .. option_name(t, o)
end

-- Jobs a month: "42", "2.5"
local function count(x) return x == math.floor(x) and fmt.thousands(x) or fmt.rate(x) end

local function per_month_total(t)
  local n = 0
  for _, j in ipairs(t.team.jobs) do n = n + j.per_month end
  return n
end

-- "95 % of results within 1.8 h", a duration in hours and, from two days, days
local function within(h) return fmt.hours_days(h) end

-- ---- the answer ----------------------------------------------------------------------------

-- The flips worth a condition: the nearest in each kind, as { text, factor } (factor: how far from
-- today's value, for choosing the nearest).
local function conditions(t)
  local out, a = {}, t.answer
  for _, f in ipairs(t.flips) do
    if f.found and f.to then
      local to = t.options[f.to] and option_name(t, t.options[f.to]) or f.to
      if f.what == "volume" then
        out[#out + 1] = { f.direction == "above"
          and ("until the team runs %s jobs a month (then %s would cost less)"):format(fmt.thousands(f.value), to)
          or ("while the team runs more than %s jobs a month (below that, %s would cost less)"):format(count(f.value), to),
          math.abs(math.log(f.factor)) }
      elseif f.what == "rent_all" then
        out[#out + 1] = { f.direction == "above"
          and ("while rents stay below %s times today's (then %s would cost less)"):format(fmt.rate(f.factor), to)
          or ("while rents stay above %s of today's"):format(fmt.pct(f.factor)), math.abs(math.log(f.factor)) }
      elseif f.what == "rent" then
        out[#out + 1] = { ("while %s rent is %s %s per GPU-hour"):format(sys_name(t, f.system),
          f.direction == "above" and "below" or "above", fmt.usd(f.usd_per_gpu_hour)), math.abs(math.log(f.factor)) }
      elseif f.what == "deadline" then
        out[#out + 1] = { (f.direction == "above" and "while results are wanted sooner than %s (the team wants them within %s)"
          or "while results may wait %s or longer (the team wants them within %s)"):format(within(f.value),
          within(f.base)), math.abs(math.log(f.factor)) }
      end
    end
  end
  table.sort(out, function(x, y) return x[2] < y[2] end)
  return out
end

local function answer_sentence(t)
  local a, b = t.answer, t.alternative
  local jobs = per_month_total(t)
  local text
  if not a.meets_deadline then
    text = ("No option returns 95 %% of this team's results within %s; the fastest is %s: %s a year, 95 %% of "
      .. "results within %s"):format(within(t.team.deadline_h), option_name(t, a), fmt.usd(a.usd_per_year),
      within(a.result_p95_h))
  else
    text = ("%s: for this team's %s jobs a month it costs %s a year"):format(option_verb(t, a), count(jobs),
      fmt.usd(a.usd_per_year))
    if b then
      text = text .. (" against %s for %s, and 95 %% of results arrive within %s instead of %s"):format(
        fmt.usd(b.usd_per_year), option_name(t, b), within(a.result_p95_h),
        b.keeps_up and within(b.result_p95_h) or "never (their queue grows without end)")
    end
  end
  local cond = conditions(t)
  if #cond > 0 then text = text .. "; it stays so " .. cond[1][1] end
  return text .. "."
end

-- ---- the options table ------------------------------------------------------------------------

local function use_text(o)
  if o.kind == "rent" then return ("%s of billed GPU-hours"):format(fmt.pct(o.utilisation)) end
  return fmt.pct(o.utilisation)
end

local function result_text(o)
  if not o.keeps_up then return "never: the queue grows" end
  return ("%s / %s"):format(within(o.result_p50_h), within(o.result_p95_h))
end

local function options_table(doc, t)
  local rows = {}
  for _, o in ipairs(t.order) do
    rows[#rows + 1] = {
      { text = option_name(t, o) .. (o.answer and " (the answer)" or ""), tone = o.answer and "good" or nil },
      o.outlay_usd > 0 and s(fmt.usd(o.outlay_usd)) or "none", p(fmt.usd(o.usd_per_year)), p(fmt.usd(o.usd_per_job)), p(use_text(o)),
      p(result_text(o)), { text = o.meets_deadline and "yes" or "no", tone = o.meets_deadline and "good" or "bad" } }
  end
  doc:table {
    columns = { { title = "Option", width = 0.27 }, { title = "Cash\noutlay", align = "right", width = 0.11 },
                { title = "Cost a\nyear", align = "right", width = 0.11 }, { title = "Per job", align = "right", width = 0.08 },
                { title = "Use", align = "right", width = 0.12 },
                { title = "Time to result,\nmedian / 95 %", align = "right", width = 0.2 },
                { title = ("Within\n%s"):format(fmt.hours(t.team.deadline_h)), align = "center" } },
    rows = rows,
    caption = ("Cost a year: the purchase spread over %s years, electricity, and for a server its room, power at the "
      .. "room's overhead and support; plus the rent of any job an option cannot run itself. Per job: the cost a year "
      .. "over the team's %s jobs a year. Use: the share of the machines' hours spent on the team's jobs (renting: "
      .. "the share of the billed GPU-hours the jobs use). Time to result: from asking to result, queue wait included, "
      .. "simulated over %s months of the team's jobs arriving at random."):format(fmt.rate(t.team.life_years),
      fmt.thousands(t.answer.jobs_per_year), fmt.int(t.info.simulation and t.info.simulation.months or 0)),
  }
end

local STEP_WORDS = { [1] = "by the second", [60] = "by the minute", [3600] = "by the hour" }

-- An offer row by id, from the catalog block or the team's own offers.
local function offer_row(t, id)
  for _, r in ipairs(t.results.catalog.offers and t.results.catalog.offers.rows or {}) do if r.id == id then return r end end
  for _, r in ipairs(t.team.offers or {}) do if r.id == id then return r end end
end

-- Where each job runs: rented, its bill; on Sparks, a pair where it needs two.
local function jobs_text(t)
  local rented, pairs = {}, {}
  for _, j in ipairs(t.team.jobs) do
    local r = t.jobs["rent|" .. j.workload]
    if r and r.on == "rented" then
      local o = offer_row(t, r.offer) or {}
      rented[#rented + 1] = ("%s on %s %s %s GPU%s%s billed %s: %s with setup, %s a job"):format(job_name(t, j.workload),
        fmt.int(r.gpus), r.provider, sys_name(t, r.system), r.gpus == 1 and "" or "s",
        r.instance_gpus > r.gpus and (" of an instance of %s"):format(fmt.int(r.instance_gpus)) or "",
        STEP_WORDS[o.billing_step_s] or ("in steps of %s s"):format(fmt.rate(o.billing_step_s or 0)),
        within(r.result_h), fmt.usd(r.usd))
    end
    local sp = t.jobs["spark|" .. j.workload]
    if sp and sp.units == 2 then pairs[#pairs + 1] = job_name(t, j.workload) end
    if sp and sp.on == "rented" then pairs[#pairs + 1] = job_name(t, j.workload) .. " (rented: no Spark pair holds it)" end
  end
  local out = ""
  if #rented > 0 then
    out = "Rented, each job takes its cheapest offer that meets the deadline: " .. table.concat(rented, "; ") .. "."
  end
  if #pairs > 0 then
    out = out .. (" On Sparks, two linked Sparks run %s."):format(table.concat(pairs, ", "))
  end
  return out
end

-- ---- what flips it ----------------------------------------------------------------------------

local function flip_of(t, what, dir, system)
  for _, f in ipairs(t.flips) do
    if f.what == what and (not dir or f.direction == dir) and (not system or f.system == system) then return f end
  end
end

local function to_name(t, f) return t.options[f.to] and option_name(t, t.options[f.to]) or f.to end

local function volume_text(t)
  local up, down = flip_of(t, "volume", "above"), flip_of(t, "volume", "below")
  local out = {}
  if up and up.found then
    out[#out + 1] = ("at %s jobs a month or more (%s times today's) %s would cost less"):format(
      fmt.thousands(up.value), fmt.rate(up.factor), to_name(t, up))
  end
  if down and down.found then
    out[#out + 1] = ("at %s jobs a month or fewer %s would cost less"):format(count(down.value), to_name(t, down))
  end
  if #out == 0 then
    return ("No job volume from 1/64 to 64 times today's %s a month changes the answer."):format(fmt.rate(per_month_total(t)))
  end
  return "Job volume: " .. table.concat(out, "; ") .. "."
end

local function rent_text(t)
  local out, none = {}, {}
  for _, f in ipairs(t.flips) do
    if f.what == "rent" then
      if f.found then
        out[#out + 1] = ("%s at %s %s per GPU-hour (cheapest offer today %s) makes %s the answer"):format(
          sys_name(t, f.system), f.direction == "above" and "or above" or "or below", fmt.usd(f.usd_per_gpu_hour),
          fmt.usd(f.base_usd_per_gpu_hour), to_name(t, f))
      else
        none[#none + 1] = sys_name(t, f.system)
      end
    end
  end
  if #none > 0 then
    out[#out + 1] = ("no rent of %s alone flips it%s"):format(table.concat(none, ", "),
      t.answer.kind == "rent" and " (dearer, their jobs move to another GPU type)" or "")
  end
  local all = flip_of(t, "rent_all")
  local tail = ""
  if all and all.found then
    tail = (" All rents %s %s times today's together make %s the answer."):format(
      all.direction == "above" and "rising to" or "falling to", fmt.rate(all.factor), to_name(t, all))
  elseif all then
    tail = " No change of all rents together, from 1/1000 to 1000 times today's, flips it."
  end
  return (#out > 0 and ("Rent: " .. table.concat(out, "; ") .. ".") or "") .. tail
end

-- The Spark's speed: the fastest it is projected to run is the fast end of its band; beyond that no
-- GB10 goes, so no faster speed is offered as a condition.
local function spark_text(t)
  local f = flip_of(t, "spark_speed")
  local fast = {}
  for _, j in ipairs(t.team.jobs) do
    local r = t.jobs["spark|" .. j.workload]
    if r and r.on == "spark" and r.run_fast_h then
      fast[#fast + 1] = ("%s in %s instead of %s"):format(job_name(t, j.workload), within(r.run_fast_h), within(r.run_h))
    end
  end
  local at = #fast > 0 and (" (%s)"):format(table.concat(fast, ", ")) or ""
  if f and f.found then
    return ("If the Spark ran at the fast end of its projected band%s, %s would be the answer."):format(at, to_name(t, f))
  end
  return ("No Spark speed a GB10 can reach flips it: even at the fast end of its projected band%s the answer stays %s.")
    :format(at, option_name(t, t.answer))
end

local function deadline_text(t)
  local up, down = flip_of(t, "deadline", "above"), flip_of(t, "deadline", "below")
  local out = {}
  if up and up.found then
    out[#out + 1] = ("a deadline of %s or longer makes %s the answer"):format(within(up.value), to_name(t, up))
  end
  if down and down.found then
    out[#out + 1] = ("a deadline of %s or shorter makes %s the answer"):format(within(down.value), to_name(t, down))
  end
  if #out == 0 then
    return ("No deadline from %s to %s changes the answer."):format(within(t.team.deadline_h / 64),
                                                                   within(t.team.deadline_h * 64))
  end
  return "Deadline: " .. table.concat(out, "; ") .. "."
end

-- ---- the tying rent -----------------------------------------------------------------------------

local function ties_table(doc, t)
  local rows = {}
  for _, id in ipairs(t.results.scenario.systems or {}) do
    local tie = t.ties[id]
    if tie and tie[1] then
      rows[#rows + 1] = { sys_name(t, id), p(fmt.usd(tie[0.25].usd_per_gpu_hour)), p(fmt.usd(tie[0.5].usd_per_gpu_hour)),
                          p(fmt.usd(tie[1].usd_per_gpu_hour)), s(fmt.usd(tie[1].base_usd_per_gpu_hour)) }
    end
  end
  if #rows == 0 then return end
  doc:table {
    columns = { { title = "GPU type", width = 0.28 }, { title = "Sparks 25 %\nbusy", align = "right", width = 0.17 },
                { title = "50 % busy", align = "right", width = 0.17 }, { title = "100 % busy", align = "right", width = 0.17 },
                { title = "Cheapest offer\ntoday", align = "right" } },
    rows = rows,
    caption = "Rent per GPU-hour at which renting that GPU type for the jobs a Spark can run costs what the Sparks "
      .. "cost kept busy 25, 50 or 100 % of the time (their price over their life and hours, plus electricity), each "
      .. "job billed as its cheapest offer of that type bills it. Below it renting is cheaper; a Spark is never busier "
      .. "than 100 %.",
  }
end

-- ---- people per Spark -----------------------------------------------------------------------------

local function people_text(t)
  local out = {}
  for _, r in ipairs(t.people) do
    local name = job_name(t, r.workload)
    if not r.projected then
      out[#out + 1] = ("%s: not projected (%s)"):format(name, r.reason or "no shared-use projection")
    elseif r.people == 0 then
      out[#out + 1] = ("%s: none (%s%s)"):format(name, r.reason or "",
        r.hours_alone and (": %s alone"):format(within(r.hours_alone)) or "")
    else
      out[#out + 1] = ("%s: %s, 95 %% of results within %s"):format(name, fmt.int(r.people), within(r.result_p95_h))
    end
  end
  if #out == 0 then return nil end
  return ("People per Spark before the time to result passes %s, each person sending their share of the team's "
    .. "jobs: %s.")
    :format(within(t.team.deadline_h), table.concat(out, "; "))
end

-- ---- prices, risks, next step, the machine -------------------------------------------------------

-- A cost row's source, short: up to its first parenthesis or comma.
local function short_source(text) return ((text or "the cost file"):match("^([^,(]+)") or text):gsub("%s+$", "") end

local function prices_text(t)
  local out = {}
  local sp = t.costs[SPARK]
  if sp and sp.purchase_usd then
    out[#out + 1] = ("a DGX Spark %s (NVIDIA's list price since %s%s)"):format(fmt.usd(sp.purchase_usd),
      sp.purchase_date or "an unknown date", sp.launch_usd and ("; %s at launch, %s"):format(fmt.usd(sp.launch_usd),
      sp.launch_date or "undated") or "")
  end
  for _, o in ipairs(t.order) do
    local c = o.kind == "server" and t.costs[o.system]
    if c and c.purchase_usd then
      out[#out + 1] = ("one %s server %s (%s, %s)"):format(sys_name(t, o.system),
        fmt.usd(c.purchase_usd * (c.server_gpus or 8)), short_source(c.purchase_source), c.purchase_date or "undated")
    end
  end
  local lo, hi
  for _, r in ipairs(t.results.catalog.offers and t.results.catalog.offers.rows or t.team.offers or {}) do
    lo = (not lo or r.date < lo) and r.date or lo
    hi = (not hi or r.date > hi) and r.date or hi
  end
  local rents = lo and (" Rents: each offer's list price, read from %s to %s."):format(lo, hi) or ""
  return ("Prices: %s.%s Sources in the appendix."):format(table.concat(out, "; "), rents)
end

local TERM_WORDS = { life_years = "a purchase spread over %s years", kwh_usd = "electricity at $%s per kWh",
                     pue = "a server room's overhead (PUE) %s", facility_usd_per_kw_month = "room and power capacity $%s per kW a month",
                     support_share = "support %s of a server's price a year", setup_h = "%s h setup per rented job" }

local function terms_text(t)
  local out, own = {}, {}
  for _, term in ipairs(t.info.terms or {}) do
    local v = term.value
    local w = TERM_WORDS[term.field] and TERM_WORDS[term.field]:format(term.field == "support_share" and fmt.pct(v)
                                                                       or fmt.rate(v))
    if w then
      out[#out + 1] = w
      if term.source == "the scenario's own figure" or (term.source or ""):find("assumption", 1, true) then own[#own + 1] = w end
    end
  end
  return ("Terms: %s; sources in the appendix.%s"):format(table.concat(out, ", "), #own > 0
    and (" Assumptions to replace with your own: %s."):format(table.concat(own, ", ")) or "")
end

local RISKS = "Risks. Software on a GB10: its GPU (CUDA compute capability 12.1) and Arm host were missing from prebuilt wheels of "
  .. "bitsandbytes until late 2025 and of FlashAttention still in 2026 (eager attention is the fallback, slower "
  .. "than these projections assume), and DeepSpeed's CPU ops do not build on Arm; a Spark may need its software "
  .. "built by hand. Renting: on-demand capacity of the newest GPUs can be sold out, and cloud accounts start with "
  .. "GPU quotas that must be raised by request before an 8-GPU instance starts. Prices drift: Spark and memory "
  .. "prices rose in 2026 and rents fall as supply grows; every price here is dated. Data leaving a cloud is "
  .. "billed (about $0.09 per GB at AWS), which adds to rented jobs with large datasets or checkpoints."

-- The cheap step before signing: ten minutes of this tool on one rented GPU and a borrowed Spark.
local function next_text(t)
  local r = t.jobs["rent|" .. t.team.jobs[1].workload]
  local gpu, hour = "the HBM type above", ""
  if r and r.system then
    gpu = sys_name(t, r.system)
    gpu = (gpu:find("^[AEFHILMNORSX]") and "an " or "a ") .. gpu     -- "an H100", "a B200": as the letters are said
    local best
    for _, o in ipairs(t.results.catalog.offers and t.results.catalog.offers.rows or t.team.offers or {}) do
      local n = o.instance_gpus and o.instance_gpus[1]
      if o.system == r.system and n and (not best or n * o.usd_per_gpu_hour < best.usd) then
        best = { usd = n * o.usd_per_gpu_hour, o = o, n = n }
      end
    end
    if best then
      hour = (": %s for an hour of the smallest %s instance, %s GPU%s, as listed %s"):format(fmt.usd(best.usd),
        best.o.provider, fmt.int(best.n), best.n == 1 and "" or "s", best.o.date)
    end
  end
  return ("Next step, before signing: run this tool's default scenario (about ten minutes) on one rented GPU (%s%s) "
    .. "and on a borrowed DGX Spark, and render this report from both runs: the projected hours of those two "
    .. "systems become measured ones and the answer is derived again from them."):format(gpu, hour)
end

-- One line on the machine that ran the report: what it is and what of it the pages use.
local function machine_line(results)
  local c, cu = results.context or {}, (results.context or {}).cuda or {}
  local gpu = cu.devices and #cu.devices > 0 and cu.devices[1].name
  local match = results.catalog and results.catalog.match
  return ("The machine that ran this report, %s (%s%s), %s; every hour and cost on these pages is projected from "
    .. "catalog figures and the terms above (the annex holds what it measured).")
    :format(c.host or "unknown", c.cpu and c.cpu.model or "unknown CPU", gpu and (", " .. gpu) or ", no GPU",
            match == SPARK and gpu and "is a DGX Spark: its own GPU calibrated the Spark's figures"
            or "is neither a Spark nor an HBM GPU: it calibrated and checked the method only")
end

-- ---- appendix: terms, offers, method, risk sources ----------------------------------------------------

local RISK_SOURCES = {
  { "bitsandbytes on GB10", "bitsandbytes-foundation/bitsandbytes pull request 1829 'Add release for DGX Spark cuda121' (merged 2025-12-11): aarch64 wheels lacked sm_121" },
  { "FlashAttention on GB10", "Dao-AILab/flash-attention issue 1969 'Support for compute capability 12.1 (sm121)' (open since 2025-10-28; pull request 2257, 2026-02-13, still open)" },
  { "DeepSpeed on Arm", "deepspeedai/DeepSpeed issue 5640 'Does deepspeed support aarch64?' (CPU comm op includes immintrin.h)" },
  { "GB10 kernels", "NVIDIA/dgx-spark-playbooks issue 22: sm_121 lacks tcgen05, TMEM and TMA multicast in its toolchain" },
  { "Quotas", "AWS Service Quotas: on-demand GPU instances are limited per account by a vCPU quota raised on request" },
  { "Egress", "AWS data transfer out to the internet, $0.09 per GB (as cited by Datacate, 'Colocation vs cloud', 2026)" },
}

local function appendix_body(d, t)
  local rows = {}
  for _, term in ipairs(t.info.terms or {}) do
    rows[#rows + 1] = { TERM_WORDS[term.field] and TERM_WORDS[term.field]:format(term.field == "support_share"
      and fmt.pct(term.value) or fmt.rate(term.value)) or term.field, term.source or "" }
  end
  d:table { columns = { { title = "Term", width = 0.3 }, { title = "Source" } }, rows = rows,
            caption = "The team's terms of owning and renting, each with where its figure comes from." }
  rows = {}
  for _, o in ipairs(t.results.catalog.offers and t.results.catalog.offers.rows or t.team.offers or {}) do
    local sizes = {}
    for _, n in ipairs(o.instance_gpus or {}) do sizes[#sizes + 1] = fmt.int(n) end
    local step = o.billing_step_s >= 3600 and "hour" or o.billing_step_s >= 60 and "minute" or "second"
    rows[#rows + 1] = { ("%s %s"):format(o.provider, sys_name(t, o.system)), s(fmt.usd(o.usd_per_gpu_hour)),
      table.concat(sizes, ", "), step, ("%s; %s"):format(o.source, o.date) }
  end
  d:table { columns = { { title = "Offer", width = 0.17 }, { title = "Per GPU-\nhour", align = "right", width = 0.08 },
                        { title = "GPUs", width = 0.08 }, { title = "Billed by\nthe", width = 0.08 },
                        { title = "Source; date" } }, rows = rows,
            caption = "The rental offers a job may take: price per GPU-hour, the GPU counts an instance comes in "
              .. "(a job pays for the whole instance), the billing step (time is rounded up to it), source and date." }
  d:paragraph(t.info.method or "", "small")
  rows = {}
  for _, r in ipairs(RISK_SOURCES) do rows[#rows + 1] = { r[1], r[2] } end
  d:table { columns = { { title = "Risk", width = 0.2 }, { title = "Source" } }, rows = rows,
            caption = "Where the risks on the first page come from." }
end

-- ---- the section ----------------------------------------------------------------------------------

function S.team(doc, results)
  local td = results.team_decision
  if type(td) ~= "table" then return end
  local common = require "sparkreport.sections.common"
  common.title_block(doc, results, "What should this team use: DGX Sparks or HBM GPUs? The answer first; the machine "
                     .. "that ran it: the technical annex", common.decision_title(results))
  if td.error then
    doc:notice(("The team decision could not be made: %s. The per-job answer follows."):format(td.error), "bad")
    return
  end
  local t = S.gather(results)
  if not t then return end
  doc:paragraph(answer_sentence(t), "bold")
  local jobs = {}
  for _, j in ipairs(t.team.jobs) do jobs[#jobs + 1] = ("%s x %s"):format(count(j.per_month), job_name(t, j.workload)) end
  doc:paragraph(("The team: %s running, each month, %s; 95 %% of results wanted within %s."):format(
    t.team.people == 1 and "one person" or fmt.int(t.team.people) .. " people", table.concat(jobs, " and "),
    within(t.team.deadline_h)))
  options_table(doc, t)
  local jt = jobs_text(t)
  if jt ~= "" then doc:paragraph(jt, "small") end
  doc:paragraph("What flips it. " .. volume_text(t) .. " " .. rent_text(t) .. " " .. spark_text(t) .. " "
    .. deadline_text(t))
  ties_table(doc, t)
  local pt = people_text(t)
  if pt then doc:paragraph(pt) end
  doc:paragraph(prices_text(t) .. " " .. terms_text(t), "small")
  doc:paragraph(RISKS, "small")
  doc:paragraph(next_text(t))
  doc:paragraph(machine_line(results), "small")
  local label = appendix.defer(doc, "The team decision: terms, offers, method and risk sources",
                               function(d) appendix_body(d, t) end)
  doc:paragraph(("The terms, every offer with its billing, the method and the risks' sources: %s."):format(label), "small")
end

return S
