"""LDP output someone already collected: read it, make it consistent, say how sure it is.

An analyst who ran a protocol has, per value, either the *support counts* (how many
reports support the value) or the aggregator's *Base estimates* (NDSS 2020 Eq. 2).
:func:`read_collected` reads either from a CSV; :func:`consistent_estimates`
post-processes them with a chosen method and attaches an interval per value for the
true frequency: the score interval of the Base estimate's exact variance
(:mod:`ldpcore.postprocess.intervals`), widened to contain the method's estimate. A parametric
bootstrap around the method's own output was used before; it covered rare values about
half the time (it inherits the method's bias, e.g. Norm-Sub's zeros gave [0, 0]), see
benchmarks/README.md, "Coverage".
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ldpcore._validation import check_n_users
from ldpcore.collection.report_files import check_per_value
from ldpcore.data.datasets import Dataset
from ldpcore.data.tables import TableError, TableLayout, inspect_table, read_numbers
from ldpcore.errors import InputError
from ldpcore.formats import format_number
from ldpcore.postprocess import (
    DirichletPrior,
    estimates_with_intervals,
    get_method,
    informed_prior,
)
from ldpcore.postprocess.caveats import Caveat
from ldpcore.protocols import FrequencyOracle, get_protocol, protocol_class

#: Rows :func:`guess_kind` reads (the header and enough rows to tell it from data).
_GUESS_ROWS = 200


def _nth_newline(data: bytes, count: int) -> int:
    """The position of the ``count``-th newline (the end of the data if fewer)."""
    position = -1
    for _ in range(count):
        position = data.find(b"\n", position + 1)
        if position < 0:
            return len(data)
    return position


#: What a collected file holds.
KINDS = ("counts", "estimates")


@dataclass(frozen=True)
class Collected:
    """Collected LDP output, read and checked.

    Attributes
    ----------
    labels : tuple of str
        The values, in file order.
    protocol : FrequencyOracle
        The protocol that produced it (``d`` = number of values).
    n : int
        Number of users who reported.
    kind : {"counts", "estimates"}
        What the file held.
    estimate : ndarray of float64
        The Base estimate ``f̃`` (computed by Eq. 2 from support counts).
    notes : tuple of str
        What the file looks like where that is not what the protocol and n could have
        produced (:func:`plausibility_notes`).
    total : {"drop", "keep"} or None
        What was done with a row that sums the others, when the file had one.
    """

    labels: tuple[str, ...]
    protocol: FrequencyOracle
    n: int
    kind: str
    estimate: NDArray[np.float64]
    notes: tuple[str, ...] = ()
    total: str | None = None


def guess_kind(data: bytes, *, source: str = "the file") -> str:
    """``"counts"`` when the header names a count column, else ``"estimates"``.

    Only the first rows are read (the header decides): a million-row file took 4 s
    to be read whole for this, before being read again for its numbers.
    """
    head = bytes(data[: _nth_newline(data, _GUESS_ROWS) + 1])
    layout = inspect_table(head, source=source, numbers="estimates")
    lowered = {c.lower() for c in layout.columns}
    return "counts" if lowered & {"count", "counts", "support", "support_count"} else "estimates"


def read_collected(
    data: bytes,
    *,
    protocol: str,
    epsilon: float,
    n: int,
    kind: str | None = None,
    source: str = "the file",
    value_column: str | None = None,
    number_column: str | None = None,
    params: Mapping[str, int | float] | None = None,
    progress: Callable[[int, int], None] | None = None,
    total: str = "ask",
) -> Collected:
    r"""Read collected LDP output (support counts or Base estimates) from CSV/TSV bytes.

    Parameters
    ----------
    data : bytes
        The file: one row per value, a value column and a number column.
    protocol, epsilon
        The protocol that was run.
    params : mapping, optional
        Its declared extra parameters (e.g. ``{"g": 8}`` for OLH); defaults otherwise.
    n : int
        How many users reported.
    kind : {"counts", "estimates"}, optional
        What the numbers are (default: from the header, see :func:`guess_kind`).
        Support counts must be whole numbers in ``[0, n]``; estimates are
        frequencies and may be negative.
    source, value_column, number_column, progress
        As for :func:`ldpcore.data.tables.read_numbers`.
    total : {"ask", "drop", "keep"}
        What to do with a row whose number is the sum of all the others (a
        spreadsheet's total row, :mod:`ldpcore.data.totals`): refuse the file (with
        :class:`~ldpcore.data.totals.TotalRowError`, before any check of the counts
        against n could blame n), drop the row, or keep it as a value.

    Examples
    --------
    >>> c = read_collected(b"value,count\na,60\nb,40\n", protocol="GRR", epsilon=1.0, n=100)
    >>> c.kind, round(float(c.estimate.sum()), 12)
    ('counts', 1.0)
    """
    if not isinstance(data, bytes | bytearray | memoryview):
        raise InputError(f"{source}: expected the file's bytes, got {type(data).__name__}")
    kind = kind or guess_kind(data, source=source)
    if kind not in KINDS:
        raise InputError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    n = check_n_users(n)
    # SHE's aggregate is the sums of its real reports: real numbers, negative ones too.
    sums = kind == "counts" and protocol_class(protocol).real_valued_reports
    layout = inspect_table(
        bytes(data[: _nth_newline(data, _GUESS_ROWS) + 1]), source=source, numbers="estimates"
    )
    if number_column is None and kind == "counts":
        # With a protocol's tally columns beside it, the count column is named, not guessed.
        number_column = next(
            (c for c in layout.columns if c.lower() in ("count", "counts", "support_count")),
            None,
        )
    table = read_numbers(
        data,
        source=source,
        value_column=value_column,
        number_column=number_column,
        group_column="",
        numbers="estimates" if sums else kind,
        users=False,  # support counts: each at most n (below), their total unbounded
        progress=progress,
        total=total,
    )
    notes: list[str] = []
    oracle = get_protocol(
        protocol, epsilon=epsilon, domain_size=len(table.labels), **dict(params or {})
    )
    check_per_value(oracle)
    extra = _tally_columns(oracle, layout, kind) if not sums else ()
    if sums:
        estimate = oracle.estimate(table.numbers, n)
        notes += plausibility_notes(oracle, n, counts=table.numbers)
    elif kind == "counts":
        over = np.flatnonzero(table.numbers > n)
        if over.size:
            first = int(over[0])
            raise TableError(
                f"{source}: the support count of {table.labels[first]!r} is "
                f"{table.numbers[first]:,.0f}, more than the n = {n:,} users who reported; "
                "check n, or whether the file holds estimates rather than counts"
            )
        if extra:
            columns = [
                read_numbers(
                    data,
                    source=source,
                    value_column=value_column or layout.value_column,
                    number_column=name,
                    group_column="",
                    numbers="counts",
                    users=False,
                    total=table.total or "keep",
                ).numbers
                for name in extra
            ]
            tallies = np.concatenate([table.numbers, *columns]).astype(np.int64)
            estimate = oracle.estimate_from_tallies(tallies, n)
        else:
            estimate = oracle.estimate(table.numbers.astype(np.int64), n)
            if oracle.tally_columns:
                notes.append(
                    f"The file has no {', '.join(oracle.tally_columns)} column: "
                    f"{oracle.name}'s estimate is the generalized form from the support "
                    "counts alone ('ldpcore aggregate' writes the column its own estimator "
                    "reads)."
                )
        notes += plausibility_notes(oracle, n, counts=table.numbers)
    else:
        estimate = table.numbers
        if np.abs(estimate).max() > 1e3:
            raise TableError(
                f"{source}: estimates are frequencies (they sum to about 1), but some are "
                f"above 1000 in size; if these are support counts, name the column 'count'"
            )
        notes += plausibility_notes(oracle, n, estimates=estimate)
    return Collected(table.labels, oracle, n, kind, estimate, tuple(notes), table.total)


def _tally_columns(oracle: FrequencyOracle, layout: TableLayout, kind: str) -> tuple[str, ...]:
    """The protocol's tally columns the file has, all of them or none (counts only)."""
    if kind != "counts" or not oracle.tally_columns:
        return ()
    present = {c.lower(): c for c in layout.columns}
    found = tuple(present[name] for name in oracle.tally_columns if name in present)
    return found if len(found) == len(oracle.tally_columns) else ()


