-- one library call that would run for hours: the watchdog ends it
local sr = require "sparkreport"
string.find(("a"):rep(5000), ".-.-.-.-b")
return sr.scenario { sr.bandwidth { } }
