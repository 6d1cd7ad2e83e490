#!/bin/sh
# Installs the wheel into a fresh venv and uses it as a machine without the
# Swift toolchain would: PATH without it, no LD_LIBRARY_PATH, no
# OPENHEALTHKIT_LIBRARY, outside the repository. Fails unless the installed
# library resolves every dependency outside the toolchain (liblmdb from the
# wheel itself), the wheel is manylinux-tagged, and a save, a query and a
# statistics collection work.
#
#   scripts/check_wheel.sh WHEEL_DIR
set -eu
dir=$(cd "${1:?usage: scripts/check_wheel.sh WHEEL_DIR}" && pwd)
wheel=$(ls "$dir"/openhealthkit-*manylinux*_x86_64.whl)
root=$(cd "$(dirname "$0")/.." && pwd)
venv=$root/build/wheel-venv
rm -rf "$venv" && python3 -m venv "$venv"
"$venv/bin/pip" install -q --no-deps "$wheel"
run=$(mktemp -d)
installed=$("$venv/bin/python" -c "import importlib.util, os; print(os.path.dirname(importlib.util.find_spec('openhealthkit').origin))")
ldd "$installed/libopenhealthkit.so" > "$run/ldd.txt"
if grep -q "not found\|/opt/swift\|swift" "$run/ldd.txt"; then
  echo "check_wheel: the installed library needs the toolchain or misses a library:" >&2; cat "$run/ldd.txt" >&2; exit 1
fi
grep -q "openhealthkit.libs/liblmdb" "$run/ldd.txt" || { echo "check_wheel: liblmdb does not come from the wheel" >&2; cat "$run/ldd.txt" >&2; exit 1; }
cd "$run"
env -i HOME="$run" PATH=/usr/bin:/bin "$venv/bin/python" - <<'PY'
from datetime import datetime, timedelta, timezone
import openhealthkit as ohk
t = datetime(2024, 3, 1, 8, tzinfo=timezone.utc)
with ohk.HealthStore("store") as store:
    store.save([ohk.QuantitySample("StepCount", t + timedelta(hours=k), t + timedelta(hours=k, minutes=10), 100)
                for k in range(3)])
    samples, deleted, anchor = store.query("StepCount")
    days = store.statistics_collection("StepCount", start=t, end=t + timedelta(days=1))
    assert len(samples) == 3 and days[0].sum == 300, (len(samples), days[0].sum)
    print("wheel: installed openhealthkit", ohk.__version__, "from", ohk.__file__, "- 3 samples, 300 steps")
PY
rm -rf "$run"
echo "check_wheel: ok, $(basename "$wheel")"
