"""NumPy columns of a batch: analysis without a Python object per sample."""

from __future__ import annotations

import ctypes
import mmap
import uuid as uuid_module
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from . import _native as n
from ._checks import numpy_module, pandas_module
from ._convert import microseconds
from .anchor import Anchor
from ._marshal.catalogue import value_name
from .catalogue import SampleType, conversion, significant
from .errors import InvalidArgumentError
from .heartbeat import (
    HEARTBEAT_FIELDS as HEARTBEAT_FIELDS, HeartbeatColumns as HeartbeatColumns, heartbeat_columns as heartbeat_columns,
    heartbeat_dtype as heartbeat_dtype,
)
from .route import LocationColumns as LocationColumns, location_columns as location_columns
from .samples import Source

if TYPE_CHECKING:
    import numpy as np

    from .batch import BatchContext


@dataclass(frozen=True)
class SampleColumns:
    """A batch's samples as NumPy arrays, one row per sample in change order.

    ``start`` and ``end`` are ``datetime64[us]`` in UTC; ``value`` is float64
    in each type's canonical unit (category values too), or in ``unit`` when
    ``to_numpy(unit=...)`` or ``query_columns(unit=...)`` asked for one
    (rounded to 15 significant digits, rule 44); ``uuid`` is an (n, 16)
    uint8 array.
    ``type`` codes index ``types``; ``source`` codes index ``sources``, one
    per app or device (bundle identifier), and ``revision`` codes index
    ``revisions``, one per version of one (what a sample's ``source`` is).
    Both are ready for ``pandas.Categorical.from_codes(cols.source,
    [s.bundle_identifier for s in cols.sources])``; ``to_pandas()`` does it.
    The arrays are the caller's own (views of one block the library filled).
    """

    uuid: "np.ndarray"
    start: "np.ndarray"
    end: "np.ndarray"
    value: "np.ndarray"
    type: "np.ndarray"
    source: "np.ndarray"
    types: list[SampleType]
    sources: list[Source]
    revision: "np.ndarray"
    revisions: list[Source]
    #: The unit of ``value``; None: each type's canonical unit.
    unit: str | None = None
    #: Each sample's own UTC offset in seconds (INT32_MIN: none) and its
    #: creation date (``datetime64[us]``, NaT: none); None unless read
    #: with ``times=True``.
    utc_offset: "np.ndarray | None" = None
    creation_date: "np.ndarray | None" = None

    def __len__(self) -> int:
        return len(self.value)

    def to_pandas(self, unit: str | None = None, *, uuids: bool = False, times: bool = False,
                  index: bool = True) -> Any:
        """A DataFrame indexed by ``start`` (UTC, sorted: ``df.loc["2020-11"]``
        selects a month), with ``end``, ``value``,
        ``unit``, ``type`` (the short names: ``HeartRate``) and ``source``
        (names; the bundle identifier where two apps share a name) as
        categoricals, and the ``uuid`` strings with ``uuids=True``. Values
        in ``unit``; by default, as ``SampleList.to_pandas``, each quantity
        type's display unit (count/min for heart rate, km for distances),
        or the unit the columns were read in; the ``unit`` categorical
        names each row's (NaN for category values; rule 45). When a
        category type is among them, a ``value_name`` categorical follows
        ``value``: each value's name (``AsleepDeep``), NaN for rows of
        other types or values without a name (rule 46). With ``times``
        (columns read with ``times=True``), ``utc_offset`` (a timedelta,
        NaT without) and ``creation_date`` (UTC, NaT without): a sample's
        local day is ``start + utc_offset``, in columns. With
        ``index=False``, ``start`` is the first column and the index a
        plain range, for SQL engines. Needs pandas."""
        pd = pandas_module()
        np = numpy_module("to_pandas()")
        if times and (self.utc_offset is None or self.creation_date is None):
            raise InvalidArgumentError("these columns were read without their times: read them with times=True "
                                       "(query_columns(..., times=True) or samples.to_numpy(times=True))")
        value = self.value
        if unit is None and self.unit is None:
            value, units = _in_display_units(np, value, self.type, self.types)
        else:
            if unit is not None and unit != self.unit:
                if self.unit is None:
                    value = _in_unit(np, value, self.type, self.types, unit)
                else:  # every type converts to the columns' unit: one map from it
                    value = _converted(np, value, self.unit, unit)
            units = [unit or self.unit] * len(self.types)
        labels = _source_labels(self.sources)
        columns: dict[str, Any] = {
            "end": pd.DatetimeIndex(self.end).tz_localize("UTC"),
            "value": value,
        }
        if any(kind.is_category for kind in self.types):
            columns["value_name"] = _value_names(np, pd, self.value, self.type, self.types)
        shown = sorted({u for u in units if u is not None})
        unit_codes = np.array([-1 if u is None else shown.index(u) for u in units] or [-1], dtype=np.int32)
        columns["unit"] = pd.Categorical.from_codes(unit_codes[self.type], shown)
        columns["type"] = pd.Categorical.from_codes(self.type, [t.short_name for t in self.types])
        columns["source"] = pd.Categorical.from_codes(self.source, labels)
        if times and self.utc_offset is not None and self.creation_date is not None:
            offset = self.utc_offset.astype(np.int64)
            micros = np.where(offset == np.iinfo(np.int32).min, np.iinfo(np.int64).min, offset * 1_000_000)
            columns["utc_offset"] = pd.to_timedelta(micros.view("timedelta64[us]"))  # INT64_MIN reads as NaT
            columns["creation_date"] = pd.DatetimeIndex(self.creation_date).tz_localize("UTC")
        if uuids:
            columns["uuid"] = [str(uuid_module.UUID(bytes=bytes(row))) for row in self.uuid]
        start = pd.DatetimeIndex(self.start, name="start").tz_localize("UTC")
        frame = pd.DataFrame(columns, index=start)
        # Change order is not time order: sorted by start (stable), so that dates select.
        if not frame.index.is_monotonic_increasing:
            frame = frame.sort_index(kind="stable")
        return frame.reset_index() if not index else frame


