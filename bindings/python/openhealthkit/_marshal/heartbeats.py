"""Heartbeat series to and from C (``ohk_heartbeat``, rule 39): beats given
as rows or columns packed as ``ohk_heartbeat`` records."""

from __future__ import annotations

import array
import ctypes
import math
import numbers
import struct
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from .. import _native as n
from .._checks import optional_numpy, real
from ..errors import ArgumentTypeError, InvalidArgumentError, InvalidValueError

#: A beat's fields, in ohk_heartbeat's order (``Heartbeat``'s too).
FIELDS = ("time_since_start", "preceded_by_gap")
# ohk_heartbeat: a float64, a bool, padding to 16 bytes (tests/test_drift.py
# checks the ctypes layout against the C compiler).
BEAT_SIZE = ctypes.sizeof(n.ohk_heartbeat)
_GAP_OFFSET = n.ohk_heartbeat.preceded_by_gap.offset
BEAT = struct.Struct(f"=d{_GAP_OFFSET - 8}x?{BEAT_SIZE - _GAP_OFFSET - 1}x")
assert BEAT.size == BEAT_SIZE and n.ohk_heartbeat.time_since_start.offset == 0
_AS_FLAG = bytes([0] + [1] * 255)  # bytes.translate: any non-zero byte reads as true


def normalised_beats(raw: bytes | bytearray) -> bytes:
    """Packed ohk_heartbeat records with their padding zeroed and each gap
    flag 0 or 1, so that equal series have equal bytes: a few C-speed
    slice assignments, not a loop over the beats."""
    count = len(raw) // BEAT_SIZE
    if not count:
        return b""
    out = bytearray(raw)
    out[_GAP_OFFSET::BEAT_SIZE] = bytes(out[_GAP_OFFSET::BEAT_SIZE]).translate(_AS_FLAG)
    for offset in (*range(8, _GAP_OFFSET), *range(_GAP_OFFSET + 1, BEAT_SIZE)):
        out[offset::BEAT_SIZE] = bytes(count)
    return bytes(out)


def read_heartbeats(handle: Any, index: int) -> bytes:
    """Sample `index`'s beats as packed records, copied out of the batch."""
    beats = ctypes.POINTER(n.ohk_heartbeat)()
    beat_count = ctypes.c_uint64()
    n.lib.ohk_batch_heartbeats(beats, beat_count, handle, index)
    address = ctypes.cast(beats, ctypes.c_void_p).value
    size = beat_count.value * BEAT_SIZE
    return ctypes.string_at(address, size) if size and address else b""


def beats_to_c(raw: bytes) -> tuple[Any, int]:
    """An ``ohk_heartbeat`` array of packed records (one element at least,
    so never NULL) and how many beats it holds."""
    count = len(raw) // BEAT_SIZE
    points = (n.ohk_heartbeat * count).from_buffer_copy(raw) if count else (n.ohk_heartbeat * 1)()
    return points, count


def heartbeat_dtype(np: Any) -> Any:
    """The NumPy structured dtype of ohk_heartbeat records: a float64 and a
    bool at the C struct's offsets, its size with the padding (16 bytes;
    tests/test_drift.py checks the struct against the C compiler)."""
    return np.dtype({"names": list(FIELDS), "formats": ["=f8", "?"],
                     "offsets": [getattr(n.ohk_heartbeat, name).offset for name in FIELDS],
                     "itemsize": ctypes.sizeof(n.ohk_heartbeat)})


def beat_columns_of(beats: Any) -> tuple[Any, Any] | None:
    """(times, gaps or None) when `beats` is columnar (a mapping, a NumPy
    array, a pandas DataFrame or Series), else None."""
    if isinstance(beats, Mapping):
        columns = dict(beats)
    elif getattr(getattr(beats, "dtype", None), "names", None):  # a NumPy structured array
        columns = {name: beats[name] for name in beats.dtype.names}
    elif hasattr(beats, "columns") and hasattr(beats, "index") and not isinstance(beats, Sequence):
        columns = {name: beats[name] for name in beats.columns}  # a pandas DataFrame
        if "time_since_start" not in columns and getattr(beats.index, "name", None) == "time_since_start":
            columns["time_since_start"] = beats.index  # to_pandas()'s frame
    elif getattr(beats, "ndim", None) == 1 and hasattr(beats, "dtype"):
        return beats, None  # a NumPy array (or a pandas Series) of times
    elif getattr(beats, "ndim", None) == 2 and hasattr(beats, "shape"):  # (time, gap) rows
        if beats.shape[1] not in (1, 2):
            raise InvalidArgumentError(f"beats: {beats.shape[1]} columns; a beat is (time_since_start, "
                                       "preceded_by_gap), the gap optional")
        return beats[:, 0], beats[:, 1] if beats.shape[1] == 2 else None
    else:
        return None
    unknown = [str(name) for name in columns if name not in FIELDS]
    if unknown:
        raise InvalidArgumentError(f"beats: unknown field {', '.join(unknown)} (fields: {', '.join(FIELDS)})")
    if "time_since_start" not in columns:
        raise InvalidArgumentError("beats need time_since_start")
    return columns["time_since_start"], columns.get("preceded_by_gap")


