-- a size within the limits but beyond this machine's memory
local sr = require "sparkreport"
return sr.scenario {
  sr.bandwidth { sizes = { "1GiB", "900GiB" } },
}
