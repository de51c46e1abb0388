-- error("...", 0): a message without a position
local sr = require "sparkreport"
local function check() error("the answer is not 42", 0) end
check()
return sr.scenario { sr.bandwidth { } }
