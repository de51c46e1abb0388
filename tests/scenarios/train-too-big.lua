-- GPT-2 small at a sequence of 8192 and 4096 sequences per micro-batch: within the limits,
-- beyond this machine's memory, refused before anything is allocated
local sr = require "sparkreport"
return sr.scenario {
  sr.train { shapes = "gpt2-small", seq = 8192, batch = 4096 },
}
