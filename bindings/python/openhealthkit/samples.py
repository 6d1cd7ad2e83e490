"""Samples, deleted objects, sources and devices: small immutable values.

Samples read from a store are made from the batch's fixed-size records
and decode their fields on access (a UUID or a datetime is built when asked
for), so reading a million samples costs little more than the records.
Two samples are equal when their UUIDs are (HealthKit's rule for objects).
"""

from __future__ import annotations

import ctypes
import math
import os
import uuid as uuid_module
from dataclasses import astuple, dataclass
from datetime import datetime, timedelta, timezone
from typing import TYPE_CHECKING, Any, Mapping, TypeAlias, cast

from . import _native as n
from ._enums import SaveResult
from ._checks import metadata_arg
from ._marshal.samples import EncodedSource, encode_source, fill_device, fill_metadata
from ._convert import finite, make_uuid, unix_time, utc_datetime, uuid_bytes
from ._marshal.catalogue import CASE_NAMES, accepted_values, value_name
from .catalogue import SampleType, category_value, converted, sample_type
from .errors import ArgumentTypeError, InvalidArgumentError, NotFoundError

if TYPE_CHECKING:
    from .batch import BatchContext

#: A sample's record as n.SAMPLE_RECORD_FORMAT unpacks it: uuid, start, end,
#: value, type_index, source_index, flags, utc_offset, creation_date.
SampleRecord: TypeAlias = tuple[bytes, float, float, float, int, int, int, int, float]
#: The same without the last two, which a batch leaves out of a chunk of
#: which no record has them (flags says which do).
ShortSampleRecord: TypeAlias = tuple[bytes, float, float, float, int, int, int]
#: A deleted object's record as n.DELETED_RECORD_FORMAT unpacks it: uuid,
#: start, end, deletion_date, type_index, source_index, sync_identifier
#: pointer, sync_version.
DeletedRecord: TypeAlias = tuple[bytes, float, float, float, int, int, int, float]


@dataclass(frozen=True, slots=True)
class Source:
    """Where a sample came from (HKSourceRevision): the app's bundle
    identifier, its name, and optionally its version."""

    bundle_identifier: str
    name: str
    version: str | None = None


@dataclass(frozen=True, slots=True)
class Device:
    """HealthKit's eight device fields (HKDevice); None is an absent field."""

    name: str | None = None
    manufacturer: str | None = None
    model: str | None = None
    hardware_version: str | None = None
    firmware_version: str | None = None
    software_version: str | None = None
    local_identifier: str | None = None
    udi_device_identifier: str | None = None


#: The source of samples saved without one, unless the store is given another.
DEFAULT_SOURCE = Source("org.openhealthkit.python", "OpenHealthKit for Python")


@dataclass(frozen=True, slots=True)
class SaveOutcome:
    """What a save did with one sample: its ``uuid``, the ``result``,
    and the other sample a sync identifier matched (``other_uuid``, for
    REPLACED and KEPT_EXISTING)."""

    uuid: uuid_module.UUID
    result: SaveResult
    other_uuid: uuid_module.UUID | None


class _Unsaved:
    """The context of a sample made in Python: what a batch would hold,
    with the own fields of a sample whose type has them (and a
    correlation's members, to save with it)."""

    __slots__ = ("types", "sources", "unit", "_metadata", "_device", "_fields", "members")

    def __init__(self, kind: SampleType, source: Source | None, unit: str | None,
                 metadata: dict[str, Any], device: Device | None, fields: Any = None,
                 members: list[Sample] | None = None) -> None:
        self.types, self.sources, self.unit = [kind], [source], unit
        self._metadata, self._device, self._fields, self.members = metadata, device, fields, members

    def part(self, uuid: bytes) -> Any:
        return self._fields

    def metadata(self, uuid: bytes) -> dict[str, Any]:
        return dict(self._metadata)

    def device(self, uuid: bytes) -> Device | None:
        return self._device


class _Object:
    """What samples and deleted objects share: a record of the batch (uuid,
    start, end, ..., type_index, source_index, ...) and the batch's tables;
    equal by UUID within one family (samples, or deleted objects)."""

    __slots__ = ("_r", "_c")
    _r: SampleRecord | ShortSampleRecord | DeletedRecord
    _c: BatchContext | _Unsaved
    _family: type[_Object]

    @property
    def uuid(self) -> uuid_module.UUID:
        """The object's UUID."""
        return make_uuid(self._r[0])

    @property
    def uuid_bytes(self) -> bytes:
        """The UUID as 16 bytes (cheaper than ``uuid`` when only compared)."""
        return self._r[0]

    @property
    def sample_type(self) -> SampleType:
        return self._c.types[self._r[4]]

    @property
    def start_date(self) -> datetime:
        """Start, an aware UTC datetime."""
        return utc_datetime(self._r[1])

    @property
    def end_date(self) -> datetime:
        """End, an aware UTC datetime (equal to start for an instant)."""
        return utc_datetime(self._r[2])

    @property
    def source(self) -> Source | None:
        """The source; None only for a sample made in Python and not yet saved
        (the store's default source applies when it is)."""
        return self._c.sources[self._r[5]]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, self._family):
            return NotImplemented
        return self._r[0] == other._r[0]

    def __hash__(self) -> int:
        return hash(self._r[0])


