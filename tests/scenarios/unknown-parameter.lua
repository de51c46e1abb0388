-- a misspelt parameter
local sr = require "sparkreport"
return sr.scenario {
  sr.bandwidth { kernel = "triad" },
}
