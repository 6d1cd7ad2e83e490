"""Query results: a batch's records read as samples without a copy per field.

A C batch holds contiguous fixed-size records plus small type and source
tables. A QueryResult keeps the batch (or, for a batch lent to a callback,
a copy of it) and makes Sample objects as they are iterated or indexed.
"""

from __future__ import annotations

import ctypes
import operator
import struct
from collections.abc import Iterable, Iterator, Sequence
from typing import Any, Callable, TypeVar, cast, overload

from . import _native as n
from ._checks import numpy_module, pandas_module
from ._kinds import class_of, read_fields
from ._marshal.samples import read_device, read_metadata
from .anchor import Anchor
from .arrow import import_table, options as arrow_options
from .catalogue import SampleType
from .columns import DeletedColumns, SampleColumns, deleted_columns, display_unit, sample_columns
from .errors import ArgumentTypeError, InvalidArgumentError
from .samples import CategorySample, DeletedObject, Device, QuantitySample, Sample, Source

_SAMPLE = struct.Struct(n.SAMPLE_RECORD_FORMAT)
#: The same records without utc_offset and creation_date (read only when
#: the flags announce them): for a chunk of which no record has either,
#: a tuple two items and a float shorter per sample.
_SAMPLE_SHORT = struct.Struct(n.SAMPLE_RECORD_FORMAT[:-2] + "12x")
_TIMED = n.SAMPLE_HAS_CREATION_DATE | n.SAMPLE_HAS_UTC_OFFSET
_DELETED = struct.Struct(n.DELETED_RECORD_FORMAT)
assert _SAMPLE.size == _SAMPLE_SHORT.size == ctypes.sizeof(n.ohk_sample_record)
assert _DELETED.size == ctypes.sizeof(n.ohk_deleted_record)

TypeLookup = Callable[[str], SampleType]
#: Records copied from a batch at a time (256 KB).
_CHUNK = 4096
_RECORDS = n.ohk_sample_record * _CHUNK
T = TypeVar("T")


