"""Audiograms (``HKAudiogramSample``, rule 40 of docs/semantics.md): an
audiogram's sensitivity points (``Audiogram``, ``SensitivityPoint``,
``ClampingRange``) and ``AudiogramSample``, an audiogram read from a
store."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

from ._marshal.audiograms import audiogram_to_c, clamping_bounds as clamping_bounds, read_audiogram
from ._own_fields import OwnFieldsSample, SaveCall

AUDIOGRAM = "HKDataTypeIdentifierAudiogram"


class ClampingRange(NamedTuple):
    """The range an ear's hearing level may have been clamped to
    (HealthKit's ``HKAudiogramSensitivityPointClampingRange``, rule 40):
    dBHL, None for an open bound; not both None."""
    lower_bound: float | None
    upper_bound: float | None


class SensitivityPoint(NamedTuple):
    """One frequency of an audiogram (rule 40): Hz, and each ear's hearing
    level in dBHL (None: not tested), whether it was masked (None: not
    said) and the range it was clamped to (None: none given)."""
    frequency: float
    left_ear: float | None
    right_ear: float | None
    left_ear_masked: bool | None
    right_ear_masked: bool | None
    left_ear_clamping: ClampingRange | None = None
    right_ear_clamping: ClampingRange | None = None


@dataclass(frozen=True)
class Audiogram:
    """An audiogram's sensitivity points, in order of frequency."""
    points: tuple[SensitivityPoint, ...]

    def __len__(self) -> int:
        return len(self.points)


class AudiogramSample(OwnFieldsSample):
    """An audiogram read from a store (``HKAudiogramSample``, rule 40): a
    sample whose ``audiogram`` has its sensitivity points. ``value`` is
    its number of points."""

    __slots__ = ()
    _saved_by = "save_audiogram"

    @property
    def audiogram(self) -> Audiogram:
        """The audiogram's points, in order of frequency."""
        found: Audiogram = self._fields()
        return found

    def _value_text(self) -> str:
        return f"{int(self._r[3])} points"

    @classmethod
    def _read_fields(cls, handle: Any, index: int) -> Audiogram:
        return Audiogram(tuple(SensitivityPoint(*p[:5], None if p[5] is None else ClampingRange(*p[5]),
                                                None if p[6] is None else ClampingRange(*p[6]))
                               for p in read_audiogram(handle, index)))

    def _save_call(self, keep: list[Any]) -> SaveCall:
        return SaveCall("ohk_store_save_audiogram", (audiogram_to_c(self.audiogram.points, keep),))


__all__ = ["Audiogram", "AudiogramSample", "ClampingRange", "SensitivityPoint"]
