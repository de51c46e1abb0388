# A scenario by its name (src/util/datadir.c, run.c's preflight): `run NAME` reads a file NAME in the
# current folder when there is one, else the shipped DATA/scenarios/NAME.lua (DATA: the installed
# $(pkgdatadir), or SPARKREPORT_DATA_DIR as here); NAME.lua names it too. A name that is neither is
# refused with exit 3, naming the value and the shipped names; SPARKREPORT_DATA_DIR that is not a
# folder with exit 2. `list` shows the shipped names. An installed one: tests/e2e/installed.lua.

$ mkdir -p $OUT/data/scenarios $OUT/here && cp tests/scenarios/tiny.lua $OUT/data/scenarios/small.lua && cp tests/scenarios/tiny.lua $OUT/data/scenarios/other.lua && cp tests/scenarios/tiny.lua $OUT/data/scenarios/not.a.name.lua
$ cd $OUT/here && export SPARKREPORT_DATA_DIR=$OUT/data && sparkreport run small -q -o $OUT/r1
{*}/r1/{*}-small/report.pdf
$ grep -c '"path":[[:space:]]*"[^"]*/data/scenarios/small.lua"' $OUT/r1/latest/results.json
1
$ cd $OUT/here && export SPARKREPORT_DATA_DIR=$OUT/data && sparkreport run small.lua -q -o $OUT/r2
{*}/r2/{*}-small/report.pdf
# a file of that name in the current folder comes first
$ printf 'return 1\n' > $OUT/here/small && cd $OUT/here && export SPARKREPORT_DATA_DIR=$OUT/data && sparkreport run small -q -o $OUT/r3
small:1: the scenario must end with `return sr.scenario { ... }` (it returned 1)
[3]
# neither a file nor a shipped name: the value and the shipped names (a file whose name is not a name is not one)
$ cd $OUT/here && export SPARKREPORT_DATA_DIR=$OUT/data && sparkreport run smal -o $OUT/r4
sparkreport: smal: no such file, and no shipped scenario has that name (shipped in {*}/data/scenarios: other, small)
[3]
$ cd $OUT/here && export SPARKREPORT_DATA_DIR=$OUT/data && sparkreport run not.a.name -o $OUT/r4
sparkreport: not.a.name: no such file, and no shipped scenario has that name (shipped in {*}/data/scenarios: other, small)
[3]
$ cd $OUT/here && export SPARKREPORT_DATA_DIR=$OUT/here && sparkreport run small2 -o $OUT/r4
sparkreport: small2: no such file, and no shipped scenario has that name ({*}/here/scenarios: cannot open: No such file or directory; `make install` puts them there)
[3]
# a path is a path: no shipped scenario is looked up for it
$ cd $OUT/here && export SPARKREPORT_DATA_DIR=$OUT/data && sparkreport run ./other -o $OUT/r4
sparkreport: ./other: cannot open: No such file or directory
[3]
$ export SPARKREPORT_DATA_DIR=$OUT/none && sparkreport run small -o $OUT/r4
sparkreport: SPARKREPORT_DATA_DIR={*}/none: not a folder (No such file or directory)
[2]
$ export SPARKREPORT_DATA_DIR=$OUT/here/small && sparkreport list
sparkreport: SPARKREPORT_DATA_DIR={*}/here/small: not a folder (a regular file)
[2]
$ export SPARKREPORT_DATA_DIR=$OUT/data && sparkreport list | sed -n '/^shipped scenarios/,/^$/p' | grep .
shipped scenarios (sparkreport run NAME; a file NAME here comes first), in {*}/data/scenarios:
  other
  small

$ ls -A $OUT/here && ls -A $OUT | sort | xargs echo
small
data here r1 r2
