"""Which class a type's samples are: ``QuantitySample``,
``CategorySample``, or the sample class of a kind with fields of its own
(each in its value module)."""

from __future__ import annotations

from typing import Any

from ._own_fields import OwnFieldsSample
from .audiogram import AudiogramSample
from .catalogue import SampleType
from .clinical import ClinicalRecordSample
from .correlation import CorrelationSample
from .electrocardiogram import ElectrocardiogramSample
from .heartbeat import HeartbeatSeriesSample
from .route import WorkoutRouteSample
from .samples import CategorySample, QuantitySample, Sample
from .workout import WorkoutSample


def own_fields_class(kind: SampleType) -> type[OwnFieldsSample] | None:
    """The class of a type's samples when it has its own fields, else None."""
    if kind.is_workout:
        return WorkoutSample
    if kind.is_route:
        return WorkoutRouteSample
    if kind.is_correlation:
        return CorrelationSample
    if kind.is_heartbeat_series:
        return HeartbeatSeriesSample
    if kind.is_audiogram:
        return AudiogramSample
    if kind.is_electrocardiogram:
        return ElectrocardiogramSample
    if kind.is_clinical_record:
        return ClinicalRecordSample
    return None


def sample_class(kind: SampleType) -> type[Sample] | None:
    """The class of a type's samples when it has its own fields, else None."""
    return own_fields_class(kind)


def class_of(kind: SampleType) -> type[Sample]:
    """The class of a type's samples, whatever the type."""
    own = own_fields_class(kind)
    if own is not None:
        return own
    return CategorySample if kind.is_category else QuantitySample


def read_fields(handle: Any, index: int, kind: SampleType) -> Any:
    """Sample `index` of the batch's own fields, copied out of the batch."""
    own = own_fields_class(kind)
    if own is None:
        raise TypeError(f"{kind.identifier} samples have no fields of their own")
    return own._read_fields(handle, index)
