-- an error object whose __tostring raises in turn
local sr = require "sparkreport"
error(setmetatable({}, { __tostring = error }))
return sr.scenario { sr.bandwidth { } }
