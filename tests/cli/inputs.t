# Issue 18, round 2. Inputs that are not regular files (class 6): opened without blocking and
# checked with fstat, refused with their kind and the documented exit code, never waited on.
# Outputs: never a FIFO or a folder, and a `latest` the user made is left as it is.

$ mkfifo $OUT/fifo && sparkreport render $OUT/fifo
sparkreport: {*}/fifo: not a regular file (a FIFO)
[4]
$ sparkreport render /dev/zero
sparkreport: /dev/zero: not a regular file (a character device)
[4]
$ mkfifo $OUT/fifo2 && sparkreport run $OUT/fifo2 -o $OUT/reports
sparkreport: {*}/fifo2: not a regular file (a FIFO)
[3]
$ mkfifo $OUT/fifo3 && sparkreport compare $OUT/fifo3 tests/fixtures/compare/baseline.json -o $OUT/c.pdf
sparkreport: {*}/fifo3: not a regular file (a FIFO)
[4]
$ sparkreport compare tests/fixtures/compare/baseline.json /dev/null -o $OUT/c.pdf
sparkreport: /dev/null: not a regular file (a character device)
[4]
$ mkfifo $OUT/fifo4 && sparkreport run tests/scenarios/tiny.lua --set baseline=$OUT/fifo4 -o $OUT/reports
tests/scenarios/tiny.lua: scenario: baseline '{*}/fifo4': {*}/fifo4: not a regular file (a FIFO)
[3]
$ mkdir $OUT/adir && sparkreport run $OUT/adir -o $OUT/reports
sparkreport: {*}/adir: not a regular file: Is a directory
[3]
# outputs that are not what they must be: refused before any measuring or drawing
$ mkfifo $OUT/out.pdf && sparkreport render tests/fixtures/results/tiny.json -o $OUT/out.pdf
sparkreport: {*}/out.pdf: cannot write a file there: it is a FIFO
[1]
$ mkdir $OUT/pdfdir && sparkreport render tests/fixtures/results/tiny.json -o $OUT/pdfdir
sparkreport: {*}/pdfdir: cannot write a file there: it is a directory
[1]
$ mkfifo $OUT/cmp.pdf && sparkreport compare tests/fixtures/compare/baseline.json tests/fixtures/compare/baseline.json -o $OUT/cmp.pdf
sparkreport: {*}/cmp.pdf: cannot write a file there: it is a FIFO
[1]
$ mkfifo $OUT/runs && sparkreport run tests/scenarios/tiny.lua -q -o $OUT/runs
sparkreport: {*}/runs: cannot write run folders there: it is a FIFO
[1]
# a `latest` that is the user's own file is never replaced; the run says so and succeeds
$ mkdir $OUT/mine && echo 'my notes' > $OUT/mine/latest && sparkreport run tests/scenarios/tiny.lua -q -o $OUT/mine
sparkreport: {*}/mine/latest: left as it is: it is a regular file that sparkreport did not make
{*}/mine/{*}-tiny/report.pdf
$ cat $OUT/mine/latest
my notes
$ mkdir $OUT/away && ln -s /tmp $OUT/away/latest && sparkreport run tests/scenarios/tiny.lua -q -o $OUT/away
sparkreport: {*}/away/latest: left as it is: it is a link to another place that sparkreport did not make
{*}/away/{*}-tiny/report.pdf
$ readlink $OUT/away/latest
/tmp
$ ls -A $OUT/mine $OUT/away | grep -c '^\.tmp-'
0
[1]
