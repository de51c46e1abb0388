-- tests/e2e/roundtrip.lua: the rerun guarantee, for every scenario in scenarios/ (a new scenario is
-- covered by being there): run at reduced budgets (the --set values below, for the experiments the
-- scenario has), render the results again, compare them with themselves (every result unchanged,
-- nothing not comparable, no projected row moved, exit 0) and with a copy whose raw samples are 10 %
-- slower (every compared result 1/1.1 the baseline's performance, the slower ones named, exit 6).
-- The default scenario is then rerun as its report's appendix says, against the first run: the rerun
-- writes comparison.pdf, records the baseline's path and sha256, and its decision page says whether
-- the answer changed. The recorded full default run is tests/e2e/rerun_fixture.lua's.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

-- what makes each experiment take seconds; the scenario's budget last
local REDUCE = {
  bandwidth = { "min_reps=12", "max_reps=20", "sizes=16KiB,256KiB,1MiB", "sample_s=0.0005", "budget_s=2" },
  precision = { "square=64,256", "model_shapes=false", "sweep_size=8MiB", "sweep_max_k=16", "sweep_gemm_mn=1024",
                "gpu_sweep_size=64MiB", "gpu_sweep_max_k=64", "numerics_shape=64,64,256", "min_reps=10",
                "max_reps=12", "sample_s=0.005", "budget_s=3" },
  train = { "shapes=tiny", "steps=30", "budget_s=8" },
  compress = { "weights_size=16MiB", "batches=1", "layer_rows=32", "model=none", "min_reps=10", "max_reps=12",
               "sample_s=0.002", "budget_s=2" },
  model = { "configs=2", "extra_configs=1", "base_hidden=32", "base_seq=32", "steps=3" },
  collective = { "max_bytes=1MiB", "budget_s=3" },
  tenants = { "size=24MiB", "shape=tiny", "min_reps=3", "max_reps=5", "budget_s=4" },
}

-- the constructors that make no experiment
local NOT_EXPERIMENTS = { scenario = true, team = true, job = true, measured = true }

local function experiments_of(path)
  local seen, list = {}, {}
  for name in read(path):gmatch("sr%.([%a_]+)%s*{") do
    if not NOT_EXPERIMENTS[name] and not seen[name] then seen[name] = true; list[#list + 1] = name end
  end
  return list
end

local function sets(path)
  local out = {}
  for _, name in ipairs(experiments_of(path)) do
    if not REDUCE[name] then fail("%s: no reduction for experiment '%s' (add one to tests/e2e/roundtrip.lua)", path, name) end
    for _, s in ipairs(REDUCE[name]) do out[#out + 1] = "--set " .. q(name .. "." .. s) end
  end
  out[#out + 1] = "--set budget_s=20 --set baseline=none"
  return table.concat(out, " ")
end

local function write(path, doc)
  local f = assert(io.open(path, "w"))
  f:write(json.encode(doc))
  f:close()
end

-- A copy of doc whose raw samples are 10 % slower: seconds x 1.1, rates / 1.1.
local function slowed(doc)
  local n = 0
  for _, e in ipairs(doc.experiments) do
    for _, rec in ipairs(e.results or {}) do
      for k, v in pairs(rec) do
        if type(k) == "string" and k:find("^samples_") and type(v) == "table" then
          local f = k:find("_s$") and not k:find("_per_s$") and 1.1 or 1 / 1.1
          for i, x in ipairs(v) do v[i] = x * f end
          n = n + 1
        end
      end
    end
  end
  return doc, n
end

-- compare A B --json: the comparison document and the exit code.
local function compare(a, b)
  local out, code = sh(("%s compare %s %s --json 2>&1"):format(q(env.bin), q(a), q(b)))
  local ok, doc = pcall(json.decode, out)
  if not ok then fail("compare %s %s exited %d:\n%s", a, b, code, out:sub(1, 2000)) end
  return doc, code
end

-- The round trip of one results file; what says it failed names the scenario.
local function roundtrip(name, results)
  local self, code = compare(results, results)
  if code ~= 0 then fail("%s: compare with itself exited %d", name, code) end
  local c = self.counts
  if c.slower + c.faster + c.inconclusive ~= 0 or c.unchanged ~= c.compared then
    fail("%s: compared with itself: %s", name, self.summary)
  end
  local real, first = 0, nil   -- records that failed validation in the run are not comparable, rightly
  for _, x in ipairs(self.not_comparable) do
    if x.count > 0 and not x.reason:find("^failed validation") then first = first or x; real = real + x.count end
  end
  if real > 0 then
    fail("%s: %d results not comparable with themselves, first %s %s: %s", name, real, first.experiment, first.label,
         first.reason)
  end
  if #self.derived ~= 0 then fail("%s: %s changed against itself (%s)", name, self.derived[1].label, self.derived[1].fields) end
  for _, r in ipairs(self.projections) do
    if r.moved then fail("%s: projection %s on %s moved against itself: %s", name, r.workload, r.system, r.why) end
  end
  local doc, n = slowed(json.decode(read(results)))
  local slow = env.out .. "/" .. name .. "-slower.json"
  write(slow, doc)
  local cmp
  cmp, code = compare(results, slow)
  if n == 0 or c.compared == 0 then          -- a GPU scenario without a device: nothing was sampled
    if code ~= 0 then fail("%s: nothing to compare, yet exit %d", name, code) end
    return "nothing sampled"
  end
  -- A result whose samples spread by less than 10 % and number at least 5 a side is wholly apart from its
  -- slowed copy: the U test's p is at most 2/C(10,5) < 0.01, so it must be slower. On a busy machine
  -- every result may spread more; then "unchanged" is the right verdict and only the arithmetic is checked.
  local apart = 0
  for _, r in ipairs(cmp.results) do
    if math.abs(r.speedup * 1.1 - 1) > 1e-9 then
      fail("%s: %s: performance %.6f of the baseline's, expected 1/1.1", name, r.label, r.speedup)
    end
    if r.verdict == "faster" then fail("%s: %s is faster than its slowed copy", name, r.label) end
    if r.exact and r.n_baseline >= 5 and r.min_p < 0.01 and r.p < 0.01 and r.verdict ~= "slower" then
      fail("%s: %s: p = %g, yet %s", name, r.label, r.p, r.verdict)
    end
    if r.verdict == "slower" then apart = apart + 1 end
  end
  if (code == 6) ~= (cmp.counts.slower > 0) then fail("%s: exit %d with %d slower", name, code, cmp.counts.slower) end
  if apart == 0 then
    local spread = 0
    for _, e in ipairs(doc.experiments) do
      for _, rec in ipairs(e.results or {}) do
        local xs = rec.samples_s
        if type(xs) == "table" and #xs >= 5 then
          local lo, hi = math.huge, 0
          for _, x in ipairs(xs) do lo, hi = math.min(lo, x), math.max(hi, x) end
          if hi < lo * 1.1 then spread = spread + 1 end     -- the ratio is the same in the slowed copy
        end
      end
    end
    if spread > 0 then fail("%s: %d results spread less than 10 %%, yet none is slower than its slowed copy", name, spread) end
    return ("%d compared; every one spread more than 10 %% (a busy machine): none could be slower"):format(cmp.counts.compared)
  end
  if cmp.counts.compared ~= c.compared then fail("%s: %d compared, %d against itself", name, cmp.counts.compared, c.compared) end
  return ("%d compared, %d slower"):format(cmp.counts.compared, cmp.counts.slower)
end

-- Per "experiment device series": the fields some record carries (any) and those every record carries
-- (every); a field written only for some records, such as a failed validation's error, is in any alone.
local function shape(doc)
  local any, every = {}, {}
  for _, e in ipairs(doc.experiments) do
    for _, rec in ipairs(e.results or {}) do
      local id = ("%s %s %s"):format(e.name, e.device or "-", rec.series or "-")
      any[id] = any[id] or {}
      for k in pairs(rec) do any[id][k] = true end
      if not every[id] then
        every[id] = {}
        for k in pairs(rec) do every[id][k] = true end
      else
        for k in pairs(every[id]) do if rec[k] == nil then every[id][k] = nil end end
      end
    end
  end
  return any, every
end

local notes, first_default = {}, nil
local list = sh("ls " .. q(env.srcdir .. "/scenarios") .. "/*.lua")
for path in list:gmatch("[^\n]+") do
  local name = path:match("([^/]+)%.lua$")
  local root = env.out .. "/" .. name
  local out, code = sh(("cd %s && %s run %s -o %s -q %s"):format(q(env.srcdir), q(env.bin), q(path), q(root), sets(path)))
  if code ~= 0 and code ~= 5 then fail("%s: run exited %d:\n%s", name, code, out) end
  local folder = out:match("([^\n]*)/report%.pdf\n")
  if not folder then fail("%s: run printed no report:\n%s", name, out) end
  local results = folder .. "/results.json"
  local pdf = env.out .. "/" .. name .. "-render.pdf"
  local rout, rcode = sh(("%s render %s -o %s"):format(q(env.bin), q(results), q(pdf)))
  if rcode ~= 0 then fail("%s: render exited %d: %s", name, rcode, rout) end
  for _, file in ipairs { "report.pdf", "annex.pdf" } do      -- the run wrote both documents
    local f = io.open(folder .. "/" .. file)
    if not f then fail("%s: the run folder has no %s", name, file) end
    f:close()
  end
  notes[#notes + 1] = name .. ": " .. roundtrip(name, results)
  if name == "default" then first_default = folder end
end
if not first_default then fail("scenarios/default.lua was not among the scenarios") end

-- the recorded full default run (tests/fixtures/rerun/README.md): the same round trip, and it agrees
-- with the writer: the schema version src/util/schema.h defines, and every series the reduced run above
-- wrote carries the fields it carries there
local fixture = env.out .. "/fixture.json"
sh(("gzip -dc %s > %s"):format(q(env.srcdir .. "/tests/fixtures/rerun/default.json.gz"), q(fixture)))
local fx = json.decode(read(fixture))
local version = env.schema_version
local regen = "regenerate it (tests/fixtures/rerun/README.md)"
if fx.schema_version ~= version then
  fail("the default-run fixture has results schema version %s, the writer %s: %s", tostring(fx.schema_version), version, regen)
end
-- a field the writer writes that no fixture record of the series has is new; one every fixture record
-- has that the writer never writes is gone
local fx_any, fx_every = shape(fx)
local w_any, w_every = shape(json.decode(read(first_default .. "/results.json")))
-- what a record says only when its measurement was repeated or beaten (compression's one read
-- record, measured again when a product outran it; the fractions of it when it is a ceiling), which
-- one of the two runs may never need; and a compression record's fractions of a read, written only
-- when its matrix is DRAM-sized (the reduced run's 16 MiB never is)
local conditional = { remeasured = true, not_a_ceiling = true, read_fraction_median = true, read_fraction_best = true,
                      read_fraction_dram = true, rerun = true }
for id, fields in pairs(w_every) do
  if fx_any[id] then
    for k in pairs(fields) do
      if not fx_any[id][k] and not conditional[k] then fail("the writer's %s records carry %s; the fixture's never do: %s", id, k, regen) end
    end
    for k in pairs(fx_every[id]) do
      if not w_any[id][k] and not conditional[k] then fail("the fixture's %s records carry %s; the writer's never do: %s", id, k, regen) end
    end
  end
end
notes[#notes + 1] = "fixture: " .. roundtrip("fixture", fixture)

-- a results file of schema version 1 (tests/fixtures/decision/default.json.gz, an older default run)
-- compares with the fixture either way: fields added since listed, version 1's repeats not compared
local older = env.out .. "/older.json"
sh(("gzip -dc %s > %s"):format(q(env.srcdir .. "/tests/fixtures/decision/default.json.gz"), q(older)))
for _, pair in ipairs { { older, fixture, "not in the baseline", "baseline" }, { fixture, older, "not in the current run", "current run" } } do
  local cmp, code = compare(pair[1], pair[2])
  if code ~= 0 and code ~= 6 then fail("version 1 against version %d: exit %d", version, code) end
  local added, repeats = false, 0
  for _, f in ipairs(cmp.fields_added) do
    if f.experiment == "model cpu" and f.series == "calibration" and f.field == "config" and f.side == pair[3] then
      added = true
    end
  end
  if not added then fail("comparing with version 1: config is not listed as %s", pair[3]) end
  for _, n in ipairs(cmp.not_comparable) do
    if n.reason:find("^recorded %d+ times in the " .. pair[4] .. " without a field that tells them apart %(written by results "
                     .. "schema version 1%)$") then repeats = repeats + 1 end
  end
  if repeats == 0 then fail("version 1's repeated calibration records are not reported as such") end
  if cmp.counts.compared == 0 then fail("nothing compared between version 1 and version %d: %s", version, cmp.summary) end
end

-- the default scenario rerun against its first run, as the appendix prints it: the same command with
-- --set baseline=<that run's folder> (a name inside the reports folder)
local doc1 = json.decode(read(first_default .. "/results.json"))
local run_folder = doc1.scenario.run_folder
if run_folder ~= first_default:match("([^/]+)$") then
  fail("results.json records the run folder %s; the run is in %s", tostring(run_folder), first_default)
end
local path = env.srcdir .. "/scenarios/default.lua"
local out, code = sh(("cd %s && %s run %s -o %s -q %s --set baseline=%s"):format(q(env.srcdir), q(env.bin), q(path),
  q(env.out .. "/default"), sets(path), q(run_folder)))
local second = out:match("([^\n]*)/report%.pdf\n")
if not second or not out:find(second .. "/comparison.pdf\n", 1, true) then fail("the rerun printed (exit %d):\n%s", code, out) end
local cmp = json.decode(read(second .. "/comparison.json"))
local want = cmp.counts.slower > 0 and 6 or 0
if code ~= want and code ~= 5 then fail("the rerun exited %d; its comparison has %d slower", code, cmp.counts.slower) end
local doc2 = json.decode(read(second .. "/results.json"))
local b = doc2.baseline or fail("the rerun's results.json has no baseline block")
local real = sh("realpath " .. q(first_default .. "/results.json")):gsub("%s+$", "")
if b.path ~= real then fail("baseline path %s, expected %s", tostring(b.path), real) end
local sum = sh("sha256sum " .. q(first_default .. "/results.json")):match("^(%x+)")
if b.sha256 ~= sum then fail("baseline sha256 %s, the file's %s", tostring(b.sha256), sum) end
if b.summary ~= cmp.summary then fail("results.json says %q, comparison.json %q", b.summary, cmp.summary) end
if b.projections.compared ~= #cmp.projections then
  fail("%d projected rows recorded as compared, the comparison has %d", b.projections.compared, #cmp.projections)
end
if not env.pdftotext or env.pdftotext == "" then return "skip", "pdftotext not found; " .. table.concat(notes, "; ") end
local text = env.plain(second .. "/report.pdf"):gsub("%s+", " ")
local at = text:find("Against the baseline run ", 1, true)
local sentence = at and text:sub(at, at + 700) or ""
if not sentence:find(real, 1, true) or not sentence:find(sum:sub(1, 12), 1, true) then
  fail("the decision page does not name the baseline:\n%s", text:sub(1, 3000))
end
if not (sentence:find("no change: none of the %d+ rows above moved beyond its noise%.")
        or sentence:find("the answer changed in %d+ of the %d+ rows above: ")) then
  fail("the decision page's sentence: %s", sentence)
end
local first_text = env.plain(first_default .. "/annex.pdf"):gsub("%s+", "")
local cmd = ("Rerunandcomparewiththisrun:"):gsub("%s", "")
if not first_text:find(cmd, 1, true) or not first_text:find("--setbaseline=" .. run_folder, 1, true) then
  fail("the first run's annex lacks the command that reruns and compares with it")
end
return "pass"
