-- a runtime error in plain Lua
local sr = require "sparkreport"
local sizes = nil
local first = sizes[1]
return sr.scenario { sr.bandwidth { sizes = first } }
