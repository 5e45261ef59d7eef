"""An uploaded report file, aggregated and checked for fake users' reports (issue 56).

The check is the ones-count test of :mod:`ldpcore.attacks.detection` (Cao, Jia and
Gong, USENIX Security 2021, Sec. 6): under unary encoding an honest report's number of
ones has a known law, and a report in either far tail of it is one no honest randomizer
is likely to have sent. What the check finds is a fact (:class:`ReportCheck`); what it
means, in words, is :func:`ldpcore.present.run_sentences.report_check_words`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ldpcore.attacks.detection import FALSE_ALARM, size_bounds, suspicious
from ldpcore.collection.report_files import frame_to_reports, upload_frames
from ldpcore.errors import InputError
from ldpcore.protocols import FrequencyOracle


@dataclass(frozen=True)
class ReportCheck:
    """What the ones-count test found in a report file.

    Attributes
    ----------
    protocol : str
        The protocol the reports were read as.
    users : int
        Reports in the file.
    support : ndarray
        Every report's support counts.
    flagged : int
        Reports whose number of ones lies in a far tail of the honest law.
    kept_support : ndarray
        The support counts of the other reports.
    low, high : int or None
        The honest counts kept; None where the protocol's reports cannot be told apart
        by their size (every report supports as many values).
    rate : float or None
        The exact chance that an honest report is flagged.
    """

    protocol: str
    users: int
    support: NDArray[np.int64]
    flagged: int
    kept_support: NDArray[np.int64]
    low: int | None
    high: int | None
    rate: float | None

    @property
    def can_tell(self) -> bool:
        """Whether the test applies to this protocol's reports."""
        return self.rate is not None

    @property
    def expected_by_chance(self) -> float:
        """How many of the file's reports an honest collection would have flagged."""
        return self.users * (self.rate or 0.0)


def check_report_upload(
    protocol: FrequencyOracle, data: bytes, name: str, *, false_alarm: float = FALSE_ALARM
) -> ReportCheck:
    """Read an uploaded report file (CSV or Parquet, ldpcore's format) and check it.

    Parameters
    ----------
    protocol : FrequencyOracle
        The protocol, ε and d the reports were made with (the file's recorded parameters
        must agree).
    data : bytes
        The file.
    name : str
        Its name (``.csv`` or ``.parquet`` says how to read it).
    false_alarm : float
        The chance an honest report is flagged, at most.
    """
    support = protocol.empty_aggregate()
    kept = protocol.empty_aggregate()
    users = flagged = 0
    for frame in upload_frames(data, name, protocol=protocol):
        if frame.empty:
            continue
        reports = frame_to_reports(protocol, frame, source=name)
        counts = protocol.aggregate(reports)
        support += counts
        users += len(frame)
        suspect = suspicious(protocol, reports, false_alarm)
        if suspect.any():
            flagged += int(suspect.sum())
            kept += protocol.aggregate(np.asarray(reports)[~suspect])
        else:
            kept += counts
    if users == 0:
        raise InputError(f"{name} has no reports: one row per user is expected")
    bounds = size_bounds(protocol, false_alarm)
    return ReportCheck(
        protocol=protocol.name,
        users=users,
        support=support,
        flagged=flagged,
        kept_support=kept,
        low=None if bounds is None else bounds.low,
        high=None if bounds is None else bounds.high,
        rate=None if bounds is None else bounds.rate,
    )


__all__ = ["ReportCheck", "check_report_upload"]
