"""What ``HealthStore.subscriptions()`` lists: each durable subscription's position and lag (rule 62)."""

from __future__ import annotations

import ctypes
import math
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from . import _native as n
from ._enums import Frequency
from .anchor import Anchor


@dataclass(frozen=True, slots=True)
class SubscriptionStatus:
    """A durable subscription as an operator sees it: ``position``
    (everything up to it was acknowledged, also as ``acknowledged``), the
    store's ``head``, ``pending_changes`` (changes of its types committed
    since, its predicates not applied), when it ``last_acknowledged`` a
    delivery (None: never), and its ``lag``: zero when nothing is pending,
    else the time since that acknowledgement (None when it never made one)."""

    name: str
    types: list[str]
    frequency: Frequency
    acknowledged: Anchor
    position: int
    head: int
    pending_changes: int
    last_acknowledged: datetime | None
    lag: timedelta | None

    @classmethod
    def _from(cls, s: n.ohk_subscription_status, frequency: Frequency) -> SubscriptionStatus:
        def seconds(value: float) -> float | None:
            return None if math.isnan(value) else value

        last, lag = seconds(s.last_acknowledged), seconds(s.lag_seconds)
        acknowledged = n.ohk_anchor()  # a copy: the library frees the array
        ctypes.memmove(ctypes.byref(acknowledged), ctypes.byref(s.acknowledged), ctypes.sizeof(n.ohk_anchor))
        return cls(name=(s.name or b"").decode("utf-8"),
                   types=[s.types[i].decode("utf-8") for i in range(s.type_count)],
                   frequency=frequency, acknowledged=Anchor(acknowledged), position=s.position, head=s.head,
                   pending_changes=s.pending_changes,
                   last_acknowledged=None if last is None else datetime.fromtimestamp(last, timezone.utc),
                   lag=None if lag is None else timedelta(seconds=lag))

