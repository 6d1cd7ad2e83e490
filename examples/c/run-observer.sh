#!/bin/sh
# Runs the observer example while the quickstart example, another process,
# writes to the same store; passes when the observer reports the change.
# Waits on the observer's "ready" line through a FIFO, never on a timer.
set -eu
bin=$1 store=$2
fifo=$store.fifo
rm -rf "$store" "$store.anchor" "$fifo"
mkfifo "$fifo"
"$bin/observer" "$store" 1 > "$fifo" &
pid=$!
exec 3< "$fifo"
read -r first <&3
[ "$first" = ready ] || { echo "observer said '$first'"; exit 1; }
"$bin/quickstart" "$store" > /dev/null
out=$(cat <&3)
wait $pid
rm -f "$fifo"
echo "observer saw: $out"
[ "$out" = "changed: HKQuantityTypeIdentifierStepCount" ]
