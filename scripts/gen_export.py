#!/usr/bin/env python3
"""Writes a realistic Apple Health export of about the size asked for.

    scripts/gen_export.py OUT.xml --size 1G        # export.xml
    scripts/gen_export.py OUT.zip --size 200M      # export.zip holding apple_health_export/export.xml

The mix follows real exports: mostly step counts, heart rates, active and
basal energy and distances from a phone and a watch (with HKDevice
descriptions and UTC offsets), sleep and stand-hour categories, body mass
in lb, metadata entries, heart-rate-variability beat lists, blood-pressure
correlations whose records also appear at top level, food correlations,
workouts with events, statistics, activities and routes, daily
activity summaries, audiograms, clinical records and ECGs. Each route is
a GPX file under workout-routes/, each clinical record's FHIR resource a
JSON file under clinical-records/, each ECG a CSV file under
electrocardiograms/: in the zip beside export.xml, or in folders beside
OUT.xml. The same seed gives the same files.
"""
import argparse
import os
import random
import sys
import zipfile
from datetime import datetime, timedelta

HEADER = """<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE HealthData [
<!ELEMENT HealthData (ExportDate,Me,(Record|Correlation|Workout|ActivitySummary|ClinicalRecord|Audiogram)*)>
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


def extras(rng, t, out, routes):
    """The elements a real export mixes in, now and then."""
    roll = rng.random()
    if roll < 0.002:
        beats = ''.join(f'   <InstantaneousBeatsPerMinute bpm="{rng.randint(50, 70)}" '
                        f'time="{(t + timedelta(seconds=i + 0.1)).strftime("%-I:%M:%S.%f")[:-4]} '
                        f'{(t + timedelta(seconds=i)).strftime("%p")}"/>\n'
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
    elif roll < 0.0032:
        food = ''.join(f'  <Record type="HKQuantityTypeIdentifierDietary{n}" sourceName="MyFitnessPal" unit="{u}" '
                       f'creationDate="{stamp(t)}" startDate="{stamp(t)}" endDate="{stamp(t)}" value="{v}"/>\n'
                       for n, u, v in (("EnergyConsumed", "Cal", rng.randint(150, 900)),
                                       ("Protein", "g", rng.randint(2, 40)), ("Carbohydrates", "g", rng.randint(5, 90))))
        out.append(f' <Correlation type="HKCorrelationTypeIdentifierFood" sourceName="MyFitnessPal" '
                   f'creationDate="{stamp(t)}" startDate="{stamp(t)}" endDate="{stamp(t)}">\n'
                   f'  <MetadataEntry key="HKFoodType" value="Lunch"/>\n{food} </Correlation>\n')
        out.append(food.replace('  <Record', ' <Record'))
    elif roll < 0.0035:
        out.append(workout(rng, t, routes))
    elif roll < 0.004:
        out.append(f' <ActivitySummary dateComponents="{t:%Y-%m-%d}" activeEnergyBurned="{rng.uniform(200, 700):.3f}" '
                   'activeEnergyBurnedGoal="400" activeEnergyBurnedUnit="Cal" appleExerciseTime="30" '
                   'appleExerciseTimeGoal="30" appleStandHours="12" appleStandHoursGoal="12"/>\n')
    elif roll < 0.00405:
        kind, text = rng.choice([("Immunization", '"vaccineCode":{"text":"Influenza"}'),
                                 ("Observation", '"category":{"coding":[{"code":"vital-signs"}]},"code":{"text":"Pulse"}'),
                                 ("Condition", '"code":{"text":"Asthma"}')])
        name = f"clinical-records/{kind}-{rng.getrandbits(128):032X}.json"
        routes.append((name, f'{{"resourceType":"{kind}","id":"{rng.getrandbits(48):X}",{text}}}'))
        out.append(f' <ClinicalRecord type="{kind}" identifier="{rng.getrandbits(64):X}" sourceName="Hospital" '
                   f'sourceURL="https://fhir.example/{kind}" fhirVersion="1.0.2" receivedDate="{stamp(t)}" '
                   f'resourceFilePath="/{name}"/>\n')
    elif roll < 0.00406:
        points = ''.join(f'  <SensitivityPoint frequencyValue="{f}" frequencyUnit="Hz" leftEarValue="{rng.randint(0, 40)}" '
                         f'leftEarUnit="dBHL" rightEarValue="{rng.randint(0, 40)}" rightEarUnit="dBHL"/>\n'
                         for f in (250, 500, 1000, 2000, 4000, 8000))
        out.append(f' <Audiogram type="HKDataTypeIdentifierAudiogram" sourceName="Mimi" creationDate="{stamp(t)}" '
                   f'startDate="{stamp(t)}" endDate="{stamp(t)}">\n{points} </Audiogram>\n')
    elif roll < 0.00407:
        head = ["Name,Jane Appleseed", 'Date of Birth,"Feb 5, 1952"', f"Recorded Date,{stamp(t)}",
                "Classification,Sinus Rhythm", "Symptoms,", "Software Version,1.90", 'Device,"Watch6,2"',
                "Sample Rate,512.844 hertz", "", "", "Lead,Lead I", "Unit,µV", ""]
        volts = [f"{rng.gauss(0, 80):.3f}" for _ in range(15_360)]
        routes.append((f"electrocardiograms/ecg_{t:%Y-%m-%d}_{rng.getrandbits(32):X}.csv", "\n".join(head + volts) + "\n"))


def workout(rng, t, routes):
    """A run or a walk as a watch records it: totals, pause and resume,
    a segment with metadata, statistics, now and then an activity, and
    (two in three) a route whose GPX file goes into `routes`."""
    minutes = rng.randint(20, 70)
    end = t + timedelta(minutes=minutes)
    kind = rng.choice(["Running", "Walking"])
    km = minutes * (0.16 if kind == "Running" else 0.08)
    pause = t + timedelta(minutes=minutes // 2)
    lines = [f' <Workout workoutActivityType="HKWorkoutActivityType{kind}" duration="{minutes - 1.5}" durationUnit="min" '
             f'totalDistance="{km:.3f}" totalDistanceUnit="km" totalEnergyBurned="{km * 62:.1f}" totalEnergyBurnedUnit="Cal" '
             f'sourceName="{WATCH[0]}" sourceVersion="{WATCH[1]}" device="{WATCH[2]}" creationDate="{stamp(end)}" '
             f'startDate="{stamp(t)}" endDate="{stamp(end)}">',
             '  <MetadataEntry key="HKIndoorWorkout" value="0"/>',
             f'  <WorkoutEvent type="HKWorkoutEventTypePause" date="{stamp(pause)}"/>',
             f'  <WorkoutEvent type="HKWorkoutEventTypeResume" date="{stamp(pause + timedelta(seconds=90))}"/>',
             f'  <WorkoutEvent type="HKWorkoutEventTypeSegment" date="{stamp(t)}" duration="{minutes / 2}" durationUnit="min">',
             '   <MetadataEntry key="HKSegmentIndex" value="1"/>', '  </WorkoutEvent>']
    if rng.random() < 0.2:
        lines += [f'  <WorkoutActivity uuid="{rng.getrandbits(128):032X}" startDate="{stamp(t)}" endDate="{stamp(end)}" '
                  f'duration="{minutes}" durationUnit="min">',
                  f'   <WorkoutStatistics type="HKQuantityTypeIdentifierStepCount" startDate="{stamp(t)}" endDate="{stamp(end)}" '
                  f'sum="{minutes * 150}" unit="count"/>', '  </WorkoutActivity>']
    lines += [f'  <WorkoutStatistics type="HKQuantityTypeIdentifierHeartRate" startDate="{stamp(t)}" endDate="{stamp(end)}" '
              f'average="{rng.randint(110, 150)}" minimum="{rng.randint(70, 100)}" maximum="{rng.randint(155, 180)}" unit="count/min"/>',
              f'  <WorkoutStatistics type="HKQuantityTypeIdentifierActiveEnergyBurned" startDate="{stamp(t)}" endDate="{stamp(end)}" '
              f'sum="{km * 62:.1f}" unit="Cal"/>',
              f'  <WorkoutStatistics type="HKQuantityTypeIdentifierDistanceWalkingRunning" startDate="{stamp(t)}" '
              f'endDate="{stamp(end)}" sum="{km:.3f}" unit="km"/>']
    if routes is not None and rng.random() < 0.67:
        name = f"workout-routes/route_{t:%Y-%m-%d_%H%M%S}.gpx"
        routes.append((name, gpx(rng, t, minutes)))
        lines += [f'  <WorkoutRoute sourceName="{WATCH[0]}" sourceVersion="{WATCH[1]}" creationDate="{stamp(end)}" '
                  f'startDate="{stamp(t)}" endDate="{stamp(end)}">',
                  f'   <MetadataEntry key="HKMetadataKeySyncVersion" value="2"/>',
                  f'   <MetadataEntry key="HKMetadataKeySyncIdentifier" value="{rng.getrandbits(128):032X}"/>',
                  f'   <FileReference path="/{name}"/>', '  </WorkoutRoute>']
    return '\n'.join(lines) + '\n </Workout>\n'


def gpx(rng, t, minutes):
    """A route as the Health app writes it: a point every 5 seconds."""
    utc = t + timedelta(hours=7)  # the export's -0700
    lat, lon = 37.77 + rng.uniform(-0.05, 0.05), -122.42 + rng.uniform(-0.05, 0.05)
    points = []
    for k in range(minutes * 12):
        lat += rng.uniform(-2e-5, 4e-5)
        lon += rng.uniform(-2e-5, 4e-5)
        points.append(f'<trkpt lon="{lon:.6f}" lat="{lat:.6f}"><ele>{20 + k % 17 * 0.3:.1f}</ele>'
                      f'<time>{utc + timedelta(seconds=5 * k):%Y-%m-%dT%H:%M:%SZ}</time><extensions>'
                      f'<speed>{rng.uniform(1.2, 3.5):.2f}</speed><course>{rng.uniform(0, 360):.1f}</course>'
                      f'<hAcc>{rng.uniform(2, 6):.1f}</hAcc><vAcc>{rng.uniform(1, 4):.1f}</vAcc></extensions></trkpt>\n')
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            '<gpx version="1.1" creator="Apple Health Export" xmlns="http://www.topografix.com/GPX/1/1">\n'
            f' <metadata><time>{utc:%Y-%m-%dT%H:%M:%SZ}</time></metadata>\n <trk><name>Route</name><trkseg>\n'
            + ''.join(points) + ' </trkseg></trk>\n</gpx>\n')


def parse_size(text):
    units = {"K": 1e3, "M": 1e6, "G": 1e9}
    return int(float(text[:-1]) * units[text[-1].upper()]) if text[-1].upper() in units else int(text)


def generate(write, size, seed, write_route):
    """Writes export.xml through `write`, and each file beside it (a
    route's GPX, a clinical record's JSON, an ECG's CSV) through
    `write_route(name, text)` as soon as what names it is written."""
    rng = random.Random(seed)
    t = datetime(2019, 1, 1, 6, 0, 0)
    written = 0
    write(HEADER)
    while written < size:
        out, routes = [], []
        for _ in range(2000):
            t += timedelta(seconds=rng.randint(5, 90))
            record(rng, t, out)
            extras(rng, t, out, routes)
        for name, text in routes:
            write_route(name, text)
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
        # Routes are gathered and written after export.xml: a zip writes
        # one entry at a time (the Health app puts them first; the
        # importer takes either order).
        routes = []
        with zipfile.ZipFile(args.out, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
            with z.open("apple_health_export/export.xml", "w", force_zip64=True) as f:
                generate(lambda s: f.write(s.encode()), size, args.seed, lambda n, t: routes.append((n, t)))
            for name, text in routes:
                z.writestr("apple_health_export/" + name, text)
    else:
        base = os.path.dirname(os.path.abspath(args.out))

        def write_route(name, text):
            path = os.path.join(base, name)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as r:
                r.write(text)
        with open(args.out, "w", encoding="utf-8", buffering=1 << 20) as f:
            generate(f.write, size, args.seed, write_route)


if __name__ == "__main__":
    main()