class BatchContext:
    """What every sample of one batch shares: the type and source tables,
    the class of each type's samples, and access to metadata, devices, sync
    identifiers and the own fields of workouts, routes, correlations and
    heartbeat series by UUID."""

    __slots__ = ("_handle", "types", "classes", "sources", "_sample_data", "_chunk", "sample_count", "deleted_data",
                 "deleted_count", "sync_identifiers", "_index", "_metadata", "_devices", "_fields",
                 "_fields_index")

    def __init__(self, handle: Any, lookup: TypeLookup, lent: bool) -> None:
        """Reads `handle`; a `lent` batch (a callback's) is copied whole,
        because the library frees it when the callback returns."""
        self._handle = None if lent else handle
        self.types = [lookup(identifier) for identifier in _type_table(handle)]
        #: The class of each type's samples, by type index.
        self.classes: list[type[Sample]] = [class_of(kind) for kind in self.types]
        self.sources = _source_table(handle)
        # Records are copied from the batch a chunk at a time as they are
        # read (a copy of all of them beside the sample objects made of
        # them was 60 bytes a sample). A lent batch is read at once.
        self._sample_data: Any = None
        self._chunk: tuple[int, Any] = (-_CHUNK, b"")  # holds no index
        self.sample_count = _sample_count(handle)
        if lent:
            self._sample_data, _ = _records(handle, n.lib.ohk_batch_samples, n.ohk_sample_record, True)
        self.deleted_data, self.deleted_count = _records(handle, n.lib.ohk_batch_deleted,
                                                         n.ohk_deleted_record, lent)
        self.sync_identifiers = {
            record[0]: ctypes.string_at(record[6]).decode("utf-8")
            for record in _DELETED.iter_unpack(self.deleted_data) if record[6]
        }
        self._index: dict[bytes, int] | None = None
        self._metadata: dict[bytes, dict[str, Any]] = {}
        self._devices: dict[bytes, Device] = {}
        self._fields: dict[bytes, Any] = {}
        self._fields_index: dict[bytes, tuple[int, int]] | None = None
        if lent:
            self._read_extras(handle)

    @property
    def sample_data(self) -> Any:
        """The samples' records (ohk_sample_record), as a buffer (the whole
        array, laid out by the library: for a lent batch's copy)."""
        if self._sample_data is None:
            self._sample_data, _ = _records(self._handle, n.lib.ohk_batch_samples, n.ohk_sample_record, False)
        return self._sample_data

    def sample_chunks(self) -> Iterator[tuple[Any, struct.Struct]]:
        """The samples' records in order, a chunk of them at a time, each
        with the layout to unpack it with (one buffer, reused: read each
        chunk before asking for the next)."""
        if self._handle is None:
            yield self.sample_data, _SAMPLE
            return
        if not self.sample_count:
            return
        size, room = _SAMPLE.size, min(_CHUNK, self.sample_count)
        count, flags = ctypes.c_uint64(), ctypes.c_uint32()
        buffer = bytearray(room * size)
        records = (n.ohk_sample_record * room).from_buffer(buffer)  # the same memory, as the C type
        view = memoryview(buffer)
        for first in range(0, self.sample_count, room):
            n.lib.ohk_batch_copy_samples(count, flags, records, room, self._handle, first)
            yield view[:count.value * size], _SAMPLE if flags.value & _TIMED else _SAMPLE_SHORT

    def sample_records(self) -> Iterator[tuple[Any, ...]]:
        """Every sample's record, unpacked, in order."""
        for chunk, layout in self.sample_chunks():
            yield from layout.iter_unpack(chunk)

    def sample_record(self, index: int) -> tuple[Any, ...]:
        """Sample `index`'s record, unpacked (its chunk kept for the next)."""
        if self._handle is None:
            return _SAMPLE.unpack_from(self.sample_data, index * _SAMPLE.size)
        first, data = self._chunk  # one read: another thread may replace it
        if not first <= index < first + _CHUNK:
            first = index - index % _CHUNK
            data = bytearray(_CHUNK * _SAMPLE.size)
            count = ctypes.c_uint64()
            n.lib.ohk_batch_copy_samples(count, None, _RECORDS.from_buffer(data), _CHUNK, self._handle, first)
            self._chunk = (first, data)
        return _SAMPLE.unpack_from(data, (index - first) * _SAMPLE.size)

    @property
    def handle(self) -> Any:
        """The batch, or None when it was lent to a callback (and copied)."""
        return self._handle

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and n is not None and n.lib is not None:  # not at interpreter exit
            n.lib.ohk_batch_free(handle)

    def _flagged(self) -> dict[bytes, int]:
        """UUID -> record index of the samples with metadata or a device."""
        if self._index is None:
            wanted = n.SAMPLE_HAS_METADATA | n.SAMPLE_HAS_DEVICE
            self._index = {record[0]: index
                           for index, record in enumerate(self.sample_records())
                           if record[6] & wanted}
        return self._index

    def _read_extras(self, handle: Any) -> None:
        for uuid, index in self._flagged().items():
            self._metadata[uuid] = read_metadata(handle, index)
            device = _read_device(handle, index)
            if device is not None:
                self._devices[uuid] = device
        for uuid, (index, type_index) in self._with_fields().items():
            self._fields[uuid] = read_fields(handle, index, self.types[type_index])

    def _with_fields(self) -> dict[bytes, tuple[int, int]]:
        """UUID -> (record index, type index) of the workouts, routes,
        correlations and heartbeat series; no record is read when the batch
        has no such type."""
        if self._fields_index is None:
            own = {i for i, cls in enumerate(self.classes) if cls not in _PLAIN}
            self._fields_index = {} if not own else {
                record[0]: (index, record[4]) for index, record in enumerate(self.sample_records())
                if record[4] in own}
        return self._fields_index

    def part(self, uuid: bytes) -> Any:
        """The own fields (a Workout, Route, Correlation or HeartbeatSeries)
        of the sample with this UUID, read from the batch the first time."""
        found = self._fields.get(uuid)
        if found is None:
            if self._handle is None:  # lent: every one was read during the callback
                raise KeyError(uuid)
            index, type_index = self._with_fields()[uuid]
            found = self._fields[uuid] = read_fields(self._handle, index, self.types[type_index])
        return found

    def metadata(self, uuid: bytes) -> dict[str, Any]:
        found = self._metadata.get(uuid)
        if found is None and self._handle is not None:
            found = self._metadata[uuid] = read_metadata(self._handle, self._flagged()[uuid])
        return dict(found or {})

    def device(self, uuid: bytes) -> Device | None:
        if uuid not in self._devices and self._handle is not None:
            device = _read_device(self._handle, self._flagged()[uuid])
            if device is not None:
                self._devices[uuid] = device
        return self._devices.get(uuid)


_PLAIN = (QuantitySample, CategorySample)


def _type_table(handle: Any) -> list[str]:
    count = ctypes.c_uint64()
    n.lib.ohk_batch_type_count(count, handle)
    identifier = ctypes.c_char_p()
    names = []
    for index in range(count.value):
        n.lib.ohk_batch_type(identifier, handle, index)
        # Set for every index below the count (an error status raises): not NULL.
        names.append(cast(bytes, identifier.value).decode("utf-8"))
    return names


