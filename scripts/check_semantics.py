#!/usr/bin/env python3
"""Checks that docs/semantics.md's rules and the tests they list agree.

Each rule of docs/semantics.md is a numbered item (`9. …`, or `- 8b. …`
for a sub-rule) followed by a `Tests:` paragraph listing the tests that
check it, as `file:function` in backquotes:

    Tests: `RuleTests.swift:rule04_…`, `test_semantics.py:test_rule_4_…`,
    `test_data.c:limit_and_anchor_continue_where_they_stopped`

The file is found by name (or by the end of its path, when the name alone
is ambiguous) under Tests/ and bindings/python/tests/. A Swift test is a
function marked `@Test` (or an XCTest `func test…` in an XCTestCase); a
Python test a `def test_…`; a C test a function registered with
`cmocka_unit_test…(name…)` in that file.

Fails (exit 1, one line per problem) when a listed test does not exist,
when a rule lists no test, when the rule numbers are not 1..N in order,
when a rule lacks its anchor (`<a id="rule-9"></a>` at the start of its
text, so that `semantics.md#rule-9` links to it), when a test named after
a rule (`rule09_…`, `rules13_15_…`, `test_rule_9_…`, `test_rule09_…`)
names a rule that does not exist, or when a citation names one: "rule
41", "rule 8b", "rules 65 and 66", "rules 9, 10 and 12", "rules 68 to
70", "rules 25–29", or a link to `…#rule-41`, in README.md,
CHANGELOG.md, docs/*.md, include/*.h, Sources/**/*.swift and
bindings/python/openhealthkit/*.py (comments may break a citation over
lines). A Markdown link to `#rule-N` must also point at
docs/semantics.md from where it stands.
Python 3 standard library only.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "semantics.md"
TEST_DIRS = [ROOT / "Tests", ROOT / "bindings" / "python" / "tests"]
# Where rules are cited: (folder, glob) under ROOT.
CITING = [(".", "README.md"), (".", "CHANGELOG.md"), ("docs", "*.md"), ("include", "*.h"),
          ("Sources", "**/*.swift"), ("bindings/python/openhealthkit", "*.py")]
LANGUAGES = {".swift": "Swift", ".py": "Python", ".c": "C"}

# `12. text` at the start of a line: a rule; `   - 8b. text`: a sub-rule.
RULE = re.compile(r"^(\d+)\.\s")
SUB_RULE = re.compile(r"^\s+[-*]\s+(\d+)([a-z])\.\s")
TESTS = re.compile(r"^\s*Tests:(.*)$")
REFERENCE = re.compile(r"`([^`]*)`")
# A test name that cites rules: rule09_x, rule08b_x, rules13_15_16_x,
# test_rule_9_x, test_rule09_x.
CITES = re.compile(r"^(?:test_?)?rules?_?(\d+[a-z]?(?:_\d+[a-z]?)*)(?=_|$)", re.IGNORECASE)

# A rule's anchor at the start of its text.
ANCHOR = re.compile(r'^<a id="rule-(\d+[a-z]?)"></a>')
# A citation in prose: "rule 41", "Rule 8b", "rules 65 and 66", "rules 9, 10
# and 12", "rules 68 to 70", "rules 25–29", "rules 31-33, 36". Singular
# "rule" takes one label; "rules" a list of labels and ranges.
_LABEL = r"\d+[a-z]?\b(?![.,]\d)"  # not 10,000 nor 1.5
_ITEM = rf"{_LABEL}(?:\s+to\s+{_LABEL}|\s*[–-]\s*{_LABEL})?"
_SEPARATOR = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+and\s+|\s+or\s+)"
CITATION = re.compile(rf"\b[Rr]ule\s+(?P<one>{_LABEL})"
                      rf"|\b[Rr]ules\s+(?P<many>{_ITEM}(?:{_SEPARATOR}{_ITEM})*)")
RANGE = re.compile(rf"({_LABEL})(?:\s+to\s+|\s*[–-]\s*)({_LABEL})")
# A link to a rule's anchor: "#rule-41", and in Markdown "](path#rule-41)".
FRAGMENT = re.compile(r"#rule-([0-9][0-9a-z]*)\b")  # a label starts with its number ("#rule-N" is prose)
MARKDOWN_LINK = re.compile(r"\]\(([^()\s#]*)#rule-[0-9A-Za-z]+\)")
# Comment leaders at the start of a line, so that a citation broken over
# comment lines reads as one ("(rule\n/// 36)").
COMMENT_LEADER = {".swift": re.compile(r"(?m)^[ \t]*(?:/{2,3}|/?\*+)[ \t]?"),
                  ".h": re.compile(r"(?m)^[ \t]*(?:/{2,3}|/?\*+)[ \t]?"),
                  ".py": re.compile(r"(?m)^[ \t]*#[ \t]?")}

SWIFT_TEST = re.compile(
    r"@Test\b(?:\s*\((?:[^()]|\((?:[^()]|\([^()]*\))*\))*\))?"  # @Test or @Test(…)
    r"(?:\s*@\w+(?:\([^()]*\))?)*"                                # other attributes
    r"(?:\s*(?:static|class|public|internal|private|fileprivate|nonisolated|final|mutating)\b)*"
    r"\s*func\s+(\w+)")
SWIFT_XCTEST = re.compile(r"\bfunc\s+(test\w*)\s*\(")
PYTHON_TEST = re.compile(r"^[ \t]*(?:async[ \t]+)?def[ \t]+(test\w*)[ \t]*\(", re.MULTILINE)
C_REGISTERED = re.compile(r"\bcmocka_unit_test\w*\s*\(\s*(\w+)")
C_DEFINED = r"^[ \t]*(?:static[ \t]+)?void[ \t]+{}[ \t]*\([^)]*\)[ \t]*\{{?[ \t]*$"


def strip_comments(text: str, language: str) -> str:
    """The text without comments (a test commented out is no test)."""
    if language == "Python":
        return re.sub(r"(?m)^[ \t]*#.*$", "", text)
    text = re.sub(r"/\*.*?\*/", lambda m: re.sub(r"[^\n]", " ", m.group()), text, flags=re.DOTALL)
    return re.sub(r"//[^\n]*", "", text)


class TestFiles:
    """The test files and the test functions each defines (read on demand)."""

    def __init__(self) -> None:
        self.files = sorted(p for d in TEST_DIRS if d.is_dir()
                            for p in d.rglob("*") if p.suffix in LANGUAGES and p.is_file())
        self._tests: dict[Path, set[str]] = {}

    def find(self, name: str) -> list[Path]:
        """The files whose path ends with `name` (a file name or a path tail)."""
        tail = tuple(Path(name).parts)
        return [p for p in self.files if p.parts[-len(tail):] == tail]

    def tests(self, path: Path) -> set[str]:
        if path not in self._tests:
            language = LANGUAGES[path.suffix]
            text = strip_comments(path.read_text(encoding="utf-8", errors="replace"), language)
            if language == "Swift":
                found = set(SWIFT_TEST.findall(text))
                if "XCTestCase" in text:
                    found |= set(SWIFT_XCTEST.findall(text))
            elif language == "Python":
                found = set(PYTHON_TEST.findall(text))
            else:
                found = {name for name in C_REGISTERED.findall(text)
                         if re.search(C_DEFINED.format(re.escape(name)), text, re.MULTILINE)}
            self._tests[path] = found
        return self._tests[path]

    def all_tests(self):
        for path in self.files:
            for name in sorted(self.tests(path)):
                yield path, name


def parse_rules(lines: list[str]) -> tuple[list[tuple[str, int, str]], list[str]]:
    """The rules in document order as (label, line, tests text), and problems."""
    rules: list[list] = []  # [label, line number, tests text or None]
    problems: list[str] = []
    in_fence = False
    collecting = False
    for number, line in enumerate(lines, 1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        top, sub = RULE.match(line), SUB_RULE.match(line)
        if top or sub:
            label = top.group(1) if top else sub.group(1) + sub.group(2)
            rules.append([label, number, None])
            anchor = ANCHOR.match(line[(top or sub).end():])
            if not anchor or anchor.group(1) != label:
                problems.append(f'docs/semantics.md:{number}: rule {label} does not start with '
                                f'<a id="rule-{label}"></a>')
            collecting = False
            continue
        if line.startswith("#"):
            collecting = False
            continue
        tests = TESTS.match(line)
        if tests:
            if not rules:
                problems.append(f"docs/semantics.md:{number}: a Tests line before the first rule")
            elif rules[-1][2] is not None:
                problems.append(f"docs/semantics.md:{number}: rule {rules[-1][0]} has two Tests lines")
            else:
                rules[-1][2] = tests.group(1)
                collecting = True
            continue
        if collecting:
            if line.strip():
                rules[-1][2] += " " + line.strip()
            else:
                collecting = False
    return [(label, line, text) for label, line, text in rules], problems


def check_numbering(rules: list[tuple[str, int, str]]) -> list[str]:
    problems = []
    expected = 1
    last_letter = "a"  # rule N is N's first part; its sub-rules are Nb, Nc, …
    for label, line, _ in rules:
        digits, letter = re.fullmatch(r"(\d+)([a-z]?)", label).groups()
        if not letter:
            if int(digits) != expected:
                problems.append(f"docs/semantics.md:{line}: rule {label} where rule {expected} "
                                f"should be (rules are numbered 1..N in order)")
            expected = int(digits) + 1
            last_letter = "a"
        else:
            if int(digits) != expected - 1:
                problems.append(f"docs/semantics.md:{line}: sub-rule {label} is not under rule {digits}")
            elif letter != chr(ord(last_letter) + 1):
                problems.append(f"docs/semantics.md:{line}: sub-rule {label} should be "
                                f"{digits}{chr(ord(last_letter) + 1)}")
            last_letter = letter
    return problems


def check_references(rules, files: TestFiles) -> list[str]:
    problems = []
    for label, line, text in rules:
        where = f"docs/semantics.md:{line}: rule {label}"
        if text is None:
            problems.append(f"{where} has no Tests line")
            continue
        references = REFERENCE.findall(text)
        rest = REFERENCE.sub("", text).replace(",", "").strip().rstrip(".")
        if rest:
            problems.append(f"{where}: Tests line has text outside `file:function` references: {rest!r}")
        if not references:
            problems.append(f"{where} lists no test")
        for reference in references:
            file_name, colon, function = reference.partition(":")
            if not colon or not function or not file_name:
                problems.append(f"{where}: `{reference}` is not `file:function`")
                continue
            if Path(file_name).suffix not in LANGUAGES:
                problems.append(f"{where}: `{reference}`: tests live in .swift, .py or .c files")
                continue
            matches = files.find(file_name)
            if not matches:
                problems.append(f"{where}: `{reference}`: no file {file_name} under "
                                f"Tests/ or bindings/python/tests/")
            elif len(matches) > 1:
                names = ", ".join(str(p.relative_to(ROOT)) for p in matches)
                problems.append(f"{where}: `{reference}`: {file_name} is ambiguous ({names}); "
                                f"give more of its path")
            elif function not in files.tests(matches[0]):
                problems.append(f"{where}: `{reference}`: no test {function} in "
                                f"{matches[0].relative_to(ROOT)}")
    return problems


def check_cited_rules(labels: set[str], files: TestFiles) -> list[str]:
    problems = []
    for path, name in files.all_tests():
        cited = CITES.match(name)
        if not cited:
            continue
        for part in cited.group(1).split("_"):
            label = str(int(re.match(r"\d+", part).group())) + part.lstrip("0123456789").lower()
            if label not in labels:
                problems.append(f"{path.relative_to(ROOT)}: test {name} names rule {label}, "
                                f"which docs/semantics.md does not have")
    return problems


def cited_labels(citation: re.Match) -> list[str]:
    """The labels a citation names, a range's every rule between its ends."""
    if citation.group("one"):
        return [citation.group("one")]
    labels = []
    for item in re.split(_SEPARATOR, citation.group("many")):
        ends = RANGE.fullmatch(item)
        if not ends:
            labels.append(item)
            continue
        first, last = ends.groups()
        if first.isdigit() and last.isdigit() and int(first) <= int(last):
            labels += [str(n) for n in range(int(first), int(last) + 1)]
        else:
            labels += [first, last]
    return labels


