"""What ``HealthStore.apply`` answers: a receiver's batch, counted (rule 63)."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

from . import _native as n
from .anchor import Anchor


@dataclass(frozen=True, slots=True)
class ApplyResult:
    """What ``apply`` did: samples ``added`` (``replaced`` of them took an
    older sync version's place), ``already_stored`` (same UUID, same
    content), ``older_versions`` (a newer sync version is stored),
    ``deleted_before`` (their UUID was deleted, here or before they came);
    stored samples ``deleted``, deletions ``already_deleted``, deletions
    ``deleted_before_arrival`` (UUIDs never held, kept so a late upload is
    skipped); and the store's ``anchor`` after the call."""

    added: int
    replaced: int
    already_stored: int
    older_versions: int
    deleted_before: int
    deleted: int
    already_deleted: int
    deleted_before_arrival: int
    anchor: Anchor

    @classmethod
    def _from(cls, o: n.ohk_apply_outcome) -> ApplyResult:
        anchor = n.ohk_anchor()
        ctypes.memmove(ctypes.byref(anchor), ctypes.byref(o.anchor), ctypes.sizeof(n.ohk_anchor))
        return cls(o.added, o.replaced, o.already_stored, o.older_versions, o.deleted_before, o.deleted,
                   o.already_deleted, o.deleted_before_arrival, Anchor(anchor))
