-- tests/lua/marks.lua: a fraction of a measured ceiling prints as a percentage up to 1 (+1e-9) and
-- as both numbers above it, listed once as a value to measure again (never the word DEFECT); records that did not settle
-- get a dagger, a footnote in the next caption and a hollow marker; older records are unmarked.
-- ceilings.dram prefers the bandwidth experiment's info.dram, then any experiment's.
local marks = require "sparkreport.marks"
local ceilings = require "sparkreport.ceilings"

local mk = marks.new()
assert(mk:fraction(35.5, 35.5, "GB/s") == "100.0 %")
assert(mk:fraction(35.5 * (1 + 1e-12), 35.5, "GB/s") == "100.0 %", "rounding is no defect")
assert(mk:fraction(41.2, 35.5, "GB/s", "read") == "41.2 GB/s measured above the 35.5 GB/s ceiling")
assert(mk:fraction(41.2, 35.5, "GB/s", "read"):find("measured above", 1, true), "the same value twice")
assert(#mk.errors == 1 and mk.errors[1] == "read: 41.2 GB/s measured above the 35.5 GB/s ceiling")
assert(mk:fraction(nil, 35.5, "GB/s") == "n/a" and #mk.errors == 1)
assert(mk:fraction_cell(50, 35.5, "GB/s").tone == "bad" and mk:fraction_cell(20, 40, "GB/s").text == "50.0 %")
local paragraphs = {}
local doc = { paragraph = function(_, text) paragraphs[#paragraphs + 1] = text end }
mk:defects(doc)
assert(#paragraphs == 1 and paragraphs[1]:find("41.2 GB/s measured above the 35.5 GB/s ceiling", 1, true))
assert(paragraphs[1]:find("^To be measured again: 2 values above") and not paragraphs[1]:find("DEFECT", 1, true))
mk:defects(doc)
assert(#paragraphs == 1, "defects are listed once")

local r = { settled = false, cv_target = 0.025, stop = "budget", time_s = { cv = 0.36 }, samples_s = { 1, 2 } }
assert(mk:settled("36.0 %", r, "fill") == "36.0 % †")
assert(mk:settled("1.0 %", { settled = true }) == "1.0 %" and mk:settled("1.0 %", {}) == "1.0 %")
assert(mk:caption("Caption.") == "Caption. † did not settle (CV above the 2.5 % target, stopped on budget: fill (CV 36.0 %)).")
-- the rule said once per kind of stop, each record with its CV; a CV over 100 % is no figure
local r2 = { settled = false, cv_target = 0.025, stop = "budget", time_s = { cv = 3.596 }, samples_s = { 1, 2 } }
mk:settled("a", r, "fill 1")
mk:settled("b", r2, "fill 2")
assert(mk:caption() == "† did not settle (CV above the 2.5 % target, stopped on budget: fill 1 (CV 36.0 %), fill 2 (CV over 100 %)).",
       mk:caption())
assert(mk:caption("Caption.") == "Caption.", "a footnote belongs to one caption")
local h = marks.hollow { {}, r, { settled = true }, r }
assert(#h == 2 and h[1] == 2 and h[2] == 4)
assert(marks.hollow_caption({ { hollow = h } }, "A."):find("^A%. Hollow markers"))
assert(marks.hollow_caption({ { hollow = {} } }, "A.") == "A.")

local dram = { gbps = 35.5, kernel = "copy", precision = "fp64", stores = "non-temporal", working_set_bytes = 2 ^ 30,
               threads = 2, source = "bandwidth experiment" }
local res = { experiments = {
  { name = "model", device = "cpu", info = { dram = { gbps = 20, kernel = "read", source = "measured by model" } }, results = {} },
  { name = "bandwidth", device = "cpu", info = { dram = dram }, results = {} },
} }
local d = ceilings.dram(res, "cpu")
assert(d.gbps == 35.5 and d.gbps_best == 35.5 and d.kernel == "copy" and d.rule == ceilings.DRAM_RULE and not d.legacy)
assert(ceilings.dram_text(d) == "copy kernel in FP64 with non-temporal stores at 1 GiB, 2 threads (bandwidth experiment, "
  .. "best repetition)")
table.remove(res.experiments, 2)
assert(ceilings.dram(res, "cpu").gbps == 20 and ceilings.dram(res, "cpu").source == "measured by model")
assert(ceilings.dram(res, "gpu") == nil)
