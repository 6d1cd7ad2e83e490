"""HealthKit's type catalogue and units."""

from __future__ import annotations

import ctypes
import functools
import math
from dataclasses import dataclass

from ._enums import Aggregation as Aggregation  # defined once, in api/enums.toml
from . import _native as n
from ._convert import finite
from ._marshal.catalogue import CASE_NAMES, accepted_values, value_name
from .errors import ArgumentTypeError, InvalidArgumentError, NotFoundError


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
    if not isinstance(identifier, str):  # before the dict: a list is unhashable
        raise ArgumentTypeError("a sample type is an identifier str or a SampleType, "
                                f"not {type(identifier).__name__}")
    if not _catalogue:
        sample_types()
    found = _catalogue.get(identifier)
    if found is None:
        info = n.ohk_type_info()
        n.lib.ohk_type_lookup(info, None, n.encode(identifier, "type identifier"))
        found = SampleType._from_info(info)
    return found


def category_value(category_type: str | SampleType, name: str) -> int:
    """The integer of a category type's named value (HealthKit's enum case):
    ``category_value("SleepAnalysis", "AsleepDeep") == 4``; the name may be
    HealthKit's full case name ("HKCategoryValueSleepAnalysisAsleepDeep").
    ``category_value_name`` goes the other way. NotFoundError (a KeyError)
    for a name the type does not have, listing the ones it has;
    InvalidArgumentError for a quantity type; UnknownTypeError for a type
    that is not HealthKit's (a store's own types name their values in it)."""
    identifier = _category_identifier(category_type)
    value = ctypes.c_int64()
    try:
        n.lib.ohk_category_value(value, identifier, n.encode(name, "value name"))
    except NotFoundError as error:
        raise NotFoundError(f"{error}; {accepted_values(identifier)} {CASE_NAMES}") from None
    return value.value


def category_value_name(category_type: str | SampleType, value: int) -> str:
    """The name of a category type's value (HealthKit's enum case, without
    its prefix): ``category_value_name("SleepAnalysis", 4) == "AsleepDeep"``;
    of names that share a value, HealthKit's current one.
    ``category_value`` goes the other way, and a CategorySample's
    ``value_name`` is this for its value. NotFoundError (a KeyError) for a
    value the type does not name, listing the ones it does."""
    identifier = _category_identifier(category_type)
    if not isinstance(value, int) or isinstance(value, bool):
        raise ArgumentTypeError(f"a category value is an int, not {type(value).__name__}")
    name = value_name(identifier, value)
    if name is None:
        raise NotFoundError(f"{identifier.decode()} has no value {value}; {accepted_values(identifier)}")
    return name


def _category_identifier(category_type: str | SampleType) -> bytes:
    """The full identifier of a category type for the C calls (HealthKit's
    types only: a store's own name their values in that store alone)."""
    kind = sample_type(category_type)
    if kind.is_custom:
        raise InvalidArgumentError(f"{kind.identifier} is a type of a store's own: its value names are known to "
                                   "that store only; give the value's integer")
    if not kind.is_category:
        raise InvalidArgumentError(f"{kind.identifier} is not a category type; it has no named values")
    return kind.identifier.encode("utf-8")


def convert(value: float, from_unit: str, to_unit: str) -> float:
    """Converts between HealthKit units: convert(1, "mi", "km") == 1.609344.

    The result is the library's double as it computes it (C's and Swift's
    conversion, bit for bit), not rounded: a unit converter should not
    lose digits of its own, and converting back comes closest to where it
    started. Values read from a store in another unit than their type's
    canonical one (``value_in``, ``to_numpy(unit=...)``, ``to_pandas``,
    statistics) are rounded to 15 significant digits instead (rule 44 of
    docs/semantics.md), so a heart rate saved as 62 count/min, kept as
    1.0333333333333332 count/s, reads back as 62.0 where ``convert`` of
    that gives 61.99999999999999."""
    result = ctypes.c_double()
    n.lib.ohk_unit_convert(result, finite(value, "value"), n.encode(from_unit, "unit"),
                           n.encode(to_unit, "unit"))
    return result.value


def significant(value: float) -> float:
    """`value` rounded to 15 significant digits, as ``ohk`` prints numbers
    (C's ``%.15g``): 61.99999999999999 is 62.0. Fifteen because a
    conversion's own floating error lies in the 16th and 17th (rule 44).
    Zeros, NaN and infinities are unchanged."""
    return float(f"{value:.15g}") if math.isfinite(value) else value


@functools.lru_cache(maxsize=256)
def _conversion(from_unit: str, to_unit: str) -> tuple[float, float] | None:
    """The affine map (scale, offset) from one unit to another, None when it
    is the identity (the same unit, however spelt). Cached: a few C calls
    per pair of units."""
    offset = convert(0.0, from_unit, to_unit)
    # Linear units (all but temperatures): the library's own factor.
    # Affine ones: the slope over a wide span, where its rounding weighs least.
    if offset == 0.0:
        scale = convert(1.0, from_unit, to_unit)
    else:
        scale = (convert(1000.0, from_unit, to_unit) - offset) / 1000.0
    return None if (scale, offset) == (1.0, 0.0) else (scale, offset)


def conversion(from_unit: str, to_unit: str) -> tuple[float, float] | None:
    """The (scale, offset) taking values in `from_unit` to `to_unit`, None
    for the identity; the errors of ``convert`` (InvalidUnitError,
    IncompatibleUnitError). Every conversion of read values goes through
    it, so a value converted alone and in a NumPy column agree."""
    for unit in (from_unit, to_unit):
        if not isinstance(unit, str):  # before the cache, which would raise a bare TypeError for a list
            raise ArgumentTypeError(f"unit must be a str, not {type(unit).__name__}")
    return _conversion(from_unit, to_unit)


def converted(value: float, from_unit: str, to_unit: str) -> float:
    """A stored value in `to_unit` (rule 44): exactly `value` when the
    conversion is the identity, else converted and rounded to 15
    significant digits."""
    mapping = conversion(from_unit, to_unit)
    if mapping is None:
        return value
    scale, offset = mapping
    return significant(value * scale + offset if offset else value * scale)


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
