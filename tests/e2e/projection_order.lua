-- tests/e2e/projection_order.lua: the projection is a stage over the results, after every
-- experiment ran, so the order of experiments in a scenario does not change it. The scale-out
-- scenario's shape (a collective across two ranks, then the model experiment) is run in both
-- orders under mpirun -np 2 on this host: both runs project the same catalog rows and scale-out
-- records, and both see the collective's link ("ran on one host"), which the model experiment
-- listed first did not when the projection ran inside it. Skips without MPI in the build or mpirun.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

local launch, why = env.mpi(2)
if not launch then return "skip", why end

local COLLECTIVE = 'sr.collective { max_bytes = "64KiB", step_factor = 64, min_reps = 2, max_reps = 3, sample_s = 0.002, '
  .. 'budget_s = 8 }'
local MODEL = 'sr.model { configs = 1, steps = 2, base_hidden = 32, base_seq = 16, workloads = { "gpt2-124m" }, '
  .. 'systems = { "dgx-spark", "h100-sxm" } }'

local function run(name, first, second)
  local path = env.out .. "/" .. name .. ".lua"
  local f = assert(io.open(path, "w"))
  f:write(('local sr = require "sparkreport"\nreturn sr.scenario { title = "order", budget_s = 60,\n  %s,\n  %s,\n}\n')
          :format(first, second))
  f:close()
  local out, code = sh(("cd %s && %s %s run %s -o %s -q 2>%s"):format(q(env.out), launch, q(env.bin), q(path),
    q(env.out .. "/reports-" .. name), q(env.out .. "/stderr")))
  if code ~= 0 then fail("%s: mpirun exited %d: %s %s", name, code, out, read(env.out .. "/stderr")) end
  local dir = out:match("^(.-)/report%.pdf\n$")
  if not dir then fail("%s: stdout is not one report path: %q", name, out) end
  local r = json.decode(read(dir .. "/results.json"))
  for _, e in ipairs(r.experiments) do
    if e.name == "model" then
      if e.status ~= "complete" then fail("%s: model %s", name, e.status) end
      return e
    end
  end
  fail("%s: no model experiment", name)
end

-- what the projection wrote that does not rest on this run's timings: the catalog rows
local function catalog_rows(e)
  local out = {}
  for _, r in ipairs(e.results) do
    if (r.series == "projection" or r.series == "scaleout") and r.system ~= "this" then
      out[#out + 1] = json.encode(r)
    end
  end
  table.sort(out)
  return out
end

local a = run("collective-first", COLLECTIVE, MODEL)
local b = run("model-first", MODEL, COLLECTIVE)
local ra, rb = catalog_rows(a), catalog_rows(b)
if #ra == 0 then fail("no catalog projection records") end
if #ra ~= #rb then fail("%d catalog records with the collective first, %d with the model first", #ra, #rb) end
for i = 1, #ra do
  if ra[i] ~= rb[i] then fail("the order changed a projection:\n%s\n%s", ra[i], rb[i]) end
end
if json.encode(a.info.scaleout_not_projected) ~= json.encode(b.info.scaleout_not_projected) then
  fail("the order changed what was not projected:\n%s\n%s", json.encode(a.info.scaleout_not_projected),
       json.encode(b.info.scaleout_not_projected))
end
-- both saw the collective: this machine's link was measured, on one host only
for name, e in pairs { ["collective first"] = a, ["model first"] = b } do
  local seen
  for _, s in ipairs(e.info.scaleout_not_projected) do
    if s.system == "this" then seen = s.reason end
  end
  if seen ~= "no link between machines measured: the collective ran on one host" then
    fail("%s: this machine's scale-out reason %q", name, tostring(seen))
  end
end
return "pass"
