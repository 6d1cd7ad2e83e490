"""Audiograms to and from C (``ohk_audiogram`` with its points and clamping
ranges, rule 40)."""

from __future__ import annotations

import ctypes
import math
import numbers
from collections.abc import Sequence
from typing import Any

from .. import _native as n
from ..errors import ArgumentTypeError, InvalidValueError

#: A point as a batch holds it: Hz; each ear's level in dBHL (None: not
#: tested); whether each was masked (None: not said); each ear's clamping
#: range (lower, upper), None for an open bound, or None for no range.
PointParts = tuple[float, "float | None", "float | None", "bool | None", "bool | None",
                   "tuple[float | None, float | None] | None", "tuple[float | None, float | None] | None"]


def read_audiogram(handle: Any, index: int) -> list[PointParts]:
    """Sample `index`'s points, in order of frequency, copied out of the batch."""
    points = ctypes.POINTER(n.ohk_audiogram_point)()
    ranges = ctypes.POINTER(n.ohk_audiogram_clamping)()
    count = ctypes.c_uint64()
    n.lib.ohk_batch_audiogram(points, count, handle, index)
    n.lib.ohk_batch_audiogram_clamping(ranges, count, handle, index)

    def masked(flag: int) -> bool | None:
        return None if flag < 0 else flag == 1

    def level(x: float) -> float | None:
        return None if math.isnan(x) else x

    def clamping(lower: float, upper: float) -> tuple[float | None, float | None] | None:
        return None if math.isnan(lower) and math.isnan(upper) else (level(lower), level(upper))

    return [(p.frequency_hz, level(p.left_ear_db_hl), level(p.right_ear_db_hl), masked(p.left_ear_masked),
             masked(p.right_ear_masked), clamping(r.left_ear_lower_db_hl, r.left_ear_upper_db_hl),
             clamping(r.right_ear_lower_db_hl, r.right_ear_upper_db_hl))
            for p, r in ((points[i], ranges[i]) for i in range(count.value))]


def clamping_bounds(given: Any, what: str) -> tuple[float, float]:
    """A clamping range as C takes it: (lower, upper) in dBHL, NaN for an
    open bound, (NaN, NaN) for none. ``given`` is None, a ClampingRange or
    a (lower, upper) pair."""
    if given is None:
        return math.nan, math.nan
    pair = tuple(given) if isinstance(given, (tuple, list)) else None
    if pair is None or len(pair) != 2:
        raise ArgumentTypeError(f"{what} must be a ClampingRange, a (lower, upper) pair or None, not {given!r}")
    if pair[0] is None and pair[1] is None:
        raise InvalidValueError(f"{what} has no bound: give at least one, or None for no range")
    bounds = []
    for name, v in zip(("lower", "upper"), pair):
        if v is not None and (isinstance(v, bool) or not isinstance(v, numbers.Real) or not math.isfinite(v)):
            raise InvalidValueError(f"{what}: the {name} bound must be a finite number or None, not {v!r}")
        bounds.append(math.nan if v is None else float(v))
    return bounds[0], bounds[1]


def audiogram_to_c(points: Sequence[Sequence[Any]], keep: list[Any]) -> n.ohk_audiogram:
    """The C form of an audiogram's points, each (frequency, left, right,
    left masked, right masked, left clamping, right clamping) as
    ``SensitivityPoint`` holds them, checked here where C would misread
    them (NaN is "not tested" or "open" there); its arrays stay in `keep`."""
    array = (n.ohk_audiogram_point * max(1, len(points)))()
    ranges = (n.ohk_audiogram_clamping * max(1, len(points)))()
    for i, (frequency, left, right, left_masked, right_masked, left_range, right_range) in enumerate(points):
        levels = []
        for side, v in (("left", left), ("right", right)):
            if v is not None and (not isinstance(v, (int, float)) or not math.isfinite(v)):
                raise InvalidValueError(f"points[{i}]: the {side} ear's level must be a finite number or None, "
                                        f"not {v!r}")
            levels.append(math.nan if v is None else float(v))
        array[i] = n.ohk_audiogram_point(float(frequency), levels[0], levels[1],
                                         -1 if left_masked is None else int(bool(left_masked)),
                                         -1 if right_masked is None else int(bool(right_masked)))
        bounds = [bound for side, given in (("left", left_range), ("right", right_range))
                  for bound in clamping_bounds(given, f"points[{i}]: the {side} ear's clamping range")]
        ranges[i] = n.ohk_audiogram_clamping(*bounds)
    keep.extend((array, ranges))
    return n.ohk_audiogram(array, ranges, len(points))
