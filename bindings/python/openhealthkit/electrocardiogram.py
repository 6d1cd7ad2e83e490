"""Electrocardiograms (``HKElectrocardiogram``, rule 41 of
docs/semantics.md): a recording's classification, heart rate, frequency
and voltages (``Electrocardiogram``, its enums ``ECGClassification``,
``ECGSymptomsStatus`` and ``ECGLead``) and ``ElectrocardiogramSample``, a
recording read from a store. The voltages are a NumPy array: NumPy is
needed for electrocardiograms."""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ._checks import known, numpy_module, pandas_module, raw_type, scalar, set_field
from ._enums import ECGClassification as ECGClassification, ECGLead as ECGLead, ECGSymptomsStatus as ECGSymptomsStatus  # defined once, in api/enums.toml
from ._marshal.electrocardiograms import ECGRecord, electrocardiogram_to_c, read_electrocardiogram, voltage_array
from ._own_fields import OwnFieldsSample, SaveCall

if TYPE_CHECKING:
    import numpy as np

ELECTROCARDIOGRAM = "HKDataTypeIdentifierElectrocardiogram"


@dataclass(frozen=True, eq=False, repr=False, init=False)
class Electrocardiogram:
    """An electrocardiogram's own fields (``HKElectrocardiogram``, rule
    41): the algorithm's ``classification``, the ``symptoms_status``, the
    ``average_heart_rate`` in beats per minute and the
    ``sampling_frequency`` in Hz (None where absent; a recording with
    voltages has a frequency), and its ``voltages`` in microvolts, the
    k-th measured k / ``sampling_frequency`` seconds after the sample's
    start (``times``). ``lead`` is Apple Watch's one.

    ``voltages`` is a read-only contiguous float64 NumPy array (NumPy is
    needed for electrocardiograms); given a sequence or any NumPy array,
    the constructor copies it once, without a Python loop for numeric
    arrays. Two recordings are equal when every field and voltage is.

        ohk.Electrocardiogram(ohk.ECGClassification.SINUS_RHYTHM, sampling_frequency=512.0,
                              average_heart_rate=71, voltages=microvolts)
    """

    classification: int
    symptoms_status: int
    average_heart_rate: float | None
    sampling_frequency: float | None
    voltages: "np.ndarray"
    lead: int

    def __init__(self, classification: int = ECGClassification.NOT_SET,
                 symptoms_status: int = ECGSymptomsStatus.NOT_SET, average_heart_rate: float | None = None,
                 sampling_frequency: float | None = None, voltages: "np.ndarray | Iterable[float]" = (),
                 lead: int = ECGLead.APPLE_WATCH_SIMILAR_TO_LEAD_I) -> None:
        numpy = numpy_module("an Electrocardiogram")
        raw_type(classification, "classification", 2**31)
        raw_type(symptoms_status, "symptoms_status", 2**31)
        raw_type(lead, "lead", 2**31)
        set_field(self, "classification", known(ECGClassification, classification))
        set_field(self, "symptoms_status", known(ECGSymptomsStatus, symptoms_status))
        set_field(self, "average_heart_rate", scalar(average_heart_rate, "average_heart_rate"))
        set_field(self, "sampling_frequency", scalar(sampling_frequency, "sampling_frequency"))
        set_field(self, "voltages", voltage_array(numpy, voltages))
        set_field(self, "lead", known(ECGLead, lead))

    @classmethod
    def _adopt(cls, classification: int, symptoms_status: int, lead: int, average_heart_rate: float | None,
               sampling_frequency: float | None, voltages: Any) -> "Electrocardiogram":
        """One read from a batch: its array taken as it is (read-only)."""
        made = object.__new__(cls)
        for name, value in (("classification", known(ECGClassification, classification)),
                            ("symptoms_status", known(ECGSymptomsStatus, symptoms_status)),
                            ("lead", known(ECGLead, lead)), ("average_heart_rate", average_heart_rate),
                            ("sampling_frequency", sampling_frequency), ("voltages", voltages)):
            set_field(made, name, value)
        return made

    def __len__(self) -> int:
        """The number of voltages."""
        return len(self.voltages)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Electrocardiogram):
            return NotImplemented
        return ((self.classification, self.symptoms_status, self.lead, self.average_heart_rate,
                 self.sampling_frequency) == (other.classification, other.symptoms_status, other.lead,
                                              other.average_heart_rate, other.sampling_frequency)
                and self.voltages.shape == other.voltages.shape
                and bool((self.voltages == other.voltages).all()))

    __hash__ = None  # type: ignore[assignment]  # equal by its voltages, an array

    def __repr__(self) -> str:
        classification = getattr(self.classification, "name", self.classification)
        return (f"Electrocardiogram({classification}, {len(self)} voltages at {self.sampling_frequency} Hz, "
                f"average_heart_rate={self.average_heart_rate})")

    @property
    def duration(self) -> float:
        """Seconds the voltages span at the sampling frequency: their number
        over the frequency (0 without voltages or a positive frequency)."""
        frequency = self.sampling_frequency
        return len(self) / frequency if len(self) and frequency is not None and frequency > 0 else 0.0

    @property
    def times(self) -> "np.ndarray":
        """Each voltage's time in seconds since the sample's start, k /
        ``sampling_frequency`` (float64, one per voltage; NaN without a
        frequency, which only a recording that cannot be saved lacks)."""
        numpy = numpy_module("Electrocardiogram.times")
        times: np.ndarray = numpy.arange(len(self), dtype=numpy.float64)
        times /= math.nan if self.sampling_frequency is None else self.sampling_frequency
        return times

    def to_pandas(self) -> Any:
        """The voltages as a pandas DataFrame indexed by
        ``time_since_start`` (seconds), one float ``voltage`` column in
        microvolts. Needs pandas."""
        pd = pandas_module()
        return pd.DataFrame({"voltage": self.voltages}, index=pd.Index(self.times, name="time_since_start"))


