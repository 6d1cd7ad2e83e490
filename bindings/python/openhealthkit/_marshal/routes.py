"""Routes to and from C (``ohk_route``, ``ohk_location``, rule 32):
locations given as rows or columns packed as ``ohk_location`` records."""

from __future__ import annotations

import array
import ctypes
import math
import numbers
import uuid as uuid_module
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from .. import _native as n
from .._checks import optional_numpy, real
from .._convert import make_uuid, unix_time
from ..errors import ArgumentTypeError, InvalidArgumentError, InvalidValueError

#: Bytes of one ohk_location record.
LOCATION_SIZE = ctypes.sizeof(n.ohk_location)
#: A location's fields, in ohk_location's order.
FIELDS = n.LOCATION_FIELDS
#: The fields every location has: timestamp, latitude, longitude.
REQUIRED = 3


def read_route(handle: Any, index: int) -> tuple[uuid_module.UUID | None, bytes]:
    """Sample `index`'s route: its workout's UUID (None for none) and its
    locations as packed records, copied out of the batch."""
    route = n.ohk_route()
    n.lib.ohk_batch_route(route, handle, index)
    count = route.location_count
    raw = ctypes.string_at(ctypes.cast(route.locations, ctypes.c_void_p).value or 0,
                           count * LOCATION_SIZE) if count else b""
    return make_uuid(bytes(route.workout)) if route.has_workout else None, raw


def locations_to_c(raw: bytes) -> tuple[Any, int]:
    """An ``ohk_location`` array of packed records (one element at least,
    so never NULL) and how many locations it holds."""
    count = len(raw) // LOCATION_SIZE
    points = (n.ohk_location * count).from_buffer_copy(raw) if count else (n.ohk_location * 1)()
    return points, count


def columns_of(locations: Any) -> dict[str, Any] | None:
    """Columns by field name when `locations` is columnar (a mapping, a
    NumPy structured or 2-D array, a pandas DataFrame), else None."""
    if isinstance(locations, Mapping):
        columns = dict(locations)
    elif getattr(getattr(locations, "dtype", None), "names", None):  # a NumPy structured array
        columns = {name: locations[name] for name in locations.dtype.names}
    elif hasattr(locations, "columns") and hasattr(locations, "index") and not isinstance(locations, Sequence):
        columns = {name: locations[name] for name in locations.columns}  # a pandas DataFrame
        index = locations.index
        if "timestamp" not in columns and getattr(index, "name", None) == "timestamp":
            columns["timestamp"] = index  # to_pandas()'s frame
    elif getattr(locations, "ndim", None) == 2 and hasattr(locations, "shape"):  # a 2-D array: columns in order
        width = locations.shape[1]
        if not REQUIRED <= width <= len(FIELDS):
            raise InvalidArgumentError(f"locations: {width} columns; a location is ({', '.join(FIELDS)}), "
                                       "the first three required")
        columns = {name: locations[:, k] for k, name in enumerate(FIELDS[:width])}
    else:
        return None
    unknown = [str(name) for name in columns if name not in FIELDS]
    if unknown:
        raise InvalidArgumentError(f"locations: unknown field {', '.join(unknown)} (fields: {', '.join(FIELDS)})")
    missing = [name for name in FIELDS[:REQUIRED] if name not in columns]
    if missing:
        raise InvalidArgumentError(f"locations need {', '.join(missing)}")
    return columns


