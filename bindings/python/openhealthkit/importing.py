"""Importing the Health app's export: the importer of ``ohk import``, from Python."""

from __future__ import annotations

import ctypes
import os
from dataclasses import dataclass
from typing import Callable

from . import _native as n
from ._handles import store_handle
from .errors import ArgumentTypeError, CancelledByCallerError, ImportDamagedError, Status, error_for
from .store import HealthStore


@dataclass(frozen=True, slots=True)
class ImportProgress:
    """Where an import is: bytes of the file read out of ``bytes_total``
    (compressed bytes for a zip), records read, samples added so far."""

    bytes_read: int
    bytes_total: int
    records: int
    added: int


@dataclass(frozen=True, slots=True)
class ImportRow:
    """A kind of element or file of the export: how many it holds, how many
    are imported (by this run or an earlier one), and why the rest are not."""

    kind: str
    count: int
    imported: int
    note: str


@dataclass(frozen=True, slots=True)
class ImportSkip:
    """Records that are not samples for one reason, and the first XML line where it was met."""

    reason: str
    count: int
    first_line: int


@dataclass(frozen=True, slots=True)
class ImportReport:
    """What an import did. ``contents`` has a row for every kind of element
    and file of the export: nothing is dropped without a word."""

    records: int
    added: int
    already_stored: int
    replaced: int
    older_versions: int
    skipped: int
    bytes_read: int
    xml_bytes: int
    export_xml: str | None
    contents: list[ImportRow]
    skips: list[ImportSkip]
    warnings: list[str]
    #: Why the import stopped early (what came before was imported), or None.
    failure: str | None


def import_export(path: str | os.PathLike[str], store: HealthStore, *,
                  progress: Callable[[ImportProgress], object] | None = None) -> ImportReport:
    """Imports an Apple Health export into ``store``: ``path`` is the
    export's zip, its unzipped folder, or its XML, under any name.

    The same importer as ``ohk import``: one streaming pass in constant
    memory, idempotent (records already stored are skipped), saved in
    batches that are each all or nothing, so an interrupted import resumes
    by running it again. ``progress`` is called with an ``ImportProgress``
    after each chunk of XML; returning ``False`` from it stops the import
    (``CancelledByCallerError``), and so does an exception it raises, which is then
    raised here (Ctrl-C included). Each sample keeps the record's creation
    date and UTC offset (rule 24).

    Raises ``ImportInputError`` (cannot open, not an export),
    ``UnavailableError`` (libexpat, libarchive or libcrypto missing),
    ``ImportDamagedError`` (cut short or damaged: what came before was
    imported; ``error.report`` says what) and the store's errors.
    """
    if not isinstance(store, HealthStore):
        raise ArgumentTypeError(f"store must be a HealthStore, not {type(store).__name__}")
    if not isinstance(path, (str, os.PathLike)):
        raise ArgumentTypeError(f"path must be a str or a path, not {type(path).__name__}")
    if progress is not None and not callable(progress):
        raise ArgumentTypeError(f"progress must be callable or None, not {type(progress).__name__}")
    encoded = n.encode(os.path.expanduser(os.fspath(path)), "path")
    raised: list[BaseException] = []

    def on_progress(bytes_read: int, bytes_total: int, records: int, added: int, _: object) -> int:
        # Always installed, so that Ctrl-C reaches Python during a long import.
        if raised:
            return 1
        try:
            if progress is not None and progress(ImportProgress(bytes_read, bytes_total, records, added)) is False:
                return 1
        except BaseException as error:  # noqa: BLE001 - re-raised once the import has stopped
            raised.append(error)
            return 1
        return 0

    callback = n.ohk_import_progress_fn(on_progress)
    pointer = ctypes.POINTER(n.ohk_import_report)()
    status = n.lib.ohk_store_import(ctypes.byref(pointer), store_handle(store), encoded, callback, None)
    try:
        report = _report(pointer.contents)
    finally:
        n.lib.ohk_import_report_free(pointer)
    if raised:
        raise raised[0]
    if status != Status.OK:
        error = error_for(status, report.failure or n.last_error())
        assert isinstance(error, (ImportDamagedError, CancelledByCallerError))
        error.report = report
        raise error
    return report


def _text(value: bytes | None) -> str | None:
    return None if value is None else value.decode("utf-8", "replace")


def _report(r: n.ohk_import_report) -> ImportReport:
    return ImportReport(
        records=r.records, added=r.added, already_stored=r.already_stored, replaced=r.replaced,
        older_versions=r.older_versions, skipped=r.skipped, bytes_read=r.bytes_read, xml_bytes=r.xml_bytes,
        export_xml=_text(r.export_xml),
        contents=[ImportRow(_text(row.kind) or "", row.count, row.imported, _text(row.note) or "")
                  for row in r.contents[:r.content_count]],
        skips=[ImportSkip(_text(s.reason) or "", s.count, s.first_line) for s in r.skips[:r.skip_count]],
        warnings=[_text(w) or "" for w in r.warnings[:r.warning_count]],
        failure=_text(r.failure_message),
    )