def citing_files() -> list[Path]:
    return sorted({p for folder, pattern in CITING for p in (ROOT / folder).glob(pattern)
                   if p.is_file()})


def check_citations(labels: set[str]) -> tuple[list[str], int]:
    """Citations of rules that do not exist, and links to rules that go astray."""
    problems = []
    count = 0
    for path in citing_files():
        name = path.relative_to(ROOT)
        text = path.read_text(encoding="utf-8", errors="replace")
        leader = COMMENT_LEADER.get(path.suffix)
        if leader:
            text = leader.sub("", text)  # the newlines stay: line numbers hold
        found = []  # (offset, label, how it was cited)
        for citation in CITATION.finditer(text):
            found += [(citation.start(), label, " ".join(citation.group().split()))
                      for label in cited_labels(citation)]
        for link in FRAGMENT.finditer(text):
            found.append((link.start(), link.group(1), link.group()))
        seen = set()
        for offset, label, how in found:
            line = text.count("\n", 0, offset) + 1
            label = str(int(re.match(r"\d+", label).group())) + label.lstrip("0123456789")
            count += 1
            if label not in labels and (line, label) not in seen:
                seen.add((line, label))
                problems.append(f"{name}:{line}: \"{how}\" cites rule {label}, "
                                f"which docs/semantics.md does not have")
        if path.suffix == ".md":
            for link in MARKDOWN_LINK.finditer(text):
                target = (path.parent / link.group(1)).resolve() if link.group(1) else path
                if target != DOC:
                    line = text.count("\n", 0, link.start()) + 1
                    problems.append(f"{name}:{line}: a link to a rule's anchor should point at "
                                    f"{os.path.relpath(DOC, path.parent)}, not "
                                    f"{link.group(1) or 'this page'}")
    return problems, count


def main() -> int:
    if not DOC.is_file():
        print(f"check_semantics: {DOC.relative_to(ROOT)} is missing", file=sys.stderr)
        return 1
    rules, problems = parse_rules(DOC.read_text(encoding="utf-8").splitlines())
    if not rules:
        problems.append("docs/semantics.md: no numbered rules found")
    files = TestFiles()
    problems += check_numbering(rules)
    problems += check_references(rules, files)
    labels = {label for label, _, _ in rules}
    problems += check_cited_rules(labels, files)
    citation_problems, citations = check_citations(labels)
    problems += citation_problems
    if problems:
        for problem in problems:
            print(problem, file=sys.stderr)
        print(f"check_semantics: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    count = sum(len(REFERENCE.findall(text)) for _, _, text in rules)
    print(f"check_semantics: ok, {len(rules)} rules, {count} test references, "
          f"{citations} citations of rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
