"""The ctypes declarations match include/openhealthkit.h and the C structs."""

from __future__ import annotations

import ctypes
import re
import shutil
import struct
import subprocess
from ctypes import POINTER as P
from pathlib import Path

import pytest

from openhealthkit import _native as n
from openhealthkit.errors import Status

INCLUDE = Path(__file__).resolve().parents[3] / "include"
HEADER = INCLUDE / "openhealthkit.h"
TYPES_HEADER = INCLUDE / "openhealthkit_types.h"
PROTOTYPE = re.compile(r"^(?P<ret>[^/*#\s][^(]*?)\b(?P<name>ohk_\w+)\((?P<args>[^)]*)\);$", re.M)

# Base C types -> ctypes; pointers are built on them by ctype_of.
BASES = {
    "void": None, "bool": ctypes.c_bool, "int32_t": ctypes.c_int32, "int64_t": ctypes.c_int64,
    "uint32_t": ctypes.c_uint32, "uint64_t": ctypes.c_uint64, "double": ctypes.c_double,
    "ohk_results_fn": n.ohk_results_fn, "ohk_observer_fn": n.ohk_observer_fn,
    "ohk_destroy_fn": n.ohk_destroy_fn, "ohk_commit_fn": n.ohk_commit_fn,
    "ohk_statistics_fn": n.ohk_statistics_fn,
}
# The enums' named int32_t and uint32_t (typedef int32_t ohk_status;).
BASES.update({name: BASES[c] for c, name in
              re.findall(r"^typedef (int32_t|uint32_t) (ohk_\w+);$", TYPES_HEADER.read_text(), re.M)})


def ctype_of(text: str):
    """The ctypes type the binding's conventions give a C type: ``const
    char *`` is c_char_p and ``char *`` an owned string; byte buffers
    (``uint8_t *``) are c_char_p; ``void *`` and the Arrow C Data
    Interface's structs (handed to pyarrow by address) are c_void_p;
    anything else is POINTER applied once per ``*`` to its base type or
    struct."""
    tokens = [t for t in text.replace("*", " * ").split() if t != "struct"]
    base_const = tokens[0] == "const"
    base = [t for t in tokens if t not in ("const", "*")]
    assert len(base) == 1, f"cannot read C type {text!r}"
    base, depth = base[0], tokens.count("*")
    if depth and base == "char":
        inner, depth = (ctypes.c_char_p if base_const else n.OWNED_STRING), depth - 1
    elif depth and base in ("uint8_t", "void", "ArrowArray", "ArrowSchema"):
        inner, depth = (ctypes.c_char_p if base == "uint8_t" else ctypes.c_void_p), depth - 1
    elif base in BASES:
        inner = BASES[base]
    else:
        inner = getattr(n, base, None)
        assert inner is not None, f"no ctypes struct for {base!r}"
    for _ in range(depth):
        inner = P(inner)
    return inner


def split_parameter(parameter: str) -> str:
    """A parameter's type without its name."""
    match = re.match(r"^(.*?)(\w+)$", parameter.strip())
    assert match, parameter
    return match.group(1)


def prototypes() -> dict[str, tuple[object, list[object]]]:
    found = {}
    for match in PROTOTYPE.finditer(HEADER.read_text()):
        args = match.group("args").strip()
        params = [] if args in ("", "void") else [split_parameter(p) for p in args.split(",")]
        found[match.group("name")] = (ctype_of(match.group("ret")), [ctype_of(p) for p in params])
    return found


def test_every_header_function_has_a_matching_ctypes_signature():
    header = prototypes()
    assert len(header) >= 60, "the header parser found too few prototypes"
    missing = sorted(set(header) - set(n.SIGNATURES))
    stale = sorted(set(n.SIGNATURES) - set(header))
    assert not missing, f"functions without a ctypes signature: {missing}"
    assert not stale, f"ctypes signatures of functions the header lacks: {stale}"
    for name, (ret, args) in header.items():
        bound_ret, bound_args = n.SIGNATURES[name]
        assert bound_ret == ret, f"{name}: returns {ret}, binding says {bound_ret}"
        assert len(bound_args) == len(args), f"{name}: {len(args)} arguments, binding has {len(bound_args)}"
        for index, (want, got) in enumerate(zip(args, bound_args)):
            assert got == want, f"{name} argument {index}: header {want}, binding {got}"


def test_the_drift_check_would_notice_a_wrong_signature(monkeypatch):
    ret, args = n.SIGNATURES["ohk_store_prune"]
    monkeypatch.setitem(n.SIGNATURES, "ohk_store_prune", (ret, args[:-1]))
    with pytest.raises(AssertionError, match="ohk_store_prune"):
        test_every_header_function_has_a_matching_ctypes_signature()


def test_status_mirrors_the_header_status_codes():
    header = re.findall(r"\bOHK_(OK|ERR_\w+) = (-?\d+)", TYPES_HEADER.read_text())
    assert len(header) > 20, "the header parser found too few status codes"
    assert {name: int(value) for name, value in header} == {s.name: s.value for s in Status}


def test_every_function_returning_a_status_raises_through_errcheck():
    returning_status = {name for name, (ret, _) in n.SIGNATURES.items() if ret is ctypes.c_int32}
    for name in n.SIGNATURES:
        want = n.check_status if name in returning_status else None
        assert getattr(n.lib, name).errcheck is want, name
    assert set(n.ALLOWED_STATUSES) <= returning_status


def header_enum(prefix: str) -> dict[str, int]:
    """The ``OHK_<prefix>NAME = value`` constants of openhealthkit_types.h, by NAME."""
    return {name: int(value) for name, value in
            re.findall(rf"\bOHK_{prefix}(\w+) = (-?\d+)", TYPES_HEADER.read_text())}


