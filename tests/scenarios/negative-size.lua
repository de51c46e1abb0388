-- a negative size
local sr = require "sparkreport"
return sr.scenario {
  sr.bandwidth { max_size = -1 },
}
