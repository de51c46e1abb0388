-- a size beyond any machine
local sr = require "sparkreport"
return sr.scenario {
  sr.bandwidth { max_size = "5TiB" },
}
