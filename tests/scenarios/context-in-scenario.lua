-- reading the machine and its environment (host, OMP_* variables) while the scenario loads: refused
local sr = require "sparkreport"
local bench = require "bench"
local ctx = bench.context()
return sr.scenario { title = ctx.host, sr.bandwidth { } }
