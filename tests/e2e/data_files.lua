-- tests/e2e/data_files.lua: guards lua/sparkreport/catalog.lua (check_data), src/lua/lbench.c
-- (bench.check_data: the C readers' limits) and src/cmd/run.c (the check before the scenario): a data
-- file a user edits reaches a run through a rebuild (its copy embedded: Makefile.am's edited-binary),
-- and the run refuses a bad one before anything is measured, naming the file, line and column, exit 4,
-- nothing written (issue 50, class 2: an offers.csv without its price column, a Spark priced at 0,
-- measured for minutes and then named a temporary results.json; one offer id on two rows gave two bills).
local env = ...
local sh, q, fail, read = env.sh, env.q, env.fail, env.read

local tree, reports = env.out .. "/tree", env.out .. "/reports"
local SUFFIX = "; nothing was measured (data files are built in: fix the file, then make)"

local function write(path, text)
  local f = assert(io.open(path, "wb")); f:write(text); f:close()
end

-- The source tree's embedded files, data/NAME edited by `edit` (text -> text), built into a program.
local function build(name, edit)
  sh("rm -rf " .. q(tree))
  local out, rc = sh(("mkdir -p %s && cp -r %s %s %s %s"):format(q(tree), q(env.srcdir .. "/lua"),
                     q(env.srcdir .. "/templates"), q(env.srcdir .. "/data"), q(tree)))
  if rc ~= 0 then fail("copying the tree: %s", out) end
  if name then
    local path = tree .. "/data/" .. name
    write(path, edit(read(path)))
  end
  out, rc = sh(("make -s -C %s edited-binary EDITED=%s"):format(q(env.builddir), q(tree)))
  if rc ~= 0 then fail("make edited-binary: %s", out) end
  return tree .. "/sparkreport"
end

local function refused(name, edit, want)
  local bin = build(name, edit)
  local out, rc = sh(("cd %s && %s run tests/scenarios/tiny.lua -q -o %s"):format(q(env.srcdir), q(bin), q(reports)))
  if rc ~= 4 or out ~= "sparkreport: " .. want .. SUFFIX .. "\n" then
    fail("%s: exit %d\n got: %s\nwant: sparkreport: %s%s", name, rc, out, want, SUFFIX)
  end
  if io.open(reports) then fail("%s: the refused run wrote %s", name, reports) end
end

-- Lines of a file (each with its "\n"), and a CSV line without its field n (quoted commas kept).
local function lines(text) local t = {}; for l in text:gmatch("[^\n]*\n") do t[#t + 1] = l end; return t end
local function drop_field(l, n)
  local fields, field, quoted = {}, {}, false
  for c in l:gmatch(".") do
    if c == '"' then quoted = not quoted end
    if c == "," and not quoted then fields[#fields + 1] = table.concat(field); field = {}
    else field[#field + 1] = c end
  end
  fields[#fields + 1] = table.concat(field)
  table.remove(fields, n)
  return table.concat(fields, ",")
end
local function each_line(f) return function(t)
  local out = {}
  for i, l in ipairs(lines(t)) do out[#out + 1] = f(l, i) end
  return table.concat(out)
end end

-- the price column deleted from every row (the fifth)
refused("offers.csv", each_line(function(l) return drop_field(l, 5) end),
  "data/offers.csv:1: no column usd_per_gpu_hour; the file needs id, system, provider, usd_per_gpu_hour, "
  .. "instance_gpus, billing_step_s, min_billed_s, source, date")
-- a DGX Spark priced at 0: the results reader's range for a price
refused("costs.csv", function(t) return (t:gsub("\ndgx%-spark,4699,", "\ndgx-spark,0,")) end,
  "data/costs.csv:2: purchase_usd (column 2) = 0 is outside what the report reads (from 1 to 1000000000000)")
-- one offer id on two rows (3.49 and 2.99 an hour): both lines named
refused("offers.csv", function(t)
  local l = lines(t)
  return t .. l[2]:gsub(",6%.88,", ",2.99,")
end, ("data/offers.csv:%d: id 'aws-p5-1' is given on line 2 too; give each row once"):format(#lines(read(env.srcdir .. "/data/offers.csv")) + 1))
-- a system twice in the catalog
refused("systems.csv", function(t) return t .. lines(t)[3] end,
  ("data/systems.csv:%d: id '%s' is given on line 3 too; give each row once"):format(
    #lines(read(env.srcdir .. "/data/systems.csv")) + 1, lines(read(env.srcdir .. "/data/systems.csv"))[3]:match("^[^,]+")))
-- an offer's limits as the team decision reads them (src/decide/team.c), named by column
refused("offers.csv", function(t) return (t:gsub(",6%.88,", ",0.001,", 1)) end,
  "data/offers.csv:2: usd_per_gpu_hour (column 5) = 0.001 is out of range (0.01 .. 10000)")
refused("offers.csv", function(t) return (t:gsub(",AWS EC2,", "," .. ("A"):rep(70) .. ",", 1)) end,
  "data/offers.csv:2: provider (column 3) is 70 characters long; at most 63")
refused("offers.csv", function(t) return (t:gsub(",h100%-sxm,", ",h900,", 1)) end,
  "data/offers.csv:2: system (column 2) 'h900' is not a system of data/systems.csv")
-- a provider whose name the fonts cannot draw: the script and the font package named (issue 50, class 3)
refused("offers.csv", function(t) return (t:gsub(",AWS EC2,", ",Яндекс 云,", 1)) end,
  "data/offers.csv:2: provider (column 3): character 8 ('云', U+4E91) cannot be drawn: it is CJK, and the report's "
  .. "fonts (DejaVu, Debian fonts-dejavu-core) draw Latin, Greek and Cyrillic; a font that has it (Debian "
  .. "fonts-noto-cjk) is not one sparkreport can embed")
-- a published run the projection cannot read (src/predict/stack.c), at its line
refused("gpu-runs.csv", each_line(function(l, i) return i == 5 and l:gsub(",pytorch,", ",tensorflow,", 1) or l end),
  ("data/gpu-runs.csv:5: run '%s' on '%s' names an unknown stack"):format(
    lines(read(env.srcdir .. "/data/gpu-runs.csv"))[5]:match("^([^,]+),([^,]+)")))
refused("vendor-claims.csv", each_line(function(l, i) return i == 2 and l:gsub(",llama%-3%.2%-3b,", ",llama-9b,", 1) or l end),
  "data/vendor-claims.csv:2: workload 'llama-9b' is not a reference workload (sparkreport list shows them)")
refused("spec-ranges.csv", function(t) return (t:gsub("\ndgx%-spark,bf16_tflops,62,", "\ndgx-spark,bf16_tflops,162,")) end,
  "data/spec-ranges.csv:2: low 162, central 125, high 125: the central figure must lie between low and high")
refused("fabric.csv", function(t) return t .. '"an unclosed quote,1\n' end,
  ("data/fabric.csv:%d: a quoted field opened here is never closed (a '\"' missing?)"):format(
    #lines(read(env.srcdir .. "/data/fabric.csv")) + 1))

-- the files as shipped pass, and a run of the program built from them goes on to measure
local bin = build()
local out, rc = sh(("cd %s && %s run tests/scenarios/tiny.lua -q -o %s"):format(q(env.srcdir), q(bin), q(reports)))
if rc ~= 0 or not out:find("/report%.pdf\n$") then fail("the shipped data files: exit %d: %s", rc, out) end
return "pass"
