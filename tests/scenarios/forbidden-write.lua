-- writing a file
local sr = require "sparkreport"
local f = io.open("/tmp/sparkreport-pwned", "w")
return sr.scenario { sr.bandwidth { } }
