-- sparkreport.sections.team: page 1, the decision for the scenario's team: for whom and from which
-- run, the answer in one sentence, what decides it (the binding constraint, its margin and the
-- answer without it), why the Sparks are as many as they are, what is and is not costed, the team
-- and its job sizes, each option's cash outlay, cost a year, cost per job, use and time to result,
-- what flips the answer (each flip naming the option found there and its cost), the rent per GPU type
-- that ties Sparks, how many people share one Spark, the prices with their dates, risks and the next
-- step. It draws the team decision stage's records (src/decide) and computes nothing: every figure
-- is a field of a record (STYLE.md rule 26); the per-job tables follow (decision.lua).
local appendix = require "sparkreport.appendix"
local catalog = require "sparkreport.catalog"
local fmt = require "sparkreport.format"
local R = require "sparkreport.results"

local S = {}


local function p(text) return { text = text, kind = "projected" } end
local function s(text) return { text = text, kind = "spec" } end

-- ---- what the page reads ----------------------------------------------------------------------

-- The team decision's records, gathered once: options by id, the answer, flips, ties, people, rows.
function S.gather(results)
  local td = results.team_decision
  if type(td) ~= "table" or td.error or type(td.results) ~= "table" then return nil end
  local t = { results = results, team = results.scenario.team or {}, info = td.info or {}, options = {}, order = {},
              jobs = {}, ties = {}, tie_order = {}, flips = {}, people = {}, names = {}, rows = {}, jobinfo = {},
              prices = {}, verdicts = {}, job_rows = {}, subject = R.subject(results) }
  for _, r in ipairs(results.catalog and results.catalog.rows or {}) do t.rows[r.id] = r end
  for _, j in ipairs(t.info.jobs or {}) do t.names[j.workload], t.jobinfo[j.workload] = j.name, j end
  for _, pr in ipairs(t.info.prices or {}) do t.prices[pr.system] = pr end
  for _, r in ipairs(td.results) do
    if r.series == "option" then
      t.options[r.option], t.order[#t.order + 1] = r, r
      if r.answer then t.answer = r end
    elseif r.series == "option_job" then
      t.jobs[r.option .. "|" .. r.workload] = r
    elseif r.series == "tying_rent" then
      if not t.ties[r.system] then t.ties[r.system], t.tie_order[#t.tie_order + 1] = {}, r.system end
      t.ties[r.system][r.utilisation] = r
    elseif r.series == "flip" then
      t.flips[#t.flips + 1] = r
    elseif r.series == "people_per_spark" then
      t.people[#t.people + 1] = r
    elseif r.series == "verdict" then
      t.verdicts[r.workload] = r
    elseif r.series == "job_row" then
      t.job_rows[#t.job_rows + 1] = r
    elseif r.series == "binding" or r.series == "spark_count" or r.series == "next_step" then
      t[r.series] = r
    end
  end
  local alt = t.info.answer and t.info.answer.alternative
  t.alternative = alt and t.options[alt]
  return t
end

local function sys_name(t, id)
  local row = t.rows[id] or catalog.find(id)
  return ((row and row.name or id):gsub("^NVIDIA ", ""))
end

local function job_name(t, id) return t.names[id] or id end

-- "5 DGX Sparks", "rented HBM GPUs", "one H100 SXM5 server (8 GPUs)", "2 B200 (HGX) servers (8 GPUs
-- each)": an option of kind and system with `count` units, as the records give them.
local function named(t, kind, system, count)
  if kind == "rent" then return "rented HBM GPUs" end
  if kind == "spark" then return count == 1 and "one DGX Spark" or ("%s DGX Sparks"):format(fmt.int(count)) end
  local g = t.prices[system] and t.prices[system].server_gpus or 8
  if count == 1 then return ("one %s server (%s GPUs)"):format(sys_name(t, system), fmt.int(g)) end
  return ("%s %s servers (%s GPUs each)"):format(fmt.int(count), sys_name(t, system), fmt.int(g))
end

local function option_name(t, o) return named(t, o.kind, o.system, o.count) end

-- An option by its id ("spark", "rent", "server:ID") and count, as a flip or a binding names it.
local function id_name(t, id, count)
  if not id then return "none" end
  local kind, system = id:match("^(%a+):?(.*)$")
  return named(t, kind, system ~= "" and system or nil, count or 0)
end

-- The verb phrase of an answer: "Rent HBM GPU time", "Buy 4 DGX Sparks", "Buy one B200 (HGX) server".
local function option_verb(t, o)
  if o.kind == "rent" then return "Rent HBM GPU time" end
  return "Buy " .. option_name(t, o)
end

-- Jobs a month: "42", "2.5"
local function count(x) return x == math.floor(x) and fmt.thousands(x) or fmt.rate(x) end

local function within(h) return fmt.hours_days(h) end

-- ---- the answer and what decides it -----------------------------------------------------------

local function answer_sentence(t)
  local a = t.answer
  if not a.meets_deadline then
    return ("No option returns 95 %% of the team's results within %s; the fastest is %s: %s a year, 95 %% of results "
      .. "within %s."):format(within(t.info.team.deadline_h), option_name(t, a), fmt.usd(a.usd_per_year),
      within(a.result_p95_h))
  end
  return ("%s: %s a year for the team's %s jobs a month, 95 %% of results within %s."):format(option_verb(t, a),
    fmt.usd(a.usd_per_year), count(t.info.jobs_per_month), within(a.result_p95_h))
end

-- "without it, 2 DGX Sparks would be the answer at $3,589 a year (95 % of results within 81.3 h)"
local function without_text(t, b, what)
  if not b.without then return "" end
  local result = b.without_keeps_up and b.without_result_p95_h
    and (", 95 %% of results within %s"):format(within(b.without_result_p95_h)) or ""
  return ("; without %s, %s would be the answer at %s a year%s"):format(what, id_name(t, b.without, b.without_count),
    fmt.usd(b.without_usd_per_year), result)
end

local function binding_text(t)
  local b = t.binding
  if not b then return nil end
  local deadline = within(b.deadline_h)
  if b.constraint == "deadline" then
    local job = ""
    if b.workload and b.job_result_p95_h then
      local on = b.on == "spark" and (b.units == 2 and "two linked Sparks" or "one Spark")
        or b.on == "rented" and "a rented instance" or ("%s GPUs"):format(fmt.int(b.units))
      local band = b.job_run_low_h and (", band %s–%s"):format(fmt.hours(b.job_run_low_h, ""), fmt.hours(b.job_run_high_h)) or ""
      job = (" On %s, the %s's results take %s at the 95th percentile (%s on %s%s, plus the wait), %s past the %s "
        .. "the team allows"):format(id_name(t, b.without, b.option_count), job_name(t, b.workload),
        within(b.job_result_p95_h), within(b.job_run_h), on, band, within(b.margin_h), deadline)
    end
    return ("What decides it: the deadline.%s%s."):format(job, without_text(t, b, "the deadline"))
  elseif b.constraint == "memory" then
    return ("What decides it: memory. No single Spark holds the %s (it needs %s, %s usable)%s."):format(
      job_name(t, b.workload), fmt.bytes(b.needs_bytes), fmt.bytes(b.usable_bytes),
      without_text(t, b, "that job"))
  end
  if not b.without then return "What decides it: cost; no other option keeps up with the team's jobs." end
  return ("What decides it: cost. It is %s a year cheaper than %s (%s a year, %s the deadline)."):format(
    fmt.usd(b.margin_usd_per_year), id_name(t, b.without, b.without_count), fmt.usd(b.without_usd_per_year),
    b.without_meets_deadline and "also within" or "not within")
end

-- Why the Sparks are as many as they are, from the stage's spark_count record.
local function count_text(t)
  local c = t.spark_count
  if not c then return nil end
  local n = fmt.int(c.count)
  if c.rule == "meets" then
    return ("Why %s Sparks: the fewest whose 95th-percentile time to result is within %s (%s)%s."):format(n,
      within(c.deadline_h), within(c.result_p95_h), c.fewer_result_p95_h
      and ("; one fewer takes %s"):format(within(c.fewer_result_p95_h)) or "")
  elseif c.rule == "max" then
    return ("Why %s Sparks: the most the team allows, and they cannot keep up with its jobs."):format(n)
  end
  local why = "no number of Sparks returns 95 % of results within " .. within(c.deadline_h)
  if c.longest_run_h and c.longest_run_h > c.deadline_h then
    why = why .. (": one %s alone takes %s on %s"):format(job_name(t, c.longest_workload), within(c.longest_run_h),
      c.longest_units == 2 and "two linked Sparks" or "one Spark")
  end
  return ("Why %s Sparks: %s; %s is the fewest beyond which one more shortens the 95th-percentile time to result by "
    .. "less than %s (%s%s: %s%s)."):format(n, why, n, fmt.pct(c.gain_limit), c.fewer_count
    and ("%s: %s, "):format(fmt.int(c.fewer_count), within(c.fewer_result_p95_h)) or "", n, within(c.result_p95_h),
    c.more_count and (", %s: %s"):format(fmt.int(c.more_count), within(c.more_result_p95_h)) or "")
end

local function scope_text(t)
  local sc = t.info.scope
  if not sc then return nil end
  local out = {}
  for _, e in ipairs(sc.excluded or {}) do out[#out + 1] = e.why end
  return ("Scope: %s. %s."):format(sc.costed, (table.concat(out, "; "):gsub("^%l", string.upper)))
end

-- A job's size in words: "100 M tokens (the report's round figure: give your own)", "30 M tokens
-- (200 k samples x 150 tokens)".
local TOKEN_BASIS = { assumed = "assumed: this report's round figure for a fine-tune; give your own",
                      published = "the published run's", given = "the team's" }
function S.size_text(j)
  local how = ""
  if j.size == "samples" then
    how = (" (%s samples x %s tokens)"):format(fmt.count(j.samples), fmt.count(j.tokens_per_sample))
  elseif j.size == "epochs" then
    how = (" (%s epochs over %s tokens)"):format(fmt.rate(j.epochs), fmt.count(j.dataset_tokens))
  elseif j.tokens_basis ~= "given" then
    how = (" (%s)"):format(TOKEN_BASIS[j.tokens_basis] or j.tokens_basis)
  end
  return ("%s tokens%s"):format(fmt.count(j.tokens), how)
end

local function team_text(t)
  local jobs = {}
  for _, j in ipairs(t.info.jobs or {}) do
    if j.team then jobs[#jobs + 1] = ("%s x %s of %s"):format(count(j.per_month), j.name, S.size_text(j)) end
  end
  local people = t.info.team.people == 1 and "one person" or fmt.int(t.info.team.people) .. " people"
  return ("The team: %s running, each month, %s; 95 %% of results wanted within %s."):format(
    people, table.concat(jobs, " and "), within(t.info.team.deadline_h))
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

local function terms_caption(t)
  local out = {}
  for _, c in ipairs(t.info.cost_terms or {}) do out[#out + 1] = c.words end
  return table.concat(out, "; ")
end

local function options_table(doc, t)
  local rows = {}
  for _, o in ipairs(t.order) do
    rows[#rows + 1] = {
      { text = option_name(t, o) .. (o.answer and " (the answer)" or ""), tone = o.answer and "good" or nil },
      o.outlay_usd > 0 and s(fmt.usd(o.outlay_usd)) or "none", p(fmt.usd(o.usd_per_year)), p(fmt.usd(o.usd_per_job)),
      p(use_text(o)), p(result_text(o)),
      { text = o.meets_deadline and "yes" or "no", tone = o.meets_deadline and "good" or "bad" } }
  end
  doc:table {
    columns = { { title = "Option", width = 0.27 }, { title = "Cash\noutlay", align = "right", width = 0.11 },
                { title = "Cost a\nyear", align = "right", width = 0.11 }, { title = "Per job", align = "right", width = 0.08 },
                { title = "Use", align = "right", width = 0.12 },
                { title = "Time to result,\nmedian / 95 %", align = "right", width = 0.2 },
                { title = ("Within\n%s"):format(fmt.hours(t.info.team.deadline_h)), align = "center" } },
    rows = rows,
    caption = ("Cost a year, each term the stage costs: %s. Per job: the cost a year over the team's %s jobs a year. "
      .. "Use: the share of the machines' hours spent on the team's jobs (renting: the share of the billed GPU-hours "
      .. "the jobs use). Time to result: from asking to result, queue wait included, simulated over %s months of the "
      .. "team's jobs arriving at random."):format(terms_caption(t), fmt.thousands(t.answer.jobs_per_year),
      fmt.int(t.info.simulation and t.info.simulation.months or 0)),
  }
end

local STEP_WORDS = { [1] = "by the second", [60] = "by the minute", [3600] = "by the hour" }

-- Where each job runs: rented, its bill; on Sparks, a pair where it needs two; a marginal fit said.
local function jobs_text(t)
  local rented, pairs, marginal = {}, {}, {}
  for _, j in ipairs(t.info.jobs or {}) do
    local r = j.team and t.jobs["rent|" .. j.workload]
    if r and r.on == "rented" then
      rented[#rented + 1] = ("%s on %s %s %s GPU%s%s billed %s: %s with setup, %s a job"):format(job_name(t, j.workload),
        fmt.int(r.gpus), r.provider, sys_name(t, r.system), r.gpus == 1 and "" or "s",
        r.instance_gpus > r.gpus and (" of an instance of %s"):format(fmt.int(r.instance_gpus)) or "",
        STEP_WORDS[r.billing_step_s] or ("in steps of %s s"):format(fmt.rate(r.billing_step_s or 0)),
        within(r.result_h), fmt.usd(r.usd))
    end
    local sp = j.team and t.jobs["spark|" .. j.workload]
    if sp and sp.units == 2 then pairs[#pairs + 1] = job_name(t, j.workload) end
    if sp and sp.on == "rented" then pairs[#pairs + 1] = job_name(t, j.workload) .. " (rented: no Spark pair holds it)" end
    for _, o in ipairs(t.order) do
      local oj = j.team and t.jobs[o.option .. "|" .. j.workload]
      if oj and oj.marginal and oj.on ~= "rented" then
        marginal[#marginal + 1] = ("%s on %s"):format(job_name(t, j.workload), option_name(t, o))
      end
    end
  end
  local out = ""
  if #rented > 0 then
    out = "Rented, each job takes its cheapest offer that meets the deadline: " .. table.concat(rented, "; ") .. "."
  end
  if #pairs > 0 then out = out .. (" On Sparks, two linked Sparks run %s."):format(table.concat(pairs, ", ")) end
  if #marginal > 0 then
    out = out .. (" Marginal fit (less than a tenth of the usable memory left): %s."):format(table.concat(marginal, "; "))
  end
  return out
end

-- ---- what flips it ----------------------------------------------------------------------------

local function flip_of(t, what, dir, key, value)
  for _, f in ipairs(t.flips) do
    if f.what == what and (not dir or f.direction == dir) and (not key or f[key] == value) then return f end
  end
end

-- "3 DGX Sparks ($5,156 a year, against $5,491 for renting there)": the option found at the flip
-- and its cost, beside the answer's own cost at that point.
local function to_text(t, f)
  local against = f.answer_usd_per_year_at and (", against %s for %s there"):format(fmt.usd(f.answer_usd_per_year_at),
    option_name(t, t.answer)) or ""
  return ("%s (%s a year%s)"):format(id_name(t, f.to, f.to_count), fmt.usd(f.to_usd_per_year), against)
end

local function volume_text(t)
  local out = {}
  for _, dir in ipairs { "above", "below" } do
    local f = flip_of(t, "volume", dir)
    if f and f.found then
      out[#out + 1] = ("at %s jobs a month or %s (%s times today's), %s is the answer"):format(count(f.value),
        dir == "above" and "more" or "fewer", fmt.rate(f.factor), to_text(t, f))
    end
  end
  if #out == 0 then
    return ("No job volume from 1/64 to 64 times today's %s a month changes the answer."):format(count(t.info.jobs_per_month))
  end
  return "Job volume: " .. table.concat(out, "; ") .. "."
end

-- Job size: every job's tokens together, then each job's alone where that flips it.
local function size_text(t)
  local out = {}
  for _, dir in ipairs { "below", "above" } do
    local f = flip_of(t, "tokens_all", dir)
    if f and f.found then
      local sizes = {}
      for _, j in ipairs(f.jobs_at_flip or {}) do sizes[#sizes + 1] = ("%s %s tokens"):format(job_name(t, j.workload),
        fmt.count(j.tokens)) end
      out[#out + 1] = ("at %s times today's sizes or %s (%s a job), %s is the answer"):format(fmt.rate(f.factor),
        dir == "above" and "more" or "less", table.concat(sizes, ", "), to_text(t, f))
    end
  end
  for _, f in ipairs(t.flips) do
    if f.what == "tokens" and f.found then
      out[#out + 1] = ("at %s tokens a %s job or %s alone, %s is the answer"):format(fmt.count(f.value),
        job_name(t, f.workload), f.direction == "above" and "more" or "fewer", to_text(t, f))
    end
  end
  if #out == 0 then return "No job size from 1/64 to 64 times today's, all jobs together or each alone, changes the answer." end
  return "Job size: " .. table.concat(out, "; ") .. "."
end

local function rent_text(t)
  local out, none = {}, {}
  for _, f in ipairs(t.flips) do
    if f.what == "rent" then
      if f.found then
        out[#out + 1] = ("%s at %s %s per GPU-hour (cheapest offer today %s) makes %s the answer"):format(
          sys_name(t, f.system), f.direction == "above" and "or above" or "or below", fmt.usd(f.usd_per_gpu_hour),
          fmt.usd(f.base_usd_per_gpu_hour), to_text(t, f))
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
      all.direction == "above" and "rising to" or "falling to", fmt.rate(all.factor), to_text(t, all))
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
  for _, j in ipairs(t.info.jobs or {}) do
    local r = j.team and t.jobs["spark|" .. j.workload]
    if r and r.on == "spark" and r.run_fast_h then
      fast[#fast + 1] = ("%s in %s instead of %s"):format(job_name(t, j.workload), within(r.run_fast_h), within(r.run_h))
    end
  end
  local at = #fast > 0 and (" (%s)"):format(table.concat(fast, ", ")) or ""
  if f and f.found then
    return ("If the Spark ran at the fast end of its projected band%s, %s would be the answer."):format(at, to_text(t, f))
  end
  return ("No Spark speed a GB10 can reach flips it: even at the fast end of its projected band%s the answer stays %s.")
    :format(at, option_name(t, t.answer))
end

-- "Hugging Face Trainer (2025-26)": a stack as the page names it, its era's years.
local function stack_text(name, era)
  local years = type(era) == "string" and era:match("^([^:]+):") or nil
  return years and ("%s (%s)"):format(name, years) or name
end

-- The software each job runs on, on a Spark and on the answer's (or the HBM option's) machines: the same
-- stack on both sides unless the team says otherwise, each with its era.
local function software_text(t)
  local out = {}
  for _, j in ipairs(t.info.jobs or {}) do
    local sp, other = j.team and t.jobs["spark|" .. j.workload], nil
    for _, o in ipairs(t.order) do
      local oj = j.team and t.jobs[o.option .. "|" .. j.workload]
      if o.kind ~= "spark" and oj and oj.stack_name then other = other or oj end
    end
    local a, b = sp and sp.stack_name and stack_text(sp.stack_name, sp.stack_era),
                 other and stack_text(other.stack_name, other.stack_era)
    if a and b and a == b then
      out[#out + 1] = ("%s on %s on every option"):format(job_name(t, j.workload), a)
    elseif a or b then
      out[#out + 1] = ("%s on %s on Sparks and %s on HBM GPUs"):format(job_name(t, j.workload), a or "none", b or "none")
    end
  end
  if #out == 0 then return nil end
  return "Software: " .. table.concat(out, "; ") .. " (the stacks people run such jobs on; the appendix names the "
    .. "published runs each is fitted on)."
end

-- A compiled stack on both sides: how fast it runs each job on a GB10 against the job's own stack, and
-- the answer then (the stage's record).
local function compiled_text(t)
  local f = flip_of(t, "compiled_stack")
  if not f then return "" end
  local speeds, name = {}, nil
  for _, j in ipairs(f.jobs or {}) do
    name = name or (j.compiled_stack_name and stack_text(j.compiled_stack_name, j.compiled_stack_era))
    if j.speed_of_compiled and j.stack_name then
      speeds[#speeds + 1] = ("the %s runs %s at %s of a compiled one's speed (%s instead of %s)"):format(
        j.stack_name, job_name(t, j.workload), fmt.pct(j.speed_of_compiled), within(j.spark_h), within(j.spark_compiled_h))
    end
  end
  local on = #speeds > 0 and (" On a GB10 " .. table.concat(speeds, "; ") .. ".") or ""
  if f.found then
    return ("Software: with a compiled stack on both sides (%s), %s is the answer.%s"):format(name or "torch.compile",
      to_text(t, f), on)
  end
  return ("Software: a compiled stack on both sides (%s) leaves the answer %s (%s a year).%s"):format(
    name or "torch.compile", option_name(t, t.answer), fmt.usd(f.answer_usd_per_year_at or t.answer.usd_per_year), on)
end

local function deadline_text(t)
  local out = {}
  for _, dir in ipairs { "above", "below" } do
    local f = flip_of(t, "deadline", dir)
    if f and f.found then
      out[#out + 1] = ("at %s or %s, %s is the answer"):format(within(f.value), dir == "above" and "longer" or "shorter",
        to_text(t, f))
    end
  end
  if #out == 0 then
    return ("No deadline from 1/64 to 64 times the team's %s changes the answer."):format(within(t.info.team.deadline_h))
  end
  return "Deadline: " .. table.concat(out, "; ") .. "."
end

-- ---- the tying rent -----------------------------------------------------------------------------

local function ties_table(doc, t)
  local rows, offers = {}, {}
  for _, id in ipairs(t.tie_order) do
    local tie = t.ties[id]
    if tie[1] and tie[0.25] and tie[0.5] then
      rows[#rows + 1] = { sys_name(t, id), p(fmt.usd(tie[0.25].usd_per_gpu_hour)), p(fmt.usd(tie[0.5].usd_per_gpu_hour)),
                          p(fmt.usd(tie[1].usd_per_gpu_hour)), s(fmt.usd(tie[1].base_usd_per_gpu_hour)) }
      offers[#offers + 1] = ("%s %s"):format(tie[1].provider or "?", sys_name(t, id))
    end
  end
  if #rows == 0 then return end
  doc:table {
    columns = { { title = "GPU type", width = 0.28 }, { title = "Sparks 25 %\nbusy", align = "right", width = 0.17 },
                { title = "50 % busy", align = "right", width = 0.17 }, { title = "100 % busy", align = "right", width = 0.17 },
                { title = "The jobs' offer\ntoday", align = "right" } },
    rows = rows,
    caption = ("Rent per GPU-hour at which renting that GPU type for the jobs a Spark can run costs what the Sparks "
      .. "cost kept busy 25, 50 or 100 %% of the time (their price over their life and hours, plus electricity, idle "
      .. "included), each job billed on the offer of that type it would take (%s). Below it renting is cheaper; a "
      .. "Spark is never busier than 100 %%."):format(table.concat(offers, ", ")),
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
    .. "jobs: %s."):format(within(t.info.team.deadline_h), table.concat(out, "; "))
end

-- ---- prices, terms, risks, next step, the machine -------------------------------------------------

-- A cost row's source, short: up to its first parenthesis or comma.
local function short_source(text) return ((text or "the cost file"):match("^([^,(]+)") or text):gsub("%s+$", "") end

local function prices_text(t)
  local out, idle, none = {}, {}, {}
  local sp = t.prices[t.subject]
  if sp and sp.purchase_usd then
    out[#out + 1] = ("a DGX Spark %s (NVIDIA's list price since %s%s)"):format(fmt.usd(sp.purchase_usd),
      sp.purchase_date or "an unknown date", sp.launch_usd and ("; %s at launch, %s"):format(fmt.usd(sp.launch_usd),
      sp.launch_date or "undated") or "")
  end
  for _, o in ipairs(t.order) do
    local pr = o.kind == "server" and t.prices[o.system]
    if pr and pr.server_usd then
      out[#out + 1] = ("one %s server %s (%s, %s)"):format(sys_name(t, o.system), fmt.usd(pr.server_usd),
        short_source(pr.purchase_source), pr.purchase_date or "undated")
    end
  end
  for _, o in ipairs(t.order) do
    local pr = o.kind ~= "rent" and t.prices[o.system]
    if pr and pr.idle_power_w then
      idle[#idle + 1] = ("%s %s W (%s)"):format(sys_name(t, o.system), fmt.int(pr.idle_power_w), short_source(pr.idle_power_source))
    elseif pr then
      none[#none + 1] = sys_name(t, o.system)
    end
  end
  local idle_text = ""
  if #idle + #none > 0 then
    idle_text = (" Idle power of owned machines: %s%s."):format(#idle > 0 and table.concat(idle, ", ") or "none cited",
      #none > 0 and ("; %s: none we can cite, not costed"):format(table.concat(none, ", ")) or "")
  end
  local lo, hi
  for _, r in ipairs(t.info.offers or {}) do
    lo = (not lo or r.date < lo) and r.date or lo
    hi = (not hi or r.date > hi) and r.date or hi
  end
  local rents = lo and (" Rents: each offer's list price, read from %s to %s."):format(lo, hi) or ""
  return ("Prices: %s.%s%s Sources in the appendix."):format(table.concat(out, "; "), idle_text, rents)
end

local TERM_WORDS = { life_years = "a purchase spread over %s years", kwh_usd = "electricity at $%s per kWh",
                     pue = "a server room's overhead (PUE) %s", facility_usd_per_kw_month = "room and power capacity $%s per kW a month",
                     support_share = "support %s of a server's price a year", setup_h = "%s h setup per rented job" }

local function term_words(term)
  local w = TERM_WORDS[term.field]
  return w and w:format(term.field == "support_share" and fmt.pct(term.value) or fmt.rate(term.value))
end

local function terms_text(t)
  local out, own = {}, {}
  for _, term in ipairs(t.info.terms or {}) do
    local w = term_words(term)
    if w then
      out[#out + 1] = w
      if term.source == "the scenario's own figure" or (term.source or ""):find("assumption", 1, true) then own[#own + 1] = w end
    end
  end
  for _, j in ipairs(t.info.jobs or {}) do
    if j.team and j.tokens_basis == "assumed" then
      own[#own + 1] = ("%s tokens a %s job"):format(fmt.count(j.tokens), j.name)
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
  .. "prices rose in 2026 and rents fall as supply grows; every price here is dated."

-- The cheap step before signing: ten minutes of this tool on one rented GPU and a borrowed Spark.
local function next_text(t)
  local n = t.next_step
  local gpu, hour = "the HBM type above", ""
  if n then
    gpu = sys_name(t, n.system)
    gpu = (gpu:find("^[AEFHILMNORSX]") and "an " or "a ") .. gpu     -- "an H100", "a B200": as the letters are said
    hour = (": %s for an hour of the smallest %s instance, %s GPU%s, as listed %s"):format(fmt.usd(n.usd_per_hour),
      n.provider, fmt.int(n.gpus), n.gpus == 1 and "" or "s", n.date)
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
            match and match == R.subject(results) and gpu and "is a DGX Spark: its own GPU calibrated the Spark's figures"
            or "is neither a Spark nor an HBM GPU: it calibrated and checked the method only")
end

-- The run and the tool, as the document is filed; a decision derived when this file was drawn says so.
local function filed_text(results, t)
  local f = require("sparkreport.sections.common").filing(results)
  local derived = t and t.info.derived_at_render
  return ("Prepared for %s from run %s of %s, %s.%s"):format(f.team, f.run, f.date, f.tool, derived
    and (" The decision was derived again by %s when this report was drawn: the results file predates the "
      .. "decision's records."):format(derived) or "")
end

-- ---- appendix: terms, offers, method, risk sources ----------------------------------------------------

-- The rental offers the decision read (the stage's info.offers), each with its billing, source and date.
function S.offers_table(d, offers, name)
  local rows = {}
  for _, o in ipairs(offers) do
    local sizes = {}
    for _, n in ipairs(o.instance_gpus or {}) do sizes[#sizes + 1] = fmt.int(n) end
    local step = o.billing_step_s >= 3600 and "hour" or o.billing_step_s >= 60 and "minute" or "second"
    rows[#rows + 1] = { ("%s %s"):format(o.provider, name(o.system)), s(fmt.usd(o.usd_per_gpu_hour)),
      table.concat(sizes, ", "), step, ("%s; %s"):format(o.source, o.date) }
  end
  if #rows == 0 then return end
  d:table { columns = { { title = "Offer", width = 0.17 }, { title = "Per GPU-\nhour", align = "right", width = 0.08 },
                        { title = "GPUs", width = 0.08 }, { title = "Billed by\nthe", width = 0.08 },
                        { title = "Source; date" } }, rows = rows,
            caption = "The rental offers a job may take: price per GPU-hour, the GPU counts an instance comes in "
              .. "(a job pays for the whole instance), the billing step (time is rounded up to it), source and date." }
end

local RISK_SOURCES = {
  { "bitsandbytes on GB10", "bitsandbytes-foundation/bitsandbytes pull request 1829 'Add release for DGX Spark cuda121' (merged 2025-12-11): aarch64 wheels lacked sm_121" },
  { "FlashAttention on GB10", "Dao-AILab/flash-attention issue 1969 'Support for compute capability 12.1 (sm121)' (open since 2025-10-28; pull request 2257, 2026-02-13, still open)" },
  { "DeepSpeed on Arm", "deepspeedai/DeepSpeed issue 5640 'Does deepspeed support aarch64?' (CPU comm op includes immintrin.h)" },
  { "GB10 kernels", "NVIDIA/dgx-spark-playbooks issue 22: sm_121 lacks tcgen05, TMEM and TMA multicast in its toolchain" },
  { "Quotas", "AWS Service Quotas: on-demand GPU instances are limited per account by a vCPU quota raised on request" },
}

local function appendix_body(d, t)
  local rows = {}
  for _, term in ipairs(t.info.terms or {}) do rows[#rows + 1] = { term_words(term) or term.field, term.source or "" } end
  for _, o in ipairs(t.order) do
    local pr = o.kind ~= "rent" and t.prices[o.system]
    if pr then
      rows[#rows + 1] = { ("idle power of a %s"):format(sys_name(t, o.system)), pr.idle_power_w
        and ("%s W: %s; %s"):format(fmt.int(pr.idle_power_w), pr.idle_power_covers or "", pr.idle_power_source or "")
        or "none we can cite: its idle hours are not costed" }
    end
  end
  d:table { columns = { { title = "Term", width = 0.3 }, { title = "Source" } }, rows = rows,
            caption = "The team's terms of owning and renting, each with where its figure comes from." }
  S.offers_table(d, t.info.offers or {}, function(id) return sys_name(t, id) end)
  d:paragraph(t.info.method or "", "small")
  rows = {}
  for _, r in ipairs(RISK_SOURCES) do rows[#rows + 1] = { r[1], r[2] } end
  d:table { columns = { { title = "Risk", width = 0.2 }, { title = "Source" } }, rows = rows,
            caption = "Where the risks on the first page come from." }
end

-- ---- the section ----------------------------------------------------------------------------------

function S.team(doc, results)
  local td = results.team_decision
  if type(td) ~= "table" or not (results.scenario or {}).team then return end
  local common = require "sparkreport.sections.common"
  local f = common.filing(results)
  common.title_block(doc, results, ("The answer first, prepared for %s; the machine that ran it: the technical annex.")
                     :format(f.team), common.decision_title(results))
  if td.error then
    doc:notice(("The team decision could not be made: %s. The per-job answer follows."):format(td.error), "bad")
    return
  end
  local t = S.gather(results)
  if not (t and t.answer) then return end
  doc:paragraph(answer_sentence(t), "bold")
  local bt, ct = binding_text(t), count_text(t)
  if bt then doc:paragraph(bt) end
  if ct then doc:paragraph(ct) end
  local sc = scope_text(t)
  if sc then doc:paragraph(sc, "small") end
  doc:paragraph(team_text(t))
  options_table(doc, t)
  local jt, sw = jobs_text(t), software_text(t)
  if sw then jt = jt ~= "" and (jt .. " " .. sw) or sw end
  if jt ~= "" then doc:paragraph(jt, "small") end
  doc:paragraph("What flips it. " .. deadline_text(t) .. " " .. size_text(t) .. " " .. volume_text(t) .. " "
    .. rent_text(t) .. " " .. spark_text(t) .. " " .. compiled_text(t))
  ties_table(doc, t)
  local pt = people_text(t)
  if pt then doc:paragraph(pt) end
  doc:paragraph(prices_text(t) .. " " .. terms_text(t), "small")
  doc:paragraph(RISKS, "small")
  doc:paragraph(next_text(t))
  doc:paragraph(machine_line(results) .. " " .. filed_text(results, t), "small")
  local label = appendix.defer(doc, "The team decision: terms, offers, method and risk sources",
                               function(d) appendix_body(d, t) end)
  doc:paragraph(("The terms, every offer with its billing, the method and the risks' sources: %s."):format(label), "small")
end

return S
