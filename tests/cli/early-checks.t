# Issue 18, round 2, class 4: what can be checked before measuring is checked before measuring:
# environment values, the title and the texts the PDF draws (length, UTF-8, what the fonts draw), and
# --set values; each fails at once with the documented exit code and nothing written.

$ export SOURCE_DATE_EPOCH=99999999999999; sparkreport run tests/scenarios/tiny.lua -o $OUT/reports
sparkreport: SOURCE_DATE_EPOCH=99999999999999: must be a whole number of seconds from 0 to 253402300799 (1970 to the end of 9999)
[2]
$ export SOURCE_DATE_EPOCH=-1; sparkreport render tests/fixtures/results/tiny.json -o $OUT/r.pdf
sparkreport: SOURCE_DATE_EPOCH=-1: must be a whole number of seconds from 0 to 253402300799 (1970 to the end of 9999)
[2]
$ export SOURCE_DATE_EPOCH=253402300800; sparkreport compare tests/fixtures/compare/baseline.json tests/fixtures/compare/baseline.json -o $OUT/c.pdf
sparkreport: SOURCE_DATE_EPOCH=253402300800: must be a whole number of seconds from 0 to 253402300799 (1970 to the end of 9999)
[2]
$ export SPARKREPORT_FONT_DIR=/dev/null; sparkreport run tests/scenarios/tiny.lua -o $OUT/reports
sparkreport: SPARKREPORT_FONT_DIR=/dev/null: not a folder
[2]
$ export SPARKREPORT_CATALOG_DIR=/dev/null; sparkreport render tests/fixtures/results/tiny.json -o $OUT/d.pdf
sparkreport: SPARKREPORT_CATALOG_DIR=/dev/null: not a folder
[2]
# a data file there that is not a regular file is refused by path, never waited on; nothing written
$ mkdir $OUT/data && mkfifo $OUT/data/systems.csv && export SPARKREPORT_CATALOG_DIR=$OUT/data; sparkreport run tests/scenarios/tiny.lua -o $OUT/reports
sparkreport: SPARKREPORT_CATALOG_DIR: {*}/data/systems.csv: not a regular file (a FIFO); nothing was measured (the data files SPARKREPORT_CATALOG_DIR holds replace the built-in ones: fix the file there)
[4]
$ test -e $OUT/reports || echo nothing written
nothing written
# the last second of 9999 is a date the PDF holds
$ export SOURCE_DATE_EPOCH=253402300799; sparkreport render tests/fixtures/results/tiny.json -o $OUT/late.pdf
{*}/late.pdf
{*}/late-annex.pdf
$ grep -ac "CreationDate (D:99991231235959Z" $OUT/late.pdf
1
# titles: at most 200 characters, all drawable by the report's fonts (Latin, Greek, Cyrillic; issue 50:
# CJK is refused naming the font package that has it), valid UTF-8
$ sparkreport run tests/scenarios/tiny.lua -o $OUT/reports --set title=$(printf '%0201d' 0)
tests/scenarios/tiny.lua: scenario: title is 201 characters long; at most 200 fit the report
[3]
$ sparkreport run tests/scenarios/tiny.lua -o $OUT/reports --set 'title=Über 中文'
tests/scenarios/tiny.lua: scenario: title: character 6 ('中', U+4E2D) cannot be drawn: it is CJK, and the report's fonts (DejaVu, Debian fonts-dejavu-core) draw Latin, Greek and Cyrillic; a font that has it (Debian fonts-noto-cjk) is not one sparkreport can embed
[3]
$ sparkreport run tests/scenarios/tiny.lua -o $OUT/reports --set "title=a$(printf '\377')b"
sparkreport: --set title=a...: not valid UTF-8 (byte 0xFF at offset 7)
[3]
$ sed 's/budget_s = 5,/budget_s = 5, title = "x\\255y",/' tests/scenarios/tiny.lua > $OUT/escaped.lua && sparkreport run $OUT/escaped.lua -o $OUT/reports
{*}/escaped.lua: scenario: title is not valid UTF-8 (byte 0xFF at offset 1)
[3]
$ (cat tests/scenarios/tiny.lua; printf -- '-- caf\351\n') > $OUT/latin1.lua && sparkreport run $OUT/latin1.lua -o $OUT/reports
{*}/latin1.lua:8: not valid UTF-8 (byte 0xE9); a scenario is UTF-8 text
[3]
$ sed 's/budget_s = 5,/budget_s = 5, title = ("x"):rep(5000),/' tests/scenarios/tiny.lua > $OUT/long.lua && sparkreport run $OUT/long.lua -o $OUT/reports
{*}/long.lua: scenario: title is 5000 bytes long; at most 4096
[3]
$ ls -A $OUT | grep -c reports
0
[1]
# render checks a results file's title the same way before drawing
$ sed 's/"title": "[^"]*"/"title": "a\\u4e2db"/' tests/fixtures/results/tiny.json > $OUT/cjk.json && sparkreport render $OUT/cjk.json -o $OUT/cjk.pdf
sparkreport: {*}/cjk.json: scenario.title: character 2 ('中', U+4E2D) cannot be drawn: it is CJK, and the report's fonts (DejaVu, Debian fonts-dejavu-core) draw Latin, Greek and Cyrillic; a font that has it (Debian fonts-noto-cjk) is not one sparkreport can embed
[4]
$ ls $OUT/cjk.pdf
ls: cannot access '{*}/cjk.pdf': No such file or directory
[2]
