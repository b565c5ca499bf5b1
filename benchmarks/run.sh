#!/usr/bin/env bash
# Runs every scenario through floodgate and its peers and writes RESULTS.md.
#
#   ./run.sh                 # full run: -count 6, -benchtime 1s
#   ./run.sh -smoke          # quick check of the harness (< 3 min): -count 1, short benchtimes
#   ./run.sh -count 10 -benchtime 2s -bench 'HotKey|ManyKeys'
#
# Options: -count N (runs per benchmark, default 6), -benchtime D (default
# 1s; Redis uses the same), -acc-count N (accuracy runs, 3 s each per
# library; default 3), -bench REGEX (scenarios: HotKey ManyKeys HeapPerKey
# Middleware Redis Accuracy; default all), -out FILE (default RESULTS.md).
# Raw `go test` output goes to results/raw.txt, benchstat's to
# results/benchstat.txt. The Redis scenarios start their own redis-server on
# a free loopback port (skipped with a message when it is not on PATH);
# floodgate's Redis scenario included.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:$(go env GOPATH)/bin"

orig="$*"
count=6 benchtime=1s acccount=3 bench='HotKey|ManyKeys|HeapPerKey|Middleware|Redis|Accuracy' out=RESULTS.md note=''
while (($#)); do
  case $1 in
    -smoke) count=1 benchtime=50ms acccount=1 note='smoke run (-count 1, -benchtime 50ms): provisional figures' ;;
    -count) count=$2; shift ;;
    -benchtime) benchtime=$2; shift ;;
    -acc-count) acccount=$2; shift ;;
    -bench) bench=$2; shift ;;
    -out) out=$2; shift ;;
    -h|-help|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

tags=()
if [[ $bench == *Redis* ]] && ! command -v redis-server >/dev/null; then
  echo "== redis-server not on PATH: the Redis scenarios will be skipped (apt-get install redis-server)"
fi
if ! command -v benchstat >/dev/null; then
  echo "== installing benchstat"
  go install golang.org/x/perf/cmd/benchstat@latest || echo "warning: no benchstat; RESULTS.md is still written (medians computed by cmd/report)"
fi

mkdir -p results
raw=results/raw.txt
: >"$raw"
bin=$(mktemp -d)/benchmarks.test
trap 'rm -rf "$(dirname "$bin")"' EXIT
echo "== building"
go test "${tags[@]}" -c -o "$bin" .

run() { # scenario regex, benchtime, count
  echo "== $1 (-benchtime $2 -count $3)"
  "$bin" -test.run '^$' -test.bench "^Benchmark($1)\$" -test.benchtime "$2" -test.count "$3" -test.benchmem | tee -a "$raw"
}
want() { [[ $1 =~ ^($bench)$ ]]; }

for s in HotKey ManyKeys Middleware Redis; do
  if want "$s"; then run "$s" "$benchtime" "$count"; fi
done
if want HeapPerKey; then run HeapPerKey 1x "$count"; fi
if want Accuracy; then run Accuracy 1x "$acccount"; fi

if command -v benchstat >/dev/null; then
  benchstat "$raw" >results/benchstat.txt 2>&1 || true
fi
args=(-date "$(date -u +%Y-%m-%d)" -go "$(go env GOVERSION)" -cmd "./run.sh${orig:+ $orig}")
if [[ -n $note ]]; then args+=(-note "$note"); fi
go run ./cmd/report "${args[@]}" "$raw" >"$out"
echo "== wrote $out (raw: $raw)"
