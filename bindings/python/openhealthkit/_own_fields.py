"""The base of the samples whose types have fields of their own (a
workout, a route, a correlation, a heartbeat series, an audiogram, an
electrocardiogram, a clinical record): one class per kind, each in its
value module, defines

- ``_saved_by``: the ``HealthStore`` method that makes one from its
  fields (``save_workout``);
- ``_read_fields(handle, index)``: its fields read from a batch (through
  ``_marshal``), decoded the first time a sample is asked for them;
- ``_save_call(keep)``: how ``HealthStore.save`` saves it, whether it was
  read from a store or made by ``_made`` (what the ``save_<kind>``
  methods do with their arguments).
"""

from __future__ import annotations

import uuid as uuid_module
from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any, NamedTuple, TypeVar

from .catalogue import SampleType
from .errors import ArgumentTypeError
from .samples import Device, Sample, SampleRecord, Source

OwnT = TypeVar("OwnT", bound="OwnFieldsSample")


class SaveCall(NamedTuple):
    """How a sample with fields of its own is saved: the C function (by
    name: ``ohk_store_save_workout``), its arguments after the sample's
    ``ohk_sample_input`` (what they point at is in the call's `keep`),
    and, for a correlation, its members (samples, or the UUIDs of
    samples in the same save or in the store), which the store passes
    as inputs."""

    function: str
    arguments: tuple[Any, ...] = ()
    members: tuple[Sample | uuid_module.UUID, ...] | None = None


class OwnFieldsSample(Sample):
    """A sample whose type has its own fields: read from a store, they
    are decoded from the batch when first asked for."""

    __slots__ = ()
    _saved_by = "save"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise ArgumentTypeError(f"a {type(self).__name__} is read from a store; save one with "
                                f"HealthStore.{self._saved_by}")

    @classmethod
    def _made(cls: type[OwnT], kind: SampleType, start: datetime, end: datetime, fields: Any, *,
              source: Source | None, device: Device | None, metadata: Mapping[str, Any] | None,
              uuid: uuid_module.UUID | None, creation_date: datetime | None, utc_offset: timedelta | None,
              end_seconds: float | None = None, members: list[Sample] | None = None) -> OwnT:
        """A sample to save, of its own `fields` and what every sample has
        (checked as a QuantitySample's would be). `end_seconds` replaces
        `end` with Unix seconds a datetime cannot hold (a default end
        nudged by the last bits of a float)."""
        sample = object.__new__(cls)
        sample._init(kind, start, end, 0.0, None, source, device, metadata, uuid, 0, creation_date, utc_offset,
                     fields, members)
        if end_seconds is not None:
            record: SampleRecord = sample._r  # type: ignore[assignment]  # made by _init: the long form
            sample._r = (record[0], record[1], end_seconds, *record[3:])
        return sample

    @property
    def value(self) -> float:
        """The number a batch's record holds for it (the C API's ``value``)."""
        return float(self._r[3])

    def _fields(self) -> Any:
        return self._c.part(self._r[0])

    @classmethod
    def _read_fields(cls, handle: Any, index: int) -> Any:
        """Sample `index`'s own fields in the batch `handle`, copied out of it."""
        raise NotImplementedError

    def _save_call(self, keep: list[Any]) -> SaveCall:
        """How to save the sample (its fields' C form kept in `keep`)."""
        raise NotImplementedError
