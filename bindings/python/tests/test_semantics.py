"""The semantic rules of docs/semantics.md, seen from Python (each test names its rule)."""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta, timezone

import pytest

import openhealthkit as ohk
from conftest import HEART, SLEEP, STEPS, T0, Inbox, heart, steps


def uuids(objects) -> set[uuid.UUID]:
    return {o.uuid for o in objects}


def test_rule_1_anchor_is_opaque_bytes_with_base64_text_and_total_order(store):
    store.save(steps(0))
    first = store.current_anchor()
    store.save(steps(1))
    second = store.current_anchor()
    assert first < second and second > first and first != second
    assert ohk.Anchor.from_bytes(bytes(second)) == second
    assert ohk.Anchor.from_str(str(second)) == second
    assert str(second) == __import__("base64").b64encode(bytes(second)).decode()
    assert ohk.Anchor.NONE < first and not ohk.Anchor.NONE


def test_rule_2_no_anchor_is_absence_and_empty_anchors_are_truncated(store):
    """NONE has no bytes or text to persist (absence is kept as absence:
    None); empty bytes or text read back as a truncated anchor, never as a
    silent full result."""
    store.save(steps(0))
    with pytest.raises(ohk.InvalidArgumentError, match="no anchor"):
        bytes(ohk.Anchor.NONE)
    with pytest.raises(ohk.InvalidArgumentError, match="no anchor"):
        str(ohk.Anchor.NONE)
    with pytest.raises(ohk.AnchorCorruptError, match="empty"):
        ohk.Anchor.from_str("")
    with pytest.raises(ohk.AnchorCorruptError, match="empty"):
        ohk.Anchor.from_bytes(b"")
    with pytest.raises(ohk.AnchorCorruptError):
        store.query(STEPS, "")
    with pytest.raises(ohk.AnchorCorruptError):
        store.query(STEPS, b"")
    assert len(store.query(STEPS, None).samples) == 1
    assert repr(ohk.Anchor.NONE) == "Anchor.NONE"


def test_rule_2_bad_anchors_raise_errors_that_say_which(store, tmp_path):
    store.save(steps(0))
    anchor = store.current_anchor()
    with ohk.HealthStore(tmp_path / "other", durable=False) as other:
        other.save(steps(0))
        with pytest.raises(ohk.AnchorWrongStoreError):
            other.query(STEPS, anchor)
        with pytest.raises(ohk.AnchorWrongStoreError):
            _ = anchor < other.current_anchor()
    with pytest.raises(ohk.AnchorCorruptError):
        ohk.Anchor.from_bytes(bytes(anchor)[:-3])
    with pytest.raises(ohk.AnchorCorruptError):
        ohk.Anchor.from_str("not an anchor")
    with pytest.raises(ohk.AnchorFromFutureError):
        store.query(STEPS, ohk.Anchor.from_value(10_000))


def test_rule_3_nil_anchor_returns_live_samples_and_retained_deletions_and_legacy_anchors(store):
    saved = [steps(i) for i in range(3)]
    store.save(saved)
    store.delete(saved[0])
    result = store.query(STEPS)
    assert uuids(result.samples) == uuids(saved[1:]) and uuids(result.deleted) == {saved[0].uuid}
    assert ohk.Anchor.from_value(0) == ohk.Anchor.NONE
    from_two = store.query(STEPS, ohk.Anchor.from_value(2))
    assert uuids(from_two.samples) == {saved[2].uuid}


def test_rule_4_anchor_returns_changes_after_it_and_saved_then_deleted_as_deletion_only(store):
    store.save(steps(0))
    _, _, anchor = store.query(STEPS)
    later = steps(1)
    kept = steps(2)
    store.save([later, kept])
    store.delete(later)
    samples, deleted, _ = store.query(STEPS, anchor)
    assert uuids(samples) == {kept.uuid}
    assert uuids(deleted) == {later.uuid}


def test_rule_5_batches_from_nil_yield_each_change_once_in_store_order(store):
    saved = [steps(i) for i in range(25)]
    store.save(saved)
    seen = []
    for result in store.batches(STEPS, batch_size=7):
        assert len(result.samples) + len(result.deleted) <= 7
        seen.extend(s.uuid for s in result.samples)
        if len(seen) == 14:  # a write in the middle comes later, once
            store.save(steps(100))
    assert seen[:25] == [s.uuid for s in saved] and len(seen) == 26 and len(set(seen)) == 26
    head = store.query(STEPS).anchor
    nothing = store.query(HEART, head)  # nothing matched: the anchor is the head
    assert not nothing and nothing.anchor == head == store.current_anchor()


