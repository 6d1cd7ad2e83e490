"""``HealthStore``'s writes: saves of every kind of sample, deletions, a
receiver's batches, and a workout's associated samples."""

from __future__ import annotations

import ctypes
import math
import uuid as uuid_module
from collections.abc import Iterable, Mapping
from dataclasses import astuple
from datetime import datetime, timedelta
from typing import Any, cast

from . import _native as n
from ._convert import ValueArena, as_list, utc_datetime, uuid_bytes
from ._handles import predicate_handle
from ._marshal.audiograms import clamping_bounds
from ._marshal.clinical import check_fhir_json, clinical_record_to_c
from ._marshal.electrocardiograms import electrocardiogram_to_c
from ._marshal.heartbeats import heartbeat_series_end
from ._marshal.workouts import workout_to_c
from ._own_fields import OwnFieldsSample
from ._store_core import save_outcome, type_identifier, workout_uuid
from ._store_queries import Queries
from .audiogram import AUDIOGRAM, SensitivityPoint
from .batch import SampleList
from .catalogue import SampleType
from .clinical import ClinicalRecord
from .correlation import CorrelationSample, correlation_member_types
from .electrocardiogram import ELECTROCARDIOGRAM, Electrocardiogram
from .errors import ArgumentTypeError, InvalidArgumentError, InvalidValueError
from .heartbeat import HEARTBEAT_SERIES, HeartbeatsLike, pack_heartbeats
from .predicate import Predicate
from .receiving import ApplyResult
from .route import EPOCH, ROUTE, LocationsLike, pack_locations
from .samples import CategorySample, DeletedObject, Device, QuantitySample, Sample, SampleRecord, SaveOutcome, Source
from .workout import WORKOUT, Workout, WorkoutSample


