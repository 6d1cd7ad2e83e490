#!/usr/bin/env bash
# Import speed and memory (issue 7), in one sitting:
#   1. ohk on a generated 1 GB export.xml: MB/s and peak RSS, three runs;
#   2. ohk and healthkit-to-sqlite (PyPI) on the same generated export.zip.
#   scripts/import_bench.sh OHK WORKDIR [ZIP_SIZE]
set -euo pipefail
ohk=${1:?path to a release ohk}
work=${2:?a scratch directory}
zip_size=${3:-200M}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$work"

[ -f "$work/export-1g.xml" ] || python3 "$here/gen_export.py" "$work/export-1g.xml" --size 1G
[ -f "$work/export-$zip_size.zip" ] || python3 "$here/gen_export.py" "$work/export-$zip_size.zip" --size "$zip_size"

run_ohk() {  # file label
    rm -rf "$work/store"
    /usr/bin/time -f "$2: %e s wall, peak RSS %M KB" "$ohk" import "$1" --store "$work/store" --quiet 2>&1 \
        | grep -E "^imported|: .* s wall"
}
echo "== ohk, 1 GB export.xml"
for i in 1 2 3; do run_ohk "$work/export-1g.xml" "ohk xml run $i"; done
echo "== ohk, $zip_size export.zip"
for i in 1 2 3; do run_ohk "$work/export-$zip_size.zip" "ohk zip run $i"; done
echo "== healthkit-to-sqlite, the same export.zip"
[ -x "$work/h2s-venv/bin/healthkit-to-sqlite" ] || {
    python3 -m venv "$work/h2s-venv" && "$work/h2s-venv/bin/pip" install -q healthkit-to-sqlite; }
rm -f "$work/h2s.db"
/usr/bin/time -f "healthkit-to-sqlite: %e s wall, peak RSS %M KB" \
    "$work/h2s-venv/bin/healthkit-to-sqlite" -s "$work/export-$zip_size.zip" "$work/h2s.db"
rm -rf "$work/store" "$work/h2s.db"
