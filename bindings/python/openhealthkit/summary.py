"""What a store holds, type by type: what ``ohk stats`` prints, for Python
(``HealthStore.summary``)."""

from __future__ import annotations

import ctypes
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from . import _native as n
from ._checks import optional_numpy, pandas_module
from ._convert import utc_datetime
from .anchor import Anchor
from .catalogue import sample_type

if TYPE_CHECKING:
    from ._store_queries import Queries


@dataclass(frozen=True, slots=True)
class TypeSummary:
    """One type: its live samples, the deleted objects the store retains,
    and, with ``spans=True``, its first start, last end and sources' names."""

    type: str
    samples: int
    deleted_objects: int
    first: datetime | None = None
    last: datetime | None = None
    sources: list[str] = field(default_factory=list)


class StoreSummary(list[TypeSummary]):
    """Every type the store has held a sample of, by identifier, and the
    anchor of the moment it was read (``changes since`` start there)."""

    anchor: Anchor

    @property
    def samples(self) -> int:
        return sum(t.samples for t in self)

    @property
    def deleted_objects(self) -> int:
        return sum(t.deleted_objects for t in self)

    def to_pandas(self) -> Any:
        """A DataFrame indexed by the types' short names. Needs pandas."""
        pd = pandas_module()
        names = []
        for t in self:
            try:
                names.append(sample_type(t.type).short_name)
            except KeyError:  # a store's own type
                names.append(t.type)
        return pd.DataFrame({"samples": [t.samples for t in self], "deleted_objects": [t.deleted_objects for t in self],
                             "first": pd.to_datetime([t.first for t in self], utc=True),
                             "last": pd.to_datetime([t.last for t in self], utc=True),
                             "sources": [", ".join(t.sources) for t in self]},
                            index=pd.Index(names, name="type"))


def _span(store: Queries, identifier: str) -> tuple[datetime | None, datetime | None, list[str]]:
    """A type's first start, last end and source names: from NumPy columns
    when NumPy is there, else from the samples."""
    if optional_numpy() is None:
        found = store.query(identifier).samples
        if not len(found):
            return None, None, []
        return (min(s.start_date for s in found), max(s.end_date for s in found),
                sorted({s.source.name for s in found if s.source is not None}))
    columns = store.query_columns(identifier).samples
    if not len(columns):
        return None, None, []
    first, last = columns.start.min(), columns.end.max()
    return (utc_datetime(first.astype("int64") / 1e6), utc_datetime(last.astype("int64") / 1e6),
            sorted({columns.sources[k].name for k in set(columns.source.tolist())}))


def summary(store: Queries, handle: Any, spans: bool) -> StoreSummary:
    """What HealthStore.summary returns, of `store`, whose handle is `handle`."""
    # Read before the counts: changes from it on include any made meanwhile.
    anchor = store.current_anchor()
    counts = ctypes.POINTER(n.ohk_store_type_count)()
    count = ctypes.c_uint64()
    n.lib.ohk_store_type_counts(ctypes.byref(counts), ctypes.byref(count), handle)
    try:
        rows = [(counts[i].type.decode("utf-8"), int(counts[i].samples), int(counts[i].deleted_objects))
                for i in range(count.value)]
    finally:
        n.lib.ohk_store_type_counts_free(counts, count.value)
    out = StoreSummary()
    out.anchor = anchor
    for identifier, samples, deleted in rows:
        first = last = None
        sources: list[str] = []
        if spans and samples:
            first, last, sources = _span(store, identifier)
        out.append(TypeSummary(identifier, samples, deleted, first, last, sources))
    return out
