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
$ printf '{"schema": "sparkreport/results", "schema_version": 2}' > $OUT/future.json && sparkreport render $OUT/future.json
sparkreport: {*}/future.json: schema version 2 is newer than this sparkreport reads (1); update sparkreport
[4]
$ printf '{"schema": "sparkreport/results", "schema_version": 1, "context": [], "scenario": {}, "experiments": []}' > $OUT/typed.json && sparkreport render $OUT/typed.json
sparkreport: {*}/typed.json: 'context' must be an object
[4]
$ mkdir $OUT/dir.json && sparkreport render $OUT/dir.json
sparkreport: {*}/dir.json: not a regular file: Is a directory
[4]
$ ls $OUT
cut.json
dir.json
empty.json
future.json
other.json
typed.json
