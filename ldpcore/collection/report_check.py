"""An uploaded report file, aggregated and checked for fake users' reports.

Two checks of Cao, Jia and Gong (USENIX Security 2021, Sec. 6), for unary encoding: the
ones-count test of :mod:`ldpcore.attacks.detection` (an honest report's number of ones
has a known law, and a report in either far tail of it is one no honest randomizer is
likely to have sent), and the frequent itemsets of :mod:`ldpcore.attacks.itemsets`
(values supported together by far more reports than honest users make: the maximal-gain
attack's targets, which the ones count cannot see). What the checks find is a fact
(:class:`ReportCheck`); what it means, in words, is
:func:`ldpcore.present.run_sentences.report_check_words`.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ldpcore.attacks.detection import FALSE_ALARM, size_bounds, suspicious
from ldpcore.attacks.gains import fake_reports
from ldpcore.attacks.itemsets import (
    PairCounts,
    contains_itemset,
    detect,
    kept_estimate,
    pair_counts,
    readable,
)
from ldpcore.collection.report_files import (
    check_per_value,
    counted_tallies,
    csv_parameter_line,
    empty_tallies,
    frame_to_reports,
    reports_to_frame,
    upload_frames,
)
from ldpcore.errors import InputError
from ldpcore.protocols import FrequencyOracle, get_protocol


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
        Every report's support counts, then the protocol's tally columns
        (:func:`ldpcore.collection.report_files.counted_tallies`).
    flagged : int
        Reports whose number of ones lies in a far tail of the honest law.
    kept_support : ndarray
        The same of the other reports.
    tally_columns : tuple of str
        The protocol's tally columns after the support counts.
    itemsets : tuple of tuple of int
        Values supported together beyond the honest bound (an honest collection shows
        one with chance at most :data:`ldpcore.attacks.itemsets.FALSE_ALARM`).
    itemset_flagged : int
        Reports that support every value of an itemset.
    itemset_estimate : ndarray or None
        The honest users' estimate from the other reports, read through a kept report's
        channel (:func:`ldpcore.attacks.itemsets.screened_by_itemsets`); None without
        an itemset.
    itemset_honest_share : float
        The chance an honest report supports a whole itemset (dropped with the fakes).
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
    tally_columns: tuple[str, ...] = ()
    itemsets: tuple[tuple[int, ...], ...] = ()
    itemset_flagged: int = 0
    itemset_estimate: NDArray[np.float64] | None = None
    itemset_honest_share: float = 0.0

    @property
    def domain_size(self) -> int:
        """How many values the reports range over."""
        return self.support.size // (1 + len(self.tally_columns))

    @property
    def can_tell(self) -> bool:
        """Whether the test applies to this protocol's reports."""
        return self.rate is not None

    @property
    def expected_by_chance(self) -> float:
        """How many of the file's reports an honest collection would have flagged."""
        return self.users * (self.rate or 0.0)

    def itemset_table(self) -> tuple[bytes, int]:
        """The itemset-screened estimate as a ``value,estimate`` table, and the users kept."""
        if self.itemset_estimate is None:
            raise InputError("no itemset was found: there is nothing to screen")
        rows = "".join(f"{v},{e!r}\n" for v, e in enumerate(self.itemset_estimate.tolist()))
        return ("value,estimate\n" + rows).encode(), self.users - self.itemset_flagged

    def counts_table(self, *, drop: bool) -> tuple[bytes, int]:
        r"""The support counts as a ``value,count`` table, and the users they count.

        ``drop``: without the flagged reports. What the collected-output estimates read,
        so a report file and a counts file go through the same methods.

        Examples
        --------
        >>> one = np.array([3, 1])
        >>> check = ReportCheck("OUE", 4, one, 1, one - 1, 0, 2, 0.01)
        >>> check.counts_table(drop=True)
        (b'value,count\n0,2\n1,0\n', 3)
        """
        support = self.kept_support if drop else self.support
        columns = support.reshape(-1, self.domain_size)
        header = ",".join(["value", "count", *self.tally_columns])
        rows = "".join(
            ",".join([str(v), *(repr(column[v].item()) for column in columns)]) + "\n"
            for v in range(self.domain_size)
        )
        return (header + "\n" + rows).encode(), self.users - self.flagged if drop else self.users


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
    check_per_value(protocol)
    support = empty_tallies(protocol)
    kept = empty_tallies(protocol)
    users = flagged = 0
    pairs: PairCounts | None = None
    for frame in upload_frames(data, name, protocol=protocol):
        if frame.empty:
            continue
        reports = frame_to_reports(protocol, frame, source=name)
        if readable(protocol):
            part = pair_counts(protocol, reports)
            pairs = part if pairs is None else pairs + part
        counts = counted_tallies(protocol, reports)
        support += counts
        users += len(frame)
        suspect = suspicious(protocol, reports, false_alarm)
        if suspect.any():
            flagged += int(suspect.sum())
            kept += counted_tallies(protocol, np.asarray(reports)[~suspect])
        else:
            kept += counts
    if users == 0:
        raise InputError(f"{name} has no reports: one row per user is expected")
    bounds = size_bounds(protocol, false_alarm)
    itemsets = _itemset_screen(protocol, data, name, pairs)
    return ReportCheck(
        protocol=protocol.name,
        users=users,
        support=support,
        flagged=flagged,
        kept_support=kept,
        low=None if bounds is None else bounds.low,
        high=None if bounds is None else bounds.high,
        rate=None if bounds is None else bounds.rate,
        tally_columns=protocol.tally_columns,
        **itemsets,
    )


