"""NumPy columns of a batch: analysis without a Python object per sample."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

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
    Every array is the caller's own copy.
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
                     ("type", "<u4"), ("source", "<u4"), ("flags", "<u4"), ("reserved", "<u4")])


def _microseconds(np: Any, seconds: Any) -> Any:
    return np.rint(seconds * 1e6).astype("int64").view("datetime64[us]")


def sample_columns(context: "BatchContext") -> SampleColumns:
    try:
        import numpy as np
    except ImportError:
        raise ImportError("to_numpy() needs NumPy: pip install 'openhealthkit[numpy]'") from None
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
