"""Category values' names, from the C library (which lists none: each is
asked for by value, and cached)."""

from __future__ import annotations

import ctypes
import functools

from .. import _native as n


@functools.lru_cache(maxsize=1024)
def value_name(identifier: bytes, value: int) -> str | None:
    """A category value's name, None when the type does not name it (cached:
    the names never change; to_pandas asks once per distinct value)."""
    if not -2**63 <= value < 2**63:  # beyond C's int64_t, which ctypes would cut: no name
        return None
    name = ctypes.c_char_p()
    status = n.lib.ohk_category_value_name(ctypes.byref(name), identifier, value)
    return None if status != 0 or name.value is None else name.value.decode("utf-8")


#: The category values looked for when listing a type's names: the C API
#: lists none, and HealthKit's enums run from 0 to 7.
_LISTED_VALUES = range(64)


@functools.lru_cache(maxsize=None)
def accepted_values(identifier: bytes) -> str:
    """What a category type's values are called, for an error message."""
    named = [(value, value_name(identifier, value)) for value in _LISTED_VALUES]
    listing = ", ".join(f"{name} ({value})" for value, name in named if name is not None)
    return f"its values are {listing}" if listing else "it names no value"


#: How the names may also be spelt, for messages about a name.
CASE_NAMES = "(HealthKit's full case names, HKCategoryValue..., work too)"
