#!/usr/bin/env python3
"""Writes a realistic Apple Health export of about the size asked for.

    scripts/gen_export.py OUT.xml --size 1G        # export.xml
    scripts/gen_export.py OUT.zip --size 200M      # export.zip holding apple_health_export/export.xml

The mix follows real exports: mostly step counts, heart rates, active and
basal energy and distances from a phone and a watch (with HKDevice
descriptions and UTC offsets), sleep and stand-hour categories, body mass
in lb, metadata entries, heart-rate-variability beat lists, blood-pressure
correlations whose records also appear at top level, workouts and daily
activity summaries. The same seed gives the same file.
"""
import argparse
import random
import sys
import zipfile
from datetime import datetime, timedelta

HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary)*)>
<!ATTLIST HealthData locale CDATA #REQUIRED>
<!ELEMENT ExportDate EMPTY>
<!ATTLIST ExportDate value CDATA #REQUIRED>
<!ELEMENT Me EMPTY>
<!ELEMENT Record ((MetadataEntry|HeartRateVariabilityMetadataList)*)>
<!ATTLIST Record type CDATA #REQUIRED unit CDATA #IMPLIED value CDATA #IMPLIED sourceName CDATA #REQUIRED
  sourceVersion CDATA #IMPLIED device CDATA #IMPLIED creationDate CDATA #IMPLIED startDate CDATA #REQUIRED
  endDate CDATA #REQUIRED>
]>
<HealthData locale="en_US">
 <ExportDate value="2024-06-01 09:00:00 -0700"/>
 <Me HKCharacteristicTypeIdentifierDateOfBirth="1980-05-04" HKCharacteristicTypeIdentifierBiologicalSex="HKBiologicalSexFemale"/>
