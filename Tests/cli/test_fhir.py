"""`ohk export --format fhir`: every resource it writes is checked by a
real FHIR validator, the `fhir.resources` package's R4B models (R4's
structures; fhir.resources 7 and later carry no plain R4), and the
mapping's codes, units and shapes are checked against their sources
(rule 73; docs/fhir.md)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from datetime import datetime, timedelta, timezone

import pytest
from fhir.resources.R4B import get_fhir_model_class

from conftest import FIXTURES, OHK, ROOT, WAIT, environment, ohk

sys.path.insert(0, str(ROOT / "bindings" / "python"))
import openhealthkit as hk  # noqa: E402 - this checkout's package, for samples the fixtures lack

T0 = datetime(2024, 3, 1, 8, 0, tzinfo=timezone.utc)
IMMUNIZATION_R4 = {"resourceType": "Immunization", "id": "imm-1", "status": "completed",
                   "vaccineCode": {"text": "Influenza"}, "patient": {"reference": "Patient/p1"},
                   "occurrenceDateTime": "2020-10-01"}


def read_folder(folder) -> dict[str, list[dict]]:
    """Every resource of the folder, validated, by file."""
    found = {}
    for path in sorted(folder.glob("*.ndjson")):
        resources = []
        for number, line in enumerate(path.read_text().splitlines(), 1):
            resource = json.loads(line)
            assert path.stem == resource["resourceType"], f"{path.name}:{number} holds a {resource['resourceType']}"
            get_fhir_model_class(resource["resourceType"]).model_validate_json(line)  # raises on an invalid resource
            resources.append(resource)
        found[path.stem] = resources
    return found


@pytest.fixture
def rich_store(store):
    """The fixtures' samples, and one of each kind they lack."""
    with hk.HealthStore(store) as s:
        s.save([hk.QuantitySample("OxygenSaturation", T0, T0, 0.97, "%"),
                hk.CategorySample("SleepAnalysis", T0, T0 + timedelta(hours=1), 4)])
        s.save_correlation("BloodPressure", [hk.QuantitySample("BloodPressureSystolic", T0, T0, 121, "mmHg"),
                                             hk.QuantitySample("BloodPressureDiastolic", T0, T0, 79, "mmHg")])
        s.save_electrocardiogram(hk.Electrocardiogram(hk.ECGClassification.SINUS_RHYTHM, sampling_frequency=512.0,
                                                      average_heart_rate=71, voltages=[0.5 * k for k in range(512 * 25)]),
                                 T0)
        s.save_clinical_record("ImmunizationRecord", hk.ClinicalRecord.from_resource("Influenza", IMMUNIZATION_R4,
                                                                                     "4.0.1"), T0)
        s.save_clinical_record("ProcedureRecord", hk.ClinicalRecord(
            "Appendectomy", "Procedure", "proc-1", "1.0.2", None,
            b'{"resourceType": "Procedure", "id": "proc-1", "status": "completed"}'), T0)
    return store


def test_rule_73_every_resource_is_valid_fhir_r4(rich_store, tmp_path):
    out = tmp_path / "fhir"
    done = ohk("export", "--store", str(rich_store), "--format", "fhir", "--out", str(out))
    folder = read_folder(out)
    assert set(folder) == {"Observation", "Immunization"}
    assert "not written: 1 clinical records of FHIR 1.0.2 (DSTU2), not R4" in done.stdout
    summary = json.loads(ohk("stats", "--store", str(rich_store), "--format", "json").stdout)["types"]
    written_as_observations = sum(v["samples"] for t, v in summary.items()
                                  if not t.startswith(("HKClinicalTypeIdentifier", "HKDataTypeIdentifierAudiogram",
                                                       "HKDataTypeIdentifierHeartbeat", "HKWorkoutRouteTypeIdentifier")))
    assert len(folder["Observation"]) == written_as_observations
    assert folder["Immunization"] == [IMMUNIZATION_R4]  # the resource as the record holds it


