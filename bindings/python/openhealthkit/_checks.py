"""Argument checks the value modules share: numbers, sequences, enums by
raw value or by HealthKit's name, metadata, and NumPy when it is needed.

Each raises the package's errors (ArgumentTypeError for a wrong Python
type, InvalidValueError or InvalidArgumentError for a wrong value) with a
message naming ``what`` was wrong.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable, Mapping
from datetime import datetime
from enum import IntEnum
from typing import Any, TypeVar

from ._convert import exact_integer, finite, unix_time
from .errors import ArgumentTypeError, InvalidValueError, NotFoundError

E = TypeVar("E", bound=IntEnum)


def healthkit_name(member: IntEnum) -> str:
    """``MIXED_CARDIO`` -> ``MixedCardio``: HealthKit's case name without
    its prefix (each word of HealthKit's names is one capital and lower
    case letters; tests/test_drift.py checks the names against the Swift
    core's tables)."""
    return "".join(word.capitalize() for word in member.name.split("_"))


def from_name(cls: type[E], name: str, prefix: str) -> E:
    """The member of `cls` named `name` (HealthKit's name, with or without
    `prefix`, Swift's case or the member's; case and underscores do not
    matter); NotFoundError for another name."""
    if isinstance(name, cls):
        return name
    if not isinstance(name, str):
        raise ArgumentTypeError(f"a {cls.__name__} name is a str, not {type(name).__name__}")
    key = (name[len(prefix):] if name.startswith(prefix) else name).replace("_", "").lower()
    for member in cls:
        if member.name.replace("_", "").lower() == key:
            return member
    raise NotFoundError(f"{name!r} is not a {prefix}")


def known(cls: type[E], value: int) -> int:
    """`value` as a member of `cls` when it is one, else the int as is."""
    try:
        return cls(value)
    except ValueError:
        return value


def raw_type(value: int, what: str, limit: int) -> None:
    """An enum's raw value as C takes it: an int from 0 below `limit`."""
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArgumentTypeError(f"{what} must be an int, not {type(value).__name__}")
    if not 0 <= value < limit:
        raise InvalidValueError(f"{what} {value} is out of range")


def optional(value: float | None, what: str) -> None:
    """None (absent) or a finite number: NaN would read as absent in C."""
    if value is not None:
        finite(value, what)


def sequence(values: Iterable[Any], cls: type, what: str) -> tuple[Any, ...]:
    """`values` as a tuple of `cls` instances."""
    if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
        raise ArgumentTypeError(f"{what} must be a sequence of {cls.__name__}, not {type(values).__name__}")
    items = tuple(values)
    for index, item in enumerate(items):
        if not isinstance(item, cls):
            raise ArgumentTypeError(f"{what}[{index}] is a {type(item).__name__}, not a {cls.__name__}")
    return items


def set_field(instance: object, name: str, value: Any) -> None:
    """A frozen dataclass normalising its own fields."""
    object.__setattr__(instance, name, value)


def scalar(value: Any, what: str) -> float | None:
    """None, or a finite real number (NumPy's too) as a float: NaN would
    read as absent in C."""
    if value is None:
        return None
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ArgumentTypeError(f"{what} must be a number or None, not {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number):
        raise InvalidValueError(f"{what} must be finite or None, not {number}")
    return number


def real(value: Any, what: str, unknown: bool) -> float:
    """A number given one by one (NumPy's too): finite, or NaN when
    `unknown` may be."""
    if not isinstance(value, numbers.Real) or isinstance(value, bool):
        raise ArgumentTypeError(f"{what} must be a number, not {type(value).__name__}")
    number = float(value)
    if not math.isfinite(number) and not (unknown and math.isnan(number)):
        raise InvalidValueError(f"{what} must be finite{' or unknown (None or NaN)' if unknown else ''}, not {number}")
    return number


def text(value: Any, what: str) -> str:
    if not isinstance(value, str):
        raise ArgumentTypeError(f"{what} must be a str, not {type(value).__name__}")
    return value


def metadata_arg(metadata: Mapping[str, Any] | None) -> dict[str, Any]:
    """A sample's (or an event's, an activity's) metadata, checked: str
    keys; str, int, float, bool or datetime values; ints the store keeps
    exactly (rule 49)."""
    if metadata is None:
        return {}
    if not isinstance(metadata, Mapping):
        raise ArgumentTypeError(f"metadata must be a mapping, not {type(metadata).__name__}")
    for key, value in metadata.items():
        if not isinstance(key, str):
            raise ArgumentTypeError(f"metadata keys must be str, not {type(key).__name__}")
        if not isinstance(value, (str, int, float, bool, datetime)):
            raise ArgumentTypeError(f"metadata {key!r}: a {type(value).__name__} is not a metadata value "
                                    "(str, int, float, bool or datetime)")
        if isinstance(value, datetime):
            unix_time(value, f"metadata {key!r}")
        elif isinstance(value, int) and not isinstance(value, bool):
            exact_integer(value, f"metadata {key!r}")  # rule 49: refused, not rounded by the store
    return dict(metadata)


def numpy_module(what: str) -> Any:
    """NumPy, imported when first needed (it is optional); ImportError
    saying what needs it otherwise."""
    try:
        import numpy
    except ImportError:
        raise ImportError(f"{what} needs NumPy: pip install 'openhealthkit[numpy]'") from None
    return numpy


def optional_numpy() -> Any | None:
    """NumPy when it is installed, else None: for what reads as rows
    without it."""
    try:
        import numpy
    except ImportError:
        return None
    return numpy


def pyarrow_module(what: str) -> Any:
    """pyarrow, imported when first needed (it is optional); ImportError
    saying what needs it otherwise."""
    try:
        import pyarrow  # type: ignore[import-untyped]  # no stubs; an optional dependency
    except ImportError:
        raise ImportError(f"{what} needs pyarrow: pip install 'openhealthkit[arrow]'") from None
    return pyarrow


def parquet_module(what: str) -> Any:
    """pyarrow.parquet, as ``pyarrow_module``."""
    pyarrow_module(what)
    import pyarrow.compute  # type: ignore[import-untyped]  # the filters the export runs
    import pyarrow.parquet  # type: ignore[import-untyped]
    return pyarrow.parquet


def pandas_module(what: str = "to_pandas()") -> Any:
    """pandas, imported when first needed (it is optional); ImportError
    saying what needs it otherwise."""
    try:
        import pandas
    except ImportError:
        raise ImportError(f"{what} needs pandas: pip install 'openhealthkit[pandas]'") from None
    return pandas