def _source_labels(sources: list[Source]) -> list[str]:
    """Each source's name, with its bundle identifier where two share one."""
    names = [s.name for s in sources]
    return [s.name if names.count(s.name) == 1 else f"{s.name} ({s.bundle_identifier})" for s in sources]


def _in_display_units(np: Any, value: Any, type_code: Any, types: list[SampleType]) -> tuple[Any, list[str | None]]:
    """`value` (canonical) with each quantity type's rows in its display
    unit, and each type's unit (None for category types: no unit)."""
    out = value
    units: list[str | None] = []
    for code, kind in enumerate(types):
        if kind.canonical_unit is None:
            units.append(None)
            continue
        shown = kind.display_unit or kind.canonical_unit
        units.append(shown)
        if conversion(kind.canonical_unit, shown) is None:
            continue
        if out is value:
            out = value.copy()
        rows = slice(None) if len(types) == 1 else type_code == code
        out[rows] = _converted(np, value[rows], kind.canonical_unit, shown)
    return out, units


def display_unit(types: list[SampleType]) -> str | None:
    """The unit to_pandas shows values in by default: the display unit of
    one quantity type (count/min for heart rate), None otherwise (each
    type's canonical unit)."""
    return types[0].display_unit if len(types) == 1 and types[0].display_unit else None


def _value_names(np: Any, pd: Any, value: Any, type_code: Any, types: list[SampleType]) -> Any:
    """The names of the category values as a Categorical (NaN where none):
    one look-up per distinct value of each category type, not per row."""
    names: list[str] = []
    codes = np.full(len(value), -1, dtype=np.int32)  # -1: NaN
    for code, kind in enumerate(types):
        if not kind.is_category or kind.is_custom:  # a store's own types name their values in it alone
            continue
        rows = type_code == code
        identifier = kind.identifier.encode("utf-8")
        for number in np.unique(value[rows]):
            name = value_name(identifier, int(number))
            if name is not None:
                if name not in names:
                    names.append(name)
                codes[rows & (value == number)] = names.index(name)
    return pd.Categorical.from_codes(codes, names)


def _distinct_sources(np: Any, revision: Any, revisions: list[Source]) -> tuple[Any, list[Source]]:
    """The codes by bundle identifier, and one Source per bundle (its
    first revision's name, no version). With one revision per bundle the
    codes are the revision codes' array itself."""
    sources: list[Source] = []
    index: dict[str, int] = {}
    bundle_of = np.empty(len(revisions), dtype=np.uint32)
    for i, r in enumerate(revisions):
        if r.bundle_identifier not in index:
            index[r.bundle_identifier] = len(sources)
            sources.append(Source(r.bundle_identifier, r.name))
        bundle_of[i] = index[r.bundle_identifier]
    if len(sources) == len(revisions):  # one revision each, the usual case: the same codes
        return revision, sources
    return bundle_of[revision], sources


