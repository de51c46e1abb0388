-- tests/e2e/team_terms.lua: guards src/decide/options.c (dc_sim_months), lua/sparkreport/schema.lua
-- (what the decision may leave out), lua/sparkreport/runner.lua (keep_decision) and src/cmd/run.c: a
-- one-person team with in-range terms at their edges (tests/scenarios/team-terms.lua: a hundredth of a
-- job a month, a year's deadline, a three-month life, $10 a kWh, PUE 3, 48 h setup) measures and writes
-- its report (exit 0; it measured, then exited 1 naming a temporary results.json: "result_p95_h is
-- missing"); the decision simulated enough jobs for a 95th percentile of every option, and page 1 says
-- the answer and the team in words, with no figure left out.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end

local out, rc = sh(("cd %s && %s run tests/scenarios/team-terms.lua -q -o %s"):format(q(env.srcdir), q(env.bin),
                                                                                       q(env.out .. "/r")))
if rc ~= 0 then fail("run exited %d: %s", rc, out) end
local dir = out:match("^(.-)/report%.pdf\n$") or fail("run printed %q", out)
local doc = json.decode(read(dir .. "/results.json"))
local td = doc.team_decision or fail("no team decision")
if td.error or doc.stage_faults then fail("the decision failed: %s", tostring(td.error)) end
local t = doc.scenario.team
if not (t.people == 1 and t.pue == 3 and t.setup_h == 48 and t.life_years == 0.25 and t.kwh_usd == 10
        and t.deadline_h == 8766 and t.jobs[1].per_month == 0.01) then
  fail("the team's terms were not kept as given: %s", json.encode(t))
end
local options = 0
for _, r in ipairs(td.results) do
  if r.series == "option" and r.keeps_up then
    options = options + 1
    -- at least 1000 jobs counted where the cap of 40000 arrivals allows: 0.01 a month allows it
    if not (r.jobs_simulated >= 900 and r.result_p95_h and r.result_p95_h > 0) then
      fail("option %s: %s jobs simulated, 95th percentile %s", r.option, tostring(r.jobs_simulated),
           tostring(r.result_p95_h))
    end
  end
end
if options == 0 then fail("no option keeps up with 0.01 jobs a month") end
local page = sh(("%s -l 1 %s - | tr -s ' \\n' '  '"):format(q(env.pdftotext), q(dir .. "/report.pdf")))
for _, want in ipairs { "The team: one person running, each month, 0.01 x GPT-2 124M pre-training of 9.89 B tokens "
                        .. "(the published run's); 95 % of results wanted within 8,766 h (1.00 years).",
                        "95 % of results within" } do
  if not page:find(want, 1, true) then fail("page 1 lacks %q:\n%s", want, page) end
end
if page:find("n/a", 1, true) then fail("page 1 leaves a figure out (n/a):\n%s", page) end
return "pass"
