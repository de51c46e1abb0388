-- a shape that cannot be built: 5 heads do not divide a hidden size of 64
local sr = require "sparkreport"
return sr.scenario {
  sr.train { hidden = 64, heads = 5 },
}
