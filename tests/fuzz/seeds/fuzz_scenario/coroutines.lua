local sr = require "sparkreport"
local co = coroutine.wrap(function() coroutine.yield(sr.bandwidth { kernels = "copy" }) end)
return sr.scenario { co() }
