#!/usr/bin/env bash
# End-to-end lag of `ohk sink postgres --follow` (docs/benchmarks.md,
# "PostgreSQL sink"): a writer process saves one sample at a time, RATE a
# second for SECONDS, into a store the sink follows; the lag of a sample is
# PostgreSQL's commit time of its row (track_commit_timestamp) less the
# Unix time the writer stamped on it just before saving. Prints the
# median, 95th and 99th percentiles and the maximum, in ms.
#   scripts/sink_lag_bench.sh [RATE] [SECONDS]
# Needs the release ohk and the Python package with its library (make python-lib).
set -euo pipefail
cd "$(dirname "$0")/.."
rate=${1:-1000}
seconds=${2:-20}
work=$(mktemp -d /tmp/ohk-sink-lag-XXXXXX)
chmod 711 "$work"
sink=
trap '[ -n "$sink" ] && kill "$sink" 2>/dev/null; scripts/pg_cluster.sh stop "$work/pg" >/dev/null 2>&1 || true; rm -rf "$work"' EXIT

url=$(scripts/pg_cluster.sh start "$work/pg")
echo "track_commit_timestamp = on" >>"$work/pg/data/postgresql.conf"
scripts/pg_cluster.sh restart "$work/pg"
psql_() { psql "$url" -X -q -At -v ON_ERROR_STOP=1 "$@"; }

.build/release/ohk sink postgres --store "$work/store" --url "$url" --person lag --follow --quiet 2>"$work/sink.log" &
sink=$!
PYTHONPATH=bindings/python python3 Benchmarks/sink/lag_writer.py "$work/store" "$rate" "$seconds"
total=$((rate * ${seconds%.*}))
for _ in $(seq 1 600); do
  [ "$(psql_ -c "SELECT count(*) FROM ohk_samples" 2>/dev/null || echo 0)" = "$total" ] && break
  sleep 0.1
done
kill -TERM "$sink"
wait "$sink" || true
sink=
tail -1 "$work/sink.log"
psql_ -c "
  WITH lag AS (
    SELECT (extract(epoch FROM pg_xact_commit_timestamp(xmin)) - (metadata->>'bench_t')::float8) * 1000 AS ms
    FROM ohk_samples)
  SELECT format('lag at %s saves/s over %s s, %s samples: median %s ms, p95 %s ms, p99 %s ms, max %s ms',
                $rate, $seconds, count(*),
                round(percentile_cont(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 1),
                round(percentile_cont(0.95) WITHIN GROUP (ORDER BY ms)::numeric, 1),
                round(percentile_cont(0.99) WITHIN GROUP (ORDER BY ms)::numeric, 1),
                round(max(ms)::numeric, 1))
  FROM lag"