class Sample(_Object):
    """A sample of a store (HKSample); see QuantitySample and CategorySample
    for the value. Its fields are read-only properties: a sample does not
    change once made."""

    # _r: the record (uuid, start, end, value, type_index, source_index,
    # flags, utc_offset, creation_date); _c: its batch's tables (types, sources, metadata),
    # or an _Unsaved for a sample made in Python.
    __slots__ = ()
    _r: SampleRecord | ShortSampleRecord

    def _init(self, kind: SampleType, start: datetime, end: datetime, value: float,
              unit: str | None, source: Source | None, device: Device | None,
              metadata: Mapping[str, Any] | None, uuid: uuid_module.UUID | None,
              flags: int, creation_date: datetime | None, utc_offset: timedelta | None,
              fields: Any = None, members: list[Sample] | None = None) -> None:
        """What every sample made in Python has, checked in this one place
        (``QuantitySample``, ``CategorySample`` and the ``HealthStore``
        saves that make a sample of their arguments come here): its type,
        interval, value, unit, source, device, metadata, UUID (made when
        not given), creation date and UTC offset; `fields` are the own
        fields of a kind that has them."""
        if source is not None and not isinstance(source, Source):
            raise ArgumentTypeError(f"source must be a Source, not {type(source).__name__}")
        if device is not None and not isinstance(device, Device):
            raise ArgumentTypeError(f"device must be a Device, not {type(device).__name__}")
        raw = uuid_bytes(uuid) if uuid is not None else os.urandom(16)
        if uuid is None:  # version 4, RFC 4122 variant
            raw = bytes([*raw[:6], (raw[6] & 0x0F) | 0x40, raw[7], (raw[8] & 0x3F) | 0x80, *raw[9:]])
        created, offset = math.nan, 0
        if creation_date is not None:
            created, flags = unix_time(creation_date, "creation_date"), flags | n.SAMPLE_HAS_CREATION_DATE
        if utc_offset is not None:
            offset, flags = _offset_seconds(utc_offset), flags | n.SAMPLE_HAS_UTC_OFFSET
        self._r = (raw, unix_time(start, "start"), unix_time(end, "end"), value, 0, 0, flags, offset, created)
        self._c = _Unsaved(kind, source, unit, metadata_arg(metadata), device, fields, members)

    @property
    def start_timestamp(self) -> float:
        """Start as Unix seconds, like ``start_date.timestamp()``."""
        return self._r[1]

    @property
    def end_timestamp(self) -> float:
        """End as Unix seconds."""
        return self._r[2]

    @property
    def creation_date(self) -> datetime | None:
        """When the sample was made, as its source said (an Apple Health
        export's ``creationDate``), an aware UTC datetime; None when not
        given. Saves keep it and stamp nothing (rule 24)."""
        return utc_datetime(cast(SampleRecord, self._r)[8]) if self._r[6] & n.SAMPLE_HAS_CREATION_DATE else None

    @property
    def utc_offset(self) -> timedelta | None:
        """The UTC offset of the sample's local time (an export's
        ``-0800`` is ``timedelta(hours=-8)``); None when not known."""
        return timedelta(seconds=cast(SampleRecord, self._r)[7]) if self._r[6] & n.SAMPLE_HAS_UTC_OFFSET else None

    @property
    def local_start_date(self) -> datetime | None:
        """The start in the sample's own time zone offset (what "the user's
        day" means for it); None when the offset is not known."""
        offset = self.utc_offset
        return None if offset is None else self.start_date.astimezone(timezone(offset))

    @property
    def device(self) -> Device | None:
        if self._r[6] & n.SAMPLE_HAS_DEVICE or isinstance(self._c, _Unsaved):
            return self._c.device(self._r[0])
        return None

    @property
    def metadata(self) -> dict[str, Any]:
        """The metadata (a new dict each time): str, float, bool or datetime values."""
        if self._r[6] & n.SAMPLE_HAS_METADATA or isinstance(self._c, _Unsaved):
            return self._c.metadata(self._r[0])
        return {}

    def _fill_input(self, target: n.ohk_sample_input, default_source: Source,
                    sources: dict[Source, EncodedSource], keep: list[Any]) -> None:
        """Writes the sample into `target`, the ``ohk_sample_input`` a save
        takes (`default_source` for a sample without a source; `sources`
        holds the sources encoded so far); `keep` holds what it points at
        until the call returns."""
        # The hot loop of a large save: one call per sample, the rare parts (device, metadata) in _marshal.
        record, context = cast(SampleRecord, self._r), self._c
        target.type = context.types[record[4]].identifier.encode("utf-8")
        target.start, target.end, target.value = record[1], record[2], record[3]
        flags = record[6]
        if flags & n.SAMPLE_HAS_CREATION_DATE:
            target.has_creation_date, target.creation_date = True, record[8]
        if flags & n.SAMPLE_HAS_UTC_OFFSET:
            target.has_utc_offset, target.utc_offset = True, record[7]
        unit = getattr(context, "unit", None)
        target.unit = unit.encode("utf-8") if unit else None
        ctypes.memmove(target.uuid, record[0], 16)
        source = context.sources[record[5]] or default_source
        encoded = sources.get(source)
        if encoded is None:
            encoded = sources[source] = encode_source(source.bundle_identifier, source.name, source.version)
        target.source.bundle_identifier, target.source.name, target.source.version = encoded
        device = self.device
        if device is not None:
            fill_device(target, astuple(device), keep)
        metadata = self.metadata
        if metadata:
            fill_metadata(target, metadata, keep)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}({self.sample_type.identifier}, {self.start_date.isoformat()}"
                f" – {self.end_date.isoformat()}, {self._value_text()}, uuid={self.uuid})")

    def _value_text(self) -> str:
        return repr(self._r[3])


