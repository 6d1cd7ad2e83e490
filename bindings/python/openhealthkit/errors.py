"""Exceptions: one class per C status code, each carrying the library's message.

Every failing call raises a subclass of :class:`OpenHealthKitError`; its
``status`` is the C status (``OHK_ERR_...``) and ``str(error)`` is the
library's message naming what was wrong. Classes also derive from the
built-in exception a Python user would expect (``ValueError`` for bad input,
``KeyError`` for unknown names, ``OSError`` for storage failures), so
``except ValueError`` keeps working.
"""

from __future__ import annotations

import warnings

from ._enums import Status as Status  # re-exported: the modules that check statuses take it from here

__all__ = [
    "OpenHealthKitError", "InvalidArgumentError", "UnknownTypeError", "InvalidUnitError",
    "IncompatibleUnitError", "InvalidValueError", "InvalidDateRangeError", "DuplicateUUIDError",
    "NotFoundError", "AnchorError", "AnchorWrongStoreError", "AnchorCorruptError",
    "AnchorFromFutureError", "AnchorExpiredError", "StoreFormatError", "StoreFormatTooNewError",
    "StoreFormatTooOldError", "StorageError", "StoreCorruptError", "ClosedError", "InvalidPredicateError",
    "InvalidMetadataError", "BufferTooSmallError", "CallbackError", "ImportInputError",
    "ImportDamagedError", "UnavailableError", "CancelledByCallerError", "ArgumentTypeError",
    "SinkError", "SinkConnectError", "SinkConnectionLostError", "SinkFencedError", "SinkRefusedError",
    "SinkCheckpointError", "ReadOnlyError", "SyncError", "SyncCheckpointError", "SyncBusyError",
]


class OpenHealthKitError(Exception):
    """Base of every error the library reports.

    ``status`` is the C status code and ``status_name`` its name
    (``"OHK_ERR_UNKNOWN_TYPE"``); ``message`` is the library's text.
    """

    status: int = Status.OK  # the bases and CallbackError: no status of their own
    status_name: str = "OHK_ERR_UNKNOWN"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:  # KeyError would otherwise repr() the message
        return self.message


class InvalidArgumentError(OpenHealthKitError, ValueError):
    """A bad argument: a wrong handle, a bad length, an unknown option."""
    status, status_name = Status.ERR_INVALID_ARGUMENT, "OHK_ERR_INVALID_ARGUMENT"


class ArgumentTypeError(OpenHealthKitError, TypeError):
    """An argument of the wrong Python type (a str where a datetime goes);
    also a ``TypeError``, with the C status of a bad argument."""
    status, status_name = Status.ERR_INVALID_ARGUMENT, "OHK_ERR_INVALID_ARGUMENT"


class UnknownTypeError(OpenHealthKitError, KeyError):
    """Not a HealthKit identifier nor a custom type registered in the store."""
    status, status_name = Status.ERR_UNKNOWN_TYPE, "OHK_ERR_UNKNOWN_TYPE"


class InvalidUnitError(OpenHealthKitError, ValueError):
    """Unit text that does not parse; the message says where."""
    status, status_name = Status.ERR_INVALID_UNIT, "OHK_ERR_INVALID_UNIT"


class IncompatibleUnitError(OpenHealthKitError, ValueError):
    """Units of different dimensions, or a unit that does not fit the type."""
    status, status_name = Status.ERR_INCOMPATIBLE_UNIT, "OHK_ERR_INCOMPATIBLE_UNIT"


class InvalidValueError(OpenHealthKitError, ValueError):
    """NaN, an infinity, or a category value outside the type's set."""
    status, status_name = Status.ERR_INVALID_VALUE, "OHK_ERR_INVALID_VALUE"


class InvalidDateRangeError(OpenHealthKitError, ValueError):
    """An end before its start, or a time outside years 1 to 9999."""
    status, status_name = Status.ERR_INVALID_DATE_RANGE, "OHK_ERR_INVALID_DATE_RANGE"


class DuplicateUUIDError(OpenHealthKitError, ValueError):
    """A sample's UUID is already used in this store."""
    status, status_name = Status.ERR_DUPLICATE_UUID, "OHK_ERR_DUPLICATE_UUID"


class NotFoundError(OpenHealthKitError, KeyError):
    """No such object, name or subscription."""
    status, status_name = Status.ERR_NOT_FOUND, "OHK_ERR_NOT_FOUND"