def _in_unit(np: Any, value: Any, type_code: Any, types: list[SampleType], unit: str | None) -> Any:
    """`value` (canonical) in `unit` for every row; each type must be a
    quantity type whose canonical unit converts to it. Rows already in
    `unit` stay exact; the others are rounded to 15 significant digits
    (rule 44)."""
    if unit is None:
        return value
    out = value.copy()
    for code, kind in enumerate(types):
        if kind.canonical_unit is None:
            raise InvalidArgumentError(f"{kind.identifier} has no unit: its values are category values")
        if conversion(kind.canonical_unit, unit) is None:  # the canonical unit: exact
            continue
        rows = slice(None) if len(types) == 1 else type_code == code
        out[rows] = _converted(np, value[rows], kind.canonical_unit, unit)
    return out


def _converted(np: Any, value: Any, from_unit: str, to_unit: str) -> Any:
    """`value` in `to_unit`, as ``catalogue.converted`` gives each: the same
    affine map, then rounded to 15 significant digits (the identity: a copy)."""
    mapping = conversion(from_unit, to_unit)
    if mapping is None:
        return value.copy()
    scale, offset = mapping
    moved = value * scale
    if offset:
        moved += offset
    return _significant(np, moved)


#: 10**k as doubles for k from 0 to 22, each exact.
_POWERS_OF_TEN = [float(10**k) for k in range(23)]
_SPLIT = 134217729.0  # 2**27 + 1: Dekker's split of a double into two halves


def _significant(np: Any, values: Any) -> Any:
    """`values` rounded to 15 significant digits, each as
    ``catalogue.significant`` (``%.15g``) rounds it, in a few passes.

    A magnitude from 1e-8 to 1e15 (any health value in a unit people
    read) times an exact power of ten is a 15-digit number, rounded to an
    integer and divided back: correctly rounded, as ``%.15g``. The
    product's own rounding can land it on a half-way point the exact
    product is not at; its error term settles those. Zeros, NaN and
    infinities stay as they are; other magnitudes go one by one."""
    magnitude = np.abs(values)
    fast = (magnitude >= 1e-8) & (magnitude < 1e15)
    every = bool(fast.all())  # the usual case: no copy of the rows
    x = values if every else values[fast]
    exponent = 14 - np.floor(np.log10(magnitude if every else magnitude[fast])).astype(np.intp)
    # log10 may miss by one next to a power of ten: those rows move to the
    # exponent that makes them 15 digits.
    product = x * np.asarray(_POWERS_OF_TEN)[np.clip(exponent, 0, 22)]
    exponent += (np.abs(product) < 1e14).astype(np.intp) - (np.abs(product) >= 1e15).astype(np.intp)
    scale = np.asarray(_POWERS_OF_TEN)[np.clip(exponent, 0, 22)]
    product = x * scale
    whole = np.rint(product)  # half-way: to even, as %.15g on an exact tie
    tie = np.flatnonzero(product - np.floor(product) == 0.5)
    if len(tie):
        a, b, p = x[tie], scale[tie], product[tie]
        t = _SPLIT * a
        a_high = t - (t - a)
        t = _SPLIT * b
        b_high = t - (t - b)
        a_low, b_low = a - a_high, b - b_high
        error = ((a_high * b_high - p) + a_high * b_low + a_low * b_high) + a_low * b_low  # x * scale - p, exactly
        whole[tie] = np.where(error > 0, np.ceil(p), np.where(error < 0, np.floor(p), whole[tie]))
    if every:
        return whole / scale
    out = values.copy()
    out[fast] = whole / scale
    for index in np.flatnonzero(~fast & (magnitude > 0) & (magnitude < np.inf)):
        out[index] = significant(float(values[index]))
    return out


@dataclass(frozen=True)
class DeletedColumns:
    """A batch's deleted objects as NumPy arrays, in change order: ``uuid``
    (n, 16) uint8, the deleted samples' ``start`` and ``end`` and the
    ``deletion_date`` (``datetime64[us]``, UTC), ``type`` codes into
    ``types`` and ``source`` codes into ``sources`` (one per app, as in
    SampleColumns). The arrays are the caller's own."""

    uuid: "np.ndarray"
    start: "np.ndarray"
    end: "np.ndarray"
    deletion_date: "np.ndarray"
    type: "np.ndarray"
    source: "np.ndarray"
    types: list[SampleType]
    sources: list[Source]

    def __len__(self) -> int:
        return len(self.type)

    def to_pandas(self) -> Any:
        """A DataFrame, one row per deleted object in change order: ``uuid``
        (text), the deleted sample's ``start`` and ``end`` and the
        ``deletion_date`` (UTC), ``type`` (short names) and ``source``
        (names) as categoricals. Needs pandas."""
        pd = pandas_module()
        return pd.DataFrame({
            "uuid": [str(uuid_module.UUID(bytes=bytes(row))) for row in self.uuid],
            "start": pd.DatetimeIndex(self.start).tz_localize("UTC"),
            "end": pd.DatetimeIndex(self.end).tz_localize("UTC"),
            "deletion_date": pd.DatetimeIndex(self.deletion_date).tz_localize("UTC"),
            "type": pd.Categorical.from_codes(self.type, [t.short_name for t in self.types]),
            "source": pd.Categorical.from_codes(self.source, _source_labels(self.sources)),
        })


