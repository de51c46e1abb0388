-- running a program
local sr = require "sparkreport"
os.execute("touch /tmp/sparkreport-pwned")
return sr.scenario { sr.bandwidth { } }
