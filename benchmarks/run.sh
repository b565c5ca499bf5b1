#!/usr/bin/env bash
# Runs every scenario through floodgate and its peers in interleaved rounds
# and writes RESULTS.md.
#
#   ./run.sh                  # full run: 6 rounds, -benchtime 1s
#   ./run.sh -smoke           # quick check of the harness (meant to take < 3 min on a quiet 2-core host): 2 rounds
#                             # (1 for ManyKeys, HeapPerKey, ScaleKeys ≤ 100k keys, Accuracy), -benchtime 20ms
#   ./run.sh -rounds 10 -benchtime 2s -bench 'HotKey|ManyKeys'
#   ./run.sh -report          # only rewrite RESULTS.md and the plots from results/raw.txt
#
# A round runs, for each scenario, every library once: one invocation of a
# prebuilt test binary per library (-test.bench '^BenchmarkX$/./^lib$',
# -test.count 1), the order of the libraries rotated by one from each round
# to the next, so that a noisy stretch of a shared host spreads over every
# library. cmd/report takes the median of the rounds and their range, and
# the ratio floodgate ÷ peer round by round.
#
# Options: -rounds N (default 6; -count is the same), -benchtime D (default
# 1s), -acc-rounds N (Accuracy runs in the first N rounds only, 3 s per
# library; default 3), -scale-rounds N (ScaleKeys runs in the first N
# rounds only; default 3), -scale-max-keys N (default 10000000),
# -scale-max-heap-gb G (a library that would keep more heap than this at a
# ScaleKeys count skips it; default 2), -bench REGEX (scenarios: HotKey
# ManyKeys HeapPerKey Middleware RedisScale ScaleKeys Accuracy, and Redis,
# the older 1,024-key shape, not run by default), -note TEXT (printed in
# RESULTS.md, e.g. "provisional"), -out FILE (default RESULTS.md).
# Raw output goes to results/raw.txt (what the benchmarks wrote to stderr to
# results/stderr.txt; benchstat's view, when benchstat is installed, to
# results/benchstat.txt), the plots to results/*.svg. The
# Redis scenarios start their own redis-server on a free loopback port, one
# per invocation (skipped, and listed as skipped, when it is not on PATH).
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$PATH:$(go env GOPATH)/bin"

# The command as RESULTS.md shows it: the options that shape the figures
# (not -note, -out), quoted for the shell.
shown=''
for ((i = 1; i <= $#; i++)); do
  case ${!i} in
    -note|-out) ((i++)) ;;
    *) a=${!i}
      if [[ $a =~ ^[A-Za-z0-9_./:=,+-]+$ ]]; then shown+=" $a"; else shown+=" '${a//\'/\'\\\'\'}'"; fi ;;
  esac
done
rounds=6 benchtime=1s accrounds=3 scalerounds=3 scalemaxkeys=10000000 scalemaxheap=2 heavyrounds=''
bench='HotKey|ManyKeys|HeapPerKey|Middleware|RedisScale|ScaleKeys|Accuracy' out=RESULTS.md note='' reportonly=''
while (($#)); do
  case $1 in
    -smoke) rounds=2 benchtime=20ms accrounds=1 scalerounds=1 heavyrounds=1 scalemaxkeys=100000
      note='smoke run (2 rounds, 1 for the 1M-key and scaling scenarios, -benchtime 20ms, ≤ 100k keys in ScaleKeys): a harness check, not figures' ;;
    -rounds|-count) rounds=$2; shift ;;
    -benchtime) benchtime=$2; shift ;;
    -acc-rounds|-acc-count) accrounds=$2; shift ;;
    -scale-rounds) scalerounds=$2; shift ;;
    -scale-max-keys) scalemaxkeys=$2; shift ;;
    -scale-max-heap-gb) scalemaxheap=$2; shift ;;
    -bench) bench=$2; shift ;;
    -note) note=$2; shift ;;
    -out) out=$2; shift ;;
    -report) reportonly=1 ;;
    -h|-help|--help) sed -n '2,30p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done

mkdir -p results
raw=results/raw.txt

