"""The base of the samples whose types have fields of their own (a
workout, a route, a correlation, a heartbeat series, an audiogram, an
electrocardiogram, a clinical record): one class per kind, each in its
value module, defines

- ``_saved_by``: the ``HealthStore`` method that makes one from its
  fields (``save_workout``);
- ``_read_fields(handle, index)``: its fields read from a batch (through
  ``_marshal``), decoded the first time a sample is asked for them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .errors import ArgumentTypeError
from .samples import Sample

if TYPE_CHECKING:
    from .batch import BatchContext


class OwnFieldsSample(Sample):
    """A sample read from a store whose type has its own fields, decoded
    from the batch when first asked for."""

    __slots__ = ()
    _c: BatchContext  # read from a store: never an _Unsaved
    _saved_by = "save"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise ArgumentTypeError(f"a {type(self).__name__} is read from a store; save one with "
                                f"HealthStore.{self._saved_by}")

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