class AnchorError(OpenHealthKitError, ValueError):
    """Base of the four ways an anchor can be refused (rule 2, docs/semantics.md)."""


class AnchorWrongStoreError(AnchorError):
    """The anchor was handed out by another store."""
    status, status_name = Status.ERR_ANCHOR_WRONG_STORE, "OHK_ERR_ANCHOR_WRONG_STORE"


class AnchorCorruptError(AnchorError):
    """Anchor bytes or text that do not decode."""
    status, status_name = Status.ERR_ANCHOR_CORRUPT, "OHK_ERR_ANCHOR_CORRUPT"


class AnchorFromFutureError(AnchorError):
    """The anchor is past the store's head."""
    status, status_name = Status.ERR_ANCHOR_FROM_FUTURE, "OHK_ERR_ANCHOR_FROM_FUTURE"


class AnchorExpiredError(AnchorError):
    """Deleted objects after the anchor were pruned: re-read from no anchor."""
    status, status_name = Status.ERR_ANCHOR_EXPIRED, "OHK_ERR_ANCHOR_EXPIRED"


class StoreFormatError(OpenHealthKitError, OSError):
    """The store directory holds a store of another format."""


class StoreFormatTooNewError(StoreFormatError):
    """The store was written by a newer version of the library."""
    status, status_name = Status.ERR_STORE_FORMAT_TOO_NEW, "OHK_ERR_STORE_FORMAT_TOO_NEW"


class StoreFormatTooOldError(StoreFormatError):
    """The store was written in a format this version no longer reads."""
    status, status_name = Status.ERR_STORE_FORMAT_TOO_OLD, "OHK_ERR_STORE_FORMAT_TOO_OLD"


class StorageError(OpenHealthKitError, OSError):
    """LMDB or the file system failed."""
    status, status_name = Status.ERR_STORAGE, "OHK_ERR_STORAGE"


class ClosedError(OpenHealthKitError, ValueError):
    """The store is closed, or the query or predicate was closed or freed."""
    status, status_name = Status.ERR_CLOSED, "OHK_ERR_CLOSED"


class InvalidPredicateError(OpenHealthKitError, ValueError):
    """Predicate text that does not parse (with its position), or a term that does not apply."""
    status, status_name = Status.ERR_INVALID_PREDICATE, "OHK_ERR_INVALID_PREDICATE"


class InvalidMetadataError(OpenHealthKitError, ValueError):
    """A metadata key or value the store does not accept."""
    status, status_name = Status.ERR_INVALID_METADATA, "OHK_ERR_INVALID_METADATA"


class BufferTooSmallError(OpenHealthKitError, ValueError):
    """A buffer passed to the C library was too small (a bug in the binding if seen)."""
    status, status_name = Status.ERR_BUFFER_TOO_SMALL, "OHK_ERR_BUFFER_TOO_SMALL"


class StoreCorruptError(OpenHealthKitError, OSError):
    """The store's file is damaged: ``HealthStore.verify()`` (or ``ohk check``) tells what."""
    status, status_name = Status.ERR_STORE_CORRUPT, "OHK_ERR_STORE_CORRUPT"


class ImportInputError(OpenHealthKitError, OSError):
    """The file given to ``import_export`` cannot be opened, or is not an
    Apple Health export (the message lists what the zip or folder holds)."""
    status, status_name = Status.ERR_IMPORT_INPUT, "OHK_ERR_IMPORT_INPUT"


class ImportDamagedError(OpenHealthKitError, ValueError):
    """The export is cut short or damaged past some point; what came before
    was imported, and ``report`` (an ``ImportReport``) says what."""
    status, status_name = Status.ERR_IMPORT_DAMAGED, "OHK_ERR_IMPORT_DAMAGED"
    report: object = None


class UnavailableError(OpenHealthKitError, OSError):
    """A library the call needs is not installed (the message names it and
    its package): importing opens libexpat, libarchive and libcrypto."""
    status, status_name = Status.ERR_UNAVAILABLE, "OHK_ERR_UNAVAILABLE"


class CancelledByCallerError(OpenHealthKitError):
    """The caller stopped the call (an import's progress callback); what
    was done before is kept, and ``report`` says what. (Named so as not to
    shadow ``asyncio.CancelledError``; it was ``CancelledError`` before
    0.23.)"""
    status, status_name = Status.ERR_CANCELLED, "OHK_ERR_CANCELLED"
    report: object = None


