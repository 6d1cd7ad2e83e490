#!/usr/bin/env bash
# The main job, with the `ohk` tool: import an Apple Health export into a
# new store, summarise it, run an anchored query, save a change, and show
# that the query from the returned anchor sees exactly that change.
#   examples/quickstart.sh OHK EXPORT   (make quickstart passes both)
set -euo pipefail
ohk=${1:?path to ohk}
export_file=${2:?export.zip or export.xml}
store=$(mktemp -d /tmp/ohk-quickstart-XXXXXX)/store
trap 'rm -rf "$(dirname "$store")"' EXIT

step() { printf '\n== %s\n' "$*"; }

step "1. import $export_file into a new store ($store)"
"$ohk" import "$export_file" --store "$store"

step "2. what the store holds"
"$ohk" stats --store "$store"

step "3. an anchored query for body mass from no anchor: every sample, and the anchor to keep"
"$ohk" query BodyMass --unit lb --store "$store"
anchor=$("$ohk" query BodyMass --format json --store "$store" | sed -n 's/.*"anchor":"\([^"]*\)".*/\1/p')

step "4. save a change: one new body-mass sample"
uuid=$("$ohk" add BodyMass 141.2 --unit lb --start 2021-01-23T08:00:00Z --source com.example.scale --store "$store")
echo "saved $uuid"

step "5. the same query from the anchor of step 3: exactly that change"
"$ohk" query BodyMass --unit lb --anchor "$anchor" --store "$store" | tee /tmp/ohk-quickstart-delta.$$
# The delta must be the one sample just saved, nothing else.
grep -q "$uuid" /tmp/ohk-quickstart-delta.$$ && grep -q '^1 samples, 0 deleted objects$' /tmp/ohk-quickstart-delta.$$
rm -f /tmp/ohk-quickstart-delta.$$

step "6. the same, as a change feed (one JSON object per line; the last line is the new anchor)"
"$ohk" changes --since "$anchor" BodyMass --store "$store"

printf '\nquickstart: the query from the anchor saw exactly the new sample %s\n' "$uuid"
