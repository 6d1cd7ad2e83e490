"""Heartbeat series (``HKHeartbeatSeriesSample``, rule 39 of
docs/semantics.md): a series' beats (``HeartbeatSeries``, ``Heartbeat``,
``HeartbeatColumns`` for NumPy), what a save takes as beats
(``HeartbeatsLike``), and ``HeartbeatSeriesSample``, a series read from
a store."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, NamedTuple, Union

from ._checks import numpy_module, pandas_module, set_field
from ._marshal.heartbeats import (
    BEAT, BEAT_SIZE, FIELDS, beat_columns_of, beats_to_c, heartbeat_dtype as heartbeat_dtype, normalised_beats,
    pack_beat_columns, pack_beat_rows, read_heartbeats,
)
from ._own_fields import OwnFieldsSample, SaveCall
from .errors import ArgumentTypeError, InvalidArgumentError

if TYPE_CHECKING:
    import numpy as np

HEARTBEAT_SERIES = "HKDataTypeIdentifierHeartbeatSeries"
#: A heartbeat series' fields, in ohk_heartbeat's order.
HEARTBEAT_FIELDS = FIELDS


class Heartbeat(NamedTuple):
    """One beat of a heartbeat series (what ``HKHeartbeatSeriesQuery``
    gives per beat): seconds since the series' start, and whether a gap in
    the data came just before it (one or more beats may be missing).
    ``HeartbeatSeries.beats`` gives these; a save takes them too, plain
    ``(time, gap)`` tuples, or plain numbers (no gap)."""

    time_since_start: float
    preceded_by_gap: bool = False


@dataclass(frozen=True)
class HeartbeatColumns:
    """A heartbeat series' beats as NumPy arrays, one row per beat in time
    order: ``time_since_start`` float64 seconds since the series' start,
    ``preceded_by_gap`` bool (beats may be missing just before it). The
    arrays are the caller's own and contiguous. ``save_heartbeat_series``
    takes them back."""

    time_since_start: "np.ndarray"
    preceded_by_gap: "np.ndarray"

    def __len__(self) -> int:
        return len(self.time_since_start)

    def to_pandas(self) -> Any:
        """A DataFrame indexed by ``time_since_start`` (seconds) with a bool
        ``preceded_by_gap`` column. Needs pandas."""
        pd = pandas_module()
        index = pd.Index(self.time_since_start, name="time_since_start")
        return pd.DataFrame({"preceded_by_gap": self.preceded_by_gap}, index=index)


def heartbeat_columns(raw: bytes) -> HeartbeatColumns:
    """Columns of packed ohk_heartbeat records, read in place through a
    structured dtype and copied once per column: no Python object per beat."""
    np = numpy_module("to_numpy()")
    records = np.frombuffer(raw, dtype=heartbeat_dtype(np))
    return HeartbeatColumns(records["time_since_start"].copy(), records["preceded_by_gap"].copy())


@dataclass(frozen=True, slots=True, repr=False)
class HeartbeatSeries:
    """A heartbeat series' own field (``HKHeartbeatSeriesSample``): its
    beats in time order. ``raw`` holds them as the C library lays them out
    (``ohk_heartbeat``: a float64 and a bool, 16 bytes with the padding,
    which is zeroed), copied once from the batch; ``to_numpy()`` reads them
    as columns, ``to_pandas()`` as a DataFrame, ``beats`` as ``Heartbeat``
    tuples."""

    raw: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.raw, (bytes, bytearray)) or len(self.raw) % BEAT_SIZE:
            raise InvalidArgumentError(f"raw must be bytes of ohk_heartbeat records ({BEAT_SIZE} each)")
        set_field(self, "raw", normalised_beats(self.raw))

    def __len__(self) -> int:
        """The number of beats."""
        return len(self.raw) // BEAT_SIZE

    def __repr__(self) -> str:
        return f"HeartbeatSeries({len(self)} beats)"

    @property
    def beats(self) -> list[Heartbeat]:
        """The beats as ``Heartbeat`` tuples (a Python object each: use
        ``to_numpy()`` for long series)."""
        return [Heartbeat(time, gap) for time, gap in BEAT.iter_unpack(self.raw)]

    def to_numpy(self) -> HeartbeatColumns:
        """The beats as NumPy columns (needs NumPy): ``time_since_start``
        float64 and ``preceded_by_gap`` bool, read through a structured
        dtype of the C layout; see ``HeartbeatColumns``."""
        return heartbeat_columns(self.raw)

    def to_pandas(self) -> Any:
        """The beats as a pandas DataFrame indexed by ``time_since_start``
        (seconds) with a bool ``preceded_by_gap`` column. Needs NumPy and
        pandas."""
        return self.to_numpy().to_pandas()


#: What ``HealthStore.save_heartbeat_series`` takes as beats: a
#: ``HeartbeatSeries`` or ``HeartbeatColumns`` read back, a 1-D NumPy array
#: of times (no gap), a NumPy structured array, a pandas DataFrame or a
#: mapping with ``time_since_start`` (and ``preceded_by_gap``) columns, a 2-D
#: array of (time, gap) rows, or a sequence of ``Heartbeat``s,
#: ``(time, gap)`` tuples or plain numbers (no gap). Times are seconds since
#: the series' start.
HeartbeatsLike = Union[HeartbeatSeries, HeartbeatColumns, Mapping[str, Any], Iterable[Any]]


def pack_heartbeats(beats: Any) -> bytes:
    """`beats` as packed ohk_heartbeat records, checked here: each time a
    finite number (NaN never reaches the library), each gap a bool. The
    library refuses the rest (no beat, a negative time, a beat after the
    end)."""
    if isinstance(beats, HeartbeatSeries):
        return beats.raw
    if isinstance(beats, HeartbeatColumns):
        return pack_beat_columns(beats.time_since_start, beats.preceded_by_gap)
    columns = beat_columns_of(beats)
    if columns is not None:
        return pack_beat_columns(*columns)
    if isinstance(beats, (str, bytes, bytearray)) or not isinstance(beats, Iterable):
        raise ArgumentTypeError(f"beats must be times, rows or columns of beats, not {type(beats).__name__}")
    return pack_beat_rows(beats)


class HeartbeatSeriesSample(OwnFieldsSample):
    """A heartbeat series read from a store (``HKHeartbeatSeriesSample``,
    rule 39): a sample whose ``heartbeats`` has its beats, each a time
    since the sample's start. ``value`` is its number of beats."""

    __slots__ = ()
    _saved_by = "save_heartbeat_series"

    @property
    def heartbeats(self) -> HeartbeatSeries:
        """The series' beats, in time order."""
        found: HeartbeatSeries = self._fields()
        return found

    def _value_text(self) -> str:
        return f"{int(self._r[3])} beats"

    @classmethod
    def _read_fields(cls, handle: Any, index: int) -> HeartbeatSeries:
        return HeartbeatSeries(read_heartbeats(handle, index))

    def _save_call(self, keep: list[Any]) -> SaveCall:
        return SaveCall("ohk_store_save_heartbeat_series", beats_to_c(self.heartbeats.raw))


__all__ = ["Heartbeat", "HeartbeatColumns", "HeartbeatSeries", "HeartbeatSeriesSample", "HeartbeatsLike"]
