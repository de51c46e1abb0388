-- error(nil): no message, still a file and line
local sr = require "sparkreport"
error(nil)
return sr.scenario { sr.bandwidth { } }
