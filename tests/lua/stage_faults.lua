-- tests/lua/stage_faults.lua: what a stage writes is kept only as the results reader would accept it
-- (lua/sparkreport/runner.lua's keep_decision and keep_projection, schema.check_stage): a record the
-- reader refuses is the stage's fault, its records are left out with the error in their place and
-- results.stage_faults lists it, so that the run keeps its measurements (issue 50, class 1).
local runner = require "sparkreport.runner"
local schema = require "sparkreport.schema"

local team = { people = 1, deadline_h = 8766, life_years = 0.25, kwh_usd = 10,
               jobs = { { workload = "gpt2-124m", per_month = 0.01 } } }
local function option(extra)
  local r = { series = "option", option = "spark", kind = "spark", count = 1, outlay_usd = 4699, usd_per_year = 18809,
              usd_per_job = 156742, utilisation = 0.001, keeps_up = true, meets_deadline = true, answer = true,
              jobs_per_year = 0.12 }
  for k, v in pairs(extra) do r[k] = v end
  return r
end
local function decision(rec) return { results = { rec }, info = { answer = { option = "spark", meets_deadline = true } } } end

-- the stage writes no percentiles where its simulation counted no job: the reader accepts that
local doc = { scenario = { team = team } }
assert(schema.check_stage({ scenario = doc.scenario, team_decision = decision(option { jobs_simulated = 0 }) },
                          "team_decision"))
local kept = runner.keep_decision(doc, decision(option { jobs_simulated = 0 }))
assert(kept.results and doc.stage_faults == nil)
-- with jobs counted and no 95th percentile, the reader refuses: the records are left out, the error says why
local out = runner.keep_decision(doc, decision(option { jobs_simulated = 987, result_p50_h = 43.9 }))
local want = "the team decision wrote a record the results reader refuses (team_decision.results[1].result_p95_h "
             .. "is missing), a fault of sparkreport's: its records are left out; the measurements are kept"
assert(out.results == nil and out.error == want, out.error)
assert(#doc.stage_faults == 1 and doc.stage_faults[1] == want)
-- the stage's own error (no option keeps up) is its answer, not a fault
local none = runner.keep_decision(doc, { error = "no way to get the compute keeps up", results = { 1 } })
assert(none.error == "no way to get the compute keeps up" and none.results == nil and #doc.stage_faults == 1)

-- the projection: records the reader refuses are left out, info.projection_error says why
local e = { name = "model", status = "complete", results = {}, info = {} }
local pdoc = { experiments = { { name = "bandwidth", results = {} }, e } }
runner.keep_projection(pdoc, 2, { results = { { series = "projection", workload = "gpt2-124m", system = "b200",
                                                 hours = "soon" } }, info = { note = "x" } })
assert(#e.results == 0 and e.info.note == nil, "refused records were kept")
assert(e.info.projection_error:find("^the projection wrote a record the results reader refuses %(experiments%[2%]%.results%[1%]%.")
       and #pdoc.stage_faults == 1, e.info.projection_error)
runner.keep_projection(pdoc, 2, { results = {}, info = { note = "x" } })
assert(e.info.note == "x" and #pdoc.stage_faults == 1)
