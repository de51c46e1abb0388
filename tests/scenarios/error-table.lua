-- error({}): a table as the error
local sr = require "sparkreport"
error({ code = 7 })
return sr.scenario { sr.bandwidth { } }
