"""HealthStore: a store of health samples in one directory.

The façade is composed of parts, each a module of its own:
``_store_core`` (opening, closing, types), ``_store_queries`` (queries,
subscriptions), ``_store_saving`` (saves and deletions) and
``_store_analysis`` (statistics, summaries); here are the rest and the
class itself."""

from __future__ import annotations

import ctypes
import uuid as uuid_module
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime

from ._enums import Frequency as Frequency, SaveResult as SaveResult  # defined once, in api/enums.toml
from . import _native as n, hooks
from ._convert import as_list, unix_time
from ._handles import store_handle
from ._store_analysis import Analysis
from .catalogue import SampleType
from .characteristics import Characteristics
from .errors import ArgumentTypeError, BufferTooSmallError
from .hooks import CommitHook
from .predicate import QueryDescriptor as QueryDescriptor, Types as Types
from .replication import LiveDigest, SyncReport, sync_options
from .samples import DEFAULT_SOURCE as DEFAULT_SOURCE, SaveOutcome as SaveOutcome


@dataclass(frozen=True)
class VerifyReport:
    """What ``HealthStore.verify()`` found."""

    #: Samples and deleted objects read, over every type.
    samples: int
    deleted_objects: int
    #: One line per problem (the first 100, then a line counting the rest).
    problems: list[str]

    @property
    def ok(self) -> bool:
        """Whether nothing was found."""
        return not self.problems


