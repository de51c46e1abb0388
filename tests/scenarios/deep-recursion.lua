-- recursion without end: Lua's stack bound ends it
local sr = require "sparkreport"
local function down(n) return 1 + down(n + 1) end
down(1)
return sr.scenario { sr.bandwidth { } }
