"""A sign one report can give of a fake user, and the defence that drops such reports.

Under unary encoding an honest report's number of ones has a known law, the same for
every user (:func:`ldpcore.attacks.fakes.report_size_law`); a fake report sent without the
randomizer often has a number no honest user is likely to send: a uniformly random
report has ``d/2`` ones where an honest OUE report has about ``d/(e^ε + 1)``. Cao, Jia
and Gong (USENIX Security 2021, Sec. 6) count ones to detect fake users; an attacker who
knows it pads the maximal-gain report to an honest number
(``UnaryEncoding.padding``), which this test then cannot see.

:func:`suspicious` flags the reports whose count lies in either tail of the honest law,
each tail at most ``false_alarm / 2``: an honest report is flagged with probability at
most ``false_alarm`` (:attr:`SizeBounds.rate` gives it exactly). :func:`screened`
drops them and estimates from the rest.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ldpcore.attacks.fakes import report_size_law, report_sizes
from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle

#: The default chance that an honest report is flagged: one in a million.
FALSE_ALARM = 1e-6


@dataclass(frozen=True)
class SizeBounds:
    """The honest report sizes kept: ``low <= size <= high``; ``rate`` of honest ones flagged."""

    low: int
    high: int
    rate: float


def size_bounds(protocol: FrequencyOracle, false_alarm: float = FALSE_ALARM) -> SizeBounds | None:
    """The narrowest central range of sizes with each tail at most ``false_alarm / 2``.

    None for a protocol whose reports all support as many values (nothing to see).
    """
    if not 0.0 < false_alarm < 1.0:
        raise InputError(f"false_alarm is a probability in (0, 1), got {false_alarm!r}")
    law = report_size_law(protocol)
    if law is None:
        return None
    below = np.cumsum(law)  # P(size <= k)
    above = np.cumsum(law[::-1])[::-1]  # P(size >= k)
    low = int(np.argmax(below > false_alarm / 2))  # the smallest k with P(size < k) small
    high = int(len(law) - 1 - np.argmax(above[::-1] > false_alarm / 2))
    rate = float(law[:low].sum() + law[high + 1 :].sum())
    return SizeBounds(low, high, rate)


def suspicious(
    protocol: FrequencyOracle, reports: Any, false_alarm: float = FALSE_ALARM
) -> NDArray[np.bool_]:
    """Which reports no honest user is likely to have sent (all False where none can tell)."""
    bounds = size_bounds(protocol, false_alarm)
    sizes = report_sizes(protocol, reports)
    if bounds is None or sizes is None:
        return np.zeros(len(reports), dtype=np.bool_)
    return np.asarray((sizes < bounds.low) | (sizes > bounds.high))


def screened(
    protocol: FrequencyOracle, reports: Any, false_alarm: float = FALSE_ALARM
) -> tuple[NDArray[np.float64], int]:
    """The Base estimate from the reports left after dropping the suspicious ones.

    Returns the estimate and how many reports were dropped. An honest report is dropped
    with probability :attr:`SizeBounds.rate`, whatever its value, so the rest are still
    a sample of the honest users (and of the fake ones the test cannot see).
    """
    flagged = suspicious(protocol, reports, false_alarm)
    kept = np.asarray(reports)[~flagged]
    if kept.shape[0] == 0:
        raise InputError("every report looks fake; there is nothing left to estimate from")
    return protocol.estimate(protocol.aggregate(kept), kept.shape[0]), int(flagged.sum())


__all__ = ["FALSE_ALARM", "SizeBounds", "screened", "size_bounds", "suspicious"]
