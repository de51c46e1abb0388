-- a C stack overflow through a string-library callback
local sr = require "sparkreport"
local function f() return (("x"):gsub(".", f)) end
f()
return sr.scenario { sr.bandwidth { } }
