-- reading a program's output
local sr = require "sparkreport"
local p = io.popen("id")
return sr.scenario { sr.bandwidth { } }
