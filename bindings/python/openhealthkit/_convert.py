"""Python values to and from the C library's: times, UUIDs, typed values."""

from __future__ import annotations

import math
import uuid as uuid_module
from collections.abc import Iterable
from ctypes import POINTER, c_uint8
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Any, NamedTuple
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from . import _native as n
from .errors import ArgumentTypeError, InvalidArgumentError, InvalidValueError

UTC = timezone.utc
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_fromtimestamp = datetime.fromtimestamp


class Quantity(NamedTuple):
    """A value with its HealthKit unit, e.g. ``Quantity(70, "kg")``: a
    predicate parameter for ``quantity`` comparisons."""

    value: float
    unit: str


def unix_time(moment: datetime, what: str) -> float:
    """An aware datetime as Unix seconds; naive datetimes are refused because
    their time zone is a guess."""
    if not isinstance(moment, datetime):
        raise ArgumentTypeError(f"{what} must be a datetime, not {type(moment).__name__}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise InvalidArgumentError(f"{what} is a naive datetime; give it a time zone (e.g. tzinfo=timezone.utc)")
    return moment.timestamp()


def utc_datetime(seconds: float) -> datetime:
    """Unix seconds as an aware UTC datetime (microsecond precision)."""
    try:
        return _fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):  # far from 1970 on some platforms
        return _EPOCH + timedelta(seconds=seconds)


def uuid_bytes(value: uuid_module.UUID | str | bytes, what: str = "uuid") -> bytes:
    """A UUID (or its text, or its 16 bytes) as 16 bytes in RFC 4122 order."""
    if isinstance(value, uuid_module.UUID):
        return value.bytes
    if isinstance(value, str):
        try:
            return uuid_module.UUID(value).bytes
        except ValueError:
            raise InvalidArgumentError(f"{what} {value!r} is not a UUID") from None
    if isinstance(value, (bytes, bytearray)) and len(value) == 16:
        return bytes(value)
    raise ArgumentTypeError(f"{what} must be a uuid.UUID, its text or 16 bytes, not {type(value).__name__}")


def make_uuid(raw: bytes) -> uuid_module.UUID:
    return uuid_module.UUID(bytes=bytes(raw))


class ValueArena:
    """Builds ohk_value structs from Python values and keeps every buffer
    they point into alive until the arena is dropped (after the C call)."""

    def __init__(self) -> None:
        self._keep: list[Any] = []

    def text(self, text: str, what: str) -> bytes:
        data = n.encode(text, what)
        self._keep.append(data)
        return data

    def fill(self, target: n.ohk_value, value: Any, what: str) -> None:
        """Writes `value` into `target`: None, str, bool, int, float,
        datetime, uuid.UUID, Quantity, or a list/tuple/set of these."""
        if value is None:
            target.kind = n.VALUE_NULL
        elif isinstance(value, bool):
            target.kind, target.number = n.VALUE_BOOL, 1.0 if value else 0.0
        elif isinstance(value, int):  # a double in C: refused where it would round (rule 49)
            target.kind, target.number = n.VALUE_NUMBER, float(exact_integer(value, what))
        elif isinstance(value, float):
            target.kind, target.number = n.VALUE_NUMBER, finite(value, what)
        elif isinstance(value, str):
            target.kind, target.string = n.VALUE_STRING, self.text(value, what)
        elif isinstance(value, datetime):
            target.kind, target.number = n.VALUE_DATE, unix_time(value, what)
        elif isinstance(value, uuid_module.UUID):
            target.kind = n.VALUE_UUID
            target.uuid = (c_uint8 * 16).from_buffer_copy(value.bytes)
        elif isinstance(value, Quantity):
            target.kind = n.VALUE_QUANTITY
            target.number = finite(value.value, what)
            target.string = self.text(value.unit, f"the unit of {what}")
        elif isinstance(value, (list, tuple, set, frozenset)):
            items = self.array(list(value), what)
            target.kind, target.count = n.VALUE_LIST, len(value)
            target.items = items if len(value) else POINTER(n.ohk_value)()
        else:
            raise ArgumentTypeError(f"{what}: a {type(value).__name__} is not a value the library takes "
                            "(None, str, bool, int, float, datetime, uuid.UUID, Quantity or a list)")

    def array(self, values: list[Any], what: str) -> Any:
        """An ohk_value array of `values` (kept alive by the arena)."""
        array = (n.ohk_value * max(len(values), 1))()
        self._keep.append(array)
        for index, value in enumerate(values):
            self.fill(array[index], value, f"{what}[{index}]" if len(values) > 1 else what)
        return array


