-- no scenario returned
local sr = require "sparkreport"
local s = sr.scenario { sr.bandwidth { } }