class HealthStore(Analysis):
    """A store of health samples in `path` (created when missing).

    ``with HealthStore("/var/lib/app/health") as store: ...`` closes it on
    exit; ``close()`` stops its running queries first. A store may be used
    from many threads at once. Running queries keep the store alive until
    they are closed or the store is.
    """

    def characteristics(self) -> Characteristics:
        """The person's characteristics (rule 38): HealthKit's
        ``dateOfBirthComponents()``, ``biologicalSex()``, ``bloodType()``,
        ``fitzpatrickSkinType()`` and ``wheelchairUse()`` in one value;
        each not set (None or ``NOT_SET``) until an import of an export's
        ``<Me>`` or ``set_characteristics`` sets it."""
        out = n.ohk_characteristics()
        n.lib.ohk_store_characteristics(out, self._handle)
        return Characteristics._from_struct(out)

    def set_characteristics(self, characteristics: Characteristics) -> None:
        """Replaces the store's characteristics, in one transaction.
        InvalidValueError for a value HealthKit does not have."""
        if not isinstance(characteristics, Characteristics):
            raise ArgumentTypeError(f"characteristics must be Characteristics, not {type(characteristics).__name__}")
        n.lib.ohk_store_set_characteristics(self._handle, characteristics._to_struct())

    def set_commit_hook(self, hook: CommitHook | None) -> None:
        """Calls ``hook(types, anchor)`` after each commit made through this
        store that saved or deleted samples: the identifiers of the types
        it changed, and the store's anchor right after it (SQLite's commit
        hook). It runs on the saving thread, after the commit is durable,
        before ``save`` or ``delete`` returns, and may call the store
        (a save from inside it calls it again). Failed writes, prunes and
        other processes' commits do not call it (``observe`` hears those).
        A new hook replaces the old one; ``None`` removes it, and so does
        ``close()``. An exception it raises goes to ``sys.unraisablehook``;
        the commit stands."""
        if hook is None:
            n.lib.ohk_store_set_commit_hook(self._handle, n.ohk_commit_fn(), None, n.ohk_destroy_fn())
            return
        if not callable(hook):
            raise ArgumentTypeError(f"hook must be callable or None, not {hook!r}")
        # On failure the library runs the destroy callback, which forgets the key.
        n.lib.ohk_store_set_commit_hook(self._handle, hooks.on_commit, hooks.register(hook),
                                        hooks.on_destroy)

    def sync_from(self, source: HealthStore, *, name: str = "default",
                  types: str | SampleType | Iterable[str | SampleType] | None = None,
                  from_scratch: bool = False, batch_size: int = 20_000) -> SyncReport:
        """Copies every change of ``source`` since this store's checkpoint
        for it (its store id and ``name``) into this store, up to the
        source's head (rule 69, docs/sync.md): each batch of ``batch_size``
        changes is one transaction that also writes the checkpoint, so a
        sync stopped at any moment resumes where it stood. Run it again, or
        both ways, to keep stores alike (rule 70: a deletion wins, the
        higher sync version wins, a UUID with other content is a conflict
        left alone). ``types`` limits it to those types (a checkpoint keeps
        the types it started with). ``SyncCheckpointError`` when the
        checkpoint no longer fits the source (``from_scratch=True`` copies
        it in full); ``SyncBusyError`` when another sync of the same name
        ran meanwhile; ``InvalidArgumentError`` for the same store twice."""
        if not isinstance(source, HealthStore):
            raise ArgumentTypeError(f"source must be a HealthStore, not {type(source).__name__}")
        names = None if types is None else [source.sample_type(t).identifier
                                            for t in as_list(types, "types", (str, SampleType), "a type")]
        options, _keep = sync_options(name, names, from_scratch, batch_size)
        report = n.ohk_sync_report()
        n.lib.ohk_store_sync(ctypes.byref(report), self._handle, store_handle(source), ctypes.byref(options))
        return SyncReport._from(report)

    def live_digest(self, type: str | SampleType | None = None) -> LiveDigest:
        """The live digest (rule 68) of ``type``, or of every type summed:
        two stores with equal digests hold the same live samples."""
        digest = n.ohk_live_digest()
        n.lib.ohk_store_live_digest(ctypes.byref(digest), self._handle,
                                    None if type is None else n.encode(self.sample_type(type).identifier, "type"))
        return LiveDigest._from(digest)

    def sync_conflicts(self) -> list[uuid_module.UUID]:
        """The UUIDs a sync found with other content here than in its source (rule 70)."""
        count = ctypes.c_uint64()
        try:
            n.lib.ohk_store_sync_conflicts(ctypes.byref(count), self._handle, None, 0)
            return []
        except BufferTooSmallError:
            pass
        room = count.value
        buffer = ctypes.create_string_buffer(16 * room)
        n.lib.ohk_store_sync_conflicts(ctypes.byref(count), self._handle, buffer, room)
        return [uuid_module.UUID(bytes=buffer.raw[16 * i:16 * i + 16]) for i in range(count.value)]

    def prune(self, deleted_before: datetime) -> int:
        """Drops deleted objects deleted before the moment (rule 16); anchors
        older than the newest one dropped then expire. Returns how many."""
        pruned = ctypes.c_uint64()
        n.lib.ohk_store_prune(pruned, self._handle, unix_time(deleted_before, "deleted_before"))
        return pruned.value

    def prune_all(self) -> int:
        """Drops every deleted object; returns how many."""
        pruned = ctypes.c_uint64()
        n.lib.ohk_store_prune_all(pruned, self._handle)
        return pruned.value

    def verify(self) -> VerifyReport:
        """Checks the whole store, like SQLite's ``PRAGMA integrity_check``:
        LMDB's pages first (read without LMDB, which trusts them), then every
        record, index entry, deletion, sync identifier, workout link and
        subscription against each other, and the maintained statistics and
        small tables against their checks; each problem names the tree, the
        key and what disagrees, the same list as C's ``ohk_store_verify``.
        It repairs nothing and raises nothing for what it finds: the report
        lists the problems (rule 23, docs/semantics.md).
        One read transaction over the whole store; writers go on meanwhile."""
        samples, deleted = ctypes.c_uint64(), ctypes.c_uint64()
        text = n.OWNED_STRING()
        # Problems found come back as ERR_STORE_CORRUPT, not raised (n.ALLOWED_STATUSES).
        n.lib.ohk_store_verify(samples, deleted, ctypes.byref(text), self._handle)
        problems: list[str] = []
        if text:
            try:
                problems = ctypes.string_at(text).decode("utf-8", "replace").split("\n")
            finally:
                n.lib.ohk_string_free(text)
        return VerifyReport(samples.value, deleted.value, problems)


__all__ = ["HealthStore", "QueryDescriptor", "SaveOutcome", "SaveResult", "Frequency",
           "DEFAULT_SOURCE", "VerifyReport"]
