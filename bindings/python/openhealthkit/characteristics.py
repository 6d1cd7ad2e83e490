"""The person's characteristics (rule 38 of docs/semantics.md): date of
birth, biological sex, blood type, Fitzpatrick skin type and wheelchair
use. Values of the store, not samples; each enum's numbers are
HealthKit's, and 0 is "not set"."""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from ._enums import BiologicalSex as BiologicalSex, BloodType as BloodType, FitzpatrickSkinType as FitzpatrickSkinType, WheelchairUse as WheelchairUse  # defined once, in api/enums.toml
from . import _native as n
from .errors import ArgumentTypeError


@dataclass(frozen=True)
class Characteristics:
    """What ``HealthStore.characteristics()`` returns and
    ``set_characteristics()`` takes. ``date_of_birth`` is a calendar date
    (no time, no zone), None when not set."""
    date_of_birth: datetime.date | None = None
    biological_sex: BiologicalSex = BiologicalSex.NOT_SET
    blood_type: BloodType = BloodType.NOT_SET
    fitzpatrick_skin_type: FitzpatrickSkinType = FitzpatrickSkinType.NOT_SET
    wheelchair_use: WheelchairUse = WheelchairUse.NOT_SET

    @staticmethod
    def _from_struct(c: n.ohk_characteristics) -> Characteristics:
        born = datetime.date(c.birth_year, c.birth_month, c.birth_day) if c.birth_year else None
        return Characteristics(born, BiologicalSex(c.biological_sex), BloodType(c.blood_type),
                               FitzpatrickSkinType(c.fitzpatrick_skin_type), WheelchairUse(c.wheelchair_use))

    def _to_struct(self) -> n.ohk_characteristics:
        born = self.date_of_birth
        if born is not None and not isinstance(born, datetime.date):
            raise ArgumentTypeError(f"date_of_birth must be a datetime.date or None, not {type(born).__name__}")
        return n.ohk_characteristics(born.year if born else 0, born.month if born else 0, born.day if born else 0,
                                     int(self.biological_sex), int(self.blood_type), int(self.fitzpatrick_skin_type),
                                     int(self.wheelchair_use))