class QuantitySample(Sample):
    """A quantity sample (HKQuantitySample).

    ``QuantitySample("HKQuantityTypeIdentifierStepCount", start, end, 120)``
    makes one to save. ``unit`` may be left out only where the type's
    display and canonical units agree (steps: count); a heart rate needs
    one (``QuantitySample("HeartRate", t, t, 60, "count/min")``), as a bare
    number would be read as 60 count/s (rule 55). Read back, ``value`` is
    in the type's canonical unit (``unit``).
    """

    __slots__ = ()

    def __init__(self, sample_type: str | SampleType, start: datetime, end: datetime, value: float,
                 unit: str | None = None, *, source: Source | None = None,
                 device: Device | None = None, metadata: Mapping[str, Any] | None = None,
                 uuid: uuid_module.UUID | None = None, creation_date: datetime | None = None,
                 utc_offset: timedelta | None = None) -> None:
        kind = _resolve(sample_type)
        if kind.is_category:
            raise ArgumentTypeError(f"{kind.identifier} is a category type: use CategorySample")
        own = ("save_workout" if kind.is_workout else "save_route" if kind.is_route
               else "save_correlation" if kind.is_correlation
               else "save_heartbeat_series" if kind.is_heartbeat_series
               else "save_audiogram" if kind.is_audiogram
               else "save_electrocardiogram" if kind.is_electrocardiogram
               else "save_clinical_record" if kind.is_clinical_record else None)
        if own is not None:
            raise ArgumentTypeError(f"{kind.identifier} samples have fields of their own: save them with "
                                    f"HealthStore.{own}")
        if unit is not None:
            n.encode(unit, "unit")
        elif kind.display_unit is not None and kind.display_unit != kind.canonical_unit:
            # HealthKit has no unitless quantity; a bare 60 would be 60 count/s (rule 55).
            raise InvalidArgumentError(f"{kind.short_name} needs a unit: give unit={kind.display_unit!r} (how it is "
                                       f"shown) or {kind.canonical_unit!r} (how it is stored)")
        self._init(kind, start, end, finite(value, "value"), unit, source, device, metadata, uuid, 0,
                   creation_date, utc_offset)

    @property
    def value(self) -> float:
        """The quantity, in ``unit``."""
        return self._r[3]

    @property
    def unit(self) -> str:
        """The unit of ``value``: the type's canonical unit for stored samples."""
        unit: str | None = getattr(self._c, "unit", None)
        # A quantity type always has a canonical unit (None is for category types).
        return unit if unit is not None else cast(str, self.sample_type.canonical_unit)

    def value_in(self, unit: str) -> float:
        """The quantity in `unit` (IncompatibleUnitError across dimensions),
        rounded to 15 significant digits (rule 44 of docs/semantics.md: a
        heart rate saved as 62 count/min reads back as 62.0, not
        61.99999999999999); ``value`` itself when `unit` is the one it is
        in (the type's canonical unit, for a stored sample)."""
        return converted(self._r[3], self.unit, unit)

    def _value_text(self) -> str:
        return f"{self._r[3]!r} {self.unit}"


