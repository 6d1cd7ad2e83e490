"""Correlations (``HKCorrelation``, rule 33 of docs/semantics.md): a
blood pressure or a food correlation's members (``Correlation``) and
``CorrelationSample``, a correlation read from a store."""

from __future__ import annotations

import uuid as uuid_module
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ._checks import sequence, set_field
from ._marshal.correlations import read_correlation
from ._own_fields import OwnFieldsSample, SaveCall
from .catalogue import SampleType, sample_types
from .predicate import Predicate
from .samples import Sample

BLOOD_PRESSURE = "HKCorrelationTypeIdentifierBloodPressure"
FOOD = "HKCorrelationTypeIdentifierFood"
_SYSTOLIC = "HKQuantityTypeIdentifierBloodPressureSystolic"
_DIASTOLIC = "HKQuantityTypeIdentifierBloodPressureDiastolic"


@dataclass(frozen=True, slots=True)
class Correlation:
    """A correlation's own field (``HKCorrelation``): the UUIDs of its
    members, which are samples of their own types (a systolic and a
    diastolic blood pressure; dietary samples). ``predicate()`` finds
    them; ``HealthStore.correlation_objects`` fetches them."""

    members: Sequence[uuid_module.UUID]

    def __post_init__(self) -> None:
        set_field(self, "members", sequence(self.members, uuid_module.UUID, "members"))

    def predicate(self) -> Predicate:
        """A predicate of the members' UUIDs (``Predicate.uuids``)."""
        return Predicate.uuids(self.members)


class CorrelationSample(OwnFieldsSample):
    """A correlation read from a store (``HKCorrelation``: blood pressure,
    food): a sample whose ``correlation`` has its members' UUIDs.
    ``value`` is its number of members."""

    __slots__ = ()
    _saved_by = "save_correlation"

    @property
    def correlation(self) -> Correlation:
        """The correlation's members."""
        found: Correlation = self._fields()
        return found

    def _value_text(self) -> str:
        return f"{int(self._r[3])} members"

    @classmethod
    def _read_fields(cls, handle: Any, index: int) -> Correlation:
        return Correlation(read_correlation(handle, index))

    def _save_call(self, keep: list[Any]) -> SaveCall:
        # Made by save_correlation: its new members, saved with it. Read
        # from a store: its members' UUIDs, found in the same save or in
        # the store it is saved to (HealthStore.save looks them up).
        made: list[Sample] | None = getattr(self._c, "members", None)
        return SaveCall("ohk_store_save_correlation",
                        members=tuple(made) if made is not None else tuple(self.correlation.members))


def correlation_member_types(kind: SampleType) -> list[str]:
    """The member types a correlation type holds (rule 33): blood pressure,
    a systolic and a diastolic sample; food, dietary samples."""
    if kind.identifier == BLOOD_PRESSURE:
        return [_SYSTOLIC, _DIASTOLIC]
    return [t.identifier for t in sample_types()
            if t.canonical_unit is not None and t.identifier.startswith("HKQuantityTypeIdentifierDietary")]


__all__ = ["Correlation", "CorrelationSample"]