def test_kinds_and_electrocardiogram_enums_mirror_the_header():
    """What catalogue.py reads ohk_type_info.kind as, and the enums of
    ohk_electrocardiogram, are the header's numbers."""
    from openhealthkit import ECGClassification, ECGLead, ECGSymptomsStatus
    kinds = header_enum("KIND_")
    assert len(kinds) >= 9, "the header parser found too few kinds"
    assert kinds == {name[len("KIND_"):]: getattr(n, name) for name in dir(n) if name.startswith("KIND_")}
    assert header_enum("ECG_SYMPTOMS_") == {m.name: m.value for m in ECGSymptomsStatus}
    assert header_enum("ECG_LEAD_") == {m.name: m.value for m in ECGLead}
    classifications = {name: value for name, value in header_enum("ECG_").items()
                       if not name.startswith(("SYMPTOMS_", "LEAD_"))}
    assert classifications == {m.name: m.value for m in ECGClassification}


def test_activity_move_modes_mirror_the_header():
    """ActivityMoveMode's numbers are ohk_activity_summary.move_mode's, and
    activity.py names the struct's eight values in its order."""
    from openhealthkit import ActivityMoveMode
    from openhealthkit.activity import VALUE_FIELDS
    modes = header_enum("MOVE_MODE_")
    assert len(modes) >= 2, "the header parser found too few move modes"
    assert modes == {m.name: m.value for m in ActivityMoveMode}
    fields = [name for name, _ in n.ohk_activity_summary._fields_]
    assert tuple(fields[3:11]) == VALUE_FIELDS


STRUCTS = ["ohk_store_options", "ohk_anchor", "ohk_value", "ohk_metadata_entry", "ohk_source",
           "ohk_device", "ohk_sample_input", "ohk_save_outcome", "ohk_descriptor",
           "ohk_sample_record", "ohk_sample_columns", "ohk_deleted_record", "ohk_type_info",
           "ohk_workout_statistics", "ohk_workout_event", "ohk_workout_activity", "ohk_workout",
           "ohk_location", "ohk_route", "ohk_heartbeat", "ohk_characteristics", "ohk_audiogram_point",
           "ohk_electrocardiogram", "ohk_clinical_record", "ohk_activity_summary", "ohk_store_type_count",
           "ohk_sink_progress", "ohk_subscription_status", "ohk_apply_outcome",
           "ohk_sync_options", "ohk_live_digest", "ohk_sync_report", "ohk_audiogram", "ohk_query_options",
           "ohk_statistics_options",
           "ohk_category_duration", "ohk_category_interval", "ohk_category_durations_result"]


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_struct_sizes_and_offsets_match_the_c_compiler(tmp_path):
    lines = ['#include <stdio.h>', '#include <stddef.h>', '#include "openhealthkit.h"', "int main(void) {"]
    for struct in STRUCTS:
        lines.append(f'printf("{struct} size %zu\\n", sizeof({struct}));')
        for field, _ in getattr(n, struct)._fields_:
            # A C name that is a Python keyword ends in "_" in ctypes (from_).
            c_field = field[:-1] if field.endswith("_") else field
            lines.append(f'printf("{struct} {field} %zu\\n", offsetof({struct}, {c_field}));')
    lines.append("return 0; }")
    source = tmp_path / "layout.c"
    source.write_text("\n".join(lines))
    subprocess.run(["cc", "-I", str(INCLUDE), "-o", str(tmp_path / "layout"), str(source)], check=True)
    output = subprocess.run([str(tmp_path / "layout")], check=True, capture_output=True, text=True).stdout
    for line in output.splitlines():
        struct, field, value = line.split()
        cls = getattr(n, struct)
        got = ctypes.sizeof(cls) if field == "size" else getattr(cls, field).offset
        assert got == int(value), f"{struct}.{field}: C says {value}, ctypes {got}"


WORKOUT_SWIFT = Path(__file__).resolve().parents[3] / "Sources" / "OpenHealthKitCore" / "Model" / "Workout.swift"


def swift_table(name: str) -> dict[str, int]:
    """A `static let <name>: [String: …] = [...]` table of Workout.swift."""
    block = re.search(rf"static let {name}: \[String: \w+\] = \[(.*?)\]", WORKOUT_SWIFT.read_text(), re.S)
    assert block, f"no table {name} in {WORKOUT_SWIFT}"
    return {key: int(value) for key, value in re.findall(r'"(\w+)": (\d+)', block.group(1))}


@pytest.mark.skipif(not WORKOUT_SWIFT.exists(), reason="needs the Swift sources")
def test_workout_activity_and_event_type_names_match_the_swift_core():
    """The C API gives numbers only: Python's names (WorkoutActivityType,
    WorkoutEventType) are those of the Swift core, which the store
    validates against, ohk prints and predicate text reads."""
    from openhealthkit import WorkoutActivityType, WorkoutEventType
    activities = swift_table("byName")
    assert len(activities) > 80, "the Swift table parser found too few activity types"
    assert {t.healthkit_name: t.value for t in WorkoutActivityType} == activities
    assert {t.healthkit_name: t.value for t in WorkoutEventType} == swift_table("typesByName")
    for name, value in activities.items():
        assert WorkoutActivityType.from_name(name) == value


def test_record_formats_have_the_c_structs_sizes():
    # The formats batch reading unpacks records with are written by hand
    # beside the generated structs: they must span the same bytes.
    assert struct.calcsize(n.SAMPLE_RECORD_FORMAT) == ctypes.sizeof(n.ohk_sample_record)
    assert struct.calcsize(n.DELETED_RECORD_FORMAT) == ctypes.sizeof(n.ohk_deleted_record)
