"""Correlations from C (rule 33): a correlation's fields are its members'
UUIDs, 16 bytes each."""

from __future__ import annotations

import ctypes
import uuid as uuid_module
from typing import Any

from .. import _native as n
from .._convert import make_uuid


def read_correlation(handle: Any, index: int) -> tuple[uuid_module.UUID, ...]:
    """Sample `index`'s members' UUIDs, copied out of the batch."""
    members = ctypes.c_char_p()
    count = ctypes.c_uint64()
    n.lib.ohk_batch_correlation(members, count, handle, index)
    address = ctypes.cast(members, ctypes.c_void_p).value
    raw = ctypes.string_at(address, 16 * count.value) if count.value and address else b""
    return tuple(make_uuid(raw[i:i + 16]) for i in range(0, len(raw), 16))
