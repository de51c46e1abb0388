# Outputs checked before anything is read, measured or written (issue 28, classes 2-4): an output
# that is an input (the same file, a symbolic or a hard link to it, another spelling of its path)
# is refused with exit 2 and the input left as it was; an empty path and a path too long for what
# is written under it are refused before measuring, the message whole; a failed write to standard
# output (a full device, a file-size limit) fails the command with the system's reason.

$ cp tests/fixtures/compare/baseline.json $OUT/a.json && cp tests/fixtures/compare/slower.json $OUT/b.json && ln -s a.json $OUT/link.json && ln $OUT/a.json $OUT/hard.json && cp $OUT/a.json $OUT/report.pdf
$ sparkreport render $OUT/a.json -o $OUT/a.json
sparkreport: {*}/a.json: the output is the input {*}/a.json (the same file, a link to it or a hard link); refusing to write over it; nothing was written
[2]
$ sparkreport compare $OUT/a.json $OUT/b.json -o $OUT/b.json
sparkreport: {*}/b.json: the output is the input {*}/b.json (the same file, a link to it or a hard link); refusing to write over it; nothing was written
[2]
$ sparkreport compare $OUT/a.json $OUT/b.json -o $OUT/./a.json
sparkreport: {*}/./a.json: the output is the input {*}/a.json (the same file, a link to it or a hard link); refusing to write over it; nothing was written
[2]
$ sparkreport compare $OUT/a.json $OUT/b.json -o $OUT/link.json
sparkreport: {*}/link.json: the output is the input {*}/a.json (the same file, a link to it or a hard link); refusing to write over it; nothing was written
[2]
$ sparkreport render $OUT/link.json -o $OUT/hard.json
sparkreport: {*}/hard.json: the output is the input {*}/link.json (the same file, a link to it or a hard link); refusing to write over it; nothing was written
[2]
# render's default output, report.pdf beside the input, is the input here
$ sparkreport render $OUT/report.pdf
sparkreport: {*}/report.pdf: the output is the input {*}/report.pdf (the same file, a link to it or a hard link); refusing to write over it; nothing was written
[2]
$ cmp $OUT/a.json tests/fixtures/compare/baseline.json && cmp $OUT/b.json tests/fixtures/compare/slower.json && cmp $OUT/report.pdf $OUT/a.json && echo inputs untouched
inputs untouched

# empty paths
$ sparkreport render $OUT/a.json -o ''
sparkreport: '': an empty path cannot take a file
[1]
$ sparkreport compare $OUT/a.json $OUT/b.json -o ''
sparkreport: '': an empty path cannot take a file
[1]
$ sparkreport run tests/scenarios/collective.lua -o ''
sparkreport: '': an empty path cannot take run folders
[1]

# too long for what is written there: said before measuring, the whole path in the message
$ sparkreport run tests/scenarios/collective.lua -q -o $OUT/$(printf '%0200d/' $(seq 19))$(printf 'y%.0s' $(seq 100)) 2>&1 | sed 's|/[0-9/]*y*:|/PATH:|'
sparkreport: {*}/PATH: the path is {num} bytes long; the system takes at most 4095 and what is written inside (a run folder and its files) needs 256 more, so at most 3839 here
$ sparkreport render $OUT/a.json -o $OUT/$(printf 'n%.0s' $(seq 250)).pdf 2>&1 | sed 's|nnnn*|N|g'
sparkreport: {*}/N.pdf: the name 'N.pdf' is 254 bytes long; a name takes at most 244 bytes (a temporary name beside it adds the rest)
$ ls $OUT
a.json
b.json
hard.json
link.json
report.pdf

# standard output that cannot be written: exit 1 with the reason, not 0 (or 6) with a truncated output
$ sparkreport list 2>$OUT/err >/dev/full; echo "exit $?"; cat $OUT/err
exit 1
sparkreport: cannot write to standard output: No space left on device
$ sparkreport info --json 2>$OUT/err >/dev/full; echo "exit $?"; cat $OUT/err
exit 1
sparkreport: cannot write to standard output: No space left on device
$ sparkreport compare $OUT/a.json $OUT/b.json --json 2>$OUT/err >/dev/full; echo "exit $?"; cat $OUT/err
exit 1
sparkreport: cannot write to standard output: {*}
$ sparkreport compare $OUT/a.json $OUT/b.json -o $OUT/c.pdf 2>$OUT/err >/dev/full; echo "exit $?"; cat $OUT/err
exit 1
sparkreport: cannot write to standard output: No space left on device
$ (ulimit -f 4; sparkreport compare $OUT/a.json $OUT/b.json --json > $OUT/c.json)
sparkreport: cannot write to standard output: {*}
[1]