def pack_columns(columns: dict[str, Any]) -> bytes:
    """Columns by field name as packed records, checked: through NumPy
    when it is there, else read as rows."""
    np = optional_numpy()
    if np is None:  # columns of Python sequences: read as rows
        names = list(columns)
        lengths = {len(columns[name]) for name in names}
        if len(lengths) > 1:
            raise InvalidArgumentError("locations: the columns differ in length")
        return pack_rows(dict(zip(names, values)) for values in zip(*(columns[name] for name in names)))
    timestamps = _seconds_column(np, columns["timestamp"])
    count = len(timestamps)
    out = np.empty((count, len(FIELDS)), dtype="<f8")
    out[:, 0] = timestamps
    for k, name in enumerate(FIELDS[1:], 1):
        column = columns.get(name)
        if column is None:
            out[:, k] = math.nan
            continue
        try:
            values = np.asarray(column, dtype=np.float64)  # None reads as NaN: unknown
        except (TypeError, ValueError):
            raise ArgumentTypeError(f"locations {name}: numbers expected") from None
        if values.shape != (count,):
            raise InvalidArgumentError(f"locations {name}: {values.shape[0] if values.ndim else 1} values "
                                       f"for {count} timestamps")
        out[:, k] = values
    required = ~np.isfinite(out[:, :REQUIRED])
    if required.any():
        row, column_index = (int(i) for i in np.argwhere(required)[0])
        raise InvalidValueError(f"locations[{row}].{FIELDS[column_index]} must be finite, "
                                f"not {out[row, column_index]}")
    if np.isinf(out[:, REQUIRED:]).any():
        row, column_index = (int(i) for i in np.argwhere(np.isinf(out[:, REQUIRED:]))[0])
        raise InvalidValueError(f"locations[{row}].{FIELDS[REQUIRED + column_index]} must be finite or "
                                f"unknown (NaN or None), not {out[row, REQUIRED + column_index]}")
    return bytes(out.tobytes())


def _seconds_column(np: Any, column: Any) -> Any:
    """A timestamp column as float64 Unix seconds (NaN where missing):
    datetime64 (UTC), numbers (Unix seconds), aware datetimes, or a pandas
    column or index in any time zone."""
    accessor = getattr(column, "dt", column)
    if getattr(accessor, "tz", None) is not None:
        column = accessor.tz_convert("UTC").tz_localize(None)
    values = np.asarray(column)
    if values.ndim != 1:
        raise InvalidArgumentError("locations timestamp: one value per location")
    if values.dtype.kind == "M":
        micros = values.astype("datetime64[us]")
        return np.where(np.isnat(micros), math.nan, micros.astype(np.int64) / 1e6)
    if values.dtype.kind in "iuf":
        return values.astype(np.float64)
    if values.dtype.kind == "O":
        return np.array([_seconds(value, f"locations[{i}].timestamp") for i, value in enumerate(values)],
                        dtype=np.float64)
    raise ArgumentTypeError(f"locations timestamp: datetimes or Unix seconds expected, not {values.dtype}")


def _seconds(value: Any, what: str) -> float:
    """A timestamp as Unix seconds: an aware datetime, a number, a NumPy datetime64 (UTC)."""
    if isinstance(value, datetime):
        return unix_time(value, what)
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        return float(value)
    if type(value).__name__ == "datetime64":
        return float(value.astype("datetime64[us]").astype("int64")) / 1e6
    raise ArgumentTypeError(f"{what} must be an aware datetime or Unix seconds, not {type(value).__name__}")


def pack_rows(rows: Iterable[Any]) -> bytes:
    """Rows (mappings, tuples in ``Location``'s order, or objects with
    the fields as attributes) as packed records, each value checked."""
    out = array.array("d")
    for index, row in enumerate(rows):
        if isinstance(row, Mapping):
            unknown = [str(key) for key in row if key not in FIELDS]
            if unknown:
                raise InvalidArgumentError(f"locations[{index}]: unknown field {', '.join(unknown)}")
            values = [row.get(name) for name in FIELDS]
        elif isinstance(row, (tuple, list)):
            if not REQUIRED <= len(row) <= len(FIELDS):
                raise InvalidArgumentError(f"locations[{index}] has {len(row)} values: a location is "
                                           f"({', '.join(FIELDS)}), the first three required")
            values = [*row, *([None] * (len(FIELDS) - len(row)))]
        else:
            values = [getattr(row, name, None) for name in FIELDS]
        if any(value is None for value in values[:REQUIRED]):
            raise InvalidArgumentError(f"locations[{index}] lacks a timestamp, latitude or longitude")
        out.append(_seconds(values[0], f"locations[{index}].timestamp"))
        if not math.isfinite(out[-1]):
            raise InvalidValueError(f"locations[{index}].timestamp must be finite, not {out[-1]}")
        for name, value in zip(FIELDS[1:REQUIRED], values[1:REQUIRED]):
            out.append(real(value, f"locations[{index}].{name}", unknown=False))
        for name, value in zip(FIELDS[REQUIRED:], values[REQUIRED:]):
            out.append(math.nan if value is None else real(value, f"locations[{index}].{name}", unknown=True))
    return out.tobytes()