#: How many standard deviations from what the protocol gives make a file implausible.
PLAUSIBLE_SIGMAS = 6.0


def plausibility_notes(
    oracle: FrequencyOracle,
    n: int,
    *,
    counts: NDArray[np.float64] | None = None,
    estimates: NDArray[np.float64] | None = None,
) -> list[str]:
    """What a collected file looks like where the protocol and n could not have made it.

    Each user's report supports their own value with probability ``p`` and each other
    value with probability ``q`` (NDSS 2020 Sec. III), so the support counts total
    ``n (p + (d − 1) q)`` on average, within a standard deviation of at most
    ``√(n (p(1 − p) + (d − 1) q(1 − q)))`` (independent supports; a protocol whose
    supports are tied, as GRR's exactly one, varies less). A total off by more than
    :data:`PLAUSIBLE_SIGMAS` of those and 2% is said, and so is a total of about n where
    the protocol's is not: one count per user is a histogram of true values. Base
    estimates lie between ``−q/(p − q)`` (no report supports the value) and
    ``(1 − q)/(p − q)`` (every report does), and sum to 1 within the same spread scaled
    by ``1 / (n (p − q))``.
    """
    if oracle.real_valued_reports:
        return _sum_notes(oracle, n, counts=counts, estimates=estimates)
    p, q, d = float(oracle.p), float(oracle.q), oracle.domain_size
    expected = n * (p + (d - 1) * q)
    spread = PLAUSIBLE_SIGMAS * np.sqrt(n * (p * (1 - p) + (d - 1) * q * (1 - q)))
    slack = spread + 0.02 * expected
    said = f"{oracle.name} at ε = {oracle.epsilon:g} with n = {n:,} users"
    notes: list[str] = []
    if counts is not None:
        total = float(counts.sum())
        if abs(total - expected) > slack:
            looks = (
                "they sum to about n, one count per user: this looks like a histogram of "
                "true values. Simulate on it instead (the tab Simulate on your histogram, "
                "or ldpcore simulate --dataset file:PATH)"
                if abs(total - n) <= 0.02 * n and abs(expected - n) > slack
                else "check ε, n and the protocol"
            )
            notes.append(
                f"the support counts sum to {total:,.0f}, but {said} give about "
                f"{expected:,.0f} (each report supports {format_number(p + (d - 1) * q)} "
                f"value{'s' * (abs(p + (d - 1) * q - 1) > 1e-9)} on average): {looks}"
            )
    if estimates is not None:
        low, high = -q / (p - q), (1 - q) / (p - q)
        outside = int(np.sum((estimates < low - 1e-9) | (estimates > high + 1e-9)))
        if outside:
            notes.append(
                f"{outside} estimate{'s lie' if outside != 1 else ' lies'} outside "
                f"{format_number(low)} to {format_number(high)}, the range Base estimates "
                f"of {said} can take: check ε and the protocol, or whether these are "
                "estimates at all"
            )
        total = float(estimates.sum())
        if abs(total - 1) > slack / (n * (p - q)):
            notes.append(
                f"the estimates sum to {format_number(total)}; Base estimates of {said} sum "
                f"to 1 within ±{format_number(slack / (n * (p - q)))}: check ε, n and the "
                "protocol"
            )
    return notes


