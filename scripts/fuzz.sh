#!/usr/bin/env bash
# Runs each libFuzzer target of ohk-fuzz (Fuzz/ohk-fuzz) and prints one
# line per target and a total: executions, corpus entries, crashes.
#   time SECONDS  each target for SECONDS, from the seed corpus kept in
#                 Fuzz/corpus/TARGET plus what earlier runs found
#                 (build/fuzz/corpus/TARGET)
#   runs N        each target for N inputs from the seed corpus alone, with
#                 a fixed seed: the same inputs every time (CI's smoke run)
# A crash, leak, timeout (10 s an input) or out-of-memory (1 GB) leaves its
# input in build/fuzz/crashes/ and makes this exit 1; replay one with
#   OHK_FUZZ_TARGET=TARGET .build-fuzz/release/ohk-fuzz FILE
# usage: scripts/fuzz.sh FUZZER time|runs VALUE TARGET...
set -uo pipefail
fuzzer=$1; mode=$2; value=$3; shift 3
targets=("$@")
mkdir -p build/fuzz/crashes
total_runs=0; total_crashes=0
case $mode in
    time) limit=(-max_total_time="$value"); what="in ${value}s" ;;
    runs) limit=(-runs="$value" -seed=1); what="(fixed seed)" ;;
    *) echo "usage: scripts/fuzz.sh FUZZER time|runs VALUE TARGET..." >&2; exit 2 ;;
esac
for t in "${targets[@]}"; do
    corpus_dir="build/fuzz/corpus/$t"
    [ "$mode" = runs ] && corpus_dir="build/fuzz/smoke/$t" && rm -rf "$corpus_dir"
    mkdir -p "$corpus_dir"
    log="build/fuzz/$t.log"
    before=$(ls build/fuzz/crashes | grep -c "^$t-" || true)
    OHK_FUZZ_TARGET=$t "$fuzzer" "${limit[@]}" -timeout=10 -rss_limit_mb=1024 \
        -print_final_stats=1 -artifact_prefix="build/fuzz/crashes/$t-" \
        "$corpus_dir" "Fuzz/corpus/$t" > "$log" 2>&1
    status=$?
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    corpus=$(ls "$corpus_dir" | wc -l)
    after=$(ls build/fuzz/crashes | grep -c "^$t-" || true)
    crashes=$((after - before))
    [ "$status" -ne 0 ] && [ "$crashes" -eq 0 ] && crashes=1
    printf 'fuzz %-9s %12s executions %s, corpus %6s, crashes %s\n' "$t" "${runs:-0}" "$what" "$corpus" "$crashes"
    [ "$crashes" -eq 0 ] || tail -30 "$log"
    total_runs=$((total_runs + ${runs:-0})); total_crashes=$((total_crashes + crashes))
done
echo "fuzz total: $total_runs executions, $total_crashes crashes"
[ "$total_crashes" -eq 0 ]