def deleted_columns(context: "BatchContext") -> DeletedColumns:
    np = _numpy()
    layout = np.dtype([("uuid", "u1", (16,)), ("start", "<f8"), ("end", "<f8"), ("deletion_date", "<f8"),
                       ("type", "<u4"), ("source", "<u4"), ("sync_identifier", "<u8"), ("sync_version", "<f8")])
    records = np.frombuffer(context.deleted_data, dtype=layout, count=context.deleted_count)
    source, sources = _distinct_sources(np, records["source"].copy(), list(context.sources))
    return DeletedColumns(uuid=records["uuid"].copy(), start=microseconds(np, records["start"]),
                          end=microseconds(np, records["end"]),
                          deletion_date=microseconds(np, records["deletion_date"]),
                          type=records["type"].copy(), source=source, types=list(context.types), sources=sources)


def _record_dtype(np: Any) -> Any:
    return np.dtype([("uuid", "u1", (16,)), ("start", "<f8"), ("end", "<f8"), ("value", "<f8"),
                     ("type", "<u4"), ("source", "<u4"), ("flags", "<u4"), ("utc_offset", "<i4"),
                     ("creation_date", "<f8")])


def sample_columns(context: "BatchContext", unit: str | None = None, times: bool = False) -> SampleColumns:
    np = _numpy()
    if context.handle is None:  # a batch lent to a callback: read from its copied records
        return _from_records(np, context, unit)
    # The library writes straight into the arrays: no record array, no
    # temporary per column.
    count = context.sample_count
    block, columns = _block(np, count)
    extra = _times(np, columns, count) if times else None
    if count:
        written = ctypes.c_uint64()
        n.lib.ohk_batch_sample_columns(written, columns, count, context.handle)
    return _sample_columns(np, block, count, count, context, unit, extra)


def _times(np: Any, columns: Any, capacity: int) -> tuple[Any, Any]:
    """Arrays for each sample's UTC offset and creation date, pointed to
    by `columns` for the library to fill."""
    offsets = np.empty(max(capacity, 1), dtype=np.int32)
    created = np.empty(max(capacity, 1), dtype=np.int64)
    columns.utc_offset = offsets.ctypes.data
    columns.creation_us = created.ctypes.data
    return offsets, created


def _numpy() -> Any:
    return numpy_module("to_numpy()")


def _block(np: Any, capacity: int, mapped: bool = False) -> tuple[Any, Any]:
    """One block for the six columns of `capacity` rows (8-byte ones
    first, so each is aligned), and the C columns pointing into it.
    `mapped`: an anonymous mapping rather than NumPy's memory, for a
    block sized by a bound, which a second thread fills: its pages are
    made only near the rows written, as they are written, and NumPy's huge
    pages (which a fresh block of tens of MB paid for in compaction, half
    again the read) are not asked for, nor given where the kernel would
    give them unasked. A private mapping: a shared one is shared memory,
    whose faults cost a tenth of the query more."""
    if mapped:
        memory = mmap.mmap(-1, capacity * 48, flags=mmap.MAP_PRIVATE)
        if hasattr(mmap, "MADV_NOHUGEPAGE"):
            memory.madvise(mmap.MADV_NOHUGEPAGE)
        block = np.frombuffer(memory, dtype=np.uint8)
    else:
        block = np.empty(capacity * 48, dtype=np.uint8)
    address = block.__array_interface__["data"][0]
    offsets = (0, 16, 24, 32, 40, 44)
    columns = n.ohk_sample_columns(*(address + k * capacity for k in offsets), None, None, None)
    return block, columns