def test_rule_75_query_parts_hand_on_one_query_in_parts_of_4096(store):
    store.save([steps(i) for i in range(5000)])
    gone = store.query(STEPS, limit=30).samples
    store.delete(list(gone))
    whole = store.query(STEPS)
    parts = []
    anchor = store.query_parts(STEPS, parts.append)
    assert [len(p.samples) + len(p.deleted) for p in parts] == [4096, 5000 - 4096]
    assert [s.uuid for p in parts for s in p.samples] == [s.uuid for s in whole.samples]
    assert [d.uuid for p in parts for d in p.deleted] == [d.uuid for d in whole.deleted]
    assert anchor == parts[-1].anchor == whole.anchor
    # The first part's anchor is where a query of 4,096 ends.
    assert parts[0].anchor == store.query(STEPS, limit=4096).anchor


def test_rule_75_query_parts_stop_when_asked_and_raise_what_the_callback_raised(store):
    store.save([steps(i) for i in range(5000)])
    got = []
    anchor = store.query_parts(STEPS, lambda part: got.append(part) or False)
    assert len(got) == 1 and anchor == got[0].anchor
    rest = store.query(STEPS, anchor)
    assert len(rest.samples) == 5000 - 4096

    def fail(part):
        raise KeyError("stop here")

    with pytest.raises(KeyError, match="stop here"):
        store.query_parts(STEPS, fail)


def test_rule_6_several_descriptors_share_one_anchor(store):
    store.save([steps(0, 50), heart(1, 70), steps(2, 5)])
    big = ohk.Predicate.quantity(">", 10, "count")
    result = store.query([ohk.QueryDescriptor(STEPS, big), ohk.QueryDescriptor(HEART)])
    assert sorted(round(s.value_in("count/min")) if s.sample_type.identifier == HEART else s.value
                  for s in result.samples) == [50, 70]


def test_rule_7_limit_counts_samples_and_deleted_objects_together(store):
    saved = [steps(i) for i in range(4)]
    store.save(saved)
    _, _, anchor = store.query(STEPS)
    store.delete(saved[:2])
    store.save(steps(10))
    first = store.query(STEPS, anchor, limit=2)
    assert len(first.samples) + len(first.deleted) == 2 and len(first.deleted) == 2
    rest = store.query(STEPS, first.anchor, limit=0)
    assert len(rest.samples) == 1 and len(rest.deleted) == 0


def test_rule_8_predicate_judges_deleted_objects_in_three_valued_logic(store):
    small = steps(0, 50, metadata={"HKMetadataKeySyncIdentifier": "a", "HKMetadataKeySyncVersion": 1})
    store.save(small)
    _, _, anchor = store.query(STEPS)
    store.delete(small)
    not_big = ~ohk.Predicate.quantity(">", 100, "count")
    deleted = store.query(STEPS, anchor, predicate=not_big).deleted
    assert uuids(deleted) == {small.uuid}
    gone = deleted[0]
    assert gone.sync_identifier == "a" and gone.sync_version == 1
    assert gone.metadata == {"HKMetadataKeySyncIdentifier": "a", "HKMetadataKeySyncVersion": 1}
    assert gone.start_date == small.start_date and gone.source == ohk.DEFAULT_SOURCE


def test_rule_8b_strict_dates_are_the_half_open_interval_of_hkquery_h(store):
    """HKQuery.h: with strict_end the sample's end falls in [s, e), with
    strict_start its start; both options, both. Samples are one minute
    long; s = T0 + 10 min, e = T0 + 20 min; deleted objects alike."""
    by_minute = {i: steps(i) for i in (9, 10, 15, 19, 20)}
    store.save(list(by_minute.values()))
    _, _, after_saves = store.query(STEPS)
    s, e = T0 + timedelta(minutes=10), T0 + timedelta(minutes=20)
    expected = {
        (False, True): {9, 10, 15},       # ends at s: in; ends at e: out
        (True, False): {10, 15, 19},      # starts at s: in; starts at e: out
        (True, True): {10, 15},
        (False, False): {9, 10, 15, 19},  # overlap; starting at e: out
    }

    def minutes(objects):
        return {i for i, x in by_minute.items() if x.uuid in uuids(objects)}

    for (strict_start, strict_end), wanted in expected.items():
        p = ohk.Predicate.date_range(s, e, strict_start=strict_start, strict_end=strict_end)
        assert minutes(store.query(STEPS, predicate=p).samples) == wanted
        assert minutes(store.query(STEPS, predicate=~p).samples) == set(by_minute) - wanted
    open_start = ohk.Predicate.date_range(None, e, strict_end=True)
    assert minutes(store.query(STEPS, predicate=open_start).samples) == {9, 10, 15}
    store.delete(list(by_minute.values()))
    for (strict_start, strict_end), wanted in expected.items():
        p = ohk.Predicate.date_range(s, e, strict_start=strict_start, strict_end=strict_end)
        assert minutes(store.query(STEPS, after_saves, predicate=p).deleted) == wanted
        assert minutes(store.query(STEPS, after_saves, predicate=~p).deleted) == set(by_minute) - wanted