report() {
  if ! command -v benchstat >/dev/null; then
    echo "== installing benchstat"
    go install golang.org/x/perf/cmd/benchstat@latest || echo "warning: no benchstat; RESULTS.md is still written (cmd/report computes the medians)"
  fi
  rm -f results/benchstat.txt
  if command -v benchstat >/dev/null; then
    benchstat "$raw" >results/benchstat.txt 2>&1 || true
  fi
  go run ./cmd/plot -dir results "$raw"
  go run ./cmd/report -results results "$raw" >"$out"
  echo "== wrote $out (raw: $raw)"
  echo
  sed -n '/<!-- README table: begin/,/<!-- README table: end/p' "$out"
}

if [[ -n $reportonly ]]; then
  report
  exit 0
fi

if [[ $bench == *Redis* ]] && ! command -v redis-server >/dev/null; then
  echo "== redis-server not on PATH: the Redis scenarios will be skipped (apt-get install redis-server)"
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bin=$tmp/benchmarks.test
echo "== building"
go test -c -o "$bin" .

# The benchmarks, the libraries of each and the levels of its
# sub-benchmark names (the library is the last), from the code itself
# (selection_test.go), in its order.
declare -A libs levels
scenarios=()
while read -r tag name lv rest; do
  [[ $tag == libraries ]] || continue
  libs[$name]=$rest
  levels[$name]=$lv
  if [[ $name =~ ^($bench)$ ]]; then scenarios+=("$name"); fi
done < <("$bin" -test.run '^TestLibraryNames$' -list-libraries)
if ((${#scenarios[@]} == 0)); then
  echo "run.sh: -bench '$bench' selects no scenario" >&2
  exit 2
fi

redisv=''
if command -v redis-server >/dev/null; then
  redisv=$(redis-server --version | sed -n 's/.* v=\([^ ]*\).*/\1/p')
fi
{
  echo "cpu-model: $(sed -n 's/^model name[[:space:]]*: *//p' /proc/cpuinfo 2>/dev/null | head -1)"
  echo "cores: $(nproc 2>/dev/null || getconf _NPROCESSORS_ONLN)"
  echo "go-version: $(go env GOVERSION)"
  echo "redis-version: $redisv"
  echo "date: $(date -u +%Y-%m-%d)"
  echo "command: ./run.sh$shown"
  if [[ -n $note ]]; then echo "note: $note"; fi
} >"$raw"
: >results/stderr.txt

failed=()
for ((r = 1; r <= rounds; r++)); do
  for s in "${scenarios[@]}"; do
    bt=$benchtime n=$rounds
    case $s in
      ManyKeys) n=${heavyrounds:-$rounds} ;;
      HeapPerKey) bt=1x n=${heavyrounds:-$rounds} ;;
      Accuracy) bt=1x n=$accrounds ;;
      ScaleKeys) n=$scalerounds ;;
    esac
    ((r <= n)) || continue
    read -ra ls <<<"${libs[$s]}"
    k=$(((r - 1) % ${#ls[@]}))
    order=("${ls[@]:k}" "${ls[@]:0:k}")
    mid=''
    for ((l = 1; l < levels[$s]; l++)); do mid+='/.'; done
    echo "== round $r/$rounds: $s (-benchtime $bt): ${order[*]}"
    for lib in "${order[@]}"; do
      echo "# round $r $s $lib" >>"$raw"
      set +e
      "$bin" -test.run '^$' -test.bench "^Benchmark$s\$$mid/^$lib\$" -test.benchtime "$bt" -test.count 1 \
        -test.benchmem -test.timeout 0 -scale-max-keys "$scalemaxkeys" -scale-max-heap-gb "$scalemaxheap" \
        2>>results/stderr.txt | tee -a "$raw" | { grep -E '^(Benchmark|--- )' | sed 's/^/   /'; true; }
      st=${PIPESTATUS[0]}
      set -e
      if ((st != 0)); then failed+=("$s/$lib (round $r)"); fi
    done
  done
done

report
if ((${#failed[@]})); then
  echo "== failed: ${failed[*]}" >&2
  exit 1
fi
