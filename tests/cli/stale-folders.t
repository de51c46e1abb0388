# The stale-folder cleaner removes only what a run of ours provably made (issue 28, class 5): a
# folder named .tmp-XXXXXX, this user's, holding the marker .sparkreport-unfinished with our words,
# unlocked and older than a minute. A user's folders that start with .tmp- stay, whatever their age.

$ mkdir -p $OUT/r/.tmp-abcdef/data $OUT/r/.tmp-notes $OUT/r/.tmp-Xy12zz && echo mine > $OUT/r/.tmp-abcdef/data/keep && echo mine > $OUT/r/.tmp-Xy12zz/.sparkreport-unfinished && touch -d '2 minutes ago' $OUT/r/.tmp-*
$ sparkreport run tests/scenarios/tiny.lua -q -o $OUT/r
{*}/report.pdf
$ ls -A $OUT/r | grep tmp; cat $OUT/r/.tmp-abcdef/data/keep; ls -A $OUT/r/latest/
.tmp-Xy12zz
.tmp-abcdef
.tmp-notes
mine
annex.pdf
report.pdf
results.csv
results.json
run.log
