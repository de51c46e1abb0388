-- tests/lua/format.lua: the number formats every section uses.
local fmt = require "sparkreport.format"

assert(fmt.rate(231.46) == "231")
assert(fmt.rate(43.25) == "43.2" or fmt.rate(43.25) == "43.3")
assert(fmt.rate(12.345) == "12.3")
assert(fmt.rate(9.876) == "9.88")
assert(fmt.rate(0 / 0) == "n/a")
assert(fmt.pct(0.8512) == "85.1 %")
assert(fmt.cv(0.025) == "2.5 %")
assert(fmt.seconds(2.5e-6) == "2.5 µs")
assert(fmt.seconds(0.0123) == "12.30 ms")
assert(fmt.bytes(65536) == "64 KiB")
assert(fmt.duration(245) == "4m05s")
