"""HealthKit's type catalogue and units."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass
from enum import IntEnum

from . import _native as n
from ._convert import finite


class Aggregation(IntEnum):
    """HKQuantityAggregationStyle."""

    CUMULATIVE = 0
    DISCRETE_ARITHMETIC = 1
    DISCRETE_TEMPORALLY_WEIGHTED = 2
    DISCRETE_EQUIVALENT_CONTINUOUS_LEVEL = 3


@dataclass(frozen=True, slots=True)
class SampleType:
    """A sample type: its HealthKit identifier, and for quantity types the
    canonical unit and aggregation style; the ``is_…`` flags tell the
    kinds with fields of their own (workouts, routes, correlations,
    heartbeat series, audiograms, electrocardiograms, clinical records)."""

    identifier: str
    is_category: bool
    canonical_unit: str | None
    aggregation: Aggregation | None
    is_custom: bool = False
    #: The unit people read it in (count/min for heart rate, km for
    #: distances); what statistics use unless told otherwise.
    display_unit: str | None = None
    #: HKWorkoutTypeIdentifier: its samples are WorkoutSamples, whose
    #: ``value`` is their duration in seconds and ``workout`` their fields.
    is_workout: bool = False
    #: HKWorkoutRouteTypeIdentifier: its samples are WorkoutRouteSamples,
    #: whose ``value`` is their number of locations and ``route`` them.
    is_route: bool = False
    #: A correlation type (blood pressure, food): its samples are
    #: CorrelationSamples, whose ``value`` is their number of members and
    #: ``correlation`` their UUIDs.
    is_correlation: bool = False
    #: HKDataTypeIdentifierHeartbeatSeries: its samples are
    #: HeartbeatSeriesSamples, whose ``value`` is their number of beats and
    #: ``heartbeats`` them.
    is_heartbeat_series: bool = False
    #: HKDataTypeIdentifierAudiogram: its samples are AudiogramSamples,
    #: whose ``value`` is their number of points and ``audiogram`` them.
    is_audiogram: bool = False
    #: HKDataTypeIdentifierElectrocardiogram: its samples are
    #: ElectrocardiogramSamples, whose ``value`` is their number of
    #: voltages and ``electrocardiogram`` their recording.
    is_electrocardiogram: bool = False
    #: A clinical type (HKClinicalTypeIdentifierImmunizationRecord...): its
    #: samples are ClinicalRecordSamples, whose ``value`` is their FHIR
    #: JSON's length in bytes and ``clinical_record`` the record.
    is_clinical_record: bool = False

    def __str__(self) -> str:
        return self.identifier

    @property
    def short_name(self) -> str:
        """The name without HealthKit's prefix, as ``ohk`` prints it and
        every call accepts: ``HeartRate``, ``SleepAnalysis``, ``Workout``."""
        head, sep, tail = self.identifier.partition("TypeIdentifier")
        if self.is_custom or not sep or not head.startswith("HK"):
            return self.identifier
        return tail or head[2:]

    @classmethod
    def _from_info(cls, info: n.ohk_type_info) -> "SampleType":
        category = info.kind == n.KIND_CATEGORY
        quantity = info.kind == n.KIND_QUANTITY
        return cls(
            identifier=info.identifier.decode("utf-8"),
            is_category=category,
            canonical_unit=info.canonical_unit.decode("utf-8") if quantity else None,
            aggregation=Aggregation(info.aggregation) if quantity else None,
            is_custom=bool(info.is_custom),
            display_unit=info.display_unit.decode("utf-8") if quantity else None,
            is_workout=info.kind == n.KIND_WORKOUT,
            is_route=info.kind == n.KIND_WORKOUT_ROUTE,
            is_correlation=info.kind == n.KIND_CORRELATION,
            is_heartbeat_series=info.kind == n.KIND_HEARTBEAT_SERIES,
            is_audiogram=info.kind == n.KIND_AUDIOGRAM,
            is_electrocardiogram=info.kind == n.KIND_ELECTROCARDIOGRAM,
            is_clinical_record=info.kind == n.KIND_CLINICAL_RECORD,
        )


_catalogue: dict[str, SampleType] = {}


def sample_types() -> list[SampleType]:
    """Every type of HealthKit's catalogue, in identifier order."""
    if not _catalogue:
        info = n.ohk_type_info()
        for index in range(n.lib.ohk_type_count()):
            n.lib.ohk_type_at(info, index)
            kind = SampleType._from_info(info)
            _catalogue[kind.identifier] = kind
    return list(_catalogue.values())


def sample_type(identifier: str | SampleType) -> SampleType:
    """A catalogue type by identifier ("HKQuantityTypeIdentifierStepCount");
    UnknownTypeError otherwise. Custom types: HealthStore.sample_type."""
    if isinstance(identifier, SampleType):
        return identifier
    if not _catalogue:
        sample_types()
    found = _catalogue.get(identifier)
    if found is None:
        info = n.ohk_type_info()
        n.lib.ohk_type_lookup(info, None, n.encode(identifier, "type identifier"))
        found = SampleType._from_info(info)
    return found


def category_value(type_identifier: str, name: str) -> int:
    """The integer of a category type's named value: ("HKCategoryTypeIdentifierSleepAnalysis",
    "AsleepCore") or HealthKit's full case name; NotFoundError otherwise."""
    value = ctypes.c_int64()
    n.lib.ohk_category_value(value, n.encode(type_identifier, "type identifier"),
                             n.encode(name, "value name"))
    return value.value


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """Converts between HealthKit units: convert(1, "mi", "km") == 1.609344."""
    result = ctypes.c_double()
    n.lib.ohk_unit_convert(result, finite(value, "value"), n.encode(from_unit, "unit"),
                           n.encode(to_unit, "unit"))
    return result.value


def canonical_unit(unit: str) -> str:
    """A unit's canonical text, which parses back to the same unit."""
    text = ctypes.POINTER(ctypes.c_char)()
    n.lib.ohk_unit_canonical(text, n.encode(unit, "unit"))
    try:
        return ctypes.string_at(text).decode("utf-8")
    finally:
        n.lib.ohk_string_free(text)


def units_compatible(a: str, b: str) -> bool:
    """Whether two units measure the same dimension (InvalidUnitError if one
    does not parse)."""
    result = ctypes.c_bool()
    n.lib.ohk_unit_compatible(result, n.encode(a, "unit"), n.encode(b, "unit"))
    return result.value
