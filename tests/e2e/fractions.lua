-- tests/e2e/fractions.lua: no efficiency or fraction above 1.05 in a results document
-- (tests/fractions.lua's scan: ceilings, compression, the calibration's compute efficiencies and its
-- memory ones beyond the caches, the projections' scaling): the recorded default run of this
-- version (tests/fixtures/rerun; the one recorded before the ceilings counted only bytes known to
-- move had 23), and a planted document is caught exactly where it should be, with what the scan
-- leaves alone (in-cache memory efficiencies, a vendor claim, the stack profiles' fitted
-- efficiencies) left alone.
local env = ...
local sh, q, fail, read, json = env.sh, env.q, env.fail, env.read, require "json"
local scan = dofile(env.srcdir .. "/tests/fractions.lua")

local function load_gz(path, name)
  local out = env.out .. "/" .. name
  sh(("gzip -dc %s > %s"):format(q(path), q(out)))
  return json.decode(read(out)), out
end

-- this version's default run: nothing above 1.05
local doc, path = load_gz(env.srcdir .. "/tests/fixtures/rerun/default.json.gz", "rerun.json")
local bad = scan.above(doc)
if #bad > 0 then fail("the recorded default run has %d above 1.05, first %s = %.3f", #bad, bad[1].path, bad[1].value) end
if #scan.all(doc) < 50 then fail("the recorded default run has only %d efficiencies and fractions", #scan.all(doc)) end
local lua = arg and arg[-1] or "lua5.4"          -- the interpreter running the tests
local out, rc = sh(("%s %s %s"):format(q(lua), q(env.srcdir .. "/tests/fractions.lua"), q(path)))
if rc ~= 0 or not out:find(" 0 above 1.05", 1, true) then fail("the command line scan: exit %s, %s", tostring(rc), out) end

-- a planted document
local planted = {
  ceilings = { weight_formats = { { read_fraction = 1.2 }, { read_fraction = 0.9 } }, gemm = { { efficiency = 1.01 } } },
  experiments = {
    { name = "bandwidth", info = { dram = { gbps = 50, working_set_bytes = 1e9 } }, results = {} },
    { name = "model", info = {
        calibration = { classes = {
          { class = "matmul", basis = "flops", points = { { x = 1e6, eta = 0.5 }, { x = 1e9, eta = 1.1 } } },
          { class = "optimizer", basis = "bytes", points = { { x = 1e6, eta = 1.6 }, { x = 2e9, eta = 1.2 } } } },
          kinds = { { class = "optimizer", kind = "adamw", basis = "bytes",
                      points = { { x = 1e6, eta = 1.7 }, { x = 3e9, eta = 1.3 } } } } },
        stack_profiles = { { params = { matmul_eta_hopper = 1.3, fraction_x = 2 } } } },
      results = { { series = "scaleout", scaling_efficiency = 1.04, scaling_efficiency_high = 1.07 },
                  { series = "vendor_claim", share_of_peak = 27, claim_fraction = 3 },
                  { series = "projection", mfu = 1.5 } } },
  },
}
local want = {
  ["ceilings.weight_formats[0].read_fraction"] = 1.2,
  ["experiments[1].results[0].scaling_efficiency_high"] = 1.07,
  ["experiments[1].results[2].mfu"] = 1.5,
  ["experiments[1].info.calibration.classes[0].points[1].eta"] = 1.1,
  ["experiments[1].info.calibration.classes[1].points[1].eta"] = 1.2,
  ["experiments[1].info.calibration.kinds[0].points[1].eta"] = 1.3,
}
local got = scan.above(planted)
for _, b in ipairs(got) do
  if want[b.path] ~= b.value then fail("planted: %s = %s was not planted above 1.05", b.path, tostring(b.value)) end
  want[b.path] = nil
end
for p in pairs(want) do fail("planted: %s not caught", p) end
return "pass"
