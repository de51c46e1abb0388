-- tests/e2e/quick.lua: the whole path on scenarios/quick.lua: run folder and files, the
-- results schema and its statistics, the PDF's text against results.json (pdftotext), and
-- render reproducing report.pdf byte for byte.
local env = ...
local json = require "json"
local sh, q = env.sh, env.q

local fail = env.fail
local read = env.read
local rate = env.rate

local out, code = sh(("cd %s && %s run scenarios/quick.lua -o %s -q"):format(q(env.srcdir), q(env.bin), q(env.out .. "/reports")))
if code ~= 0 then fail("run exited %d: %s", code, out) end
local dir = out:match("^(.-)/report%.pdf\n$")
if not dir then fail("run printed %q, expected the report path", out) end
if not dir:match("/reports/%d%d%d%d%d%d%d%dT%d%d%d%d%d%dZ%-[%w._-]+%-quick$") then fail("run folder %s", dir) end
for _, f in ipairs { "report.pdf", "annex.pdf", "results.json", "results.csv", "run.log" } do
  if not io.open(dir .. "/" .. f) then fail("missing %s", f) end
end
local link = sh("readlink " .. q(env.out .. "/reports/latest")):gsub("%s+$", "")
if link ~= dir:match("[^/]+$") then fail("latest -> %s, expected %s", link, dir:match("[^/]+$")) end

-- results.json
local r = json.decode(read(dir .. "/results.json"))
local version = env.schema_version
if r.schema ~= "sparkreport/results" or r.schema_version ~= version or r.status ~= "complete" then
  fail("results.json: schema %s version %s (the writer's is %d), status %s", tostring(r.schema),
       tostring(r.schema_version), version, tostring(r.status))
end
for _, k in ipairs { "host", "cpu", "memory", "os", "build", "cuda", "tool" } do
  if r.context[k] == nil then fail("context lacks %s", k) end