def pack_beat_columns(times: Any, gaps: Any) -> bytes:
    """Columns of times and gap flags as packed records, checked: through
    NumPy when it is there, else read as rows."""
    np = optional_numpy()
    if np is None:  # columns of Python sequences: read as rows
        if gaps is None:
            return pack_beat_rows(times)
        if len(times) != len(gaps):
            raise InvalidArgumentError("beats: the columns differ in length")
        return pack_beat_rows(zip(times, gaps))
    values = np.asarray(times)
    if values.ndim != 1:
        raise InvalidArgumentError("beats time_since_start: one value per beat")
    if values.dtype.kind == "O":  # Python objects: each checked
        values = np.array([real(v, f"beats[{i}].time_since_start", unknown=False) for i, v in enumerate(values)],
                          dtype=np.float64)
    elif values.dtype.kind not in "iuf":
        raise ArgumentTypeError(f"beats time_since_start: numbers expected, not {values.dtype}")
    count = len(values)
    out = np.zeros(count, dtype=heartbeat_dtype(np))  # the padding zeroed
    out["time_since_start"] = values
    bad = ~np.isfinite(out["time_since_start"])
    if bad.any():
        row = int(np.argmax(bad))
        raise InvalidValueError(f"beats[{row}].time_since_start must be finite, not {out['time_since_start'][row]}")
    if gaps is not None:
        flags = np.asarray(gaps)
        if flags.shape != (count,):
            raise InvalidArgumentError(f"beats preceded_by_gap: {flags.shape[0] if flags.ndim else 1} values "
                                       f"for {count} times")
        if flags.dtype.kind == "O":
            flags = np.array([_gap(g, f"beats[{i}].preceded_by_gap") for i, g in enumerate(flags)], dtype=bool)
        elif flags.dtype.kind in "iuf":
            if not np.isin(flags, (0, 1)).all():
                raise InvalidValueError("beats preceded_by_gap: booleans (or 0 and 1) expected")
        elif flags.dtype.kind != "b":
            raise ArgumentTypeError(f"beats preceded_by_gap: booleans expected, not {flags.dtype}")
        out["preceded_by_gap"] = flags.astype(bool)
    return bytes(out.tobytes())


def pack_beat_rows(rows: Iterable[Any]) -> bytes:
    """Rows (``(time, gap)`` tuples, mappings or plain numbers) as packed
    records, each value checked."""
    out = bytearray()
    for index, row in enumerate(rows):
        if isinstance(row, (tuple, list)):  # a Heartbeat, or (time, gap)
            if not 1 <= len(row) <= 2:
                raise InvalidArgumentError(f"beats[{index}] has {len(row)} values: a beat is "
                                           "(time_since_start, preceded_by_gap), the gap optional")
            time, gap = row[0], (row[1] if len(row) == 2 else False)
        elif isinstance(row, Mapping):
            unknown = [str(key) for key in row if key not in FIELDS]
            if unknown or "time_since_start" not in row:
                raise InvalidArgumentError(f"beats[{index}]: a beat has time_since_start and, optionally, "
                                           "preceded_by_gap")
            time, gap = row["time_since_start"], row.get("preceded_by_gap", False)
        else:
            time, gap = row, False
        out += BEAT.pack(real(time, f"beats[{index}].time_since_start", unknown=False),
                         _gap(gap, f"beats[{index}].preceded_by_gap"))
    return bytes(out)


def _gap(value: Any, what: str) -> bool:
    """A gap flag: a bool (NumPy's too), or 0 or 1."""
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return bool(value)
    if isinstance(value, numbers.Integral) and value in (0, 1):
        return bool(value)
    raise ArgumentTypeError(f"{what} must be a bool, not {value!r}")


#: Date's reference date (2001-01-01) in Unix seconds: the library works in
#: seconds since it, so an end is checked as (end - R) - (start - R).
_REFERENCE_DATE = 978307200.0


def heartbeat_series_end(start: float, raw: bytes) -> float:
    """The default end of a series starting at `start` (Unix seconds):
    its start plus its last beat's time, nudged up by the last bits that
    floating point rounding takes, so the library's check (no beat after
    the end) holds for the beat that set it."""
    times = array.array("d")
    times.frombytes(raw)
    # Not below 0: for a negative time the library names the beat, not an end before the start.
    last = max(times[::BEAT_SIZE // 8], default=0.0)
    last = max(last, 0.0)
    end = start + last
    while (end - _REFERENCE_DATE) - (start - _REFERENCE_DATE) < last:
        end = math.nextafter(end, math.inf)
    return end
