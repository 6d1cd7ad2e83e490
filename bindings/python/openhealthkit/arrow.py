"""Arrow tables straight from the library (the Arrow C Data Interface):
the library writes the columns once, into memory the table then owns,
and pyarrow takes them without a copy. Polars (``polars.from_arrow``) and
DuckDB (``duckdb.sql("select ... from tbl")``) read the tables as they are.

The columns (each may be left out with ``columns=``): ``uuid``
(fixed_size_binary(16)), ``start_date`` and ``end_date``
(timestamp[us, UTC]), ``value`` (float64: the quantity in ``unit`` or
the type's canonical unit, or the category value), then ``unit``,
``type``, ``source``, ``source_bundle`` and ``device`` (dictionary-encoded
strings), ``metadata`` (a JSON object as text, null without metadata),
``utc_offset`` (int32 seconds, null without) and ``creation_date``.
Needs pyarrow (``pip install 'openhealthkit[arrow]'``).
"""

from __future__ import annotations

import ctypes
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Callable

from . import _native as n
from ._checks import pyarrow_module
from . import _enums as e
from .anchor import Anchor
from .errors import ArgumentTypeError, InvalidArgumentError

#: The columns by name, in table order.
COLUMNS: dict[str, int] = {
    "uuid": e.ARROW_UUID, "start_date": e.ARROW_START_DATE, "end_date": e.ARROW_END_DATE, "value": e.ARROW_VALUE,
    "unit": e.ARROW_UNIT, "type": e.ARROW_TYPE, "source": e.ARROW_SOURCE, "source_bundle": e.ARROW_SOURCE_BUNDLE,
    "device": e.ARROW_DEVICE, "metadata": e.ARROW_METADATA, "utc_offset": e.ARROW_UTC_OFFSET,
    "creation_date": e.ARROW_CREATION_DATE,
}

# The two structs of the C Data Interface, sized as the specification lays
# them out on a 64-bit machine; only their addresses cross to pyarrow.
_SCHEMA_BYTES, _ARRAY_BYTES = 72, 80
_RELEASE_OFFSET = {_SCHEMA_BYTES: 56, _ARRAY_BYTES: 64}
_RELEASE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


def column_bits(columns: Iterable[str] | None) -> int:
    """The OHK_ARROW_ bits of `columns` (None: 0, every column)."""
    if columns is None:
        return 0
    if isinstance(columns, str):
        raise ArgumentTypeError("columns must be a list of column names, not a str")
    bits = 0
    for name in columns:
        if name not in COLUMNS:
            raise InvalidArgumentError(f"{name!r} is not a column; the columns are {', '.join(COLUMNS)}")
        bits |= COLUMNS[name]
    if not bits:
        raise InvalidArgumentError("columns names no column")
    return bits


def options(unit: str | None, columns: Iterable[str] | None) -> n.ohk_arrow_options:
    o = n.ohk_arrow_options()
    n.lib.ohk_arrow_options_init(o, n.ARROW_OPTIONS_VERSION)
    if unit is not None:
        if not isinstance(unit, str):
            raise ArgumentTypeError(f"unit must be a str, not {type(unit).__name__}")
        o.unit = n.encode(unit, "unit")
    o.columns = column_bits(columns)
    return o


def _release(buffer: Any, size: int) -> None:
    """Releases a struct pyarrow did not take (its release is not NULL)."""
    address = ctypes.addressof(buffer)
    release = ctypes.c_void_p.from_address(address + _RELEASE_OFFSET[size]).value
    if release:
        _RELEASE(release)(address)


def import_table(fill: Callable[[int, int], None]) -> Any:
    """The pyarrow.Table that `fill(array_address, schema_address)` exports
    (a struct array of the columns)."""
    pa = pyarrow_module("an Arrow table")
    array = ctypes.create_string_buffer(_ARRAY_BYTES)
    schema = ctypes.create_string_buffer(_SCHEMA_BYTES)
    fill(ctypes.addressof(array), ctypes.addressof(schema))
    try:
        batch = pa.RecordBatch._import_from_c(ctypes.addressof(array), ctypes.addressof(schema))
    except BaseException:
        _release(array, _ARRAY_BYTES)
        _release(schema, _SCHEMA_BYTES)
        raise
    return pa.Table.from_batches([batch])


@dataclass(frozen=True)
class ArrowResult:
    """What ``HealthStore.query_arrow`` returns: the ``samples`` added after
    the anchor as a ``pyarrow.Table``, the ``deleted`` objects (a
    ``pyarrow.Table``: uuid, start_date, end_date, deletion_date, type,
    source_bundle), and the ``anchor`` to pass next time. Unpacks as
    ``samples, deleted, anchor``."""

    samples: Any
    deleted: Any
    anchor: Anchor

    def __iter__(self) -> Any:
        return iter((self.samples, self.deleted, self.anchor))


def deleted_table(records: list[Any]) -> Any:
    """The deleted objects as a small pyarrow.Table (a few per change set:
    built from Python values)."""
    pa = pyarrow_module("an Arrow table")
    utc = pa.timestamp("us", tz="UTC")
    return pa.table({
        "uuid": pa.array([r.uuid_bytes for r in records], type=pa.binary(16)),
        "start_date": pa.array([r.start_date for r in records], type=utc),
        "end_date": pa.array([r.end_date for r in records], type=utc),
        "deletion_date": pa.array([r.deletion_date for r in records], type=utc),
        "type": pa.array([r.sample_type.identifier for r in records], type=pa.string()).dictionary_encode(),
        "source_bundle": pa.array([r.source.bundle_identifier if r.source else None for r in records],
                                  type=pa.string()).dictionary_encode(),
    })