def _sum_notes(
    oracle: FrequencyOracle,
    n: int,
    *,
    counts: NDArray[np.float64] | None,
    estimates: NDArray[np.float64] | None,
) -> list[str]:
    """:func:`plausibility_notes` for SHE, whose aggregate is real sums.

    Each report is the one-hot vector plus ``d`` Laplace draws of scale 2/ε (discrete, on
    a 1/64 grid), so the sums total ``n`` within a standard deviation of about
    ``√(8nd)/ε`` (Wang et al. 2017, Sec. 4.2), and are all whole numbers with a
    probability of about ``64^{−d}``: whole counts ≥ 0 are a histogram of true values.
    """
    d = oracle.domain_size
    said = f"{oracle.name} at ε = {oracle.epsilon:g} with n = {n:,} users"
    spread = PLAUSIBLE_SIGMAS * math.sqrt(8.0 * n * d) / oracle.epsilon + 0.02 * n
    notes: list[str] = []
    total = float((counts if counts is not None else np.asarray(estimates) * n).sum())
    if counts is not None and np.all(counts == np.round(counts)) and np.all(counts >= 0):
        notes.append(
            f"every sum is a whole number ≥ 0, but {oracle.name}'s sums of real reports are "
            "never whole: this looks like a histogram of true values. Simulate on it instead "
            "(the tab Simulate on your histogram, or ldpcore simulate --dataset file:PATH)"
        )
    elif abs(total - n) > spread:
        what = "sums" if counts is not None else "estimates times n"
        notes.append(
            # In users, whole, as n is: never e-notation.
            f"the {what} total {total:,.0f}, but {said} give {n:,} within ±{spread:,.0f}: "
            "check ε, n and the protocol"
        )
    return notes


