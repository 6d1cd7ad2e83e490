"""OpenHealthKit for Python: HealthKit's sample store and change-tracking
queries, over ctypes and libopenhealthkit.so.

    import openhealthkit as ohk
    with ohk.HealthStore("/tmp/health") as store:
        store.save(ohk.QuantitySample("HKQuantityTypeIdentifierStepCount", start, end, 120))
        samples, deleted, anchor = store.query("HKQuantityTypeIdentifierStepCount")
        ...                                   # later: only what changed
        samples, deleted, anchor = store.query("HKQuantityTypeIdentifierStepCount", anchor)

"rule N" in a docstring cites a rule the library keeps:
docs/semantics.md#rule-N in the source (installed with the C library as
share/doc/openhealthkit/docs/semantics.md).
"""

from . import _native, errors
from ._convert import Quantity
from .activity import ActivityMoveMode, ActivitySummary, ActivitySummaryList, ActivitySummaryUpdate
from .anchor import Anchor, AnchorLike
from .batch import DeletedList, QueryResult, SampleList
from .catalogue import (
    Aggregation, SampleType, canonical_unit, category_value, category_value_name, convert, sample_type,
    sample_types, units_compatible,
)
from .characteristics import BiologicalSex, BloodType, Characteristics, FitzpatrickSkinType, WheelchairUse
from .columns import ColumnsResult, DeletedColumns, HeartbeatColumns, LocationColumns, SampleColumns
from .errors import *  # noqa: F403 - the exception hierarchy is public
from .errors import __all__ as _error_names
from .importing import ImportProgress, ImportReport, ImportRow, ImportSkip, import_export
from .predicate import Predicate
from .queries import Query, Subscription
from .samples import CategorySample, DeletedObject, Device, QuantitySample, Sample, Source
from .statistics import Statistics, StatisticsList, StatisticsOptions, StatisticsUpdate, StatisticsValues
from .store import (
    DEFAULT_SOURCE, Frequency, HealthStore, QueryDescriptor, SaveOutcome, SaveResult, Types,
    VerifyReport,
)
from .workouts import (
    Audiogram, AudiogramSample, ClampingRange, SensitivityPoint,
    ClinicalRecord, ClinicalRecordSample, ECGClassification, ECGLead, ECGSymptomsStatus, Electrocardiogram,
    ElectrocardiogramSample,
    Correlation, CorrelationSample, Heartbeat, HeartbeatSeries, HeartbeatSeriesSample, HeartbeatsLike, Location,
    LocationsLike, Route, Workout, WorkoutActivity, WorkoutActivityType, WorkoutEvent, WorkoutEventType,
    WorkoutRouteSample, WorkoutSample, WorkoutStatistics,
)
from .workout_list import WorkoutList
from .sink import PostgresSink, SinkProgress
from .receiving import ApplyResult
from .replication import LiveDigest, SyncReport, sync
from .subscriptions import SubscriptionStatus
from .sleep import SleepNight, SleepNights
from .summary import StoreSummary, TypeSummary

#: The library's version ("MAJOR.MINOR.PATCH").
__version__: str = _native.lib.ohk_version_string().decode("ascii")

__all__ = [
    "ActivityMoveMode", "ActivitySummary", "ApplyResult", "LiveDigest", "SyncReport", "sync", "ActivitySummaryList", "ActivitySummaryUpdate",
    "Audiogram", "AudiogramSample", "ClampingRange", "SensitivityPoint",
    "ClinicalRecord", "ClinicalRecordSample", "ECGClassification", "ECGLead", "ECGSymptomsStatus",
    "Electrocardiogram", "ElectrocardiogramSample",
    "Aggregation", "Anchor", "AnchorLike", "BiologicalSex", "BloodType", "CategorySample", "Characteristics",
    "FitzpatrickSkinType", "WheelchairUse", "Correlation", "CorrelationSample", "DEFAULT_SOURCE",
    "ColumnsResult", "DeletedColumns", "DeletedList",
    "DeletedObject", "Device", "Frequency", "HealthStore", "Heartbeat", "HeartbeatColumns", "HeartbeatSeries",
    "HeartbeatSeriesSample", "HeartbeatsLike", "ImportProgress", "ImportReport",
    "ImportRow", "ImportSkip", "Location", "LocationColumns", "LocationsLike", "Predicate", "Quantity",
    "QuantitySample", "Query", "QueryDescriptor", "QueryResult", "Route", "Sample", "SampleColumns",
    "SampleList", "SampleType", "SaveOutcome", "SaveResult", "PostgresSink", "SinkProgress", "SleepNight", "SleepNights", "StoreSummary", "Source", "Statistics", "StatisticsList", "StatisticsOptions",
    "StatisticsUpdate", "StatisticsValues", "Subscription", "SubscriptionStatus", "Types",
    "VerifyReport", "Workout", "WorkoutActivity", "WorkoutActivityType", "WorkoutEvent", "WorkoutEventType",
    "TypeSummary", "WorkoutList", "WorkoutRouteSample", "WorkoutSample", "WorkoutStatistics",
    "canonical_unit", "category_value", "category_value_name", "convert", "import_export", "sample_type",
    "sample_types", "units_compatible", *_error_names,
]


def __getattr__(name: str) -> object:
    # Renamed names, found for one version with a warning (see errors.py).
    return errors.__getattr__(name)