def test_rule_13_save_is_all_or_nothing_and_rejects_bad_samples(store):
    good = steps(0)
    with pytest.raises(ohk.InvalidDateRangeError):
        store.save([good, ohk.QuantitySample(STEPS, T0, T0 - timedelta(seconds=1), 1)])
    with pytest.raises(ohk.IncompatibleUnitError):
        store.save([good, ohk.QuantitySample(STEPS, T0, T0, 1, "kg")])
    assert len(store.query(STEPS).samples) == 0
    store.save(good)
    with pytest.raises(ohk.DuplicateUUIDError):
        store.save(ohk.QuantitySample(STEPS, T0, T0, 1, uuid=good.uuid))
    instant = ohk.QuantitySample(STEPS, T0, T0, 1)
    store.save(instant)  # start == end is an instant
    assert store.query(STEPS).samples[-1].start_date == store.query(STEPS).samples[-1].end_date


def test_rule_14_sync_identifier_versions_replace_or_are_kept(store):
    def versioned(version, value):
        return steps(0, value, metadata={"HKMetadataKeySyncIdentifier": "s", "HKMetadataKeySyncVersion": version})
    first = versioned(1, 10)
    store.save(first)
    _, _, anchor = store.query(STEPS)
    newer = versioned(2, 20)
    [outcome] = store.save(newer)
    assert outcome.result is ohk.SaveResult.REPLACED and outcome.other_uuid == first.uuid
    [kept] = store.save(versioned(2, 30))
    assert kept.result is ohk.SaveResult.KEPT_EXISTING and kept.other_uuid == newer.uuid
    samples, deleted, _ = store.query(STEPS, anchor)
    assert uuids(samples) == {newer.uuid} and uuids(deleted) == {first.uuid}
    with pytest.raises(ohk.InvalidMetadataError):
        store.save(steps(1, metadata={"HKMetadataKeySyncIdentifier": "lonely"}))


def test_rule_15_delete_by_object_uuid_and_predicate_all_or_nothing(store):
    saved = [steps(i, value=i) for i in range(6)]
    store.save(saved)
    store.delete(saved[0])
    store.delete([saved[1].uuid, str(saved[2].uuid)])
    with pytest.raises(ohk.NotFoundError):
        store.delete([saved[3], saved[0]])  # saved[0] is gone: nothing is deleted
    assert len(store.query(STEPS).samples) == 3
    assert store.delete_matching(STEPS, ohk.Predicate("quantity >= $1", ohk.Quantity(4, "count"))) == 2
    assert [s.value for s in store.query(STEPS).samples] == [3]


def test_rule_16_prune_expires_older_anchors_and_nil_reads_complete(tmp_path):
    with ohk.HealthStore(tmp_path / "s", durable=False, tombstone_retention=timedelta.max) as store:
        saved = [steps(i) for i in range(3)]
        store.save(saved)
        old = store.current_anchor()
        store.delete(saved[0])
        assert store.prune(datetime.now(timezone.utc) + timedelta(minutes=1)) == 1
        with pytest.raises(ohk.AnchorExpiredError):
            store.query(STEPS, old)
        assert sum(len(r.samples) for r in store.batches(STEPS, batch_size=1)) == 2
        store.delete(saved[1])
        assert store.prune_all() == 1


def test_rule_17_bad_input_gets_a_specific_error_and_writes_nothing(store):
    with pytest.raises(ohk.UnknownTypeError):
        store.query("HKQuantityTypeIdentifierNoSuchThing")
    with pytest.raises(ohk.InvalidUnitError):
        ohk.QuantitySample(STEPS, T0, T0, 1, "furlongs/").value_in("count")
    with pytest.raises(ohk.InvalidValueError):
        ohk.QuantitySample(STEPS, T0, T0, float("nan"))
    with pytest.raises(ohk.InvalidPredicateError, match="position|column|at"):
        ohk.Predicate("startDate >>= $1", T0)
    with pytest.raises(ohk.InvalidValueError):
        store.save(ohk.CategorySample(SLEEP, T0, T0, 999))
    assert not store.query([STEPS, SLEEP])