def finite(value: float, what: str) -> float:
    """A real number the library accepts: not NaN nor infinite."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise ArgumentTypeError(f"{what} must be a number, not {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number):
        raise InvalidValueError(f"{what} must be finite, not {number}")
    return number


#: The largest integer a metadata number keeps: the store holds numbers as
#: doubles, which hold every integer up to 2**53 exactly, and a whole one
#: reads back as an int below that (rule 49).
MAX_EXACT_INTEGER = 2**53 - 1


def exact_integer(value: int, what: str) -> int:
    """A metadata int the store keeps as it is (a double): within
    ±(2**53 - 1); InvalidArgumentError beyond, naming `what` and the limit,
    where the store would round it silently."""
    if -MAX_EXACT_INTEGER <= value <= MAX_EXACT_INTEGER:
        return value
    raise InvalidArgumentError(f"{what}: {value} is beyond ±(2**53 - 1) = ±{MAX_EXACT_INTEGER}; the store keeps "
                               "numbers as doubles, exact only within that range: store it as a str")


def int64(value: int, what: str) -> int:
    """An int a C ``int64_t`` holds (ctypes would cut a larger one silently)."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArgumentTypeError(f"{what} must be an int, not {type(value).__name__}")
    if not -2**63 <= value < 2**63:
        raise InvalidArgumentError(f"{what} {value} is beyond a 64-bit integer")
    return value


def as_list(value: Any, what: str, one: tuple[type, ...], expected: str) -> list[Any]:
    """`value` as a list: alone when it is one of the `one` types, else its
    items. ArgumentTypeError for what is neither (None, a number), and
    for text or bytes not among `one`, whose items would be characters."""
    if isinstance(value, one):
        return [value]
    if isinstance(value, (str, bytes, bytearray)) or not isinstance(value, Iterable):
        raise ArgumentTypeError(f"{what} must be {expected} or an iterable of them, not {type(value).__name__}")
    return list(value)


def python_value(value: n.ohk_value) -> Any:
    """A metadata value from the library as Python: str, int (a whole
    number, as a sync version or a motion context is), float, datetime or
    bool."""
    kind = value.kind
    if kind == n.VALUE_STRING:
        return value.string.decode("utf-8")
    if kind == n.VALUE_NUMBER:
        number = value.number
        return int(number) if number.is_integer() and abs(number) < 2**53 else number
    if kind == n.VALUE_DATE:
        return utc_datetime(value.number)
    if kind == n.VALUE_BOOL:
        return value.number != 0
    if kind == n.VALUE_NULL:
        return None
    raise InvalidArgumentError(f"unexpected metadata value kind {kind}")


def microseconds(np: Any, seconds: Any) -> Any:
    """A NumPy array of Unix seconds as ``datetime64[us]`` (rounded to the
    microsecond, as ``utc_datetime`` keeps them)."""
    return np.rint(seconds * 1e6).astype("int64").view("datetime64[us]")


def display_zone(utc_offset: timedelta, time_zone: str | None) -> tzinfo:
    """The zone a collection's instants are shown in: ``time_zone``'s,
    else the fixed ``utc_offset``."""
    if time_zone is not None:
        try:
            return ZoneInfo(time_zone)
        except (ZoneInfoNotFoundError, ValueError):
            return timezone.utc  # the library refuses the name with a clear error
    return timezone.utc if not utc_offset else timezone(utc_offset)
