"""``HealthStore``'s writes: saves of every kind of sample, deletions, a
receiver's batches, and a workout's associated samples.

Every save goes through one path: ``save`` takes any sample, read from a
store or made in Python, and saves each with its kind's C call; the
``save_<kind>`` methods make a sample of their arguments (what every
sample has is checked in ``Sample._init``, one place for all kinds) and
take the same path."""

from __future__ import annotations

import ctypes
import uuid as uuid_module
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta
from typing import Any, NamedTuple, cast

from . import _native as n
from ._convert import as_list, make_uuid, unix_time, utc_datetime, uuid_bytes
from ._handles import predicate_handle
from ._marshal.heartbeats import heartbeat_series_end
from ._own_fields import OwnFieldsSample
from ._store_core import save_outcome, type_identifier, workout_uuid
from ._store_queries import Queries
from .audiogram import AUDIOGRAM, Audiogram, AudiogramSample, SensitivityPoint
from .batch import SampleList
from .catalogue import SampleType
from .clinical import ClinicalRecord, ClinicalRecordSample
from .correlation import Correlation, CorrelationSample, correlation_member_types
from .electrocardiogram import ELECTROCARDIOGRAM, Electrocardiogram, ElectrocardiogramSample
from .errors import ArgumentTypeError, InvalidArgumentError, InvalidValueError, NotFoundError
from .heartbeat import HEARTBEAT_SERIES, HeartbeatSeries, HeartbeatSeriesSample, HeartbeatsLike, pack_heartbeats
from .predicate import Predicate
from .receiving import ApplyResult
from .route import EPOCH, ROUTE, LocationsLike, Route, WorkoutRouteSample, pack_locations
from .samples import CategorySample, DeletedObject, Device, QuantitySample, Sample, SaveOutcome, Source
from .workout import WORKOUT, Workout, WorkoutSample


class _OwnSave(NamedTuple):
    """One sample with fields of its own, ready for its C call: the
    function, the sample's input, the arguments after it, the number of
    outcomes it gives, and for a correlation the index of each member in
    the save (None for one found in the store)."""
    function: Any
    sample: n.ohk_sample_input
    arguments: tuple[Any, ...]
    outcomes: int
    members: tuple[int | None, ...] = ()