def prior_for(
    collected: Collected, histogram: Dataset, *, weight: float | None = None
) -> DirichletPrior:
    """An informed prior for a collection from a histogram the analyst has, matched by value.

    A collected value the histogram lacks counts 0 there (Jeffreys' ½ still keeps it
    possible); histogram values the collection does not have are left out. The weight
    is the matched part's total by default.
    """
    counts = dict(zip(histogram.labels, histogram.counts.tolist(), strict=True))
    matched = np.array([counts.get(label, 0) for label in collected.labels], dtype=np.float64)
    if matched.sum() <= 0:
        sample = ", ".join(collected.labels[:3])
        raise InputError(
            "the prior histogram shares no value with the collected file (which has "
            f"{sample}, …); its value column must name the same values"
        )
    return informed_prior(matched, weight)


def consistent_estimates(
    collected: Collected,
    method: str,
    *,
    level: float = 0.95,
    prior: DirichletPrior | None = None,
) -> pd.DataFrame:
    """The table of :func:`consistent_estimates_and_caveats`, without the caveats."""
    return consistent_estimates_and_caveats(collected, method, level=level, prior=prior)[0]


def consistent_estimates_and_caveats(
    collected: Collected,
    method: str,
    *,
    level: float = 0.95,
    prior: DirichletPrior | None = None,
    progress: Callable[[int, int], None] | None = None,
    simultaneous: bool = False,
) -> tuple[pd.DataFrame, tuple[Caveat, ...]]:
    """Post-process collected output and attach an interval for each true frequency.

    Parameters
    ----------
    collected : Collected
        From :func:`read_collected`.
    method : str
        A post-processing method (see :func:`ldpcore.postprocess.method_names`).
    level : float
        The intervals' nominal coverage, per value.
    prior : DirichletPrior, optional
        Bayes's prior (the learned one by default; :func:`prior_for` makes an informed one).
    progress : callable, optional
        Bayes's sampler reports ``(done, total)`` iterations to it.
    simultaneous : bool
        Intervals that hold for all values at once (the Class page's), not each alone.

    Returns
    -------
    DataFrame
        ``value, base_estimate, estimate, low, high`` (frequencies; ``0 <= low <= high
        <= 1``, each interval holding the estimate where the estimate is in [0, 1]).
        Bayes's intervals are credible intervals; see
        :func:`ldpcore.postprocess.estimates_with_intervals`.
    tuple of Caveat
        What to know before relying on the intervals (the prior shapes them, the sampler
        stopped early, small n widened them); :func:`ldpcore.present.run_sentences.caveats_note`
        says them.
    """
    chosen = get_method(method).configured(prior=prior, progress=progress)
    found = estimates_with_intervals(
        collected.estimate,
        method=chosen,
        protocol=collected.protocol,
        n=collected.n,
        level=level,
        simultaneous=simultaneous,
    )
    table = pd.DataFrame(
        {
            "value": collected.labels,
            "base_estimate": collected.estimate,
            "estimate": found.point,
            "low": found.low,
            "high": found.high,
        }
    )
    return table, found.caveats


def example_collected(*, seed: int = 2026) -> bytes:
    """An example collected file: OLH support counts, ε = 1, n = 10,000 (for trying the tools).

    The truth is the 20 most populous countries' shares as 10,000 users (bundled
    ``countries``); one seeded draw of the exact sampler stands in for a collection.

    Examples
    --------
    >>> example_collected().splitlines()[0]
    b'value,count'
    """
    from ldpcore.data.datasets import load_bundled  # noqa: PLC0415 (reads sample_data/)

    data = load_bundled("countries", top_d=20, n=10_000)
    oracle = get_protocol("OLH", epsilon=1.0, domain_size=data.domain_size)
    support = oracle.sample_support_counts(data.counts, seed)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["value", "count"])
    writer.writerows(zip(data.labels, support.tolist(), strict=True))
    return buffer.getvalue().encode()
