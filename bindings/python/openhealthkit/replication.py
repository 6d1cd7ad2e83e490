"""What ``HealthStore.sync_from`` answers: replication between stores (rules 68-70, docs/sync.md)."""

from __future__ import annotations

import ctypes
import os
from collections.abc import Iterable
from dataclasses import dataclass

from . import _native as n
from .errors import InvalidArgumentError
from .receiving import ApplyResult


@dataclass(frozen=True, slots=True)
class LiveDigest:
    """A store's live digest (rule 68): ``count`` live samples, and the
    128-bit sum of a hash of each one's UUID and sync version, as
    ``value``. Equal digests: the same live samples."""

    count: int
    value: int

    @classmethod
    def _from(cls, d: n.ohk_live_digest) -> LiveDigest:
        return cls(d.count, (d.high << 64) | d.low)


@dataclass(frozen=True, slots=True)
class SyncReport:
    """What one ``sync_from`` did: what the destination did with the
    changes (``applied``, summed over its transactions; its ``anchor`` is
    the destination's after the run), the changes read, the source
    ``position`` the checkpoint now stands at, the UUIDs found in conflict
    in this run (count; ``sync_conflicts()`` lists them), whether the
    received changes rebuild the source's live digest (``verified``), and
    whether the two stores now hold the same live samples with no conflict
    standing (``converged``)."""

    applied: ApplyResult
    changes_read: int
    position: int
    new_conflicts: int
    verified: bool
    converged: bool
    source_digest: LiveDigest
    received_digest: LiveDigest

    @classmethod
    def _from(cls, r: n.ohk_sync_report) -> SyncReport:
        return cls(ApplyResult._from(r.applied), r.changes_read, r.position, r.new_conflicts, bool(r.verified),
                   bool(r.converged), LiveDigest._from(r.source_digest), LiveDigest._from(r.received_digest))


def sync(source: str | os.PathLike[str], dest: str | os.PathLike[str], *, token: str | None = None,
         name: str = "default", types: Iterable[str] | None = None, from_scratch: bool = False,
         batch_size: int = 20_000) -> SyncReport:
    """``ohk sync SOURCE DEST`` (rule 69, docs/sync.md): each side a store
    directory (``dest`` is created when missing) or a person's store on
    ``ohk serve``, ``http(s)://HOST:PORT/v1/people/PERSON``, reached with
    the bearer ``token``. As ``HealthStore.sync_from`` otherwise; a server
    that cannot be reached or refuses the token is ``InvalidArgumentError``
    with the server's words."""
    names = None if types is None else [types] if isinstance(types, str) else list(types)
    options, _keep = sync_options(name, names, from_scratch, batch_size)
    report = n.ohk_sync_report()
    n.lib.ohk_sync(ctypes.byref(report), n.encode(os.fspath(source), "source"), n.encode(os.fspath(dest), "dest"),
                   None if token is None else n.encode(token, "token"), ctypes.byref(options))
    return SyncReport._from(report)


def sync_options(name: str, types: list[str] | None, from_scratch: bool,
                 batch_size: int) -> tuple[n.ohk_sync_options, object]:
    """The C options of a sync, and what must live as long as they do."""
    if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
        raise InvalidArgumentError(f"batch_size must be a positive int, got {batch_size!r}")
    options = n.ohk_sync_options()
    n.lib.ohk_sync_options_init(ctypes.byref(options), n.SYNC_OPTIONS_VERSION)
    options.name = n.encode(name, "name")
    names = [n.encode(t, "type") for t in types or []]
    array = (ctypes.c_char_p * max(1, len(names)))(*names)
    if types is not None:
        options.types = ctypes.cast(array, ctypes.POINTER(ctypes.c_char_p))
        options.type_count = len(names)
    options.from_scratch = bool(from_scratch)
    options.batch_size = batch_size
    return options, array