class Saving(Queries):
    """The writes of a store (see ``HealthStore``)."""

    def save(self, samples: Sample | Iterable[Sample]) -> list[SaveOutcome]:
        """Saves samples, durable when it returns (rule 13,
        docs/semantics.md), and returns what happened to each, in order.

        Any sample saves: one made in Python, or one read from a store
        (this one or another), of any kind. Quantity and category samples
        are saved in one transaction, all or nothing. A sample with fields
        of its own (a workout, route, correlation, heartbeat series,
        audiogram, electrocardiogram or clinical record) is saved by its
        kind's call, in a transaction of its own, after them: workouts
        first (a route names its workout), then the others in order. A
        correlation's members are found in the same save, and saved in
        its transaction, or in the store (NotFoundError otherwise). Every
        sample is checked before the first write."""
        batch = as_list(samples, "samples", (Sample,), "a Sample")
        keep: list[Any] = []
        own = [index for index, sample in enumerate(batch) if isinstance(sample, OwnFieldsSample)]
        if not own:  # quantity and category samples: one call
            inputs = self._sample_inputs(batch, keep)
            done = (n.ohk_save_outcome * max(len(batch), 1))()
            n.lib.ohk_store_save(done, self._handle, inputs, len(batch))
            return [save_outcome(done[i]) for i in range(len(batch))]
        for index, sample in enumerate(batch):
            if not isinstance(sample, Sample):
                raise ArgumentTypeError(f"sample {index} is a {type(sample).__name__}, not a Sample")
        # Every sample's C form before the first write: a sample refused here saves nothing.
        prepared = {i: self._own_save(cast(OwnFieldsSample, batch[i]), batch, keep) for i in own}
        with_correlation = {j for save in prepared.values() for j in save.members if j is not None}
        plain = [i for i in range(len(batch)) if i not in prepared and i not in with_correlation]
        inputs = self._sample_inputs([batch[i] for i in plain], keep)
        outcomes: dict[int, SaveOutcome] = {}
        if plain:
            done = (n.ohk_save_outcome * len(plain))()
            n.lib.ohk_store_save(done, self._handle, inputs, len(plain))
            outcomes.update((i, save_outcome(done[k])) for k, i in enumerate(plain))
        for i in sorted(own, key=lambda i: not isinstance(batch[i], WorkoutSample)):
            *members, outcomes[i] = self._run(prepared[i])  # a correlation's members' outcomes first
            outcomes.update((j, outcome) for j, outcome in zip(prepared[i].members, members) if j is not None)
        return [outcomes[i] for i in range(len(batch))]

    def _own_save(self, sample: OwnFieldsSample, batch: list[Sample], keep: list[Any]) -> _OwnSave:
        """`sample` in C form for its kind's call; a correlation's members
        are found in `batch` or in the store."""
        call = sample._save_call(keep)
        target = n.ohk_sample_input()
        sample._fill_input(target, self.default_source, {}, keep)
        function = getattr(n.lib, call.function)
        if call.members is None:
            return _OwnSave(function, target, call.arguments, 1)
        members, indexes = self._members(sample, call.members, batch)
        return _OwnSave(function, target, (self._sample_inputs(members, keep), len(members)), len(members) + 1,
                        indexes)

    def _run(self, save: _OwnSave) -> list[SaveOutcome]:
        outcomes = (n.ohk_save_outcome * save.outcomes)()
        save.function(outcomes, self._handle, save.sample, *save.arguments)
        return [save_outcome(outcome) for outcome in outcomes]

    def _save_made(self, sample: OwnFieldsSample) -> list[SaveOutcome]:
        """Saves a sample a ``save_<kind>`` method made; every outcome of
        its call (a correlation's members', then its own)."""
        keep: list[Any] = []
        return self._run(self._own_save(sample, [], keep))

    def _members(self, correlation: Sample, members: tuple[Sample | uuid_module.UUID, ...],
                 batch: list[Sample]) -> tuple[list[Sample], tuple[int | None, ...]]:
        """A correlation's members as samples, in order, and the index in
        `batch` of each that is in it: those given as samples, then by
        UUID those of the same save, then the store's."""
        in_save = {sample.uuid_bytes: index for index, sample in enumerate(batch)}
        found: dict[bytes, Sample] = {}
        wanted = [m for m in members if not isinstance(m, Sample) and m.bytes not in in_save]
        if wanted:
            types: list[str | SampleType] = list(correlation_member_types(correlation.sample_type))
            found = {s.uuid_bytes: s for s in self.query(types, predicate=Predicate.uuids(wanted)).samples}
        missing = [str(m) for m in wanted if m.bytes not in found]
        if missing:
            raise NotFoundError(f"correlation {correlation.uuid}: member {', '.join(missing)} is neither in this "
                                "store nor in this save; save the members first, or in the same call")
        keys = [m.uuid_bytes if isinstance(m, Sample) else m.bytes for m in members]
        samples = [m if isinstance(m, Sample) else batch[in_save[m.bytes]] if m.bytes in in_save else found[m.bytes]
                   for m in members]
        return samples, tuple(in_save.get(key) for key in keys)

    def _sample_inputs(self, batch: list[Sample], keep: list[Any]) -> Any:
        """``batch`` as the ohk_sample_input array that save and apply pass;
        `keep` holds what the array points at until the call returns."""
        inputs = (n.ohk_sample_input * max(len(batch), 1))()
        sources: dict[Source, Any] = {}
        for index, sample in enumerate(batch):
            if not isinstance(sample, Sample):
                raise ArgumentTypeError(f"sample {index} is a {type(sample).__name__}, not a Sample")
            sample._fill_input(inputs[index], self.default_source, sources, keep)
        return inputs

    def _inputs(self, samples: Sample | Iterable[Sample], what: str,
                keep: list[Any]) -> tuple[list[Sample], Any]:
        """Quantity and category samples as an ohk_sample_input array."""
        batch = as_list(samples, what, (Sample,), "a Sample")
        inputs = (n.ohk_sample_input * max(len(batch), 1))()
        sources: dict[Source, Any] = {}
        for index, sample in enumerate(batch):
            if not isinstance(sample, (QuantitySample, CategorySample)):
                raise ArgumentTypeError(f"{what}[{index}] is a {type(sample).__name__}, not a QuantitySample or "
                                        "CategorySample")
            sample._fill_input(inputs[index], self.default_source, sources, keep)
        return batch, inputs

    # ---- the kinds with fields of their own: a sample of the arguments, saved as save saves it

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
        return self._save_made(WorkoutSample._made(self.sample_type(WORKOUT), start, end, workout,
                                                   source=source, device=device, metadata=metadata, uuid=uuid,
                                                   creation_date=creation_date, utc_offset=utc_offset))

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
        target = None if workout is None else make_uuid(workout_uuid(workout))
        route = Route(target, pack_locations(locations))
        # The library takes the route's interval from its locations: start and end are not read.
        return self._save_made(WorkoutRouteSample._made(self.sample_type(ROUTE), EPOCH, EPOCH, route,
                                                        source=source, device=device, metadata=metadata, uuid=uuid,
                                                        creation_date=creation_date, utc_offset=utc_offset))

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
        batch = as_list(members, "members", (Sample,), "a Sample")
        for index, member in enumerate(batch):
            if not isinstance(member, (QuantitySample, CategorySample)):
                raise ArgumentTypeError(f"members[{index}] is a {type(member).__name__}, not a QuantitySample or "
                                        "CategorySample")
        if not batch:
            raise InvalidValueError(f"a {kind.identifier} correlation needs at least one member")
        first = min(sample.start_timestamp for sample in batch)
        last = max(sample.end_timestamp for sample in batch)
        made = CorrelationSample._made(kind, start if start is not None else utc_datetime(first),
                                       end if end is not None else utc_datetime(last),
                                       Correlation([sample.uuid for sample in batch]), members=batch,
                                       source=source, device=device, metadata=metadata, uuid=uuid,
                                       creation_date=creation_date, utc_offset=utc_offset)
        return self._save_made(made)

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
        # HealthKit's builder ends a series at its last beat: the end a float, nudged to hold that beat.
        last_beat = heartbeat_series_end(unix_time(start, "start"), data) if end is None else None
        return self._save_made(HeartbeatSeriesSample._made(
            self.sample_type(HEARTBEAT_SERIES), start, start if end is None else end, HeartbeatSeries(data),
            end_seconds=last_beat, source=source, device=device, metadata=metadata, uuid=uuid,
            creation_date=creation_date, utc_offset=utc_offset))

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
        for i, row in enumerate(rows):
            if not 3 <= len(row) <= 7:
                raise InvalidArgumentError(f"points[{i}]: (frequency, left, right[, left masked, right masked"
                                           "[, left clamping, right clamping]])")
        # Checked where C would misread them (levels, ranges) when the sample is saved.
        audiogram = Audiogram(tuple(SensitivityPoint(*row, *([None] * (7 - len(row)))) for row in rows))
        return self._save_made(AudiogramSample._made(self.sample_type(AUDIOGRAM), start,
                                                     start if end is None else end, audiogram,
                                                     source=source, device=device, metadata=metadata, uuid=uuid,
                                                     creation_date=creation_date, utc_offset=utc_offset))

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
        recorded = unix_time(start, "start") + electrocardiogram.duration if end is None else None
        return self._save_made(ElectrocardiogramSample._made(
            self.sample_type(ELECTROCARDIOGRAM), start, start if end is None else end, electrocardiogram,
            end_seconds=recorded, source=source, device=device, metadata=metadata, uuid=uuid,
            creation_date=creation_date, utc_offset=utc_offset))

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
        return self._save_made(ClinicalRecordSample._made(kind, start, start if end is None else end, record,
                                                          source=source, device=device, metadata=metadata, uuid=uuid,
                                                          creation_date=creation_date, utc_offset=utc_offset))

    # ---- reading a correlation's members, deleting, applying, associating

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