"""
PHONE = ("Jane’s iPhone", "17.4.1", "&lt;&lt;HKDevice: 0x283a1c0f0&gt;, name:iPhone, manufacturer:Apple Inc., "
         "model:iPhone, hardware:iPhone15,2, software:17.4.1&gt;")
WATCH = ("Jane’s Apple\u00a0Watch", "10.4", "&lt;&lt;HKDevice: 0x283b2d1e0&gt;, name:Apple Watch, "
         "manufacturer:Apple Inc., model:Watch, hardware:Watch6,2, software:10.4&gt;")
# (type, unit, value(rng), duration seconds, source, share)
KINDS = [
    ("HKQuantityTypeIdentifierStepCount", "count", lambda r: str(r.randint(5, 900)), 300, PHONE, 30),
    ("HKQuantityTypeIdentifierHeartRate", "count/min", lambda r: str(r.randint(48, 170)), 0, WATCH, 25),
    ("HKQuantityTypeIdentifierActiveEnergyBurned", "Cal", lambda r: f"{r.uniform(0.05, 12):.3f}", 60, WATCH, 15),
    ("HKQuantityTypeIdentifierBasalEnergyBurned", "Cal", lambda r: f"{r.uniform(0.8, 1.4):.3f}", 60, WATCH, 10),
    ("HKQuantityTypeIdentifierDistanceWalkingRunning", "mi", lambda r: f"{r.uniform(0.001, 0.4):.5f}", 300, PHONE, 10),
    ("HKQuantityTypeIdentifierOxygenSaturation", "%", lambda r: f"{r.uniform(0.92, 1):.2f}", 0, WATCH, 3),
    ("HKQuantityTypeIdentifierBodyMass", "lb", lambda r: f"{r.uniform(120, 200):.1f}", 0, ("Withings", "6.2", None), 1),
    ("HKCategoryTypeIdentifierAppleStandHour", None, lambda r: r.choice(["HKCategoryValueAppleStandHourStood",
                                                                          "HKCategoryValueAppleStandHourIdle"]), 3600, WATCH, 3),
    ("HKCategoryTypeIdentifierSleepAnalysis", None, lambda r: r.choice(["HKCategoryValueSleepAnalysisAsleepCore",
                                                                         "HKCategoryValueSleepAnalysisAsleepDeep",
                                                                         "HKCategoryValueSleepAnalysisAwake"]), 1800, WATCH, 3),
]
WEIGHTS = [k[5] for k in KINDS]


def stamp(t):
    return t.strftime("%Y-%m-%d %H:%M:%S -0700")


def record(rng, t, out):
    kind, unit, value, seconds, (source, version, device), _ = rng.choices(KINDS, WEIGHTS)[0]
    end = t + timedelta(seconds=seconds)
    attrs = [f'type="{kind}"', f'sourceName="{source}"', f'sourceVersion="{version}"']
    if device:
        attrs.append(f'device="{device}"')
    if unit:
        attrs.append(f'unit="{unit}"')
    attrs += [f'creationDate="{stamp(end + timedelta(seconds=40))}"', f'startDate="{stamp(t)}"', f'endDate="{stamp(end)}"',
              f'value="{value(rng)}"']
    head = ' <Record ' + ' '.join(attrs)
    if kind.endswith("HeartRate"):
        out.append(head + '>\n  <MetadataEntry key="HKMetadataKeyHeartRateMotionContext" value="'
                   + str(rng.randint(0, 2)) + '"/>\n </Record>\n')
    else:
        out.append(head + '/>\n')


def extras(rng, t, out):
    """The elements a real export mixes in, now and then."""
    roll = rng.random()
    if roll < 0.002:
        beats = ''.join(f'   <InstantaneousBeatsPerMinute bpm="{rng.randint(50, 70)}" time="7:0{i}:0{i}.10 AM"/>\n'
                        for i in range(8))
        out.append(f' <Record type="HKQuantityTypeIdentifierHeartRateVariabilitySDNN" sourceName="{WATCH[0]}" '
                   f'sourceVersion="{WATCH[1]}" device="{WATCH[2]}" unit="ms" creationDate="{stamp(t)}" '
                   f'startDate="{stamp(t)}" endDate="{stamp(t + timedelta(seconds=60))}" value="{rng.uniform(20, 80):.3f}">\n'
                   f'  <HeartRateVariabilityMetadataList>\n{beats}  </HeartRateVariabilityMetadataList>\n </Record>\n')
    elif roll < 0.003:
        sys_, dia = rng.randint(105, 140), rng.randint(65, 90)
        recs = ''.join(f'  <Record type="HKQuantityTypeIdentifierBloodPressure{n}" sourceName="Omron" unit="mmHg" '
                       f'creationDate="{stamp(t)}" startDate="{stamp(t)}" endDate="{stamp(t)}" value="{v}"/>\n'
                       for n, v in (("Systolic", sys_), ("Diastolic", dia)))
        out.append(f' <Correlation type="HKCorrelationTypeIdentifierBloodPressure" sourceName="Omron" '
                   f'creationDate="{stamp(t)}" startDate="{stamp(t)}" endDate="{stamp(t)}">\n{recs} </Correlation>\n')
        out.append(recs.replace('  <Record', ' <Record'))  # the DTD: nested records appear at top level too
    elif roll < 0.0035:
        out.append(f' <Workout workoutActivityType="HKWorkoutActivityTypeWalking" duration="31.5" durationUnit="min" '
                   f'sourceName="{WATCH[0]}" startDate="{stamp(t)}" endDate="{stamp(t + timedelta(minutes=31))}">\n'
                   f'  <MetadataEntry key="HKIndoorWorkout" value="0"/>\n </Workout>\n')
    elif roll < 0.004:
        out.append(f' <ActivitySummary dateComponents="{t:%Y-%m-%d}" activeEnergyBurned="{rng.uniform(200, 700):.3f}" '
                   'activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="Cal" appleExerciseTime="30" '
                   'appleExerciseTimeGoal="30" appleStandHours="12" appleStandHoursGoal="12"/>\n')


def parse_size(text):
    units = {"K": 1e3, "M": 1e6, "G": 1e9}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def generate(write, size, seed):
    rng = random.Random(seed)
    t = datetime(2019, 1, 1, 6, 0, 0)
    written = 0
    write(HEADER)
    while written < size:
        out = []
        for _ in range(2000):
            t += timedelta(seconds=rng.randint(5, 90))
            record(rng, t, out)
            extras(rng, t, out)
        chunk = ''.join(out)
        write(chunk)
        written += len(chunk.encode())
    write('</HealthData>\n')


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", help="OUT.xml or OUT.zip")
    ap.add_argument("--size", default="10M", help="approximate size of export.xml: 500K, 200M, 1G")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    size = parse_size(args.size)
    if args.out.endswith(".zip"):
        with zipfile.ZipFile(args.out, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
            with z.open("apple_health_export/export.xml", "w", force_zip64=True) as f:
                generate(lambda s: f.write(s.encode()), size, args.seed)
    else:
        with open(args.out, "w", encoding="utf-8", buffering=1 << 20) as f:
            generate(f.write, size, args.seed)


if __name__ == "__main__":
    main()
