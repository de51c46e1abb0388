# render refuses unreadable or invalid results files with the path and the reason (exit 4)
# and writes nothing.

$ sparkreport render $OUT/none.json
sparkreport: {*}/none.json: cannot open: No such file or directory
[4]
$ printf '' > $OUT/empty.json && sparkreport render $OUT/empty.json
sparkreport: {*}/empty.json: empty file
[4]
$ printf '{"schema": "sparkreport/results", "schema_version": 1, "context": {' > $OUT/cut.json && sparkreport render $OUT/cut.json
sparkreport: {*}/cut.json:1: truncated JSON (ends before the document closes)
[4]
$ printf '{"a": 1}' > $OUT/other.json && sparkreport render $OUT/other.json
sparkreport: {*}/other.json: not a sparkreport results file (no "schema": "sparkreport/results")
[4]
$ printf '{"schema": "sparkreport/results", "schema_version": 99}' > $OUT/future.json && sparkreport render $OUT/future.json
sparkreport: {*}/future.json: schema version 99 is newer than this sparkreport reads (4); update sparkreport
[4]
$ printf '{"schema": "sparkreport/results", "schema_version": 1, "context": [], "scenario": {}, "experiments": []}' > $OUT/typed.json && sparkreport render $OUT/typed.json
sparkreport: {*}/typed.json: 'context' must be an object
[4]
$ mkdir $OUT/dir.json && sparkreport render $OUT/dir.json
sparkreport: {*}/dir.json: not a regular file: Is a directory
[4]
$ printf '{"schema": "sparkreport/results", "schema_version": 1, "context": {} nope}' > $OUT/bad.json && sparkreport render $OUT/bad.json
sparkreport: {*}/bad.json:1: invalid JSON near byte 69
[4]
$ printf '{"schema": "sparkreport/results", "schema_version": 1.5}' > $OUT/half.json && sparkreport render $OUT/half.json
sparkreport: {*}/half.json: 'schema_version' must be a whole number from 1
[4]
$ (printf '%.0s[' $(seq 65); printf '%.0s]' $(seq 65)) > $OUT/deep.json && sparkreport render $OUT/deep.json
sparkreport: {*}/deep.json: nested deeper than 64 levels
[4]
$ (printf '%.0s[' $(seq 5000); printf '%.0s]' $(seq 5000)) > $OUT/deeper.json && sparkreport render $OUT/deeper.json
sparkreport: {*}/deeper.json:1: nested deeper than 64 levels
[4]
$ truncate -s 300M $OUT/huge.json && sparkreport render $OUT/huge.json
sparkreport: {*}/huge.json: too large (314572800 bytes, at most 268435456)
[4]
# a well-formed file with a wrongly typed value deep inside: refused before drawing, with its path
$ sed 's/"gbps_best": 577.4540743501018/"gbps_best": "fast"/' tests/fixtures/results/tiny.json > $OUT/deep-typed.json && sparkreport render $OUT/deep-typed.json
sparkreport: {*}/deep-typed.json: experiments[1].results[1].gbps_best must be a number, got a string ("fast")
[4]
$ sed 's/"total_bytes": 25275953152/"total_bytes": null/' tests/fixtures/results/tiny.json > $OUT/null.json && sparkreport render $OUT/null.json
sparkreport: {*}/null.json: context.memory.total_bytes is missing
[4]
$ sed 's/"template": "procurement"/"template": "sales"/' tests/fixtures/results/tiny.json > $OUT/template.json && sparkreport render $OUT/template.json
sparkreport: {*}/template.json: the results name the template 'sales', which this sparkreport does not have
[4]
$ ls $OUT
bad.json
cut.json
deep-typed.json
deep.json
deeper.json
dir.json
empty.json
future.json
half.json
huge.json
null.json
other.json
template.json
typed.json
# the fixture itself renders
$ sparkreport render tests/fixtures/results/tiny.json -o $OUT/tiny.pdf
{*}/tiny.pdf
{*}/tiny-annex.pdf
