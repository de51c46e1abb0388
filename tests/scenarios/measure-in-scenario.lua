-- measuring while the scenario loads, outside any budget: refused
local sr = require "sparkreport"
local bench = require "bench"
bench.run("bandwidth", { sizes = "1MiB" }, 600000)
return sr.scenario { sr.bandwidth { } }
