"""NumPy columns of a batch: analysis without a Python object per sample."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from . import _native as n
from .catalogue import SampleType
from .samples import Source

if TYPE_CHECKING:
    import numpy as np

    from .batch import BatchContext


@dataclass(frozen=True)
class SampleColumns:
    """A batch's samples as NumPy arrays, one row per sample in change order.

    ``start`` and ``end`` are ``datetime64[us]`` in UTC; ``value`` is float64
    in each type's canonical unit (category values too); ``uuid`` is an
    (n, 16) uint8 array. ``type`` and ``source`` are uint32 codes into
    ``types`` and ``sources`` (ready for ``pandas.Categorical.from_codes``).
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

    def __len__(self) -> int:
        return len(self.value)


def _record_dtype(np: Any) -> Any:
    return np.dtype([("uuid", "u1", (16,)), ("start", "<f8"), ("end", "<f8"), ("value", "<f8"),
                     ("type", "<u4"), ("source", "<u4"), ("flags", "<u4"), ("utc_offset", "<i4"),
                     ("creation_date", "<f8")])


def _microseconds(np: Any, seconds: Any) -> Any:
    return np.rint(seconds * 1e6).astype("int64").view("datetime64[us]")


def sample_columns(context: "BatchContext") -> SampleColumns:
    try:
        import numpy as np
    except ImportError:
        raise ImportError("to_numpy() needs NumPy: pip install 'openhealthkit[numpy]'") from None
    if context.handle is None:  # a batch lent to a callback: read from its copied records
        return _from_records(np, context)
    # The library writes straight into the arrays: no record array, no
    # temporary per column. One block holds the six columns (8-byte ones
    # first, so each is aligned), each array a view of its part.
    count = context.sample_count
    block = np.empty(count * 48, dtype=np.uint8)
    address = block.__array_interface__["data"][0]
    uuid = block[:16 * count].reshape(count, 16)
    start = block[16 * count:24 * count].view("datetime64[us]")
    end = block[24 * count:32 * count].view("datetime64[us]")
    value = block[32 * count:40 * count].view(np.float64)
    type_index = block[40 * count:44 * count].view(np.uint32)
    source = block[44 * count:48 * count].view(np.uint32)
    if count:
        columns = n.ohk_sample_columns(address, address + 16 * count, address + 24 * count,
                                       address + 32 * count, address + 40 * count, address + 44 * count,
                                       None, None, None)
        written = ctypes.c_uint64()
        n.lib.ohk_batch_sample_columns(written, columns, count, context.handle)
    return SampleColumns(uuid=uuid, start=start, end=end, value=value, type=type_index, source=source,
                         types=list(context.types), sources=list(context.sources))


def _from_records(np: Any, context: "BatchContext") -> SampleColumns:
    records = np.frombuffer(context.sample_data, dtype=_record_dtype(np), count=context.sample_count)
    return SampleColumns(
        uuid=records["uuid"].copy(),
        start=_microseconds(np, records["start"]),
        end=_microseconds(np, records["end"]),
        value=records["value"].copy(),
        type=records["type"].copy(),
        source=records["source"].copy(),
        types=list(context.types),
        sources=list(context.sources),
    )