def _itemset_screen(
    protocol: FrequencyOracle, data: bytes, name: str, pairs: PairCounts | None
) -> dict[str, Any]:
    """The frequent-itemset check of the whole file, from its pairs' counts.

    A second pass drops the reports that contain an itemset found and reads the rest
    through a kept report's channel.
    """
    if pairs is None:
        return {}
    check = detect(protocol, pairs)
    if not check.itemsets:
        return {}
    kept = np.zeros(protocol.domain_size)
    dropped = 0
    for frame in upload_frames(data, name, protocol=protocol):
        if frame.empty:
            continue
        reports = np.asarray(frame_to_reports(protocol, frame, source=name))
        inside = contains_itemset(protocol, reports, check.itemsets)
        dropped += int(inside.sum())
        kept += protocol.aggregate(reports[~inside])
    if dropped == pairs.reports:
        raise InputError(f"every report of {name} supports a suspicious itemset: none is left")
    return {
        "itemsets": check.itemsets,
        "itemset_flagged": dropped,
        "itemset_estimate": kept_estimate(protocol, kept, check.itemsets),
        "itemset_honest_share": check.honest_share,
    }


#: The example report file: OUE at ε = 1 on 256 values (where uniform reports stand out:
#: 128 ± 8 ones against an honest 69 ± 7), 2,000 honest users and 60 uniform fake reports.
EXAMPLE_HONEST, EXAMPLE_FAKES = 2_000, 60


def example_report_file() -> bytes:
    """An OUE report file with a few fake users among the honest ones (seeded).

    The fake users send uniform reports (the random perturbed-value attack of Cao, Jia
    and Gong, Sec. 3), which the ones-count check flags.
    """
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=256)
    rng = np.random.default_rng(2021)
    values = rng.zipf(1.5, EXAMPLE_HONEST) % protocol.domain_size
    honest = protocol.randomize(values, rng)
    fake = fake_reports(protocol, "rpa", [protocol.domain_size - 1], EXAMPLE_FAKES, rng)
    reports = np.concatenate([honest, fake])[rng.permutation(len(honest) + len(fake))]
    buffer = io.StringIO()
    buffer.write(csv_parameter_line(protocol) + "\n")
    reports_to_frame(protocol, reports, text=True).to_csv(buffer, index=False)
    return buffer.getvalue().encode()


__all__ = [
    "EXAMPLE_FAKES",
    "EXAMPLE_HONEST",
    "ReportCheck",
    "check_report_upload",
    "example_report_file",
]