def _sample_columns(np: Any, block: Any, count: int, capacity: int, context: "BatchContext",
                    unit: str | None, times: tuple[Any, Any] | None = None) -> SampleColumns:
    """SampleColumns viewing the first `count` rows of each column of `block`."""
    def rows(at: int, size: int) -> Any:
        return block[at * capacity:at * capacity + size * count]
    uuid = rows(0, 16).reshape(count, 16)
    start, end = rows(16, 8).view("datetime64[us]"), rows(24, 8).view("datetime64[us]")
    value, type_index, source = rows(32, 8).view(np.float64), rows(40, 4).view(np.uint32), rows(44, 4).view(np.uint32)
    revisions = list(context.sources)
    by_bundle, sources = _distinct_sources(np, source, revisions)
    return SampleColumns(uuid=uuid, start=start, end=end, value=_in_unit(np, value, type_index, list(context.types), unit),
                         type=type_index, source=by_bundle, types=list(context.types), sources=sources,
                         revision=source, revisions=revisions, unit=unit,
                         utc_offset=None if times is None else times[0][:count].copy(),
                         creation_date=None if times is None else times[1][:count].view("datetime64[us]").copy())


@dataclass(frozen=True)
class ColumnsResult:
    """What ``HealthStore.query_columns`` returns: the ``samples`` added and
    the ``deleted`` objects after the anchor as NumPy columns, and the
    ``anchor`` to pass next time. Unpacks as ``samples, deleted, anchor``."""

    samples: SampleColumns
    deleted: DeletedColumns
    anchor: Anchor

    def __iter__(self) -> Iterator[Any]:
        return iter((self.samples, self.deleted, self.anchor))


def query_columns(handle: Any, context_of: Callable[[Any], BatchContext], descriptors: Any, count: int,
                  anchor: Anchor, limit: int, unit: str | None, times: bool = False) -> ColumnsResult:
    """The query in the store `handle`, its samples written by the library
    straight into the columns as it reads them (no batch of records in
    between); ``context_of(batch)`` reads a batch's tables."""
    np = _numpy()
    while True:
        bound = ctypes.c_uint64()
        n.lib.ohk_store_fetch_bound(bound, handle, descriptors, count)
        # One row more than the bound: a full block means a save came
        # between the two calls (it then runs again with a new bound),
        # not that the query matched exactly `bound`.
        capacity = (min(bound.value, limit) if limit else bound.value) + 1
        block, columns = _block(np, capacity, mapped=True)
        extra = _times(np, columns, capacity) if times else None
        if count == 1:
            # One type: every type code is 0, which a fresh mapping already
            # holds, so the library need not write (nor the kernel give)
            # that column's pages.
            columns.type_index = None
        batch = ctypes.POINTER(n.ohk_batch)()
        written = ctypes.c_uint64()
        n.lib.ohk_store_fetch_columns(batch, written, handle, descriptors, count, anchor._struct, limit,
                                      columns, capacity)
        try:
            context = context_of(batch)
        except BaseException:
            n.lib.ohk_batch_free(batch)
            raise
        if written.value < capacity or (limit and written.value + context.deleted_count >= limit):
            break
    next_anchor = n.ohk_anchor()
    n.lib.ohk_batch_anchor(next_anchor, batch)
    return ColumnsResult(samples=_sample_columns(np, block, written.value, capacity, context, unit, extra),
                         deleted=deleted_columns(context), anchor=Anchor(next_anchor))


def _from_records(np: Any, context: "BatchContext", unit: str | None) -> SampleColumns:
    records = np.frombuffer(context.sample_data, dtype=_record_dtype(np), count=context.sample_count)
    revision, revisions = records["source"].copy(), list(context.sources)
    by_bundle, sources = _distinct_sources(np, revision, revisions)
    return SampleColumns(
        uuid=records["uuid"].copy(),
        start=microseconds(np, records["start"]),
        end=microseconds(np, records["end"]),
        value=_in_unit(np, records["value"].copy(), records["type"], list(context.types), unit),
        type=records["type"].copy(),
        source=by_bundle,
        types=list(context.types),
        sources=sources,
        revision=revision,
        revisions=revisions,
        unit=unit,
        utc_offset=np.where(records["flags"] & n.SAMPLE_HAS_UTC_OFFSET, records["utc_offset"],
                            np.iinfo(np.int32).min).astype(np.int32),
        creation_date=np.where(records["flags"] & n.SAMPLE_HAS_CREATION_DATE,
                               np.rint(np.nan_to_num(records["creation_date"]) * 1e6).astype(np.int64),
                               np.iinfo(np.int64).min).view("datetime64[us]"),
    )
