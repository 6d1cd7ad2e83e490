"""``python -m openhealthkit export-parquet``: what ``ohk export --format
parquet`` runs (the same arguments), for a machine with Python and
pyarrow; it prints one line, as ``ohk export`` does."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .store import HealthStore
from .anchor import Anchor
from .errors import OpenHealthKitError


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m openhealthkit")
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export-parquet", help="write or update a Parquet folder (ohk export --format parquet)")
    export.add_argument("--store", required=True, help="the store directory")
    export.add_argument("--out", required=True, help="the folder to write")
    export.add_argument("--since", help="start after the anchor in this file when it exists; write the new one to it")
    export.add_argument("types", nargs="*", help="sample types (default: every type the store has held)")
    args = parser.parse_args(argv)
    try:
        since = None
        if args.since and os.path.exists(args.since):
            text = Path(args.since).read_text().strip()
            if not text:
                raise OpenHealthKitError(f"{args.since} is empty (truncated?); remove it to export everything again")
            since = Anchor.from_str(text.split()[0])
        with HealthStore(args.store) as store:
            report = store.export_parquet(args.out, args.types or None, since=since)
        if args.since:
            partial = f"{args.since}.tmp"
            Path(partial).write_text(f"{report.anchor}\n")
            os.replace(partial, args.since)
    except (OpenHealthKitError, ImportError) as e:
        print(f"ohk: {e}", file=sys.stderr)
        return 1
    files = len(report.rows)
    print(f"{'updated' if report.incremental else 'wrote'} {files} file{'' if files == 1 else 's'} in {args.out} "
          f"({sum(report.rows.values())} rows in them, {report.deleted} deleted); anchor {report.anchor}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
