#!/usr/bin/env bash
# ohk serve through curl: a token, an upload, a read, a refused request,
# and a clean stop on SIGTERM. Usage: curl_test.sh PATH-TO-OHK
set -euo pipefail
ohk=$(realpath "$1")
dir=$(mktemp -d)
server=
cleanup() { [ -n "$server" ] && kill "$server" 2>/dev/null; rm -rf "$dir"; }
trap cleanup EXIT
fail() { echo "curl_test: $*" >&2; [ -f "$dir/log" ] && cat "$dir/log" >&2; exit 1; }

mkdir "$dir/data"
token=$("$ohk" token create --data "$dir/data" --person alice --app com.example.sync --read all --write all 2>/dev/null | tail -1)
"$ohk" serve --data "$dir/data" --listen 127.0.0.1:0 --no-sync 2>"$dir/log" &
server=$!
for _ in $(seq 600); do grep -q "listening on" "$dir/log" && break; kill -0 $server || fail "ohk serve exited"; sleep 0.1; done
port=$(grep -o 'listening on http://127.0.0.1:[0-9]*' "$dir/log" | grep -o '[0-9]*$') || fail "no address in the log"
base=http://127.0.0.1:$port

body='{"samples":[{"uuid":"6E1B9A3C-5F7D-4E2A-9B1C-0D2E3F4A5B6C","type":"HKQuantityTypeIdentifierStepCount",
  "start":"2024-03-01T08:00:00Z","end":"2024-03-01T08:10:00Z","value":812,"unit":"count"}],"deleted":[]}'
answer=$(curl -sS -f -X POST -H "Authorization: Bearer $token" -H 'Content-Type: application/json' \
  --data-binary "$body" "$base/v1/people/alice/changes")
[ "$(jq -r .added <<<"$answer")" = 1 ] || fail "upload answered $answer"
again=$(curl -sS -f -X POST -H "Authorization: Bearer $token" --data-binary "$body" "$base/v1/people/alice/changes")
[ "$(jq -r .alreadyStored <<<"$again")" = 1 ] || fail "a second upload answered $again"

read=$(curl -sS -f -H "Authorization: Bearer $token" "$base/v1/people/alice/changes?type=StepCount")
[ "$(jq -r '.samples[0].value' <<<"$read")" = 812 ] || fail "read answered $read"
[ "$(jq -r .anchor <<<"$read")" = "$(jq -r .anchor <<<"$answer")" ] || fail "the read's anchor is not the upload's"

status=$(curl -sS -o "$dir/refused" -w '%{http_code}' "$base/v1/people/alice/changes")
[ "$status" = 401 ] && jq -e .error "$dir/refused" >/dev/null || fail "no token answered $status $(cat "$dir/refused")"

kill -TERM $server
wait $server || fail "ohk serve exited with $? on SIGTERM"
server=
grep -q "stopped; 0 stores open" "$dir/log" || fail "no clean stop in the log"
[ "$(grep -c ' /v1/people/alice/changes ' "$dir/log")" = 4 ] || fail "not one log line a request"
echo "curl_test: ok"