def _source_table(handle: Any) -> list[Source]:
    entries = ctypes.POINTER(n.ohk_source)()
    count = ctypes.c_uint64()
    n.lib.ohk_batch_sources(entries, count, handle)
    return [Source(e.bundle_identifier.decode("utf-8"), e.name.decode("utf-8"), n.decode(e.version))
            for e in (entries[i] for i in range(count.value))]


def _sample_count(handle: Any) -> int:
    count = ctypes.c_uint64()
    n.lib.ohk_batch_sample_columns(count, n.ohk_sample_columns(), 0, handle)
    return count.value


def _records(handle: Any, accessor: Callable[..., int], record: type[ctypes.Structure],
             copy: bool) -> tuple[Any, int]:
    """The batch's record array as a buffer: a view of the batch's memory,
    or a copy when the batch is only lent."""
    pointer = ctypes.POINTER(record)()
    count = ctypes.c_uint64()
    accessor(pointer, count, handle)
    size = count.value * ctypes.sizeof(record)
    if not size:
        return b"", 0
    address = ctypes.addressof(pointer.contents)
    if copy:
        return ctypes.string_at(address, size), count.value
    return memoryview((ctypes.c_char * size).from_address(address)).cast("B"), count.value


def _read_device(handle: Any, index: int) -> Device | None:
    fields = read_device(handle, index)
    return None if fields is None else Device(*fields)


class _RecordList(Sequence[T]):
    """A read-only sequence over one record array of a batch; each object
    is made when iterated or indexed."""

    __slots__ = ("_context", "_count")
    _layout: struct.Struct
    _noun: str

    def __init__(self, context: BatchContext, count: int) -> None:
        self._context, self._count = context, count

    @property
    def _data(self) -> Any:
        raise NotImplementedError

    def _make(self, record: tuple[Any, ...]) -> T:
        raise NotImplementedError

    def __len__(self) -> int:
        return self._count

    def __iter__(self) -> Iterator[T]:
        return map(self._make, self._layout.iter_unpack(self._data))

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(self._count))]
        count = self._count
        try:
            index = operator.index(index)
        except TypeError:  # a bad argument of ours, still a TypeError
            raise ArgumentTypeError(f"{self._noun} indices must be ints or slices, "
                                    f"not {type(index).__name__}") from None
        if not -count <= index < count:
            raise IndexError(f"{self._noun} index out of range")
        return self._make(self._record(index % count))

    def _record(self, index: int) -> tuple[Any, ...]:
        return self._layout.unpack_from(self._data, index * self._layout.size)

    def __repr__(self) -> str:
        return f"<{type(self).__name__} of {self._count} {self._noun}s>"