class CategorySample(Sample):
    """A category sample (HKCategorySample); ``value`` is the category integer
    and ``value_name`` its name.

    ``CategorySample("SleepAnalysis", start, end, "AsleepDeep")`` makes one
    to save; the value is its integer (4 here) or its name in HealthKit's
    enum (``category_value`` and ``category_value_name`` convert). An
    unknown name raises InvalidArgumentError listing the type's names.
    """

    __slots__ = ()

    def __init__(self, sample_type: str | SampleType, start: datetime, end: datetime, value: int | str, *,
                 source: Source | None = None, device: Device | None = None,
                 metadata: Mapping[str, Any] | None = None,
                 uuid: uuid_module.UUID | None = None, creation_date: datetime | None = None,
                 utc_offset: timedelta | None = None) -> None:
        kind = _resolve(sample_type)
        if not kind.is_category:
            raise ArgumentTypeError(f"{kind.identifier} is a quantity type: use QuantitySample")
        if isinstance(value, str):
            value = _named_value(kind, value)
        if not isinstance(value, int) or isinstance(value, bool):
            raise ArgumentTypeError(f"a category value is an int or its name, not {type(value).__name__}")
        self._init(kind, start, end, value, None, source, device, metadata, uuid, n.SAMPLE_CATEGORY,
                   creation_date, utc_offset)

    @property
    def value(self) -> int:
        return int(self._r[3])

    @property
    def value_name(self) -> str | None:
        """The value's name in the type's catalogue ("AsleepREM" for
        SleepAnalysis 5); None for a value the catalogue does not name.
        ``category_value(type, name)`` goes the other way. A store's own
        types name their values in that store only: None here."""
        kind = self.sample_type
        return None if kind.is_custom else value_name(kind.identifier.encode("utf-8"), self.value)

    def _value_text(self) -> str:
        name = self.value_name
        return repr(self.value) if name is None else f"{self.value} ({name})"


class DeletedObject(_Object):
    """A deleted sample (HKDeletedObject): what a deletion leaves behind
    (rule 8, docs/semantics.md): UUID, type, source, start, end, deletion date, and
    the sync identifier and version when the sample had them."""

    # _r: (uuid, start, end, deletion_date, type_index, source_index,
    # sync_identifier pointer, sync_version); _c: the batch's tables.
    __slots__ = ()
    _r: DeletedRecord
    _c: BatchContext

    @property
    def deletion_date(self) -> datetime:
        return utc_datetime(self._r[3])

    @property
    def sync_identifier(self) -> str | None:
        return self._c.sync_identifiers.get(self._r[0]) if self._r[6] else None

    @property
    def sync_version(self) -> int | float | None:
        """The sync version; an int when whole, as metadata numbers are."""
        version = self._r[7]
        if version != version:  # NaN: absent
            return None
        return int(version) if version.is_integer() and abs(version) < 2**53 else version

    @property
    def metadata(self) -> dict[str, Any]:
        """Only the sync identifier and version survive a deletion."""
        if self.sync_identifier is None:
            return {}
        return {"HKMetadataKeySyncIdentifier": self.sync_identifier,
                "HKMetadataKeySyncVersion": self.sync_version}

    def __repr__(self) -> str:
        return f"DeletedObject({self.sample_type.identifier}, uuid={self.uuid})"


Sample._family = Sample
DeletedObject._family = DeletedObject


def _offset_seconds(offset: timedelta) -> int:
    """A UTC offset as whole seconds; the library refuses more than 18 hours."""
    if not isinstance(offset, timedelta):
        raise ArgumentTypeError(f"utc_offset must be a timedelta, not {type(offset).__name__}")
    seconds = offset.total_seconds()
    if seconds != int(seconds):
        raise InvalidArgumentError(f"utc_offset must be whole seconds, got {offset}")
    if abs(seconds) > 18 * 3600:
        raise InvalidArgumentError(f"utc_offset {offset} is beyond 18 hours")
    return int(seconds)


def _named_value(kind: SampleType, name: str) -> int:
    """The integer of a category value given by name; InvalidArgumentError
    (a bad argument to the constructor) naming the type and its names."""
    try:
        return category_value(kind, name)
    except NotFoundError:
        raise InvalidArgumentError(f"{kind.identifier} has no value named {name!r}; "
                                   f"{accepted_values(kind.identifier.encode('utf-8'))} {CASE_NAMES}") from None


def _resolve(kind: str | SampleType) -> SampleType:
    if isinstance(kind, SampleType):
        return kind
    if not isinstance(kind, str):
        raise ArgumentTypeError(f"a sample type is an identifier str or a SampleType, not {type(kind).__name__}")
    return sample_type(kind)
