#!/usr/bin/env bash
# Import speed and memory, in one sitting, runs interleaved:
#   1. a generated 1 GB export.xml: ohk import (MB/s of XML end to end,
#      peak RSS) beside a bare expat pass over the same file (the floor);
#   2. generated export.zip files (18 MB of XML, the size of a typical
#      phone's export, and 200 MB): ohk, expat alone (libarchive
#      decompressing as it goes), and healthkit-to-sqlite (PyPI).
#   3. with REAL_EXPORT=path, a real export the same way.
#   scripts/import_bench.sh OHK WORKDIR [RUNS]
set -euo pipefail
ohk=${1:?path to a release ohk}
work=${2:?a scratch directory}
runs=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"

[ -f "$work/export-1g.xml" ] || python3 "$here/gen_export.py" "$work/export-1g.xml" --size 1G
for size in 18M 200M; do
    [ -f "$work/export-$size.zip" ] || python3 "$here/gen_export.py" "$work/export-$size.zip" --size "$size"
done
expat_pass=$work/expat_pass
cc -O2 -o "$expat_pass" "$here/../Benchmarks/expat-pass/expat_pass.c" -lexpat -larchive
[ -x "$work/h2s-venv/bin/healthkit-to-sqlite" ] || {
    python3 -m venv "$work/h2s-venv" && "$work/h2s-venv/bin/pip" install -q healthkit-to-sqlite; }

# Prints "LABEL: S s wall, peak RSS K KB" and leaves the seconds in $secs.
run_ohk() {  # file label
    rm -rf "$work/store"
    local out
    out=$(/usr/bin/time -f "$2: %e s wall, peak RSS %M KB" "$ohk" import "$1" --store "$work/store" --quiet 2>&1 \
        | grep -E "^imported|: .* s wall")
    echo "$out"
    secs=$(echo "$out" | sed -n 's/.*: \([0-9.]*\) s wall.*/\1/p')
}
run_h2s() {  # file label
    rm -f "$work/h2s.db"
    /usr/bin/time -f "$2: %e s wall, peak RSS %M KB" "$work/h2s-venv/bin/healthkit-to-sqlite" -s "$1" "$work/h2s.db" 2>&1 \
        | grep -E ": .* s wall"
}
# A bare expat pass over the same bytes, then the import's speed as a
# fraction of it (the issue's anchor: expat alone is the floor).
ratio() {  # label, then expat_pass's arguments
    local label=$1 out expat
    shift
    out=$("$expat_pass" "$@")
    echo "$out"
    expat=$(echo "$out" | sed -n 's/.*, \([0-9.]*\) s, .*/\1/p')
    awk -v l="$label" -v e="$expat" -v o="$secs" 'BEGIN { printf "%s: ratio to expat alone %.2f\n", l, e / o }'
}
for i in $(seq 1 "$runs"); do
    echo "== round $i"
    run_ohk "$work/export-1g.xml" "ohk 1 GB xml"
    ratio "1 GB xml" "$work/export-1g.xml"
    for size in 18M 200M; do
        run_ohk "$work/export-$size.zip" "ohk $size zip"
        ratio "$size zip" "$work/export-$size.zip" apple_health_export/export.xml
        run_h2s "$work/export-$size.zip" "healthkit-to-sqlite $size zip"
    done
    # A real export, when one is given: REAL_EXPORT=~/export.zip (its XML
    # entry must be apple_health_export/export.xml for the expat pass).
    if [ -n "${REAL_EXPORT:-}" ]; then
        run_ohk "$REAL_EXPORT" "ohk real export"
        case "$REAL_EXPORT" in
            *.zip) ratio "real export" "$REAL_EXPORT" apple_health_export/export.xml ;;
            *) ratio "real export" "$REAL_EXPORT" ;;
        esac
        run_h2s "$REAL_EXPORT" "healthkit-to-sqlite real export"
    fi
done
rm -rf "$work/store" "$work/h2s.db"