def test_rule_73_codes_units_and_shapes_follow_the_mapping(rich_store, tmp_path):
    out = tmp_path / "fhir"
    ohk("export", "--store", str(rich_store), "--format", "fhir", "--out", str(out))
    observations = read_folder(out)["Observation"]

    def coded(code):
        return [o for o in observations if any(c["code"] == code for c in o["code"]["coding"])]

    steps = coded("55423-8")[0]  # LOINC, then Apple's coding of the identifier
    assert [c["system"] for c in steps["code"]["coding"]] == ["http://loinc.org",
                                                               "http://developer.apple.com/documentation/healthkit"]
    assert steps["code"]["coding"][1]["code"] == "HKQuantityTypeIdentifierStepCount"
    assert steps["effectivePeriod"]["start"] < steps["effectivePeriod"]["end"]
    oxygen = coded("59408-5")[0]
    assert oxygen["valueQuantity"] == {"value": 97, "unit": "%", "system": "http://unitsofmeasure.org", "code": "%"}
    assert "effectiveDateTime" in oxygen  # an instant: start and end agree
    pressure = coded("85354-9")[0]
    assert pressure["category"][0]["coding"][0]["code"] == "vital-signs"
    parts = {c["code"]["coding"][0]["code"]: c["valueQuantity"] for c in pressure["component"]}
    assert parts["8480-6"]["value"] == 121 and parts["8462-4"]["value"] == 79
    assert parts["8480-6"]["code"] == "mm[Hg]"
    sleep = next(o for o in observations if o["code"]["coding"][0]["code"] == "HKCategoryTypeIdentifierSleepAnalysis")
    assert sleep["valueCodeableConcept"]["coding"][0] == {
        "system": "http://developer.apple.com/documentation/healthkit/hkcategoryvaluesleepanalysis",
        "code": "4", "display": "AsleepDeep"}
    ecg = coded("131328")[0]
    sampled = [c["valueSampledData"] for c in ecg["component"] if "valueSampledData" in c]
    assert [len(s["data"].split()) for s in sampled] == [5120, 5120, 2560]  # ten seconds at 512 Hz each
    assert sampled[0]["period"] == 1000 / 512 and sampled[0]["origin"]["code"] == "uV"
    assert sampled[0]["data"].split()[:3] == ["0.000", "0.500", "1.000"]
    frequency = next(c for c in ecg["component"] if c["code"]["coding"][0]["code"] == "HKElectrocardiogram.SamplingFrequency")
    assert frequency["valueQuantity"]["code"] == "Hz"  # our override of 'hertz'
    workout = coded("73985-4")[0]
    assert [c["coding"][0]["code"] for c in workout["category"]] == ["activity", "PhysicalActivity"]
    assert workout["component"][0]["code"]["coding"][0]["code"] == "55411-3"


def test_rule_73_since_writes_only_what_was_added(rich_store, tmp_path):
    out, since = tmp_path / "fhir", tmp_path / "fhir.anchor"
    ohk("export", "--store", str(rich_store), "--format", "fhir", "--out", str(out), "--since", str(since))
    ohk("add", "--store", str(rich_store), "HeartRate", "64", "--unit", "count/min", "--start", "2024-03-02T08:00:00Z",
        "--end", "2024-03-02T08:00:00Z")
    ohk("export", "--store", str(rich_store), "--format", "fhir", "--out", str(out), "--since", str(since))
    folder = read_folder(out)
    assert list(folder) == ["Observation"]
    [heart] = folder["Observation"]
    assert heart["valueQuantity"]["value"] == 64 and heart["valueQuantity"]["code"] == "/min"


def test_an_interrupted_fhir_export_leaves_no_partial_file(tmp_path):
    store = tmp_path / "big"
    source = tmp_path / "export.xml"
    subprocess.run([sys.executable, str(ROOT / "scripts" / "gen_export.py"), "--size", "30M", str(source)],
                   check=True, timeout=300)
    ohk("import", "--store", str(store), str(source))
    out = tmp_path / "fhir"
    run = subprocess.Popen([OHK, "export", "--store", str(store), "--format", "fhir", "--out", str(out)],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment())
    deadline = time.monotonic() + WAIT
    while not list(out.glob(".*.partial")) if out.exists() else True:
        assert run.poll() is None, "the export ended before it was seen writing"
        assert time.monotonic() < deadline, "the export was never seen writing"
        time.sleep(0.001)
    run.send_signal(signal.SIGKILL)
    run.wait(timeout=WAIT)
    assert not list(out.glob("*.ndjson")) and not (out / "anchor").exists()  # nothing under a final name
    ohk("export", "--store", str(store), "--format", "fhir", "--out", str(out))
    assert (out / "Observation.ndjson").exists() and not list(out.glob(".*.partial"))


def test_bad_input_writes_nothing(store, tmp_path):
    done = ohk("export", "--store", str(store), "--format", "fhir", "--out", str(tmp_path / "f"), "NoSuchType",
               check=False)
    assert done.returncode != 0 and "NoSuchType" in done.stderr and not list((tmp_path).glob("f/*"))
