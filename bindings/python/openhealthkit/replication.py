"""What ``HealthStore.sync_from`` answers: replication between stores (rules 68-70, docs/sync.md)."""

from __future__ import annotations

from dataclasses import dataclass

from . import _native as n
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
