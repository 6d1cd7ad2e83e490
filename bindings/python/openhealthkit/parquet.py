"""A folder of Parquet files kept current from a store
(``HealthStore.export_parquet``): one file per type under ``samples/``,
the deleted objects in ``deletions.parquet``, and the anchor the folder is
current to in ``anchor``, so that one call a day brings it up to date.

Each file is written beside its final name and renamed over it: an
interrupted export leaves every file whole, as the last export wrote it,
and the anchor is written last, so the next export repeats what the
interrupted one had not finished (a repeated change replaces its row by
UUID: it is never counted twice).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._checks import parquet_module, pyarrow_module
from .anchor import Anchor
from .arrow import ArrowResult
from .errors import InvalidArgumentError

#: The anchor file's name, beside ``samples/`` and ``deletions.parquet``.
ANCHOR_FILE = "anchor"


@dataclass(frozen=True)
class ParquetExport:
    """What an export wrote: the ``folder``, the rows each type's file
    has now (``rows``; only the files it rewrote), the deleted objects it
    recorded, and the ``anchor`` the folder is current to."""

    folder: Path
    anchor: Anchor
    rows: dict[str, int] = field(default_factory=dict)
    deleted: int = 0
    incremental: bool = False


def _writable(folder: Path) -> None:
    try:
        (folder / "samples").mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise InvalidArgumentError(f"cannot write the export to {folder}: {e.strerror or e}") from None
    if not os.access(folder, os.W_OK) or not os.access(folder / "samples", os.W_OK):
        raise InvalidArgumentError(f"cannot write the export to {folder}: not writable")


def _replace(path: Path, write: Callable[[Path], object]) -> None:
    """Writes `path` through a temporary name in its folder, then renames."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        write(partial)
        with open(partial, "rb") as f:
            os.fsync(f.fileno())
        os.replace(partial, path)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def kept_anchor(folder: Path) -> Anchor | None:
    """The anchor an earlier export left in `folder`, None without one."""
    path = folder / ANCHOR_FILE
    if not path.exists():
        return None
    text = path.read_text().strip()
    if not text:
        raise InvalidArgumentError(f"{path} is empty (truncated?): remove it to export everything again")
    return Anchor.from_str(text)


def export(folder: str | os.PathLike[str], query: Callable[[list[str], Anchor | None], ArrowResult],
           types: Iterable[str], since: Anchor | None, incremental: bool) -> ParquetExport:
    """Writes the changes `query(types, since)` returns into `folder`."""
    pa = pyarrow_module("export_parquet()")
    pq = parquet_module("export_parquet()")
    pc = pa.compute  # loaded by parquet_module
    root = Path(folder)
    _writable(root)
    wanted = list(types)
    samples, deleted, anchor = query(wanted, since)
    rows: dict[str, int] = {}
    by_type: dict[str, Any] = {}
    if samples.num_rows:
        type_column = samples.column("type").cast(pa.string())
        for name in pc.unique(type_column).to_pylist():
            by_type[name] = samples.filter(pc.equal(type_column, name))
    gone: dict[str, Any] = {}
    if deleted.num_rows:
        deleted_types = deleted.column("type").cast(pa.string())
        for name in pc.unique(deleted_types).to_pylist():
            gone[name] = deleted.filter(pc.equal(deleted_types, name)).column("uuid")
    for name in sorted(set(by_type) | set(gone)):
        path = root / "samples" / f"{name}.parquet"
        added = by_type.get(name)
        if incremental and path.exists():
            old = pq.read_table(path)
            drop = [c for c in (added.column("uuid") if added is not None else None, gone.get(name)) if c is not None]
            if drop:
                old = old.filter(pc.invert(pc.is_in(old.column("uuid"), value_set=pa.concat_arrays(
                    [chunk for c in drop for chunk in c.chunks]))))
            table = old if added is None else pa.concat_tables([old.cast(added.schema), added])
        elif added is not None:
            table = added
        else:
            continue  # deletions of a type the folder has no file of
        # (a full export replaces the files of its types; below, those left empty go)
        table = table.unify_dictionaries().combine_chunks()
        written: Any = table
        _replace(path, lambda p: pq.write_table(written, p))
        rows[name] = table.num_rows
    if not incremental:
        for name in wanted:
            if name not in rows:
                (root / "samples" / f"{name}.parquet").unlink(missing_ok=True)
    deletions = root / "deletions.parquet"
    if incremental and deletions.exists():
        old = pq.read_table(deletions)
        known = pc.is_in(deleted.column("uuid"), value_set=old.column("uuid").combine_chunks())
        recorded = pa.concat_tables([old, deleted.filter(pc.invert(known)).cast(old.schema)])
    else:
        recorded = deleted
    recorded = recorded.unify_dictionaries().combine_chunks()
    _replace(deletions, lambda p: pq.write_table(recorded, p))
    _replace(root / ANCHOR_FILE, lambda p: p.write_text(f"{anchor}\n"))
    return ParquetExport(folder=root, anchor=anchor, rows=rows, deleted=deleted.num_rows, incremental=incremental)
