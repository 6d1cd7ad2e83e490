"""Workouts, routes, correlations, heartbeat series, audiograms,
electrocardiograms and clinical records: the names this module held
before each kind got its own (``workout``, ``route``, ``correlation``,
``heartbeat``, ``audiogram``, ``electrocardiogram``, ``clinical``), kept
importable from here.

A workout, a route, a correlation or a heartbeat series is a sample like
any other (a UUID, an interval, a source, metadata, a place in the change
feed) with fields of its own, which frozen dataclasses hold: ``Workout``
(with its ``WorkoutEvent``s, ``WorkoutActivity``s and
``WorkoutStatistics``), ``Route``, ``Correlation`` and ``HeartbeatSeries``
(its ``Heartbeat``s). Read from a store, such samples are
``WorkoutSample``, ``WorkoutRouteSample``, ``CorrelationSample`` and
``HeartbeatSeriesSample``, whose ``workout``, ``route``, ``correlation``
and ``heartbeats`` give these fields, decoded the first time they are
asked for. Audiograms (``Audiogram``, ``AudiogramSample``),
electrocardiograms (``Electrocardiogram``, ``ElectrocardiogramSample``)
and clinical records (``ClinicalRecord``, ``ClinicalRecordSample``)
follow the same pattern. ``HealthStore.save`` saves any of them, and
``save_workout``, ``save_route``, ``save_correlation``,
``save_heartbeat_series``, ``save_audiogram``, ``save_electrocardiogram``
and ``save_clinical_record`` make one from its fields.
"""

from __future__ import annotations

from ._kinds import read_fields as read_fields, sample_class as sample_class
from ._marshal.clinical import check_fhir_json as check_fhir_json, clinical_record_to_c as clinical_record_to_c
from ._marshal.electrocardiograms import electrocardiogram_to_c as electrocardiogram_to_c
from ._marshal.heartbeats import heartbeat_series_end as heartbeat_series_end
from ._marshal.workouts import workout_to_c as workout_to_c
from .audiogram import (
    AUDIOGRAM as AUDIOGRAM, Audiogram as Audiogram, AudiogramSample as AudiogramSample,
    ClampingRange as ClampingRange, SensitivityPoint as SensitivityPoint, clamping_bounds as clamping_bounds,
)
from .clinical import ClinicalRecord as ClinicalRecord, ClinicalRecordSample as ClinicalRecordSample
from .correlation import (
    BLOOD_PRESSURE as BLOOD_PRESSURE, FOOD as FOOD, Correlation as Correlation,
    CorrelationSample as CorrelationSample, correlation_member_types as correlation_member_types,
)
from .electrocardiogram import (
    ELECTROCARDIOGRAM as ELECTROCARDIOGRAM, ECGClassification as ECGClassification, ECGLead as ECGLead,
    ECGSymptomsStatus as ECGSymptomsStatus, Electrocardiogram as Electrocardiogram,
    ElectrocardiogramSample as ElectrocardiogramSample,
)
from .heartbeat import (
    HEARTBEAT_SERIES as HEARTBEAT_SERIES, Heartbeat as Heartbeat, HeartbeatSeries as HeartbeatSeries,
    HeartbeatSeriesSample as HeartbeatSeriesSample, HeartbeatsLike as HeartbeatsLike,
    pack_heartbeats as pack_heartbeats,
)
from .route import (
    EPOCH as EPOCH, ROUTE as ROUTE, Location as Location, LocationsLike as LocationsLike, Route as Route,
    WorkoutRouteSample as WorkoutRouteSample, pack_locations as pack_locations,
)
from .workout import (
    WORKOUT as WORKOUT, Workout as Workout, WorkoutActivity as WorkoutActivity,
    WorkoutActivityType as WorkoutActivityType, WorkoutEvent as WorkoutEvent, WorkoutEventType as WorkoutEventType,
    WorkoutSample as WorkoutSample, WorkoutStatistics as WorkoutStatistics,
)

__all__ = [
    "Audiogram", "AudiogramSample", "ClinicalRecord", "ClinicalRecordSample", "ECGClassification", "ECGLead",
    "ECGSymptomsStatus", "Electrocardiogram", "ElectrocardiogramSample", "SensitivityPoint", "ClampingRange",
    "Correlation", "CorrelationSample", "Heartbeat", "HeartbeatSeries", "HeartbeatSeriesSample", "HeartbeatsLike",
    "Location", "LocationsLike", "Route", "Workout", "WorkoutActivity", "WorkoutActivityType", "WorkoutEvent",
    "WorkoutEventType", "WorkoutRouteSample", "WorkoutSample", "WorkoutStatistics",
]