class SinkError(OpenHealthKitError):
    """Base of the ways a PostgreSQL sink stops (docs/postgres.md); what it
    committed stays, and a new sink resumes after it."""


class SinkConnectError(SinkError, ConnectionError):
    """The server is unreachable, refused the credentials, or has no such
    database (the message names the URL without its password)."""
    status, status_name = Status.ERR_SINK_CONNECT, "OHK_ERR_SINK_CONNECT"


class SinkConnectionLostError(SinkError, ConnectionError):
    """The connection broke during a delivery (a server restart); call
    again, or open a new sink: it resumes from PostgreSQL's checkpoint."""
    status, status_name = Status.ERR_SINK_CONNECTION_LOST, "OHK_ERR_SINK_CONNECTION_LOST"


class SinkFencedError(SinkError):
    """A newer sink of the same name and person took over; this one's
    last batch was rolled back."""
    status, status_name = Status.ERR_SINK_FENCED, "OHK_ERR_SINK_FENCED"


class SinkRefusedError(SinkError, ValueError):
    """PostgreSQL refused a statement or a row (the message names the
    sample and column); the batch was rolled back."""
    status, status_name = Status.ERR_SINK_REFUSED, "OHK_ERR_SINK_REFUSED"


class SinkCheckpointError(SinkError, ValueError):
    """The checkpoint does not fit this store: fed by another store,
    pruned past, or ahead of it."""
    status, status_name = Status.ERR_SINK_CHECKPOINT, "OHK_ERR_SINK_CHECKPOINT"


class ReadOnlyError(OpenHealthKitError, PermissionError):
    """A write through a store opened with ``read_only=True`` (rule 64), or
    a writable open in a process that has the store open read-only."""
    status, status_name = Status.ERR_READ_ONLY, "OHK_ERR_READ_ONLY"


class SyncError(OpenHealthKitError):
    """Base of the errors of ``HealthStore.sync_from`` (rule 69)."""


class SyncCheckpointError(SyncError, ValueError):
    """The sync's checkpoint does not fit its source: another store now at
    its place, deletions pruned past it, a source behind it, or other
    types. ``from_scratch=True`` copies the source in full."""
    status, status_name = Status.ERR_SYNC_CHECKPOINT, "OHK_ERR_SYNC_CHECKPOINT"


class SyncBusyError(SyncError):
    """Another sync of the same name moved the checkpoint while this one
    ran; nothing of its batch was written. Run it again."""
    status, status_name = Status.ERR_SYNC_BUSY, "OHK_ERR_SYNC_BUSY"


class CallbackError(OpenHealthKitError):
    """A query's callback raised; the query stopped. ``__cause__`` is what it raised."""


_BY_STATUS: dict[int, type[OpenHealthKitError]] = {
    cls.status: cls
    for cls in (
        InvalidArgumentError, UnknownTypeError, InvalidUnitError, IncompatibleUnitError,
        InvalidValueError, InvalidDateRangeError, DuplicateUUIDError, NotFoundError,
        AnchorWrongStoreError, AnchorCorruptError, AnchorFromFutureError, AnchorExpiredError,
        StoreFormatTooNewError, StoreFormatTooOldError, StorageError, ClosedError,
        InvalidPredicateError, InvalidMetadataError, BufferTooSmallError, StoreCorruptError,
        ImportInputError, ImportDamagedError, UnavailableError, CancelledByCallerError,
        SinkConnectError, SinkConnectionLostError, SinkFencedError, SinkRefusedError, SinkCheckpointError,
        ReadOnlyError, SyncCheckpointError, SyncBusyError,
    )
}


def error_for(status: int, message: str) -> OpenHealthKitError:
    """The exception for a C status code (an unknown code gives the base class)."""
    cls = _BY_STATUS.get(status)
    if cls is None:
        error = OpenHealthKitError(message)
        error.status = status
        return error
    return cls(message)


def __getattr__(name: str) -> object:
    # The old name, for one version, without putting it in __all__ (where
    # a star import would shadow asyncio's).
    if name == "CancelledError":
        warnings.warn("openhealthkit.CancelledError is now CancelledByCallerError", DeprecationWarning, stacklevel=2)
        return CancelledByCallerError
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
