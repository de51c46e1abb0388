-- tests/e2e/hostile_results.lua: results files that are well-formed JSON but hostile (issue 18,
-- class 10), refused with exit 4 and a message naming the file and the place, by render and by
-- compare alike: a record repeated (compare would otherwise compare the first and call the rest
-- unchanged), a catalog section past its stated limit, a list past the generic limit, and a
-- document too large for the Lua state that checks it.
local env = ...
local json = require "json"
local sh, q, fail, read = env.sh, env.q, env.fail, env.read
local fixture = env.srcdir .. "/tests/fixtures/compare/baseline.json"
local tiny = env.srcdir .. "/tests/fixtures/results/tiny.json"

local function write(name, doc)
  local path = env.out .. "/" .. name
  local f = assert(io.open(path, "w"))
  f:write(json.encode(doc))
  f:close()
  return path
end

local function expect(cmd, code, text)
  local out, c = sh(cmd)
  if c ~= code or not out:find(text, 1, true) then fail("%s\nexit %d (want %d):\n%s\nwant: %s", cmd, c, code, out, text) end
end

local bin = q(env.bin)
local function compare(a, b) return ("%s compare %s %s -o %s"):format(bin, q(a), q(b), q(env.out .. "/c.pdf")) end
local function render(a) return ("%s render %s -o %s"):format(bin, q(a), q(env.out .. "/r.pdf")) end

-- a record twice: refused on either side, never "0 slower"
local doc = json.decode(read(fixture))
local recs = doc.experiments[1].results
recs[#recs + 1] = recs[1]
local dup = write("dup.json", doc)
expect(compare(fixture, dup), 4, "dup.json: experiments[1].results[4] repeats experiments[1].results[1] (the same measurement: ")
expect(compare(dup, fixture), 4, "dup.json: experiments[1].results[4] repeats experiments[1].results[1]")

-- a catalog section past its limit (256 rows)
doc = json.decode(read(tiny))
local rows = {}
for i = 1, 300 do rows[i] = { id = "s" .. i, name = "system " .. i, mem_bw_gbs = i } end
doc.catalog.rows = rows
doc.catalog.match = nil
local big = write("catalog.json", doc)
expect(render(big), 4, "catalog.json: catalog.rows has 300 entries; at most 256 are read")

-- a list past the generic limit (100000 entries)
doc = json.decode(read(tiny))
local samples = {}
for i = 1, 100001 do samples[i] = 1e-3 end
doc.experiments[1].results[1].samples_s = samples
local long = write("samples.json", doc)
expect(render(long), 4, "samples.json: experiments[1].results[1].samples_s has 100001 entries; at most 100000 are read")
expect(compare(long, long), 4, "samples.json: experiments[1].results[1].samples_s has 100001 entries; at most 100000 are read")

-- more experiments than a run holds
doc = json.decode(read(tiny))
for i = 2, 101 do doc.experiments[i] = doc.experiments[1] end
local many = write("many.json", doc)
expect(render(many), 4, "many.json: experiments has 101 entries; at most 100 are read")

if io.open(env.out .. "/r.pdf") or io.open(env.out .. "/c.pdf") then fail("a refused file was drawn") end
return "pass"
