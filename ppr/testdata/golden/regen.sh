#!/bin/sh
# Regenerates the golden PPR vectors that ppr/golden_test.go checks against.
#
# What it does, for every case listed by `golden.py cases` (graph, direction,
# damping, view, trust policy):
#   1. writes mixed.tsv, the small synthetic graph (golden.py mixed; fixed seed);
#   2. writes the case's queries (golden.py queries): one seed, the
#      highest-out-weight node, a self-loop node, five seeds with unequal
#      weights, a dangling seed and a dangling seed mixed with others when the
#      view has dangling nodes (undirected real graphs have none), seeds on
#      untrusted-only nodes (mixed), a 300-node reset (wn18rr); every query
#      asks for k = all nodes;
#   3. runs the anchor, anchors/igraph_oracle.py (igraph PRPACK, tolerance
#      1e-10, dangling mass to the reset vector), on the graph file (the real
#      graphs are the repository's testdata/);
#   4. keeps what the test needs (golden.py filter): the whole vector for graphs
#      of at most 2,000 nodes, otherwise igraph's top 100, the score after it,
#      and ~300 other coordinates (seeds, zeros, dangling nodes, the lowest,
#      a deterministic random sample), into CASE.json.gz.
# Output is deterministic: running it twice gives identical files.
#
# Needs Debian's python3-igraph and python3-numpy (`apt-get install -y
# python3-igraph python3-numpy`; run with /usr/bin/python3, not a venv, or
# set PY). The Go tests need none of this.
#
# Usage (from anywhere):  sh ppr/testdata/golden/regen.sh
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
PY=${PY:-/usr/bin/python3}
ORACLE=$(cd "$HERE/../../../anchors" && pwd)/igraph_oracle.py
# PRPACK's OpenMP reductions make the last bits (~1e-13) vary run to run with
# several threads; one thread (and a fixed hash seed) gives identical bytes.
export OMP_NUM_THREADS=1 PYTHONHASHSEED=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

cd "$HERE"
"$PY" golden.py mixed mixed.tsv
for c in $("$PY" golden.py cases); do
	"$PY" golden.py queries "$c" "$TMP/$c.q.jsonl"
	# One argument a line; no path here may contain a newline.
	set -f
	IFS='
'
	# shellcheck disable=SC2046
	"$PY" "$ORACLE" $("$PY" golden.py oracle-args "$c") --queries "$TMP/$c.q.jsonl" --out "$TMP/$c.out.jsonl"
	unset IFS
	set +f
	"$PY" golden.py filter "$c" "$TMP/$c.q.jsonl" "$TMP/$c.out.jsonl" "$c.json.gz"
	echo "$c: $(wc -l <"$TMP/$c.q.jsonl") queries -> $c.json.gz"
done
ls -l "$HERE"
