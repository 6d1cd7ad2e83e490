"""Predicates: which samples a query or a deletion is about."""

from __future__ import annotations

import ctypes
from collections.abc import Iterable
from datetime import datetime
from dataclasses import dataclass
from typing import Any, Union

from . import _native as n
from ._convert import ValueArena, as_list, finite, int64, unix_time, uuid_bytes
from .catalogue import SampleType
from .errors import ArgumentTypeError, InvalidArgumentError

_OPERATORS = {"==": 0, "!=": 1, "<": 2, "<=": 3, ">": 4, ">=": 5}


def _operator(op: str) -> int:
    try:
        return _OPERATORS[op]
    except (KeyError, TypeError):
        raise InvalidArgumentError(f"unknown comparison {op!r}; use one of {', '.join(_OPERATORS)}") from None


class Predicate:
    """A predicate the store evaluates (docs/predicates.md).

    From text with ``$n`` parameters, so values are never spliced in:
    ``Predicate("startDate >= $1 AND source == $2", since, "com.example.app")``.
    Or built: ``Predicate.date_range(start, end)``, ``Predicate.quantity(">", 100, "count")``,
    combined with ``&``, ``|`` and ``~``. ``str(p)`` is its canonical text.
    """

    __slots__ = ("_handle", "__weakref__")
    _handle: ctypes._Pointer[n.ohk_predicate] | None  # None once freed (__del__)

    def __init__(self, text: str, *parameters: Any) -> None:
        """Parses `text`; ``$1`` is parameters[0] and so on (None, str, bool,
        int, float, datetime, uuid.UUID, Quantity or a list of these).
        InvalidPredicateError names the position of a syntax error."""
        arena = ValueArena()
        args = arena.array(list(parameters), "parameter")
        handle = ctypes.POINTER(n.ohk_predicate)()
        n.lib.ohk_predicate_parse(handle, n.encode(text, "predicate text"), args, len(parameters))
        self._handle = handle

    @classmethod
    def _adopt(cls, build: Any, *args: Any) -> "Predicate":
        handle = ctypes.POINTER(n.ohk_predicate)()
        build(handle, *args)
        predicate = object.__new__(cls)
        predicate._handle = handle
        return predicate

    def __del__(self) -> None:
        handle, self._handle = getattr(self, "_handle", None), None
        if handle and n is not None and n.lib is not None:
            n.lib.ohk_predicate_free(handle)

    @classmethod
    def date_range(cls, start: datetime | None, end: datetime | None, *,
                   strict_start: bool = False, strict_end: bool = False) -> "Predicate":
        """HKQuery.predicateForSamples(withStart:end:options:): samples that
        overlap [start, end) (None: open), or with strict_start / strict_end
        whose start / end is in the same half-open [start, end), as
        HealthKit's HKQuery.h defines them; with both, both."""
        bounds = [None if moment is None else ctypes.c_double(unix_time(moment, what))
                  for moment, what in ((start, "start"), (end, "end"))]
        options = (1 if strict_start else 0) | (2 if strict_end else 0)
        return cls._adopt(n.lib.ohk_predicate_date_range,
                          *(ctypes.byref(b) if b is not None else None for b in bounds), options)

    @classmethod
    def uuids(cls, uuids: Iterable[Any]) -> "Predicate":
        """Objects whose UUID is one of these (uuid.UUID, text or 16 bytes)."""
        packed = b"".join(uuid_bytes(u) for u in as_list(uuids, "uuids", (), "UUIDs"))
        return cls._adopt(n.lib.ohk_predicate_uuids, packed, len(packed) // 16)

    @classmethod
    def workout(cls, workout: Any) -> "Predicate":
        """HKQuery.predicateForObjects(from: workout): the samples associated
        with the workout (``HealthStore.associate``) and its routes, as of
        when a query reads (rule 36). ``workout`` is a workout sample, or its
        UUID (uuid.UUID, text or 16 bytes)."""
        raw = workout.uuid_bytes if hasattr(workout, "uuid_bytes") else uuid_bytes(workout)
        return cls._adopt(n.lib.ohk_predicate_workout, raw)

    @classmethod
    def sources(cls, bundle_identifiers: Iterable[str]) -> "Predicate":
        """Objects from one of these sources (bundle identifiers)."""
        names = [n.encode(name, "bundle identifier")
                 for name in as_list(bundle_identifiers, "bundle_identifiers", (str,), "a bundle identifier")]
        return cls._adopt(n.lib.ohk_predicate_sources, (ctypes.c_char_p * max(len(names), 1))(*names),
                          len(names))

    @classmethod
    def metadata_exists(cls, key: str) -> "Predicate":
        """Samples that have metadata `key`."""
        return cls._adopt(n.lib.ohk_predicate_metadata_exists, n.encode(key, "metadata key"))

    @classmethod
    def metadata(cls, key: str, op: str, value: str | float | bool | datetime) -> "Predicate":
        """Samples whose metadata `key` compares with `value` by `op` ("==", "<", ...).
        An int beyond ±(2**53 - 1) is refused, as in metadata (rule 49)."""
        arena = ValueArena()
        target = n.ohk_value()
        arena.fill(target, value, "metadata value")
        return cls._adopt(n.lib.ohk_predicate_metadata_compare, n.encode(key, "metadata key"),
                          _operator(op), ctypes.byref(target))

    @classmethod
    def quantity(cls, op: str, value: float, unit: str) -> "Predicate":
        """Quantity samples whose quantity compares with `value` `unit` by `op`."""
        return cls._adopt(n.lib.ohk_predicate_quantity, _operator(op), finite(value, "value"),
                          n.encode(unit, "unit"))

    @classmethod
    def category_value(cls, op: str, value: int) -> "Predicate":
        """Category samples whose value compares with `value` by `op`."""
        return cls._adopt(n.lib.ohk_predicate_category_value, _operator(op), int64(value, "a category value"))

    @classmethod
    def all_of(cls, *predicates: "Predicate") -> "Predicate":
        """The conjunction (no predicates: always true)."""
        return cls._combine(n.lib.ohk_predicate_and, predicates)

    @classmethod
    def any_of(cls, *predicates: "Predicate") -> "Predicate":
        """The disjunction (no predicates: always false)."""
        return cls._combine(n.lib.ohk_predicate_or, predicates)

    @classmethod
    def _combine(cls, build: Any, predicates: tuple["Predicate", ...]) -> "Predicate":
        for p in predicates:
            if not isinstance(p, Predicate):
                raise ArgumentTypeError(f"expected a Predicate, not {type(p).__name__}")
        array = (ctypes.POINTER(n.ohk_predicate) * max(len(predicates), 1))(
            *(p.handle() for p in predicates))
        return cls._adopt(build, array, len(predicates))

    def __and__(self, other: "Predicate") -> "Predicate":
        return Predicate.all_of(self, other)

    def __or__(self, other: "Predicate") -> "Predicate":
        return Predicate.any_of(self, other)

    def __invert__(self) -> "Predicate":
        return Predicate._adopt(n.lib.ohk_predicate_not, self.handle())

    def handle(self) -> Any:
        """The C handle (for the binding's own calls)."""
        return self._handle

    def __str__(self) -> str:
        text = ctypes.POINTER(ctypes.c_char)()
        n.lib.ohk_predicate_to_text(text, self._handle)
        try:
            return ctypes.string_at(text).decode("utf-8")
        finally:
            n.lib.ohk_string_free(text)

    def __repr__(self) -> str:
        return f"Predicate({str(self)!r})"

    def __eq__(self, other: object) -> bool:
        """Equal canonical text: the predicates select the same objects."""
        if not isinstance(other, Predicate):
            return NotImplemented
        return str(self) == str(other)

    def __hash__(self) -> int:
        return hash(str(self))


@dataclass(frozen=True, slots=True)
class QueryDescriptor:
    """One type and an optional predicate (HKQueryDescriptor); a query may
    name several, and an object matching several comes once."""

    sample_type: str | SampleType
    predicate: Predicate | None = None


#: What queries take as their types: an identifier, a SampleType, a
#: QueryDescriptor, or a list of these.
Types = Union[str, SampleType, QueryDescriptor, Iterable[Union[str, SampleType, QueryDescriptor]]]
