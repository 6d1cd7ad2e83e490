"""What every sample has, to and from C: the ``ohk_sample_input`` a save
takes, metadata entries, devices."""

from __future__ import annotations

import ctypes
from collections.abc import Mapping, Sequence
from typing import Any

from .. import _native as n
from .._convert import ValueArena, python_value
from ..errors import Status

#: A source as the C library takes it: bundle identifier, name, version.
EncodedSource = tuple[bytes, bytes, "bytes | None"]


def metadata_to_c(metadata: Mapping[str, Any], arena: ValueArena, keep: list[Any],
                  what: str = "") -> tuple[Any, int]:
    """An ``ohk_metadata_entry`` array of `metadata` (None when empty) and
    its length; the array and its strings stay in `keep` and `arena`.
    `what` names the metadata's owner in messages ("events[0]")."""
    if not metadata:
        return None, 0
    prefix = f"{what} " if what else ""
    entries = (n.ohk_metadata_entry * len(metadata))()
    for slot, (key, value) in zip(entries, metadata.items()):
        slot.key = arena.text(key, f"{prefix}metadata key")
        arena.fill(slot.value, value, f"{prefix}metadata {key!r}")
    keep.append(entries)
    return entries, len(metadata)


def metadata_from_c(entries: Any, count: int) -> dict[str, Any]:
    """A dict of `count` ``ohk_metadata_entry`` structs."""
    return {entries[i].key.decode("utf-8"): python_value(entries[i].value) for i in range(count)}


def encode_source(bundle_identifier: str, name: str, version: str | None) -> EncodedSource:
    return (n.encode(bundle_identifier, "bundle identifier"), n.encode(name, "source name"),
            None if version is None else n.encode(version, "version"))


def fill_device(target: n.ohk_sample_input, device: Sequence[str | None], keep: list[Any]) -> None:
    """Points `target` at an ``ohk_device`` of `device`'s fields (in
    ``DEVICE_FIELDS`` order), kept in `keep`."""
    c_device = n.ohk_device(*(None if value is None else n.encode(value, f"device {field}")
                              for field, value in zip(n.DEVICE_FIELDS, device)))
    keep.append(c_device)
    target.device = ctypes.pointer(c_device)


def fill_metadata(target: n.ohk_sample_input, metadata: Mapping[str, Any], keep: list[Any]) -> None:
    """Points `target` at entries of `metadata`, kept in `keep`."""
    arena = ValueArena()
    keep.append(arena)
    target.metadata, target.metadata_count = metadata_to_c(metadata, arena, keep)


def read_metadata(handle: Any, index: int) -> dict[str, Any]:
    """Sample `index`'s metadata in a batch."""
    entries = ctypes.POINTER(n.ohk_metadata_entry)()
    count = ctypes.c_uint64()
    n.lib.ohk_batch_metadata(entries, count, handle, index)
    return metadata_from_c(entries, count.value)


def read_device(handle: Any, index: int) -> tuple[str | None, ...] | None:
    """Sample `index`'s device fields in a batch (``DEVICE_FIELDS`` order),
    None when it has no device."""
    device = n.ohk_device()
    if n.lib.ohk_batch_device(device, handle, index) == Status.ERR_NOT_FOUND:  # allowed: no device
        return None
    return tuple(n.decode(getattr(device, field)) for field in n.DEVICE_FIELDS)


def absent(value: float) -> float | None:
    """C's NaN (absent) as None."""
    return None if value != value else value


def nan(value: float | None) -> float:
    """None (absent) as C's NaN."""
    return float("nan") if value is None else float(value)