end
local sum = sh("sha256sum " .. q(env.srcdir .. "/scenarios/quick.lua")):match("^(%x+)")
if r.scenario.sha256 ~= sum then fail("scenario sha256 %s, file %s", r.scenario.sha256, sum) end
if r.scenario.source ~= read(env.srcdir .. "/scenarios/quick.lua") then fail("scenario source not kept") end
local bw = r.experiments[1]
assert(bw.name == "bandwidth" and bw.status == "complete" and #bw.results > 0)
for _, rec in ipairs(bw.results) do
  if not rec.valid then fail("%s %s invalid", rec.kernel, rec.working_set_bytes) end
  local lo = math.huge
  for _, s in ipairs(rec.samples_s) do lo = math.min(lo, s) end
  if lo ~= rec.time_s.min then fail("time_s.min %g is not the smallest sample %g", rec.time_s.min, lo) end
  local want = rec.bytes_per_pass / lo / 1e9
  if math.abs(rec.gbps_best - want) > 1e-9 * want then fail("gbps_best %g, samples give %g", rec.gbps_best, want) end
  if #rec.samples_s < 3 then fail("%d samples, min_reps is 3", #rec.samples_s) end
end

-- results.csv: a header and one row per record
local csv = read(dir .. "/results.csv")
local lines = {}
for l in csv:gmatch("[^\n]+") do lines[#lines + 1] = l end
if not lines[1]:find("^experiment,device,") then fail("csv header %s", lines[1]) end
local records = 0                      -- every experiment's records, one row each
for _, e in ipairs(r.experiments) do records = records + #e.results end
if #lines ~= records + 1 then fail("csv has %d rows for %d records", #lines - 1, records) end

-- the PDF's text
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found" end
local text = sh(("%s -layout %s - && %s -layout %s -"):format(q(env.pdftotext), q(dir .. "/report.pdf"), q(env.pdftotext),
                q(dir .. "/annex.pdf")))      -- the decision report, then the technical annex
for _, title in ipairs { "Quick check", "Summary", "Memory bandwidth", "Bandwidth against working set, FP64",
                         "Thread scaling", "Appendix", "Environment", "Catalog sources", "Scenario",
                         "Detail: triad", "NVIDIA DGX Spark (GB10)" } do
  if not text:find(title, 1, true) then fail("PDF lacks %q", title) end
end
local top = 0
for _, rec in ipairs(bw.results) do if rec.series == "size" then top = math.max(top, rec.array_bytes) end end
for _, rec in ipairs(bw.results) do
  if rec.series == "size" and rec.array_bytes == top then
    local row = ("%s%%s+fp64%%s+%s%%s+%s"):format(rec.kernel, rate(rec.gbps_best):gsub("%.", "%%."),
                                                 rate(rec.gbps_median):gsub("%.", "%%."))
    if not text:find(row) then fail("PDF lacks the row %s with %s / %s GB/s", rec.kernel, rate(rec.gbps_best), rate(rec.gbps_median)) end
  end
end
local pages = text:match("Page 1 of (%d+)")
if not pages or not text:find("Page " .. pages .. " of " .. pages, 1, true) then fail("page numbers") end
if not text:find(r.scenario.sha256, 1, true) then fail("PDF lacks the scenario hash") end

-- the scale-out projection: the same global batch on N devices, the step split N ways plus the
-- exposed gradient traffic over the catalog's link; rows for Sparks and an 8-GPU HBM node
local model, one = r.experiments[#r.experiments], {}
for _, rec in ipairs(model.results) do
  if rec.series == "scaleout" and rec.devices == 1 then one[rec.workload .. "/" .. rec.system] = rec end
end
local spark2
for _, rec in ipairs(model.results) do
  if rec.series == "scaleout" and rec.devices > 1 then
    local base = one[rec.workload .. "/" .. rec.system]
    if not base then fail("scaleout %s on %d x %s has no one-device row", rec.workload, rec.devices, rec.system) end
    if math.abs(rec.tokens_per_s * rec.step_s - base.tokens_per_s * base.step_s) > 1e-6 * base.tokens_per_s * base.step_s then
      fail("scaleout %s %s x%d: not the recipe's global batch per step", rec.workload, rec.system, rec.devices)
    end
    -- a configuration the projection itself timed (rec.from) takes its hours and step from that timing,
    -- which may run another configuration than one device (no recompute where one device needs it): its
    -- efficiency is the scale model's, what the traffic costs, never above 1
    if rec.from then
      if not (rec.scaling_efficiency > 0 and rec.scaling_efficiency <= 1) then
        fail("scaleout %s %s x%d: efficiency %s outside (0, 1]", rec.workload, rec.system, rec.devices, rec.scaling_efficiency)
      end
    elseif math.abs(rec.scaling_efficiency - base.step_s / (rec.devices * rec.step_s)) > 1e-9 then
      fail("scaleout %s %s x%d: efficiency is not step(1) / (N step(N))", rec.workload, rec.system, rec.devices)
    end
    -- a configuration the projection itself timed (rec.from) keeps its step, traffic hidden or not
    if not rec.from and not (rec.step_s > base.step_s / rec.devices) then
      fail("scaleout %s %s x%d: no traffic", rec.workload, rec.system, rec.devices)
    end
    if rec.system == "dgx-spark" and rec.devices == 2 and rec.workload == "gpt2-124m" then spark2 = rec end
  end
end
if not spark2 or spark2.link_Bps ~= 25e9 or not spark2.link_source:find("^spec: ConnectX%-7") then
  fail("two Sparks: not over the catalog's ConnectX-7 (25 GB/s)")
end
for _, want in ipairs { "Scale%-out projection", "two Sparks", "four Sparks", "eight Sparks", "8%-GPU node," } do
  if not text:find(want) then fail("PDF lacks %q", want) end
end
local function big(x)        -- sparkreport.format's rule: thousands separators from 1,000 up
  if x < 1000 then return rate(x) end
  return (("%d"):format(math.floor(x + 0.5)):reverse():gsub("(%d%d%d)", "%1,"):reverse():gsub("^,", ""))
end
local row = "two Sparks%s+25%.0 s%s+" .. big(spark2.tokens_per_s):gsub("%.", "%%.") .. " p"
if not text:find(row) then fail("PDF lacks the two-Spark row with %s tokens/s", big(spark2.tokens_per_s)) end

-- render: from results.json alone, byte-identical to the run's PDF, and stable under SOURCE_DATE_EPOCH
local a, b = env.out .. "/a.pdf", env.out .. "/b.pdf"
sh(("%s render %s -o %s"):format(q(env.bin), q(dir .. "/results.json"), q(a)))
if read(a) ~= read(dir .. "/report.pdf") then fail("render differs from the run's report.pdf") end
if read(env.out .. "/a-annex.pdf") ~= read(dir .. "/annex.pdf") then fail("render differs from the run's annex.pdf") end
sh(("SOURCE_DATE_EPOCH=1700000000 %s render %s -o %s"):format(q(env.bin), q(dir .. "/results.json"), q(a)))
sh(("SOURCE_DATE_EPOCH=1700000000 %s render %s -o %s"):format(q(env.bin), q(dir .. "/results.json"), q(b)))
if read(a) ~= read(b) then fail("two renders with the same SOURCE_DATE_EPOCH differ") end
if read(a) == read(dir .. "/report.pdf") then fail("SOURCE_DATE_EPOCH did not change the PDF date") end
return "pass"