class SampleList(_RecordList[Sample]):
    """The samples of a result, in change order."""

    __slots__ = ()
    _layout, _noun = _SAMPLE, "sample"

    def __init__(self, context: BatchContext) -> None:
        super().__init__(context, context.sample_count)

    @property
    def _data(self) -> Any:
        return self._context.sample_data

    def _make(self, record: tuple[Any, ...]) -> Sample:
        sample: Sample = object.__new__(self._context.classes[record[4]])
        sample._r = record
        sample._c = self._context
        return sample

    def _record(self, index: int) -> tuple[Any, ...]:
        return self._context.sample_record(index)

    def __iter__(self) -> Iterator[Sample]:
        # The hot loop of every read: one object and two slot stores per
        # sample, the class chosen once when the batch has one kind.
        context = self._context
        kinds = set(context.classes)
        if len(kinds) != 1:  # samples of several kinds mixed (quantity, category, workout...)
            yield from map(self._make, context.sample_records())
            return
        cls, new = kinds.pop(), object.__new__
        for chunk, layout in context.sample_chunks():
            for record in layout.iter_unpack(chunk):
                sample = new(cls)
                sample._r = record
                sample._c = context
                yield sample

    def to_numpy(self, unit: str | None = None, *, times: bool = False) -> SampleColumns:
        """The samples as NumPy columns (needs numpy), values in each type's
        canonical unit, exactly as stored, or in ``unit`` (every type must
        convert to it: ``to_numpy(unit="count/min")`` for heart rates),
        rounded to 15 significant digits (rule 44); with ``times``, each
        sample's UTC offset and creation date too; see SampleColumns."""
        return sample_columns(self._context, unit, times)

    def to_arrow(self, unit: str | None = None, *, columns: Iterable[str] | None = None) -> Any:
        """The samples as a ``pyarrow.Table`` (see ``openhealthkit.arrow``
        for the columns; ``columns`` keeps only those named), values in
        each type's canonical unit, exactly as stored, or in ``unit``,
        rounded to 15 significant digits (rule 44). The library writes the
        columns once and pyarrow takes them without a copy; the table
        outlives the result. A live query's batch is copied for its
        callback and has no library batch left: read it with
        ``to_numpy()``. Needs pyarrow."""
        handle = self._context.handle
        if handle is None:
            raise InvalidArgumentError("a live query's results have no Arrow form: use to_numpy(), or "
                                       "store.query_arrow(...) from the anchor before them")
        o = arrow_options(unit, columns)
        return import_table(lambda array, schema: n.lib.ohk_batch_export_arrow(array, schema, handle, o))

    def to_pandas(self, unit: str | None = None, *, uuids: bool = False, times: bool = False,
                  devices: bool = False, metadata: bool = False, index: bool = True) -> Any:
        """The samples as a pandas DataFrame indexed by start, sorted (see
        ``SampleColumns.to_pandas``, which gives the same frame), values in
        ``unit``, by default each quantity type's display unit (count/min
        for heart rate), with a ``unit`` column; converted values are
        rounded to 15 significant digits (rules 44 and 45). Category
        samples get a ``value_name`` column (rule 46). Optional columns:
        ``times`` adds ``utc_offset`` and ``creation_date`` (from columns,
        no loop), ``devices`` the ``device`` name, ``metadata`` a dict per
        row (these two read each sample); ``index=False`` makes ``start``
        a column. Needs NumPy and pandas."""
        columns = self.to_numpy(unit if unit is not None else display_unit(self._context.types), times=times)
        if not (devices or metadata):
            return columns.to_pandas(uuids=uuids, times=times, index=index)
        frame = columns.to_pandas(uuids=uuids, times=times, index=False)
        # The frame is sorted by start; the samples are in change order: match them by position.
        np = numpy_module("to_pandas()")
        order = np.argsort(columns.start, kind="stable")
        samples = list(self)
        if devices:
            pd = pandas_module()
            frame["device"] = pd.Categorical([d.name if (d := samples[i].device) is not None else None for i in order])
        if metadata:
            frame["metadata"] = [samples[i].metadata for i in order]
        return frame.set_index("start") if index else frame


class DeletedList(_RecordList[DeletedObject]):
    """The deleted objects of a result, in change order."""

    __slots__ = ()
    _layout, _noun = _DELETED, "deleted object"

    def __init__(self, context: BatchContext) -> None:
        super().__init__(context, context.deleted_count)

    @property
    def _data(self) -> Any:
        return self._context.deleted_data

    def to_numpy(self) -> DeletedColumns:
        """The deleted objects as NumPy columns (needs numpy); see
        DeletedColumns."""
        return deleted_columns(self._context)

    def to_pandas(self) -> Any:
        """The deleted objects as a DataFrame in change order (see
        ``DeletedColumns.to_pandas``). Needs NumPy and pandas."""
        return self.to_numpy().to_pandas()

    def _make(self, record: tuple[Any, ...]) -> DeletedObject:
        deleted = object.__new__(DeletedObject)
        deleted._r = record
        deleted._c = self._context
        return deleted


class QueryResult:
    """What an anchored query returns: ``samples`` added and ``deleted``
    objects after the anchor, and the ``anchor`` to pass next time.
    Unpacks as ``samples, deleted, anchor = store.query(...)``. ``initial``
    is True for a long-running query's first delivery (its snapshot, what
    HealthKit hands the results handler), False for its updates and for
    one-shot queries."""

    __slots__ = ("samples", "deleted", "anchor", "initial")

    def __init__(self, handle: Any, lookup: TypeLookup, lent: bool = False) -> None:
        context = BatchContext(handle, lookup, lent)
        anchor = n.ohk_anchor()
        n.lib.ohk_batch_anchor(anchor, handle)
        initial = ctypes.c_int32()
        n.lib.ohk_batch_is_initial(ctypes.byref(initial), handle)
        self.samples = SampleList(context)
        self.deleted = DeletedList(context)
        self.anchor = Anchor(anchor)
        self.initial: bool = initial.value == 1

    def __iter__(self) -> Iterator[Any]:
        return iter((self.samples, self.deleted, self.anchor))

    def __bool__(self) -> bool:
        """False for an empty result (nothing added or deleted)."""
        return bool(len(self.samples) or len(self.deleted))

    def __repr__(self) -> str:
        kind = "initial results" if self.initial else "QueryResult"
        return f"<{kind}: {len(self.samples)} samples, {len(self.deleted)} deleted, {self.anchor!r}>"
