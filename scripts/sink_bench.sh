#!/usr/bin/env bash
# The PostgreSQL sink's throughput beside psql's COPY of the same rows
# (docs/benchmarks.md, "PostgreSQL sink"):
#   scripts/sink_bench.sh [N] [ROUNDS]
# Builds the reference workload's store of N samples (bulk ingest), starts
# a throwaway cluster (default settings: fsync and synchronous commit on),
# then in each round, interleaved: `ohk sink postgres` into a fresh
# database (rows/s from its summary, peak anonymous memory), and psql's
# `\copy ohk_samples FROM file (FORMAT binary)` of the rows the sink wrote
# into another fresh database with the same table. Prints one line per
# run and the medians. Needs the release builds of ohk and ohk-bench.
# PG_SETTINGS='fsync = off' (lines for postgresql.conf) measures both on
# a server tuned otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-1000000}
rounds=${2:-3}
bin=.build/release
ohk=${OHK:-$bin/ohk}  # OHK=path: another build of ohk, to compare
work=$(mktemp -d /tmp/ohk-sink-bench-XXXXXX)
chmod 711 "$work"
trap 'scripts/pg_cluster.sh stop "$work/pg" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

"$bin/ohk-bench" --n "$n" --dir "$work/ref" --phases 1b --keep-bulk >/dev/null
store="$work/ref-bulk"
url=$(scripts/pg_cluster.sh start "$work/pg")
if [ -n "${PG_SETTINGS:-}" ]; then
  printf '%s\n' "$PG_SETTINGS" >>"$work/pg/data/postgresql.conf"
  scripts/pg_cluster.sh restart "$work/pg"
fi
base=${url%/*}
psql_() { psql "$1" -X -q -At -v ON_ERROR_STOP=1 "${@:2}"; }
empty="$work/empty-store"

now() { date +%s.%N; }
sink_rates=() copy_rates=() peaks=()
for r in $(seq 1 "$rounds"); do
  psql_ "$url" -c "CREATE DATABASE sink_$r" -c "CREATE DATABASE copy_$r"
  # The sink: rows/s from its summary line; its peak anonymous memory
  # (RssAnon, sampled every 20 ms: the store's pages, mapped from its
  # file, are the page cache's, not the sink's).
  "$ohk" sink postgres --store "$store" --url "$base/sink_$r" --person p --quiet >"$work/out" 2>&1 &
  pid=$! peak=0
  while kill -0 "$pid" 2>/dev/null; do
    kb=$(awk '/^RssAnon:/ {print $2}' "/proc/$pid/status" 2>/dev/null || echo 0)
    [ "${kb:-0}" -gt "$peak" ] && peak=$kb
    sleep 0.02
  done
  wait "$pid" || { cat "$work/out" >&2; exit 1; }
  out=$(cat "$work/out")
  rate=$(sed -n 's/.*(\([0-9]*\) rows\/s).*/\1/p' <<<"$out")
  rows=$(psql_ "$base/sink_$r" -c "SELECT count(*) FROM ohk_samples")
  [ "$rows" = "$n" ] || { echo "sink delivered $rows rows, expected $n: $out" >&2; exit 1; }
  # The peer: the same rows, the same table, by psql's COPY FROM STDIN.
  [ -f "$work/rows.bin" ] || psql_ "$base/sink_$r" -c "\\copy ohk_samples TO '$work/rows.bin' (FORMAT binary)"
  "$ohk" sink postgres --store "$empty" --url "$base/copy_$r" --quiet >/dev/null  # the schema only
  t=$(now)
  psql_ "$base/copy_$r" -c "\\copy ohk_samples FROM '$work/rows.bin' (FORMAT binary)"
  copy=$(python3 -c "print(int($n / ($(now) - $t)))")
  echo "round $r: sink $rate rows/s (peak anonymous memory $((peak / 1024)) MB), psql COPY $copy rows/s"
  sink_rates+=("$rate") copy_rates+=("$copy") peaks+=("$peak")
  psql_ "$url" -c "DROP DATABASE sink_$r" -c "DROP DATABASE copy_$r"
done
median() { printf '%s\n' "$@" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
s=$(median "${sink_rates[@]}") c=$(median "${copy_rates[@]}") p=$(median "${peaks[@]}")
echo "median: sink $s rows/s, psql COPY $c rows/s, ratio $(python3 -c "print(round($s / $c, 2))"), sink peak $((p / 1024)) MB (N=$n)"
