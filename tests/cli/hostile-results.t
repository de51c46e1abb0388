# Issue 18, round 2, class 10: hostile results files are refused when loaded, with the path of
# the value and exit 4, whichever layer (C or Lua) finds the fault; nothing is drawn.

$ sed 's/"gbps_best": 577.4540743501018/"gbps_best": 1e999/' tests/fixtures/results/tiny.json > $OUT/inf.json && sparkreport render $OUT/inf.json -o $OUT/inf.pdf
sparkreport: {*}/inf.json: experiments[1].results[1].gbps_best is not a finite number (it overflows a double, or is infinity or NaN)
[4]
$ sed 's/"gbps_best": 577.4540743501018/"gbps_best": -1e400/' tests/fixtures/results/tiny.json > $OUT/ninf.json && sparkreport compare $OUT/ninf.json tests/fixtures/results/tiny.json -o $OUT/ninf.pdf
sparkreport: {*}/ninf.json: experiments[1].results[1].gbps_best is not a finite number (it overflows a double, or is infinity or NaN)
[4]
$ sed 's/"gbps_best": 577.4540743501018/"gbps_best": 577, "gbps_best": 1/' tests/fixtures/results/tiny.json > $OUT/dup.json && sparkreport render $OUT/dup.json -o $OUT/dup.pdf
sparkreport: {*}/dup.json: experiments[1].results[1] has the key 'gbps_best' twice
[4]
$ printf '{"schema": "sparkreport/results", "schema": "x"}' > $OUT/dup-top.json && sparkreport render $OUT/dup-top.json
sparkreport: {*}/dup-top.json: has the key 'schema' twice
[4]
$ sed 's/"finished_epoch": [0-9]*/"finished_epoch": 1e15/' tests/fixtures/results/tiny.json > $OUT/future.json && sparkreport render $OUT/future.json -o $OUT/future.pdf
sparkreport: {*}/future.json: 'finished_epoch' must be a time from 0 to 253402300799 (1970 to the end of 9999) in seconds, got a number out of range
[4]
$ sed 's/"started_epoch": [0-9]*/"started_epoch": -86400/' tests/fixtures/results/tiny.json > $OUT/past.json && sparkreport compare $OUT/past.json tests/fixtures/results/tiny.json -o $OUT/past.pdf
sparkreport: {*}/past.json: 'started_epoch' must be a time from 0 to 253402300799 (1970 to the end of 9999) in seconds, got a number out of range
[4]
$ sed 's/"finished_epoch": [0-9]*/"finished_epoch": "yesterday"/' tests/fixtures/results/tiny.json > $OUT/word.json && sparkreport render $OUT/word.json -o $OUT/word.pdf
sparkreport: {*}/word.json: 'finished_epoch' must be a time from 0 to 253402300799 (1970 to the end of 9999) in seconds, got another type
[4]
$ sed "s/\"host\": \"[^\"]*\"/\"host\": \"a$(printf '\377')b\"/" tests/fixtures/results/tiny.json > $OUT/bytes.json && sparkreport render $OUT/bytes.json -o $OUT/bytes.pdf
sparkreport: {*}/bytes.json: context.host is not valid UTF-8 (byte 0xFF at offset 1)
[4]
# a template made for other documents, or one that does not exist, is refused before it runs
$ sed 's/"template": "procurement"/"template": "regression"/' tests/fixtures/results/tiny.json > $OUT/regression.json && sparkreport render $OUT/regression.json -o $OUT/regression.pdf
sparkreport: {*}/regression.json: the results name the template 'regression', which draws sparkreport/comparison documents, not sparkreport/results
[4]
$ sed 's/"template": "procurement"/"template": "..\/..\/x"/' tests/fixtures/results/tiny.json > $OUT/path.json && sparkreport render $OUT/path.json -o $OUT/path.pdf
sparkreport: {*}/path.json: the results name the template '../../x', which this sparkreport does not have
[4]
$ ls $OUT | grep -c pdf
0
[1]