class ElectrocardiogramSample(OwnFieldsSample):
    """An electrocardiogram read from a store (``HKElectrocardiogram``,
    rule 41): a sample whose ``electrocardiogram`` has its classification,
    heart rate, frequency and voltages, copied from the batch's contiguous
    array in one go. ``voltages``, ``times`` and ``to_pandas()`` are the
    recording's. ``value`` is its number of voltages."""

    __slots__ = ()
    _saved_by = "save_electrocardiogram"

    @property
    def electrocardiogram(self) -> Electrocardiogram:
        """The recording (needs NumPy: ImportError without it), its
        voltages a read-only view of the one copy taken from the batch."""
        record: ECGRecord | Electrocardiogram = self._fields()
        if isinstance(record, Electrocardiogram):  # made by save_electrocardiogram
            return record
        numpy = numpy_module("an Electrocardiogram")
        voltages = numpy.frombuffer(record.raw, dtype=numpy.float64)  # a view of the bytes: read-only, no copy
        return Electrocardiogram._adopt(record.classification, record.symptoms_status, record.lead,
                                        record.average_heart_rate, record.sampling_frequency, voltages)

    @property
    def voltages(self) -> "np.ndarray":
        """The voltages in microvolts, a read-only float64 array."""
        return self.electrocardiogram.voltages

    @property
    def times(self) -> "np.ndarray":
        """Each voltage's time in seconds since the sample's start."""
        return self.electrocardiogram.times

    def to_pandas(self) -> Any:
        """The voltages as a DataFrame indexed by ``time_since_start``
        (seconds): see ``Electrocardiogram.to_pandas``."""
        return self.electrocardiogram.to_pandas()

    def _value_text(self) -> str:
        return f"{int(self._r[3])} voltages"

    @classmethod
    def _read_fields(cls, handle: Any, index: int) -> ECGRecord:
        return read_electrocardiogram(handle, index)

    def _save_call(self, keep: list[Any]) -> SaveCall:
        return SaveCall("ohk_store_save_electrocardiogram", (electrocardiogram_to_c(self.electrocardiogram, keep),))


__all__ = ["ECGClassification", "ECGLead", "ECGSymptomsStatus", "Electrocardiogram", "ElectrocardiogramSample"]
