#!/usr/bin/env bash
# ohk serve under load on loopback (docs/benchmarks.md, "ohk serve"):
#   1. uploads of 1,000-sample batches, 64 connections, into 8 people's
#      stores, through wrk (Benchmarks/serve/upload.lua);
#   2. GET pages of 10,000 samples of a 1,000,000-sample store, wrk;
#   3. latency of 10-sample uploads at 500 requests/s or more, wrk with a
#      delay between each connection's requests;
#   4. commit → event latency of an event stream (Benchmarks/serve/sse_lag.py);
#   beside the plain C bulk-ingest figure of the same machine (make c-bench).
# usage: scripts/serve_bench.sh [SECONDS]   (OHK= another ohk built with the Server trait;
#        PHASES= some of "uploads pages latency events", all by default;
#        SERVE_ARGS= more arguments for ohk serve, such as --no-sync)
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-10}
ohk=${OHK:-.build-server/release/ohk}
[ -x "$ohk" ] || swift build -c release --traits CommandLineTool,Server --product ohk --scratch-path .build-server
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
dir=$(mktemp -d /tmp/ohk-serve-bench-XXXXXX)
server=
trap '[ -n "$server" ] && kill $server 2>/dev/null; rm -rf "$dir"' EXIT
mkdir "$dir/data"
for p in 0 1 2 3 4 5 6 7 8; do
  echo "p$p $("$ohk" token create --data "$dir/data" --person p$p --app org.example.bench --read all --write all --relay 2>/dev/null)"
done > "$dir/all-tokens.txt"
head -8 "$dir/all-tokens.txt" > "$dir/tokens.txt"  # p8 is the event stream's
phases=${PHASES:-uploads pages latency events}
run() { [[ " $phases " == *" $1 "* ]]; }
"$ohk" serve --data "$dir/data" --listen 127.0.0.1:0 ${SERVE_ARGS:-} 2>"$dir/log" &
server=$!
for _ in $(seq 300); do grep -q "listening on" "$dir/log" && break; sleep 0.1; done
base=$(grep -o 'http://127.0.0.1:[0-9]*' "$dir/log" | head -1)

if run uploads; then
echo "== uploads: 1,000-sample batches, 64 connections, 8 people, ${seconds}s"
out=$(RUN=1 TOKENS=$dir/tokens.txt SAMPLES=1000 wrk -t2 -c64 -d"${seconds}s" --timeout 30s -s Benchmarks/serve/upload.lua "$base")
echo "$out" | grep -E "Requests/sec|Latency|requests in"
rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
echo "uploads: $(python3 -c "print(f'{$rps * 1000:,.0f}')") samples/s"
fi

if run pages; then
echo "== GET pages of 10,000 samples from a 1,000,000-sample store"
token0=$(awk '$1 == "p0" {print $2}' "$dir/tokens.txt")
python3 - "$base" "$token0" "$dir/pages.txt" <<'PY'
import json, sys, uuid, httpx
base, token, out = sys.argv[1:]
h = {"Authorization": f"Bearer {token}"}
with httpx.Client(timeout=120) as c:
    have = c.get(f"{base}/v1/health").json()
    # Fill p9 to 1,000,000 samples, 10,000 a request.
    for b in range(100):
        samples = [{"uuid": str(uuid.uuid4()), "type": "HKQuantityTypeIdentifierStepCount",
                    "start": f"2024-03-{1 + b % 28:02d}T{i // 600 % 24:02d}:{i // 10 % 60:02d}:{i % 10:02d}Z",
                    "end": f"2024-03-{1 + b % 28:02d}T{i // 600 % 24:02d}:{i // 10 % 60:02d}:{i % 10:02d}Z",
                    "value": i % 300, "unit": "count"} for i in range(10000)]
        r = c.post(f"{base}/v1/people/p0/changes", headers=h, content=json.dumps({"samples": samples}))
        assert r.status_code == 200, r.text
    anchors, anchor = [], "none"
    while True:
        page = c.get(f"{base}/v1/people/p0/changes", headers=h, params={"anchor": anchor, "limit": 10000,
                                                                         "type": "StepCount"}).json()
        if not page["samples"]:
            break
        anchors.append(anchor)
        anchor = page["anchor"]
    open(out, "w").write("\n".join(anchors) + "\n")
    print(f"{len(anchors)} pages")
PY
out=$(PAGES=$dir/pages.txt PERSON=p0 TOKEN=$token0 LIMIT=10000 wrk -t2 -c8 -d"${seconds}s" --timeout 30s -s Benchmarks/serve/pages.lua "$base")
echo "$out" | grep -E "Requests/sec|Latency|Transfer/sec"
rps=$(echo "$out" | awk '/Requests\/sec/ {print $2}')
echo "reads: $(python3 -c "print(f'{$rps * 10000:,.0f}')") samples/s"
fi

if run latency; then
sync  # what earlier phases wrote is on the disk first: fsyncs here are the uploads' own
echo "== 10-sample uploads at 500 requests/s or more (12 connections, 20 ms apart)"
out=$(RUN=2 TOKENS=$dir/tokens.txt SAMPLES=10 DELAY_MS=20 wrk -t2 -c12 -d"${seconds}s" --latency -s Benchmarks/serve/upload.lua "$base")
echo "$out" | grep -E "Requests/sec|^ +(50|75|90|99)%"
fi

if run events; then
echo "== commit -> event"
token8=$(awk '$1 == "p8" {print $2}' "$dir/all-tokens.txt")
curl -sf -X POST -H "Authorization: Bearer $token8" "$base/v1/people/p8/changes" -d '{"samples":[]}' >/dev/null  # makes the store
PYTHONPATH=bindings/python python3 Benchmarks/serve/sse_lag.py "$base" p8 "$token8" "$dir/data/p8" 500
fi
