-- an endless loop: the scenario's time limit ends it
local sr = require "sparkreport"
local n = 0
while true do n = n + 1 end
return sr.scenario { sr.bandwidth { } }
