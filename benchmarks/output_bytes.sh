#!/bin/bash
# The outputs of one set of commands (examples/ and the shared NoveltyBench files) under a source
# tree, one file per command: run it for two trees (e.g. a worktree of the previous commit and
# this one) and `diff -r` the folders. A refactor that keeps behaviour gives the same bytes.
#   git worktree add /tmp/before HEAD~5
#   benchmarks/output_bytes.sh /tmp/before/src /tmp/out_before
#   benchmarks/output_bytes.sh "$PWD/src" /tmp/out_after && diff -r /tmp/out_before /tmp/out_after
SRC=$1; OUT=$2; mkdir -p "$OUT"
cd "$(dirname "$0")/.." || exit 2
PY=${PYTHON:-.venv/bin/python}
D="env PYTHONPATH=$SRC HF_HUB_OFFLINE=1 $PY -m diveval"
NB=../shared/data/novelty-bench/curated
A=$NB/anthropic/claude-3-5-haiku@20241022/scores.jsonl
B=$NB/cohere/$(ls $NB/cohere | head -1)/scores.jsonl
C=$NB/gemini/$(ls $NB/gemini | head -1)/scores.jsonl
$D score examples/responses.txt --json > "$OUT"/1.json 2>&1
$D score examples/sets.jsonl --json > "$OUT"/2.json 2>&1
$D score examples/sets.jsonl --metric nli-confidence --metric nli-counts --json > "$OUT"/3.json 2>&1
$D score examples/references.jsonl -m ref-bleu-2 -m ref-local-recall -m ref-rouge-l --json > "$OUT"/4.json 2>&1
$D compare examples/systems.jsonl --by system --match position --confidence 0.5 --json > "$OUT"/5.json 2>&1
$D compare examples/systems.jsonl --by system --match position --confidence 0.5 -m distinct-1 -m ead -m self-bleu --json > "$OUT"/5b.json 2>&1
$D score $A -m distinct-2 -m ead -m self-bleu -m equivalence-classes --classes partition --quality generation_scores --json > "$OUT"/6.json 2>&1
$D compare $A $B -m distinct-2 -m equivalence-classes --classes partition --quality generation_scores --json > "$OUT"/7.json 2>&1
$D leaderboard $A $B $C -m distinct-2 --json > "$OUT"/8.json 2>&1
$D score $A -m distinct-2 --level across-input --json > "$OUT"/9.json 2>&1
$D score examples/sets.jsonl -m distinct-2 --at-k 2 --json > "$OUT"/10.json 2>&1
$D rarefy $A --measure 2-grams --json > "$OUT"/11.json 2>&1
$D score examples/sets.jsonl -m equivalence-classes -m semantic-entropy --json > "$OUT"/12.json 2>&1
$D compare $A $B -m distinct-1 -m ead -m self-bleu -m avg-distinct --json > "$OUT"/13.json 2>&1
$D compare $A $B -m distinct-2 --test bootstrap --levels 2 --json > "$OUT"/14.json 2>&1
# the kinds of run of score (text tables too), a shard pair merged, and the study commands
$D score examples/systems.jsonl --by system --across --similarity exact --resamples 50 > "$OUT"/15.txt 2>&1
$D score examples/sets.jsonl --shard 0/2 --state "$OUT"/s0.state > "$OUT"/16.txt 2>&1
$D score examples/sets.jsonl --shard 1/2 --state "$OUT"/s1.state >> "$OUT"/16.txt 2>&1
$D merge "$OUT"/s0.state "$OUT"/s1.state --json >> "$OUT"/16.txt 2>&1
rm -f "$OUT"/s0.state "$OUT"/s1.state
$D score examples/responses.txt --stream-memory 1G > "$OUT"/17.txt 2>&1
$D score examples/sets.jsonl -m distinct-2 -m self-bleu --level per-input --resamples 50 > "$OUT"/18.txt 2>&1
$D score examples/systems.jsonl --by system --summary "$OUT"/19.csv > "$OUT"/19.txt 2>&1
$D score examples/sets.jsonl --level per-input --shard 0/2 > "$OUT"/20.txt 2>&1
$D score examples/sets.jsonl --across --by system --at-k 2 >> "$OUT"/20.txt 2>&1
$D correlate "$OUT"/19.csv --human human --resamples 50 > "$OUT"/21.txt 2>&1
$D meta tevet ../shared/data/diversity-eval/conTest/con_test_200_with_hds_resp_gen.csv -m avg-distinct -m distinct-2 --resamples 50 > "$OUT"/22.txt 2>&1
$D length-bias --lengths 5,10 --sets 2 --responses 50 > "$OUT"/23.txt 2>&1
# the folder's own name, which the shard and correlate lines print, as OUT: two runs compare
sed -i "s|$OUT|OUT|g" "$OUT"/*.txt
echo done
