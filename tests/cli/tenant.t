# The internal tenant command (the tenants experiment starts one per tenant process): by hand it refuses
# what is not its spec (exit 2, the field named); a spec its job cannot run is a failed record, one JSON
# line; a tenant that is set up says so and, when its input ends, exits.

$ sparkreport tenant
sparkreport: tenant takes one argument, the tenant's JSON spec; the tenants experiment runs it, not a user (see sparkreport --help)
[2]
$ sparkreport tenant '{"job": "sleep"}'
sparkreport: tenant: parameter 'job' has unknown value 'sleep' (valid: stream, train)
[2]
$ sparkreport tenant 'not json'
sparkreport: the tenant's spec:1: invalid JSON near byte 0
[2]
$ sparkreport tenant '{"job": "stream", "n": 1024, "precision": "bf16"}' < /dev/null
{"series":"stream","device":"cpu","tenant":1,"valid":false,"error":"the stream's precision is fp64 or fp32"}
$ sparkreport tenant '{"job": "stream", "n": 4096, "threads": 1}' < /dev/null
{"ready":true}
$ printf 'm 1 0.05\nt\nw\n' | sparkreport tenant '{"job": "stream", "n": 4096, "threads": 1, "min_reps": 2, "max_reps": 3}' | grep -c '"valid":true,"kernel":"triad"'
1
