"""openhealthkit.import_export: the importer of `ohk import`, from Python."""

from __future__ import annotations

import shutil
import zipfile
from datetime import timedelta
from pathlib import Path

import pytest

import openhealthkit as ohk

FIXTURES = Path(__file__).resolve().parents[3] / "Tests" / "Fixtures"
EXPORT_B = FIXTURES / "export-small-b.xml"
BODY_MASS = "HKQuantityTypeIdentifierBodyMass"


def test_import_reports_every_kind_and_keeps_creation_dates(store):
    """The fixture's own counts (read with ElementTree): 37 records, one of
    an unknown type, 5 workouts."""
    seen: list[ohk.ImportProgress] = []
    report = store_import(store, EXPORT_B, progress=seen.append)
    assert (report.records, report.added, report.skipped, report.failure) == (37, 36, 1, None)
    rows = {row.kind: row for row in report.contents}
    assert rows["Record"].count == 37
    assert rows["Workout"].count == 5 and rows["Workout"].imported == 5 and "events" in rows["Workout"].note
    assert rows["WorkoutRoute"].count == 2 and "2 without their file" in rows["WorkoutRoute"].note  # no GPX beside it
    # Workouts read as their duration in seconds (rule 31): the long walk is 204.68 min.
    workouts = store.query("HKWorkoutTypeIdentifier").samples
    assert len(workouts) == 5 and sorted(w.value for w in workouts)[-1] == pytest.approx(204.681023834149 * 60)
    assert ohk.sample_type("HKWorkoutTypeIdentifier").is_workout
    assert [s.first_line for s in report.skips] == [217] and "unknown type" in report.skips[0].reason
    assert seen and seen[-1].records == 37 and seen[-1].bytes_read == seen[-1].bytes_total > 0
    masses = store.query(BODY_MASS).samples
    assert len(masses) == 7
    assert all(m.creation_date is not None and m.utc_offset == timedelta(hours=-8) for m in masses)  # rule 24
    again = store_import(store, EXPORT_B)
    assert (again.added, again.already_stored) == (0, 36)


def test_a_zipped_export_under_another_name_imports_like_its_xml(store, tmp_path):
    archive = tmp_path / "health.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.write(EXPORT_B, "apple_health_export/Export.xml")
    report = store_import(store, archive)
    assert report.added == 36 and report.export_xml == "apple_health_export/Export.xml"


def test_progress_returning_false_stops_and_a_rerun_completes(store):
    with pytest.raises(ohk.CancelledByCallerError) as stopped:
        store_import(store, EXPORT_B, progress=lambda p: False)
    first = stopped.value.report.added
    assert "stopped" in stopped.value.report.failure
    rest = store_import(store, EXPORT_B)
    assert first + rest.added == 36 and rest.already_stored == first


def test_an_exception_in_progress_stops_the_import_and_is_raised(store):
    def interrupt(progress):
        raise KeyboardInterrupt
    with pytest.raises(KeyboardInterrupt):
        store_import(store, EXPORT_B, progress=interrupt)


def test_bad_input_is_a_specific_error(store, tmp_path):
    with pytest.raises(ohk.ImportInputError):
        store_import(store, tmp_path / "missing.zip")
    not_export = tmp_path / "notes.xml"
    not_export.write_text("<?xml version='1.0'?><notes/>")
    with pytest.raises(ohk.ImportInputError, match="HealthData|export"):
        store_import(store, not_export)
    cut = tmp_path / "cut.xml"
    cut.write_bytes(EXPORT_B.read_bytes()[:16000])
    with pytest.raises(ohk.ImportDamagedError, match="ends early") as damaged:
        store_import(store, cut)
    assert 0 < damaged.value.report.added < 36
    with pytest.raises(TypeError):
        ohk.import_export(EXPORT_B, "not a store")


def test_an_unzipped_folder_and_a_home_relative_path(store, tmp_path, monkeypatch):
    folder = tmp_path / "apple_health_export"
    folder.mkdir()
    shutil.copy(EXPORT_B, folder / "export.xml")
    monkeypatch.setenv("HOME", str(tmp_path))
    report = ohk.import_export("~/apple_health_export", store)
    assert report.added == 36


def store_import(store, path, **kwargs) -> ohk.ImportReport:
    return ohk.import_export(path, store, **kwargs)


def test_rule_36_samples_associated_with_an_imported_workout(store):
    from conftest import heart
    store_import(store, EXPORT_B)
    first, second = list(store.query("Workout").samples)[:2]
    beats = [heart(i, 120 + i) for i in range(4)]
    store.save(beats)
    store.associate(first, beats[:3])
    store.associate(first.uuid, beats[0])  # again: no change
    store.associate(second, [str(beats[3].uuid)])
    mine = store.query("HeartRate", predicate=ohk.Predicate.workout(first)).samples
    assert sorted(s.uuid for s in mine) == sorted(b.uuid for b in beats[:3])
    theirs = store.query("HeartRate", predicate=ohk.Predicate.workout(second.uuid) & ohk.Predicate("quantity > 100 count/min"))
    assert [s.uuid for s in theirs.samples] == [beats[3].uuid]
    # A heart rate is not a workout; an unknown sample fails the whole call.
    with pytest.raises(ohk.InvalidArgumentError):
        store.associate(beats[0], beats[1])
    with pytest.raises(ohk.NotFoundError):
        store.associate(second, [beats[0], heart(9)])
    assert len(store.query("HeartRate", predicate=ohk.Predicate.workout(second)).samples) == 1
    # Workout predicates in text (rule 35).
    walks = store.query("Workout", predicate=ohk.Predicate("workoutType == $1", "Walking")).samples
    assert walks and all(w.sample_type.short_name == "Workout" for w in walks)
