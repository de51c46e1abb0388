-- tests/lua/catalog.lua: the embedded catalog parses (quoted fields, empty cells unknown),
-- machines match a row only when they are that system, the memory units, and the CPU-side
-- bandwidth rule; the GPU and role columns and their refusals.
local catalog = require "sparkreport.catalog"

local cat = catalog.load()
assert(#cat.rows == 17, "rows: " .. #cat.rows)
local spark = catalog.find("dgx-spark")
assert(spark.name == "NVIDIA DGX Spark (GB10)")
assert(spark.mem_bw_gbs == 273 and spark.memory_gb == 128)
assert(spark.fp64_tflops == nil, "an empty cell is unknown, not zero")
assert(spark.notes:find("One memory pool shared by CPU and GPU", 1, true))   -- quoted, with commas
assert(catalog.find("h100-sxm").bf16_tflops == 989)
assert(#cat.sha256 == 64)
-- memory_unit: every row says GiB or GB; HBM parts GiB, the Spark's one pool GB (data/README.md)
for _, r in ipairs(cat.rows) do
  assert(r.memory_unit == "GiB" or r.memory_unit == "GB", r.id .. ": memory_unit " .. tostring(r.memory_unit))
end
assert(catalog.find("h100-sxm").memory_unit == "GiB" and catalog.find("h200-sxm").memory_unit == "GiB")
assert(catalog.find("a100-80g-sxm").memory_unit == "GiB" and spark.memory_unit == "GB")

local function ctx(gpu, cpu, ncpu, board)
  return { cuda = { devices = gpu and { { name = gpu } } or {} }, cpu = { model = cpu or "AMD EPYC", logical_cpus = ncpu or 2 },
           os = { board = { product = board } } }
end
assert(catalog.match(ctx("NVIDIA GB10")).id == "dgx-spark")
assert(catalog.match(ctx(nil, "10x Cortex-X925 + 10x Cortex-A725", 20)).id == "dgx-spark")
assert(catalog.match(ctx(nil, "10x Cortex-X925 + 10x Cortex-A725", 8)) == nil, "not 20 cores: not a Spark")
assert(catalog.match(ctx(nil, nil, nil, "NVIDIA DGX Spark")).id == "dgx-spark")
assert(catalog.match(ctx("NVIDIA H200")).id == "h200-sxm")
assert(catalog.match(ctx("NVIDIA H200 NVL")) == nil, "H200 NVL is not in the catalog")
assert(catalog.match(ctx("NVIDIA GH200 480GB")).id == "gh200-96g")
assert(catalog.match(ctx("NVIDIA H100 80GB HBM3")).id == "h100-sxm")
local row, why = catalog.match(ctx())
assert(row == nil and why == "no catalog system has this machine's GPU or CPU (CPU: AMD EPYC; GPU: none)", why)

assert(catalog.cpu_bandwidth(spark) == 273, "unified memory: the one pool")
assert(catalog.cpu_bandwidth(catalog.find("gh200-144g")) == 512, "Grace side")
assert(catalog.cpu_bandwidth(catalog.find("h100-sxm")) == nil, "host memory unknown")

local ok, err = catalog.check_ids({ "dgx-spark", "h300" })
assert(not ok and err:find("^unknown catalog system 'h300' in 'systems' %(valid: dgx%-spark, "), err)

-- the rules are each row's match_* columns: the longest match of a GPU name wins, whatever the order
assert(catalog.match(ctx("NVIDIA GH200 144G HBM3e")).id == "gh200-144g")
assert(catalog.match(ctx("NVIDIA GB200")).id == "gb200", "GB200 over B200")
assert(catalog.match(ctx("NVIDIA B200")).id == "b200")
assert(catalog.gpu_row("NVIDIA GB10").id == "dgx-spark" and catalog.gpu_row("Radeon 8060S") == nil)
-- a GPU calibrated here stands for its catalog row only when it is the subject's (the runner's catalog_id)
assert(catalog.subject_gpu("NVIDIA GB10") == "dgx-spark" and catalog.subject_gpu("NVIDIA H100 80GB HBM3") == nil)
assert(catalog.subject_gpu("NVIDIA GeForce RTX 4090") == nil)

-- the GPU and role columns, typed by the one loader (src/predict reads them from these rows)
assert(spark.generation == "gb10" and spark.sms == 48 and spark.span == nil and spark.match_cpus == 20)
assert(catalog.find("rtx-5090").span == true and catalog.find("mi300x").generation == nil)
assert(table.concat(spark.roles, "|") == "subject|shared")
assert(table.concat(catalog.with_role("subject"), ",") == "dgx-spark")
assert(table.concat(catalog.with_role("compared"), ",") == "h100-sxm,h200-sxm,b200", "the file's order")
assert(table.concat(catalog.with_role("shared"), ",") == "dgx-spark")
assert(table.concat(catalog.systems("compared"), ",") == "dgx-spark,h100-sxm,h200-sxm,b200")
assert(catalog.systems("all") == "all" and catalog.systems({ "b200" })[1] == "b200")
for _, r in ipairs(catalog.projection_rows()) do
  assert(catalog.find(r.id).generation == r.generation and r ~= catalog.find(r.id), "a copy of each row")
end
assert(catalog.projection_rows()[1].system_power_w == catalog.costs().by_id["dgx-spark"].system_power_w)

-- a bad cell, an id twice, no subject or two: refused with the file, line and value
local HEAD = "id,name,generation,sms,span,roles,match_gpu\n"
local function refused(text, want)
  local ok, e = pcall(catalog.parse_systems, HEAD .. text, "systems.csv")
  assert(not ok and e == want, tostring(e))
end
refused("a,A,volta,80,,subject,\n", "systems.csv:2: generation 'volta' is not a GPU generation the stack "
        .. "profiles know (ampere, hopper, blackwell, gb10)")
refused("a,A,hopper,eighty,,subject,\n", "systems.csv:2: sms 'eighty' is not a number above 0")
refused("a,A,hopper,0,,subject,\n", "systems.csv:2: sms '0' is not a number above 0")
refused("a,A,hopper,80,yes,subject,\n", "systems.csv:2: span 'yes' is not 1 (or empty)")
refused("a,A,hopper,80,,subject|hbm,\n", "systems.csv:2: roles 'subject|hbm' names a role other than subject, "
        .. "compared, shared")
refused("a,A,,,,subject,\na,B,,,,,\n", "systems.csv:3: id 'a' is given twice")
refused("a,A,,,,compared,\n", "systems.csv: 0 rows have the role 'subject' (); exactly one must: the system the "
        .. "report is about (the DGX Spark): exactly one row")
refused("a,A,,,,subject,\nb,B,,,,subject,\n", "systems.csv: 2 rows have the role 'subject' (a, b); exactly one "
        .. "must: the system the report is about (the DGX Spark): exactly one row")
local one = catalog.parse_systems(HEAD .. "a,A,hopper,132,,subject|compared,\nb,B,,,,compared,\n", "systems.csv")
assert(one.by_id.a.sms == 132 and table.concat(catalog.with_role("compared", one.rows), ",") == "a,b")
-- a row appended is recognised by its own pattern; a pattern Lua cannot read is named when reached
local more = catalog.parse_systems(HEAD .. "a,A,hopper,132,,subject,\nb,B,hopper,132,,,H100 NVL\nc,C,,,,,X100 [\n", "x")
assert(catalog.match(ctx("NVIDIA H100 NVL"), more.rows).id == "b" and catalog.match(ctx("NVIDIA H100 NVL")) == nil)
local ok, e = pcall(catalog.match, ctx("NVIDIA X100 [X]"), more.rows)
assert(not ok and e == "data/systems.csv: match_gpu of 'c' ('X100 [') is not a Lua pattern: malformed pattern "
       .. "(missing ']')", e)

-- a system of the scenario's own (sr.system): a row with the file's columns, typed, refused naming the field
local base = { id = "our-box", name = "Our box", memory_gb = 96, mem_bw_gbs = 1792, bf16_tflops = 504, sms = 188 }
local function own(over)
  local t = {}
  for k, v in pairs(base) do t[k] = v end
  for k, v in pairs(over or {}) do t[k] = v end
  return pcall(catalog.own_system, t)
end
local okb, row = own { generation = "blackwell", unified = true }
assert(okb and row.kind == "scenario" and row.memory == "unified" and row.memory_unit == "GB" and row.generation == "blackwell")
local function refused_own(over, want)
  local okr, err = own(over)
  assert(not okr and err == want, tostring(err))
end
refused_own({ id = "h100-sxm" }, "sr.system 'h100-sxm': the catalog has a system of that id: give yours an id of its own")
refused_own({ sms = false }, "sr.system 'our-box': sms = false is not a number above 0")
refused_own({ sms = 0 }, "sr.system 'our-box': sms = 0 is not a number above 0")
refused_own({ sms = 10.5 }, "sr.system 'our-box': sms = 10.5 is not a whole number")
refused_own({ generation = "volta" }, "sr.system 'our-box': generation 'volta' is not a GPU generation the stack "
            .. "profiles know (ampere, hopper, blackwell, gb10)")
refused_own({ roles = "compared" }, "sr.system 'our-box': roles is the catalog's: a system of the scenario's own is "
            .. "projected beside the compared systems, and no machine is recognised as it")
refused_own({ memory_unit = "TB" }, "sr.system 'our-box': memory_unit 'TB' is not GB or GiB")
refused_own({ id = "Our Box" }, "sr.system 'Our Box': its id must be lower-case letters, digits, '.' and '-', at "
            .. "most 40 characters")
local okm, em = pcall(catalog.own_system, { id = "x", name = "X", memory_gb = 1, mem_bw_gbs = 1, bf16_tflops = 1 })
assert(not okm and em == "sr.system 'x': sms is missing; a system of your own needs id, name, memory_gb, mem_bw_gbs, "
       .. "bf16_tflops, sms", em)
local oku, eu = own { bandwith_gbs = 1 }
assert(not oku and eu:find("^sr.system 'our%-box': no field 'bandwith_gbs' %(fields: bf16_tflops, confidence, ") , eu)
