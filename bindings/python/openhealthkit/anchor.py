"""Anchors: positions in a store's change order, as values."""

from __future__ import annotations

import ctypes
from typing import Union

from . import _native as n
from ._convert import int64
from .errors import ArgumentTypeError, InvalidArgumentError


class Anchor:
    """A position in one store's change order (HKQueryAnchor).

    Pass it to the next query to get only what changed after it. Keep it
    with ``bytes(anchor)`` or ``str(anchor)`` (base64) and read it back with
    :meth:`from_bytes` or :meth:`from_str`. ``Anchor.NONE`` (falsy) is "no
    anchor": everything from the beginning. It has no bytes or text
    (``bytes()`` and ``str()`` raise InvalidArgumentError): keep its absence
    as absence, such as ``None``, and empty bytes or text read back as a
    truncated anchor (AnchorCorruptError). Anchors of one store compare
    with ``<``; anchors of two stores raise AnchorWrongStoreError.
    """

    __slots__ = ("_struct",)
    NONE: "Anchor"

    def __init__(self, struct: n.ohk_anchor | None = None) -> None:
        self._struct = struct if struct is not None else n.ohk_anchor()

    @classmethod
    def from_bytes(cls, data: bytes) -> "Anchor":
        """The anchor of persistent bytes from ``bytes(anchor)``;
        AnchorCorruptError when they do not decode, ``b""`` included."""
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise ArgumentTypeError(f"anchor bytes must be bytes, not {type(data).__name__}")
        data = bytes(data)
        struct = n.ohk_anchor()
        n.lib.ohk_anchor_from_bytes(struct, data, len(data))
        return cls(struct)

    @classmethod
    def from_str(cls, text: str) -> "Anchor":
        """The anchor of its text form (``str(anchor)``); AnchorCorruptError
        when it does not decode, ``""`` included."""
        struct = n.ohk_anchor()
        n.lib.ohk_anchor_from_text(struct, n.encode(text, "anchor text"))
        return cls(struct)

    @classmethod
    def from_value(cls, value: int) -> "Anchor":
        """HealthKit's legacy integer anchor: position `value`; 0 is NONE."""
        struct = n.ohk_anchor()
        n.lib.ohk_anchor_from_value(struct, int64(value, "a legacy anchor"))
        return cls(struct)

    def __bytes__(self) -> bytes:
        buffer = ctypes.create_string_buffer(n.ANCHOR_SIZE)
        length = ctypes.c_uint64()
        n.lib.ohk_anchor_to_bytes(buffer, n.ANCHOR_SIZE, length, self._struct)
        return buffer.raw[: length.value]

    def __str__(self) -> str:
        buffer = ctypes.create_string_buffer(n.ANCHOR_TEXT_SIZE)
        n.lib.ohk_anchor_to_text(buffer, n.ANCHOR_TEXT_SIZE, self._struct)
        return buffer.value.decode("ascii")

    def __repr__(self) -> str:
        return "Anchor.NONE" if not self else f"Anchor.from_str({str(self)!r})"

    def __bool__(self) -> bool:
        return any(self._struct.data)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Anchor):
            return NotImplemented
        return bytes(self._struct.data) == bytes(other._struct.data)

    def __hash__(self) -> int:
        return hash(bytes(self._struct.data))

    def _order(self, other: "Anchor") -> int:
        order = ctypes.c_int32()
        n.lib.ohk_anchor_compare(order, self._struct, other._struct)
        return order.value

    def __lt__(self, other: "Anchor") -> bool:
        return self._order(other) < 0 if isinstance(other, Anchor) else NotImplemented

    def __le__(self, other: "Anchor") -> bool:
        return self._order(other) <= 0 if isinstance(other, Anchor) else NotImplemented

    def __gt__(self, other: "Anchor") -> bool:
        return self._order(other) > 0 if isinstance(other, Anchor) else NotImplemented

    def __ge__(self, other: "Anchor") -> bool:
        return self._order(other) >= 0 if isinstance(other, Anchor) else NotImplemented


Anchor.NONE = Anchor()

#: What the query functions take as an anchor: an Anchor, its bytes, its
#: text, or None (no anchor).
AnchorLike = Union[Anchor, bytes, str, None]


def as_anchor(value: AnchorLike) -> Anchor:
    """An Anchor from any AnchorLike."""
    if value is None:
        return Anchor.NONE
    if isinstance(value, Anchor):
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return Anchor.from_bytes(value)
    if isinstance(value, str):
        return Anchor.from_str(value)
    raise ArgumentTypeError(f"an anchor must be an Anchor, bytes, str or None, not {type(value).__name__}")


__all__ = ["Anchor", "AnchorLike"]
