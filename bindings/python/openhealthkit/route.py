"""Workout routes (``HKWorkoutRoute``, rule 32 of docs/semantics.md): a
route's locations (``Route``, ``Location``, ``LocationColumns`` for
NumPy), what a save takes as locations (``LocationsLike``), and
``WorkoutRouteSample``, a route read from a store."""

from __future__ import annotations

import array
import uuid as uuid_module
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, NamedTuple, Union

from ._checks import numpy_module, pandas_module
from ._convert import microseconds, utc_datetime
from ._marshal.routes import FIELDS, LOCATION_SIZE, columns_of, locations_to_c, pack_columns, pack_rows, read_route
from ._own_fields import OwnFieldsSample, SaveCall
from .errors import ArgumentTypeError, InvalidArgumentError

if TYPE_CHECKING:
    import numpy as np

ROUTE = "HKWorkoutRouteTypeIdentifier"
#: The Unix epoch: the interval a route is saved with, which the library
#: replaces by its first and last locations' times.
EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


class Location(NamedTuple):
    """One point of a route (what HealthKit keeps of a ``CLLocation``):
    degrees (WGS 84), metres above sea level, accuracies in metres, the
    course in degrees from true north, the speed in m/s; None where
    unknown. ``Route.locations`` gives these; a save takes them too (and
    plain tuples in this order, the timestamp an aware datetime or Unix
    seconds)."""

    timestamp: datetime
    latitude: float
    longitude: float
    altitude: float | None = None
    horizontal_accuracy: float | None = None
    vertical_accuracy: float | None = None
    course: float | None = None
    speed: float | None = None


@dataclass(frozen=True)
class LocationColumns:
    """A route's locations as NumPy arrays, one row per location in time
    order: ``timestamp`` is ``datetime64[us]`` in UTC; the others are
    float64 (degrees, metres, m/s as in ``Location``), NaN where unknown.
    The arrays are the caller's own (rows of one block). ``save_route``
    takes them back."""

    timestamp: "np.ndarray"
    latitude: "np.ndarray"
    longitude: "np.ndarray"
    altitude: "np.ndarray"
    horizontal_accuracy: "np.ndarray"
    vertical_accuracy: "np.ndarray"
    course: "np.ndarray"
    speed: "np.ndarray"

    def __len__(self) -> int:
        return len(self.timestamp)

    def to_pandas(self) -> Any:
        """A DataFrame indexed by ``timestamp`` (UTC) with one float column
        per other field. Needs pandas."""
        pd = pandas_module()
        columns = {name: getattr(self, name) for name in FIELDS[1:]}
        index = pd.DatetimeIndex(self.timestamp, name="timestamp").tz_localize("UTC")
        return pd.DataFrame(columns, index=index)


def location_columns(raw: bytes) -> LocationColumns:
    """Columns of packed ohk_location records: one copy into one block,
    each column a contiguous row of it."""
    np = numpy_module("to_numpy()")
    width = len(FIELDS)
    records = np.frombuffer(raw, dtype="<f8").reshape(-1, width)
    block = np.ascontiguousarray(records.T)  # (fields, locations)
    return LocationColumns(microseconds(np, block[0]), *(block[k] for k in range(1, width)))


@dataclass(frozen=True, slots=True, repr=False)
class Route:
    """A workout route's own fields (``HKWorkoutRoute``): its locations in
    time order and the UUID of its workout (None for a route of no
    workout). ``raw`` holds the locations as the C library lays them out
    (``ohk_location``: eight float64 each, NaN where unknown), copied once
    from the batch; ``to_numpy()`` reads them as columns, ``to_pandas()``
    as a DataFrame, ``locations`` as ``Location`` tuples."""

    workout_uuid: uuid_module.UUID | None
    raw: bytes

    def __post_init__(self) -> None:
        if not isinstance(self.raw, bytes) or len(self.raw) % LOCATION_SIZE:
            raise InvalidArgumentError(f"raw must be bytes of ohk_location records ({LOCATION_SIZE} each)")

    def __len__(self) -> int:
        """The number of locations."""
        return len(self.raw) // LOCATION_SIZE

    def __repr__(self) -> str:
        return f"Route({len(self)} locations, workout_uuid={self.workout_uuid})"

    @property
    def locations(self) -> list[Location]:
        """The locations as ``Location`` tuples (a Python object each: use
        ``to_numpy()`` for long routes)."""
        values = array.array("d")
        values.frombytes(self.raw)
        return [Location(utc_datetime(values[i]), values[i + 1], values[i + 2],
                         *(None if v != v else v for v in values[i + 3:i + 8]))
                for i in range(0, len(values), len(FIELDS))]

    def to_numpy(self) -> LocationColumns:
        """The locations as NumPy columns (needs NumPy): see
        ``LocationColumns``."""
        return location_columns(self.raw)

    def to_pandas(self) -> Any:
        """The locations as a pandas DataFrame indexed by ``timestamp``
        (UTC), one float column per field, NaN where unknown. Needs NumPy
        and pandas."""
        return self.to_numpy().to_pandas()


#: What ``HealthStore.save_route`` takes as locations: a ``Route``,
#: ``LocationColumns``, a NumPy structured array or a pandas DataFrame with
#: named fields, a 2-D NumPy array of Unix seconds, latitude, longitude...
#: (``Location``'s order), a mapping of field names to columns, or a sequence of rows
#: (``Location``s, tuples in ``Location``'s order, mappings, or objects with
#: ``timestamp``, ``latitude`` and ``longitude`` attributes).
LocationsLike = Union[Route, LocationColumns, Mapping[str, Any], Iterable[Any]]


def pack_locations(locations: Any) -> bytes:
    """`locations` as packed ohk_location records, checked: a timestamp,
    latitude and longitude that are finite numbers; other fields None or
    NaN (unknown) or finite."""
    if isinstance(locations, Route):
        return locations.raw
    if isinstance(locations, LocationColumns):
        return pack_columns({name: getattr(locations, name) for name in FIELDS})
    columns = columns_of(locations)
    if columns is not None:
        return pack_columns(columns)
    if isinstance(locations, (str, bytes)) or not isinstance(locations, Iterable):
        raise ArgumentTypeError(f"locations must be rows, columns or a Route, not {type(locations).__name__}")
    return pack_rows(locations)


class WorkoutRouteSample(OwnFieldsSample):
    """A workout route read from a store (``HKWorkoutRoute``): a sample
    whose ``route`` has its locations. Its interval is its first and last
    locations' times; ``value`` is its number of locations."""

    __slots__ = ()
    _saved_by = "save_route"

    @property
    def route(self) -> Route:
        """The route's locations and workout."""
        found: Route = self._fields()
        return found

    def _value_text(self) -> str:
        return f"{int(self._r[3])} locations"

    @classmethod
    def _read_fields(cls, handle: Any, index: int) -> Route:
        return Route(*read_route(handle, index))

    def _save_call(self, keep: list[Any]) -> SaveCall:
        route = self.route
        points, count = locations_to_c(route.raw)
        workout = None if route.workout_uuid is None else route.workout_uuid.bytes
        return SaveCall("ohk_store_save_route", (workout, points, count))


__all__ = ["Location", "LocationColumns", "LocationsLike", "Route", "WorkoutRouteSample"]
