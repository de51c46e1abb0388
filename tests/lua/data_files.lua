-- tests/lua/data_files.lua: sparkreport.catalog.check_data on edited copies of the data files (the
-- cases e2e/data_files.lua builds into a program, here without a build): where a record starts when a
-- quoted field spans lines, CRLF line ends, a row with a field too many, a column twice, an empty
-- required cell, a key of two columns given twice, a spec range outside its figure's limits.
local bench = require "bench"
local catalog = require "sparkreport.catalog"

local function refused(source, text, want)
  local ok, err = pcall(catalog.check_data, { [source] = text })
  assert(not ok, "accepted: " .. want)
  assert(err == want, ("\n got: %s\nwant: %s"):format(err, want))
end

assert(catalog.check_data())                                -- the files as shipped
local offers = assert(bench.resource("data/offers.csv"))
local header = offers:match("^[^\n]*\n")
local row = offers:match("\n(aws%-p5%-1,[^\n]*\n)")

-- a record is named by the line it starts on; a line break inside a drawn text is refused
refused("data/offers.csv", header .. row:gsub(",AWS EC2,", ',"AWS\nEC2",'),
  "data/offers.csv:2: provider (column 3): character 4 (U+000A) is a control character")
refused("data/offers.csv", header .. row:gsub(",AWS EC2,", ',"AWS EC2",'):gsub("\n$", ',"two\nlines"\n'):gsub("^", "")
  .. row:gsub("^aws%-p5%-1", "second"):gsub(",6%.88,", ",-1,"),
  "data/offers.csv:2: 12 fields; the header has 11 (a comma too many, or a field not quoted?)")
local id_line = header .. row:gsub("^aws%-p5%-1", '"aws-p5\n1"') .. row:gsub("^aws%-p5%-1", "b"):gsub(",6%.88,", ",-1,")
refused("data/offers.csv", id_line, "data/offers.csv:4: usd_per_gpu_hour (column 5) = -1 is out of range (0.01 .. 10000)")
-- a spreadsheet's byte order mark and CRLF line ends: read as a header and lines
refused("data/offers.csv", ("\xEF\xBB\xBF" .. header .. row .. row):gsub("\n", "\r\n"),
  "data/offers.csv:3: id 'aws-p5-1' is given on line 2 too; give each row once")
-- decomposed text: the combining mark named
refused("data/offers.csv", header .. row:gsub(",AWS EC2,", ",Сиби\xD1\x80\xD0\xB8\xCC\x86,"),
  "data/offers.csv:2: provider (column 3): character 7 (U+0306) is a combining mark: write the letter it marks "
  .. "precomposed (Unicode NFC: \"é\", not \"e\" and U+0301)")
-- CRLF line ends read as lines
refused("data/offers.csv", (header .. row .. row):gsub("\n", "\r\n"),
  "data/offers.csv:3: id 'aws-p5-1' is given on line 2 too; give each row once")
refused("data/offers.csv", header .. row:gsub("\n$", ",extra\n"),
  "data/offers.csv:2: 12 fields; the header has 11 (a comma too many, or a field not quoted?)")
refused("data/offers.csv", header:gsub("\n$", ",id\n") .. row,
  "data/offers.csv:1: column id is there twice (columns 1 and 12)")
refused("data/offers.csv", header .. row:gsub(",AWS EC2,", ",,"),
  "data/offers.csv:2: provider (column 3) is empty; every row needs it")
refused("data/offers.csv", header .. row:gsub(",1,1,60,", ",1|two,1,60,"),
  "data/offers.csv:2: instance_gpus (column 6) '1|two' is not a list of whole numbers like 1|2|4|8")
local ranges = assert(bench.resource("data/spec-ranges.csv"))
refused("data/spec-ranges.csv", ranges .. ranges:match("\n([^\n]*\n)"),
  "data/spec-ranges.csv:3: id 'dgx-spark' and field 'bf16_tflops' is given on line 2 too; give each row once")
refused("data/spec-ranges.csv", ranges:gsub(",62,125,125,", ",0.001,125,125,"),
  "data/spec-ranges.csv:2: low = 0.001 is outside what the report reads (from 0.01 to 1000000) (as bf16_tflops)")
refused("data/costs.csv", assert(bench.resource("data/costs.csv")):gsub("\ndgx%-spark,4699,", "\ndgx-spark,lots,"),
  "data/costs.csv:2: purchase_usd (column 2) 'lots' is not a number")
refused("data/fabric.csv", assert(bench.resource("data/fabric.csv")):gsub("\ndgx%-spark,", "\ndgx-spork,"),
  "data/fabric.csv:2: id (column 1) 'dgx-spork' is not a system of data/systems.csv")
