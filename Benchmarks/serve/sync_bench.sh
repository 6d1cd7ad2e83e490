#!/usr/bin/env bash
# ohk sync over HTTP on loopback (docs/benchmarks.md, "Replication"):
# a store of N reference-workload samples copied into `ohk serve`, then
# from it into a fresh store, each timed by ohk sync's own summary line.
#   Benchmarks/serve/sync_bench.sh [N] [ROUNDS]
# Needs the release builds of ohk (Server trait, .build-server) and ohk-bench.
set -euo pipefail
N=${1:-1000000}
ROUNDS=${2:-3}
OHK=${OHK:-.build-server/release/ohk}
BENCH=${BENCH:-.build/release/ohk-bench}
WORK=$(mktemp -d /tmp/ohk-sync-bench-XXXXXX)
trap 'kill $SERVER 2>/dev/null || true; rm -rf "$WORK"' EXIT
"$BENCH" --n "$N" --dir "$WORK/w" --phases 1b --keep-bulk >/dev/null
SOURCE="$WORK/w-bulk"
for round in $(seq "$ROUNDS"); do
  rm -rf "$WORK/data" "$WORK/copy" && mkdir "$WORK/data"
  TOKEN=$("$OHK" token create --data "$WORK/data" --person p --app org.example.sync --read all --write all --relay 2>/dev/null | tail -1)
  "$OHK" serve --data "$WORK/data" --listen 127.0.0.1:0 2>"$WORK/serve.log" &
  SERVER=$!
  until grep -q "listening on" "$WORK/serve.log"; do sleep 0.1; done  # its first line names the port
  PORT=$(sed -n 's/.*127\.0\.0\.1:\([0-9]*\),.*/\1/p' "$WORK/serve.log" | head -1)
  URL="http://127.0.0.1:$PORT/v1/people/p"
  UP=$("$OHK" sync "$SOURCE" "$URL" --token "$TOKEN" --quiet)
  DOWN=$("$OHK" sync "$URL" "$WORK/copy" --token "$TOKEN" --quiet)
  echo "round $round up:   $UP"
  echo "round $round down: $DOWN"
  kill $SERVER; wait $SERVER 2>/dev/null || true
done