def test_rule_24_creation_date_and_utc_offset_are_kept_as_given(store, tmp_path):
    created = T0 - timedelta(hours=1)
    pacific = timedelta(hours=-8)
    both = steps(0, metadata={"note": "x"}, creation_date=created, utc_offset=pacific)
    plain = steps(1)
    sleep = ohk.CategorySample(SLEEP, T0, T0 + timedelta(hours=1), 0, utc_offset=timedelta(0))
    assert both.creation_date == created and both.utc_offset == pacific
    store.save([both, plain, sleep])
    read = {s.uuid: s for s in store.query([STEPS, SLEEP]).samples}
    got = read[both.uuid]
    assert got.creation_date == created and got.utc_offset == pacific
    assert got.metadata == {"note": "x"}  # the metadata after the optional fields reads whole
    assert got.local_start_date.isoformat() == "2024-03-01T00:00:00-08:00"
    assert read[plain.uuid].creation_date is None and read[plain.uuid].utc_offset is None
    assert read[plain.uuid].local_start_date is None
    assert read[sleep.uuid].utc_offset == timedelta(0) and read[sleep.uuid].creation_date is None
    # A sample read back and saved into another store keeps both.
    with ohk.HealthStore(tmp_path / "copy", durable=False) as other:
        other.save(got)
        [again] = other.query(STEPS).samples
        assert again.creation_date == created and again.utc_offset == pacific
    with pytest.raises(ohk.InvalidArgumentError, match="18 hours"):
        steps(2, utc_offset=timedelta(hours=18, seconds=1))
    with pytest.raises(ohk.InvalidArgumentError, match="naive"):
        steps(2, creation_date=datetime(2024, 1, 1))
    with pytest.raises(TypeError):
        steps(2, utc_offset=3600)


def test_rule_63_apply_a_receivers_batch(store):
    stored = steps(0)
    store.save(stored)
    late = steps(5)
    early = store.apply(deleted=[late.uuid])
    assert early.deleted_before_arrival == 1
    batch = [steps(1), steps(2), late]
    first = store.apply(batch, deleted=[stored])
    assert (first.added, first.deleted_before, first.deleted) == (2, 1, 1)
    assert first.anchor == store.current_anchor()
    again = store.apply(batch, deleted=[stored])
    assert (again.added, again.already_stored, again.deleted_before, again.already_deleted) == (0, 2, 1, 1)
    # A sample read back is the same content; other content under its UUID fails the whole batch.
    read_back = list(store.query(STEPS).samples)
    assert store.apply(read_back).already_stored == 2
    changed = ohk.QuantitySample(STEPS, batch[0].start_date, batch[0].end_date, 999, uuid=batch[0].uuid)
    with pytest.raises(ohk.DuplicateUUIDError, match=str(batch[0].uuid).upper()):
        store.apply([steps(9), changed])
    assert len(store.query(STEPS).samples) == 2  # steps(9) not saved: all or nothing
    with pytest.raises(ohk.InvalidArgumentError, match="twice"):
        store.apply([batch[1], batch[1]])


def test_rule_64_a_read_only_store_reads_follows_and_refuses_writes(tmp_path):
    """Read-only: reads and live queries as any handle, every write raises
    ReadOnlyError (a PermissionError), and nothing is created."""
    path = tmp_path / "s"
    with ohk.HealthStore(path, durable=False) as writer:
        writer.save([steps(0), steps(1)])
        with ohk.HealthStore(path, read_only=True) as reader:
            assert uuids(reader.query(STEPS).samples) == uuids(writer.query(STEPS).samples)
            for write in (lambda: reader.save(steps(2)), lambda: reader.delete(reader.query(STEPS).samples[0]),
                          lambda: reader.apply(deleted=[uuid.uuid4()]), lambda: reader.prune_all()):
                with pytest.raises(ohk.ReadOnlyError, match="read-only"):
                    write()
            with pytest.raises(PermissionError):
                reader.save(steps(3))
            inbox = Inbox()
            with reader.observe(STEPS, inbox.put):
                writer.save(steps(4))
                assert inbox.wait(1) == [frozenset({STEPS})]
    with pytest.raises(ohk.StorageError, match="does not create"):
        ohk.HealthStore(tmp_path / "missing", read_only=True)
    assert not (tmp_path / "missing").exists()