class Saving(Queries):
    """The writes of a store (see ``HealthStore``)."""

    def save(self, samples: Sample | Iterable[Sample]) -> list[SaveOutcome]:
        """Saves samples in one transaction, all or nothing, durable when it
        returns (rule 13, docs/semantics.md). Returns what happened to each, in order."""
        batch = as_list(samples, "samples", (Sample,), "a Sample")
        keep: list[Any] = []
        inputs = self._sample_inputs(batch, keep)
        outcomes = (n.ohk_save_outcome * max(len(batch), 1))()
        try:
            n.lib.ohk_store_save(outcomes, self._handle, inputs, len(batch))
        except InvalidArgumentError:
            own = _own_fields_error(batch)  # a workout read back: name the Python call, not the C one
            if own is not None:
                raise own from None
            raise
        return [save_outcome(outcomes[i]) for i in range(len(batch))]

    def _sample_inputs(self, batch: list[Sample], keep: list[Any]) -> Any:
        """``batch`` as the ohk_sample_input array that save and apply pass;
        `keep` holds what the array points at until the call returns."""
        inputs = (n.ohk_sample_input * max(len(batch), 1))()
        sources: dict[Source, tuple[bytes, bytes, bytes | None]] = {}
        for index, sample in enumerate(batch):
            if not isinstance(sample, Sample):
                raise ArgumentTypeError(f"sample {index} is a {type(sample).__name__}, not a Sample")
            self._fill_input(inputs[index], sample, sources, keep)
        return inputs

    def _inputs(self, samples: Sample | Iterable[Sample], what: str,
                keep: list[Any]) -> tuple[list[Sample], Any]:
        """Quantity and category samples as an ohk_sample_input array."""
        batch = as_list(samples, what, (Sample,), "a Sample")
        inputs = (n.ohk_sample_input * max(len(batch), 1))()
        sources: dict[Source, tuple[bytes, bytes, bytes | None]] = {}
        for index, sample in enumerate(batch):
            if not isinstance(sample, (QuantitySample, CategorySample)):
                raise ArgumentTypeError(f"{what}[{index}] is a {type(sample).__name__}, not a QuantitySample or "
                                        "CategorySample")
            self._fill_input(inputs[index], sample, sources, keep)
        return batch, inputs

    def _own_input(self, identifier: str | SampleType, start: datetime, end: datetime, source: Source | None,
                   device: Device | None, metadata: Mapping[str, Any] | None, uuid: uuid_module.UUID | None,
                   creation_date: datetime | None, utc_offset: timedelta | None,
                   keep: list[Any]) -> n.ohk_sample_input:
        """The ohk_sample_input of a sample with fields of its own (a
        workout, route, correlation, heartbeat series, audiogram,
        electrocardiogram, clinical record): what every sample has, checked
        as a QuantitySample's would be; its type is `identifier`."""
        carrier = object.__new__(Sample)
        carrier._init(self.sample_type(identifier), start, end, 0.0, None, source, device, metadata, uuid, 0,
                      creation_date, utc_offset)
        target = n.ohk_sample_input()
        self._fill_input(target, carrier, {}, keep)
        return target

    def save_workout(self, workout: Workout, start: datetime, end: datetime, *, source: Source | None = None,
                     device: Device | None = None, metadata: Mapping[str, Any] | None = None,
                     uuid: uuid_module.UUID | None = None, creation_date: datetime | None = None,
                     utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves a workout (HKWorkout, rule 31): its own fields (a
        ``Workout``), its interval and what every sample has (a UUID is made
        when not given; the store's default source when none is given), in
        one transaction. Returns ``[outcome]``, as ``save`` does; read back,
        it is a ``WorkoutSample``. InvalidValueError for an unknown activity
        or event type, a negative duration or total; InvalidDateRangeError
        for an interval that ends before it starts; UnknownTypeError or
        InvalidArgumentError for statistics of a type that is not one of
        HealthKit's quantity types."""
        if not isinstance(workout, Workout):
            raise ArgumentTypeError(f"workout must be a Workout, not {type(workout).__name__}")
        keep: list[Any] = []
        sample = self._own_input(WORKOUT, start, end, source, device, metadata, uuid, creation_date, utc_offset, keep)
        fields = workout_to_c(workout, keep)
        outcome = n.ohk_save_outcome()
        n.lib.ohk_store_save_workout(outcome, self._handle, sample, fields)
        return [save_outcome(outcome)]

    def save_route(self, workout: WorkoutSample | uuid_module.UUID | str | bytes | None, locations: LocationsLike, *,
                   source: Source | None = None, device: Device | None = None,
                   metadata: Mapping[str, Any] | None = None, uuid: uuid_module.UUID | None = None,
                   creation_date: datetime | None = None, utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves a route (HKWorkoutRoute, rule 32) of a stored workout (a
        ``WorkoutSample`` or its UUID; None for a route of no workout), in
        one transaction. ``locations``: a NumPy structured array or a
        mapping of columns (``timestamp``, ``latitude``, ``longitude``
        required; ``altitude``, ``horizontal_accuracy``,
        ``vertical_accuracy``, ``course``, ``speed`` optional, NaN or None
        where unknown), a 2-D array of columns in that order,
        ``LocationColumns``, a DataFrame or a ``Route`` read back, or a
        sequence of ``Location``s, tuples in that order, mappings or objects
        with those attributes. Timestamps are aware datetimes,
        Unix seconds or ``datetime64`` (UTC). The store sorts them by time;
        the route's interval is its first and last. Returns ``[outcome]``.
        NotFoundError for a workout the store does not hold live;
        InvalidValueError for no location, a latitude beyond ±90° or a
        longitude beyond ±180°, a NaN or infinite value."""
        target = None if workout is None else workout_uuid(workout)
        data = pack_locations(locations)
        count = len(data) // ctypes.sizeof(n.ohk_location)
        points = (n.ohk_location * count).from_buffer_copy(data) if count else (n.ohk_location * 1)()
        keep: list[Any] = []
        # The library takes the route's interval from its locations: start and end are not read.
        sample = self._own_input(ROUTE, EPOCH, EPOCH, source, device, metadata, uuid, creation_date, utc_offset, keep)
        outcome = n.ohk_save_outcome()
        n.lib.ohk_store_save_route(outcome, self._handle, sample, target, points, count)
        return [save_outcome(outcome)]

    def save_correlation(self, correlation_type: str | SampleType, members: Sample | Iterable[Sample],
                         start: datetime | None = None, end: datetime | None = None, *,
                         source: Source | None = None, device: Device | None = None,
                         metadata: Mapping[str, Any] | None = None, uuid: uuid_module.UUID | None = None,
                         creation_date: datetime | None = None,
                         utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves a correlation (HKCorrelation, rule 33) of
        ``"BloodPressure"`` (one systolic and one diastolic sample) or
        ``"Food"`` (dietary samples) with its members, new quantity or
        category samples, in one transaction: the members are samples of
        their own types too. ``start`` and ``end`` default to the members'
        earliest start and latest end. Returns the members' outcomes in
        order, then the correlation's. InvalidArgumentError for a member of
        a type the correlation does not hold. A member the store holds
        already is grouped, not saved again (``SaveResult.ALREADY_STORED``);
        NotFoundError for one that was deleted."""
        kind = self.sample_type(correlation_type)
        if not kind.is_correlation:
            raise InvalidArgumentError(f"{kind.identifier} is not a correlation type "
                                       "(HKCorrelationTypeIdentifierBloodPressure or HKCorrelationTypeIdentifierFood)")
        keep: list[Any] = []
        batch, inputs = self._inputs(members, "members", keep)
        if not batch:
            raise InvalidValueError(f"a {kind.identifier} correlation needs at least one member")
        first = min(sample.start_timestamp for sample in batch)
        last = max(sample.end_timestamp for sample in batch)
        sample = self._own_input(kind, start if start is not None else utc_datetime(first),
                                 end if end is not None else utc_datetime(last), source, device, metadata, uuid,
                                 creation_date, utc_offset, keep)
        outcomes = (n.ohk_save_outcome * (len(batch) + 1))()
        n.lib.ohk_store_save_correlation(outcomes, self._handle, sample, inputs, len(batch))
        return [save_outcome(outcome) for outcome in outcomes]

    def add_to_workout(self, workout: WorkoutSample | uuid_module.UUID | str | bytes,
                       samples: Sample | Iterable[Sample]) -> list[SaveOutcome]:
        """HealthKit's ``add(_:to:)`` (rule 36): saves the quantity or
        category samples the store does not hold yet and associates every
        one with the stored workout, in one transaction, all or nothing.
        Returns each one's outcome, ALREADY_STORED for a sample stored
        before (only associated). NotFoundError for a workout the store does
        not hold live. ``associate`` does the same for stored samples given
        by UUID."""
        target = workout_uuid(workout)
        keep: list[Any] = []
        batch, inputs = self._inputs(samples, "samples", keep)
        outcomes = (n.ohk_save_outcome * max(len(batch), 1))()
        n.lib.ohk_store_add_to_workout(outcomes, self._handle, target, inputs, len(batch))
        return [save_outcome(outcomes[i]) for i in range(len(batch))]

    def save_heartbeat_series(self, beats: HeartbeatsLike, start: datetime, end: datetime | None = None, *,
                              source: Source | None = None, device: Device | None = None,
                              metadata: Mapping[str, Any] | None = None, uuid: uuid_module.UUID | None = None,
                              creation_date: datetime | None = None,
                              utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves a heartbeat series (HKHeartbeatSeriesSample, rule 39) in one
        transaction: its beats, each a time in seconds since ``start`` and
        whether a gap in the data came just before it, and what every
        sample has. ``beats``: a sequence of ``Heartbeat``s, ``(time, gap)``
        tuples or plain numbers (no gap); a 1-D NumPy array of times, a
        structured array, a DataFrame or a mapping of ``time_since_start``
        and ``preceded_by_gap`` columns; or a ``HeartbeatSeries`` or
        ``HeartbeatColumns`` read back. The store sorts them by time.
        ``end`` defaults to ``start`` plus the last beat's time (HealthKit's
        builder ends a series at its last beat). Returns ``[outcome]``;
        read back, it is a ``HeartbeatSeriesSample``. InvalidValueError for
        no beat, a NaN or infinite time (refused before the library), a
        negative one, or a beat after ``end``; InvalidDateRangeError for an
        ``end`` before ``start``."""
        data = pack_heartbeats(beats)
        count = len(data) // ctypes.sizeof(n.ohk_heartbeat)
        points = (n.ohk_heartbeat * count).from_buffer_copy(data) if count else (n.ohk_heartbeat * 1)()
        keep: list[Any] = []
        sample = self._own_input(HEARTBEAT_SERIES, start, start if end is None else end, source, device, metadata,
                                 uuid, creation_date, utc_offset, keep)
        if end is None:
            sample.end = heartbeat_series_end(sample.start, data)
        outcome = n.ohk_save_outcome()
        n.lib.ohk_store_save_heartbeat_series(outcome, self._handle, sample, points, count)
        return [save_outcome(outcome)]

    def save_audiogram(self, points: Iterable[SensitivityPoint | tuple[Any, ...]], start: datetime,
                       end: datetime | None = None, *, source: Source | None = None, device: Device | None = None,
                       metadata: Mapping[str, Any] | None = None, uuid: uuid_module.UUID | None = None,
                       creation_date: datetime | None = None,
                       utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves an audiogram (HKAudiogramSample, rule 40) in one
        transaction: ``points`` are ``SensitivityPoint``s or tuples
        ``(frequency Hz, left dBHL or None, right dBHL or None[, left
        masked, right masked[, left clamping, right clamping]])``, a
        clamping range a ``ClampingRange`` or a ``(lower, upper)`` pair in
        dBHL (None: an open bound) or None; the store sorts the points by
        frequency. ``end`` defaults to ``start``. Returns ``[outcome]``;
        read back, it is an ``AudiogramSample``. InvalidValueError for no
        point, a frequency that is not positive or appears twice, a point
        with neither ear, a level or bound that is not finite (NaN is
        refused here, as C would read it as "not tested" or "open"), a
        range without a bound, of an ear not tested, or out of order."""
        rows = [tuple(as_list(point, f"points[{i}]", (), "a SensitivityPoint or a tuple of numbers"))
                for i, point in enumerate(as_list(points, "points", (), "SensitivityPoints or tuples"))]
        array = (n.ohk_audiogram_point * max(1, len(rows)))()
        ranges = (n.ohk_audiogram_clamping * max(1, len(rows)))()
        for i, row in enumerate(rows):
            if not 3 <= len(row) <= 7:
                raise InvalidArgumentError(f"points[{i}]: (frequency, left, right[, left masked, right masked"
                                           "[, left clamping, right clamping]])")
            frequency, left, right = row[0], row[1], row[2]
            extra = list(row[3:]) + [None] * (7 - len(row))
            levels = []
            for side, v in (("left", left), ("right", right)):
                if v is not None and (not isinstance(v, (int, float)) or not math.isfinite(v)):
                    raise InvalidValueError(f"points[{i}]: the {side} ear's level must be a finite number or None, not {v!r}")
                levels.append(math.nan if v is None else float(v))
            array[i] = n.ohk_audiogram_point(float(frequency), levels[0], levels[1],
                                             -1 if extra[0] is None else int(bool(extra[0])),
                                             -1 if extra[1] is None else int(bool(extra[1])))
            bounds = [bound for side, given in (("left", extra[2]), ("right", extra[3]))
                      for bound in clamping_bounds(given, f"points[{i}]: the {side} ear's clamping range")]
            ranges[i] = n.ohk_audiogram_clamping(*bounds)
        keep: list[Any] = []
        sample = self._own_input(AUDIOGRAM, start, start if end is None else end, source, device, metadata,
                                 uuid, creation_date, utc_offset, keep)
        outcome = n.ohk_save_outcome()
        audiogram = n.ohk_audiogram(array, ranges, len(rows))
        n.lib.ohk_store_save_audiogram(outcome, self._handle, sample, audiogram)
        return [save_outcome(outcome)]

    def save_electrocardiogram(self, electrocardiogram: Electrocardiogram, start: datetime,
                               end: datetime | None = None, *, source: Source | None = None,
                               device: Device | None = None, metadata: Mapping[str, Any] | None = None,
                               uuid: uuid_module.UUID | None = None, creation_date: datetime | None = None,
                               utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves an electrocardiogram (HKElectrocardiogram, rule 41) in one
        transaction: an ``Electrocardiogram`` (its classification, symptoms
        status, average heart rate, sampling frequency and voltages in
        microvolts, which its constructor takes as any sequence or NumPy
        array), the first voltage at ``start``. The voltages go to the
        library in place, as the array's own memory. ``end`` defaults to
        ``start`` plus the recording's ``duration`` (its number of voltages
        over its frequency: 30 s for 15,360 voltages at 512 Hz). Returns
        ``[outcome]``; read back, it is an ``ElectrocardiogramSample``.
        InvalidValueError for an unknown classification, symptoms status
        or lead, voltages without a sampling frequency, a frequency that
        is not positive, a negative heart rate, NaN or infinite numbers
        (refused before the library), voltages that run past ``end``;
        InvalidDateRangeError for an ``end`` before ``start``."""
        if not isinstance(electrocardiogram, Electrocardiogram):
            raise ArgumentTypeError("electrocardiogram must be an Electrocardiogram, not "
                                    f"{type(electrocardiogram).__name__}")
        keep: list[Any] = []
        fields = electrocardiogram_to_c(electrocardiogram, keep)
        sample = self._own_input(ELECTROCARDIOGRAM, start, start if end is None else end, source, device,
                                 metadata, uuid, creation_date, utc_offset, keep)
        if end is None:
            sample.end = sample.start + electrocardiogram.duration
        outcome = n.ohk_save_outcome()
        n.lib.ohk_store_save_electrocardiogram(outcome, self._handle, sample, fields)
        return [save_outcome(outcome)]

    def save_clinical_record(self, clinical_type: str | SampleType, record: ClinicalRecord, start: datetime,
                             end: datetime | None = None, *, source: Source | None = None,
                             device: Device | None = None, metadata: Mapping[str, Any] | None = None,
                             uuid: uuid_module.UUID | None = None, creation_date: datetime | None = None,
                             utc_offset: timedelta | None = None) -> list[SaveOutcome]:
        """Saves a clinical record (HKClinicalRecord, rule 42) of a clinical
        type (``"ImmunizationRecord"`` or
        ``"HKClinicalTypeIdentifierImmunizationRecord"``; ``AllergyRecord``,
        ``ClinicalNoteRecord``, ``ConditionRecord``, ``CoverageRecord``,
        ``LabResultRecord``, ``MedicationRecord``, ``ProcedureRecord``,
        ``VitalSignRecord``) in one transaction: its display name and FHIR
        resource, whose JSON the store keeps byte for byte. ``end``
        defaults to ``start``. Returns ``[outcome]``; read back, it is a
        ``ClinicalRecordSample``. InvalidArgumentError for a type that is
        not a clinical one; InvalidValueError for a resource type HealthKit
        does not read ("Patient"), an empty display name, identifier or
        FHIR version, data that is not one JSON object (checked here
        first, for the message, and by the library)."""
        kind = self.sample_type(clinical_type)
        if not kind.is_clinical_record:
            raise InvalidArgumentError(f"{kind.identifier} is not a clinical type "
                                       "(HKClinicalTypeIdentifierImmunizationRecord...)")
        if not isinstance(record, ClinicalRecord):
            raise ArgumentTypeError(f"record must be a ClinicalRecord, not {type(record).__name__}")
        check_fhir_json(record.data)
        keep: list[Any] = []
        fields = clinical_record_to_c(record, keep)
        sample = self._own_input(kind, start, start if end is None else end, source, device, metadata, uuid,
                                 creation_date, utc_offset, keep)
        outcome = n.ohk_save_outcome()
        n.lib.ohk_store_save_clinical_record(outcome, self._handle, sample, fields)
        return [save_outcome(outcome)]

    def correlation_objects(self, correlation: CorrelationSample,
                            sample_type: str | SampleType | None = None) -> SampleList:
        """The live members of a correlation read from this store
        (HKCorrelation's ``objects``, or ``objects(for:)`` with
        ``sample_type``): one query of the member types the correlation's
        type holds, by the members' UUIDs."""
        if not isinstance(correlation, CorrelationSample):
            raise ArgumentTypeError(f"correlation must be a CorrelationSample, not {type(correlation).__name__}")
        types: list[str | SampleType] = ([sample_type] if sample_type is not None
                                         else list(correlation_member_types(correlation.sample_type)))
        return self.query(types, predicate=correlation.correlation.predicate()).samples

    def _fill_input(self, target: n.ohk_sample_input, sample: Sample,
                    sources: dict[Source, tuple[bytes, bytes, bytes | None]], keep: list[Any]) -> None:
        # The last two fields are there when the flags say so.
        record, context = cast(SampleRecord, sample._r), sample._c
        kind = sample.sample_type
        identifier = kind.identifier.encode("utf-8")
        target.type, target.start, target.end, target.value = identifier, record[1], record[2], record[3]
        if record[6] & n.SAMPLE_HAS_CREATION_DATE:
            target.has_creation_date, target.creation_date = True, record[8]
        if record[6] & n.SAMPLE_HAS_UTC_OFFSET:
            target.has_utc_offset, target.utc_offset = True, record[7]
        unit = getattr(context, "unit", None)
        target.unit = unit.encode("utf-8") if unit else None
        ctypes.memmove(target.uuid, record[0], 16)
        source = sample.source or self.default_source
        encoded = sources.get(source)
        if encoded is None:
            encoded = sources[source] = (n.encode(source.bundle_identifier, "bundle identifier"),
                                         n.encode(source.name, "source name"),
                                         None if source.version is None else n.encode(source.version, "version"))
        target.source.bundle_identifier, target.source.name, target.source.version = encoded
        device = sample.device
        if device is not None:
            c_device = n.ohk_device(*(None if value is None else n.encode(value, f"device {field}")
                                      for field, value in zip(n.DEVICE_FIELDS, astuple(device))))
            keep.append(c_device)
            target.device = ctypes.pointer(c_device)
        metadata = sample.metadata
        if metadata:
            arena = ValueArena()
            entries = (n.ohk_metadata_entry * len(metadata))()
            for slot, (key, value) in zip(entries, metadata.items()):
                slot.key = arena.text(key, "metadata key")
                arena.fill(slot.value, value, f"metadata {key!r}")
            keep.extend((arena, entries))
            target.metadata, target.metadata_count = entries, len(metadata)

    def delete(self, objects: Sample | uuid_module.UUID | str | Iterable[Sample | uuid_module.UUID | str]) -> int:
        """Deletes samples (or the samples with these UUIDs) in one
        transaction, all or nothing (rule 15): NotFoundError if one is
        unknown or deleted already; one listed twice is deleted once.
        Returns how many were deleted, as ``delete_matching`` does."""
        items = as_list(objects, "objects", (Sample, DeletedObject, uuid_module.UUID, str, bytes),
                        "a Sample or a UUID")
        unique = dict.fromkeys(o.uuid_bytes if isinstance(o, (Sample, DeletedObject)) else uuid_bytes(o)
                               for o in items)
        packed = b"".join(unique)
        n.lib.ohk_store_delete_uuids(self._handle, packed, len(unique))
        return len(unique)

    def apply(self, samples: Sample | Iterable[Sample] = (),
              deleted: Iterable[Sample | DeletedObject | uuid_module.UUID | str] = ()) -> ApplyResult:
        """Applies a receiver's batch in one transaction, all or nothing
        (rule 63): ``samples`` then the ``deleted`` UUIDs, as a phone's
        anchored query returned them. A sample stored already with the same
        content is skipped (other content: ``DuplicateUUIDError``); one whose
        UUID was deleted, here or by an earlier deletion of a UUID the store
        never held, is skipped too, and such a deletion is kept so that a
        late upload is skipped. Sending the same batch again changes nothing."""
        batch = as_list(samples, "samples", (Sample,), "a Sample")
        gone = as_list(deleted, "deleted", (Sample, DeletedObject, uuid_module.UUID, str, bytes),
                       "a Sample, a DeletedObject or a UUID")
        packed = b"".join(o.uuid_bytes if isinstance(o, (Sample, DeletedObject)) else uuid_bytes(o) for o in gone)
        keep: list[Any] = []
        inputs = self._sample_inputs(batch, keep)
        outcome = n.ohk_apply_outcome()
        n.lib.ohk_store_apply(ctypes.byref(outcome), self._handle, inputs, len(batch), packed, len(gone))
        return ApplyResult._from(outcome)

    def associate(self, workout: Sample | uuid_module.UUID | str,
                  samples: Sample | uuid_module.UUID | str | Iterable[Sample | uuid_module.UUID | str]) -> None:
        """Associates stored quantity or category samples with a stored
        workout (HealthKit's ``add(_:to:)``, rule 36), in one transaction,
        all or nothing; ``Predicate.workout(workout)`` finds them.
        ``add_to_workout`` also saves new ones. NotFoundError for a workout or sample the store does
        not hold live; InvalidArgumentError for a ``workout`` that is not a
        workout or a sample of another kind. Associating again changes nothing."""
        items = as_list(samples, "samples", (Sample, uuid_module.UUID, str, bytes), "a Sample or a UUID")
        packed = b"".join(o.uuid_bytes if isinstance(o, Sample) else uuid_bytes(o) for o in items)
        target = workout.uuid_bytes if isinstance(workout, Sample) else uuid_bytes(workout)
        n.lib.ohk_store_associate(self._handle, target, packed, len(packed) // 16)

    def delete_matching(self, sample_type: str | SampleType, predicate: Predicate | None = None) -> int:
        """Deletes every sample of the type that `predicate` matches (None:
        all) in one transaction; returns how many."""
        deleted = ctypes.c_uint64()
        n.lib.ohk_store_delete_matching(deleted, self._handle, type_identifier(sample_type),
                                        predicate_handle(predicate))
        return deleted.value


def _own_fields_error(batch: list[Sample]) -> InvalidArgumentError | None:
    """The error naming the call that saves the first workout, route,
    correlation or heartbeat series of `batch`, if it has one."""
    for index, sample in enumerate(batch):
        if isinstance(sample, OwnFieldsSample):
            return InvalidArgumentError(f"sample {index} is a {type(sample).__name__}: save it with "
                                        f"HealthStore.{sample._saved_by}")
    return None

