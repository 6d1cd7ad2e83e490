"""Electrocardiograms to and from C (``ohk_electrocardiogram``, rule 41):
the voltages as one contiguous float64 array each way."""

from __future__ import annotations

import ctypes
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from .. import _native as n
from .._checks import real
from ..errors import ArgumentTypeError, InvalidArgumentError, InvalidValueError
from .samples import absent, nan

if TYPE_CHECKING:
    from ..electrocardiogram import Electrocardiogram


class ECGRecord(NamedTuple):
    """An electrocardiogram as copied from a batch: its fields and its
    voltages' bytes (native float64), made an Electrocardiogram when asked
    for, so that a batch read without NumPy still reads."""

    classification: int
    symptoms_status: int
    lead: int
    average_heart_rate: float | None
    sampling_frequency: float | None
    raw: bytes


def read_electrocardiogram(handle: Any, index: int) -> ECGRecord:
    """Sample `index`'s recording, its voltages copied out of the batch in one go."""
    e = n.ohk_electrocardiogram()
    n.lib.ohk_batch_electrocardiogram(e, handle, index)
    count = e.voltage_count
    address = ctypes.cast(e.voltages, ctypes.c_void_p).value
    raw = ctypes.string_at(address, count * 8) if count and address else b""  # one copy of the whole array
    return ECGRecord(e.classification, e.symptoms_status, e.lead, absent(e.average_heart_rate),
                     absent(e.sampling_frequency_hz), raw)


def voltage_array(numpy: Any, voltages: Any) -> Any:
    """`voltages` as a new read-only, contiguous 1-D float64 array: a NumPy
    array (or anything with a numeric dtype, a pandas Series) is converted
    in one C-level copy; a sequence of Python numbers through NumPy too,
    each item checked only when NumPy sees objects."""
    if isinstance(voltages, (str, bytes, bytearray)) or not (isinstance(voltages, Iterable)
                                                            or hasattr(voltages, "__array__")):
        raise ArgumentTypeError(f"voltages must be a sequence or an array of numbers, not {type(voltages).__name__}")
    values = numpy.asarray(voltages if hasattr(voltages, "__array__") or isinstance(voltages, Sequence)
                           else list(voltages))
    if values.ndim != 1:
        raise InvalidArgumentError(f"voltages: one number per measurement (a 1-D array), not shape {values.shape}")
    if values.dtype.kind == "O":  # Python objects (None, Decimal...): each checked
        values = numpy.array([real(v, f"voltages[{i}]", unknown=False) for i, v in enumerate(values)],
                             dtype=numpy.float64)
    elif values.dtype.kind not in "iuf":
        raise ArgumentTypeError(f"voltages: numbers expected, not {values.dtype}")
    out = numpy.array(values, dtype=numpy.float64, order="C", copy=True)
    bad = ~numpy.isfinite(out)
    if bad.any():
        row = int(numpy.argmax(bad))
        raise InvalidValueError(f"voltages[{row}] must be finite, not {out[row]}")
    out.flags.writeable = False
    return out


def electrocardiogram_to_c(ecg: Electrocardiogram, keep: list[Any]) -> n.ohk_electrocardiogram:
    """The C form of `ecg`, its voltages the array's own memory (kept in `keep`)."""
    c = n.ohk_electrocardiogram()
    c.classification, c.symptoms_status, c.lead = int(ecg.classification), int(ecg.symptoms_status), int(ecg.lead)
    c.average_heart_rate = nan(ecg.average_heart_rate)
    c.sampling_frequency_hz = nan(ecg.sampling_frequency)
    voltages = ecg.voltages
    if len(voltages):
        if not (voltages.dtype == "float64" and voltages.flags.c_contiguous):  # an Electrocardiogram's always are
            raise InvalidArgumentError("voltages must be a contiguous float64 array")
        keep.append(voltages)
        c.voltages = voltages.ctypes.data_as(ctypes.POINTER(ctypes.c_double))
    c.voltage_count = len(voltages)
    return c
