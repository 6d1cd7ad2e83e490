"""The package is layered, in one import direction, with no cycles.

Each module has a layer (LAYERS, bottom first); a module imports modules
of its own layer or lower, never higher, and the imports form no cycle.
Imports sit at the top of a module: none inside a function, except under
``if TYPE_CHECKING:`` (annotations only) and the optional NumPy and
pandas, which ``_checks`` alone imports when a call needs them. No module
imports another's private names, nor reaches for a store's or a
predicate's C handle (``_handles`` gives them). No module is over 600
lines. Each module imports on its own, in layer order (in a fresh
interpreter, the package cleared from ``sys.modules`` before each and its
``__init__`` not run), without loading a module of a higher layer.
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "openhealthkit"
MAX_LINES = 600

#: Every module of the package by layer, bottom first.
LAYERS: dict[int, tuple[str, ...]] = {
    # The C library and what every layer raises: errors, the generated
    # enums, the structs, the loaded library and its signatures.
    0: ("errors", "_enums", "_structs", "_signatures", "_native"),
    # To and from C: plain values, argument checks, one marshal module
    # per kind with structs of its own.
    1: ("_convert", "_checks", "_marshal", "_marshal.samples", "_marshal.catalogue", "_marshal.workouts",
        "_marshal.routes", "_marshal.correlations", "_marshal.heartbeats", "_marshal.audiograms",
        "_marshal.electrocardiograms", "_marshal.clinical"),
    # Values: types, anchors, predicates, samples and one module per kind
    # with fields of its own; the handles of a store and a predicate.
    2: ("catalogue", "anchor", "predicate", "samples", "_own_fields", "workout", "route", "correlation",
        "heartbeat", "audiogram", "electrocardiogram", "clinical", "activity", "characteristics", "hooks",
        "receiving", "replication", "subscriptions", "_handles"),
    # Batches, columns and collections of results.
    3: ("_kinds", "columns", "arrow", "batch", "workout_list", "workouts", "statistics", "sleep"),
    # What runs on a store: live queries, asyncio, a store's summary.
    4: ("queries", "aio", "summary", "parquet"),
    # The HealthStore façade, in its parts.
    5: ("_store_core", "_store_queries", "_store_saving", "_store_analysis", "store"),
    # What takes a HealthStore.
    6: ("importing", "sink"),
    # The package's names.
    7: ("", "__main__"),
}
LAYER = {("openhealthkit." + name).rstrip("."): layer for layer, names in LAYERS.items() for name in names}
#: The optional dependencies, imported inside functions where a call needs them, by this module alone.
OPTIONAL = {"numpy", "pandas", "pyarrow"}
OPTIONAL_IMPORTER = "openhealthkit._checks"


def module_files() -> dict[str, Path]:
    files = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        files[".".join(["openhealthkit", *parts])] = path
    return files


FILES = module_files()


def is_private(module: str) -> bool:
    return any(part.startswith("_") for part in module.split(".")[1:])


class Import:
    """One import statement: the package modules it loads, the names it
    takes, and where it sits."""

    def __init__(self, node: ast.Import | ast.ImportFrom, module: str, in_function: bool, type_checking: bool):
        self.node, self.line, self.in_function, self.type_checking = node, node.lineno, in_function, type_checking
        self.text = ast.unparse(node)
        self.names: list[tuple[str, str]] = []  # (module, name) taken from a package module
        if isinstance(node, ast.Import):
            self.targets = [alias.name for alias in node.names]
            return
        if node.level:
            package = module.split(".") if FILES[module].name == "__init__.py" else module.split(".")[:-1]
            base = ".".join(package[:len(package) - node.level + 1] + ([node.module] if node.module else []))
        else:
            base = node.module or ""
        submodules = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in FILES]
        self.targets = submodules if len(submodules) == len(node.names) else [base, *submodules]
        self.names = [(base, alias.name) for alias in node.names if f"{base}.{alias.name}" not in FILES]


@functools.lru_cache(maxsize=None)
def parsed(module: str) -> ast.Module:
    return ast.parse(FILES[module].read_text())


@functools.lru_cache(maxsize=None)
def imports(module: str) -> list[Import]:
    tree = parsed(module)
    found: list[Import] = []

    def visit(node: ast.AST, in_function: bool, type_checking: bool) -> None:
        for child in ast.iter_child_nodes(node):
            function = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            checking = type_checking or (isinstance(child, ast.If) and ast.unparse(child.test) in (
                "TYPE_CHECKING", "typing.TYPE_CHECKING"))
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(Import(child, module, in_function, type_checking))
            visit(child, function, checking)

    visit(tree, False, False)
    return found


def package_imports(module: str) -> set[str]:
    """The package modules `module` loads when it is imported (not those
    under TYPE_CHECKING)."""
    return {target for i in imports(module) if not i.type_checking for target in i.targets
            if target in FILES and target != module}


def in_layer_order() -> list[str]:
    return sorted(FILES, key=lambda module: (LAYER.get(module, -1), module))


def test_every_module_has_a_layer():
    assert sorted(set(FILES) - set(LAYER)) == [], "add these modules to LAYERS"
    assert sorted(set(LAYER) - set(FILES)) == [], "these modules of LAYERS do not exist"


def test_no_module_imports_a_module_of_a_higher_layer():
    higher = [f"{module} (layer {LAYER[module]}) imports {target} (layer {LAYER[target]})"
              for module in in_layer_order() for target in sorted(package_imports(module))
              if LAYER[target] > LAYER[module]]
    assert not higher, "\n".join(higher)


def test_the_imports_form_no_cycle():
    graph = {module: package_imports(module) for module in FILES}
    state: dict[str, int] = {}
    cycles: list[str] = []

    def visit(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph[module]):
            if state.get(target) == 1:
                cycles.append(" -> ".join(path[path.index(target):] + [module, target]) if target in path
                              else f"{module} -> {target}")
            elif target not in state:
                visit(target, path + [module])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            visit(module, [])
    assert not cycles, "\n".join(cycles)


def test_no_import_sits_in_a_function():
    misplaced = [f"{module}, line {i.line}: {i.text}" for module in in_layer_order() for i in imports(module)
                 if i.in_function and not i.type_checking
                 and not (module == OPTIONAL_IMPORTER and {t.split(".")[0] for t in i.targets} <= OPTIONAL)]
    assert not misplaced, "imports inside a function (move them to the top; NumPy, pandas and pyarrow " \
        "through _checks):\n" + "\n".join(misplaced)


def test_no_module_takes_another_modules_private_names():
    taken = [f"{module}, line {i.line}: {name} from {source}" for module in in_layer_order()
             for i in imports(module) for source, name in i.names
             if source in FILES and source != module and not is_private(source)
             and name.startswith("_") and not name.startswith("__")]
    assert not taken, "\n".join(taken)


def test_no_module_reaches_for_a_handle():
    # Only an object's own methods read its _handle (predicate.py makes its predicates' own).
    reached = [f"{module}, line {node.lineno}: {ast.unparse(node)}" for module in in_layer_order()
               for node in ast.walk(parsed(module))
               if isinstance(node, ast.Attribute) and node.attr == "_handle"
               and not (isinstance(node.value, ast.Name) and node.value.id in ("self", "cls"))
               and module != "openhealthkit.predicate"]
    assert not reached, "reached for a handle (use _handles.store_handle or predicate_handle):\n" + \
        "\n".join(reached)


def test_no_module_is_over_600_lines():
    long = [f"{module}: {lines} lines" for module in in_layer_order()
            if (lines := len(FILES[module].read_text().splitlines())) > MAX_LINES]
    assert not long, f"over {MAX_LINES} lines (split them by what they hold):\n" + "\n".join(long)


#: Run in a fresh interpreter: imports each module given, in order, as the
#: only module of the package (sys.modules cleared of the package before
#: each, and an empty package object standing for the package, whose
#: __init__ does not run), and prints what each loaded or the error it raised.
ALONE = """
import importlib, importlib.util, json, sys, traceback
init, package, modules = sys.argv[1], sys.argv[2], sys.argv[3:]
report = {}
for module in modules:
    for name in [name for name in sys.modules if name == "openhealthkit" or name.startswith("openhealthkit.")]:
        del sys.modules[name]
    spec = importlib.util.spec_from_file_location("openhealthkit", init, submodule_search_locations=[package])
    sys.modules["openhealthkit"] = importlib.util.module_from_spec(spec)
    try:
        if module == "openhealthkit":
            spec.loader.exec_module(sys.modules["openhealthkit"])
        else:
            importlib.import_module(module)
    except BaseException:
        report[module] = {"error": traceback.format_exc()}
        continue
    report[module] = {"loaded": sorted(name for name in sys.modules if name.startswith("openhealthkit."))}
print(json.dumps(report))
"""


def test_each_module_imports_alone_in_layer_order_and_loads_no_higher_layer():
    modules = [module for module in in_layer_order() if module in LAYER]
    result = subprocess.run([sys.executable, "-c", ALONE, str(PACKAGE / "__init__.py"), str(PACKAGE), *modules],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    failures = []
    for module in modules:
        if "error" in report[module]:
            failures.append(f"{module} does not import alone:\n{report[module]['error']}")
            continue
        higher = [name for name in report[module]["loaded"] if LAYER.get(name, 0) > LAYER[module]]
        if higher:
            failures.append(f"{module} (layer {LAYER[module]}) loads {', '.join(higher)}")
    assert not failures, "\n".join(failures)
