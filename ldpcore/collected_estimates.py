"""LDP output someone already collected: read it, make it consistent, say how sure it is.

An analyst who ran a protocol has, per value, either the *support counts* (how many
reports support the value) or the aggregator's *Base estimates* (NDSS 2020 Eq. 2).
:func:`read_collected` reads either from a CSV; :func:`consistent_estimates`
post-processes them with a chosen method and attaches an interval per value by a
parametric bootstrap: the method's output is taken as the truth, the protocol is
simulated on it ``trials`` times (the exact fast samplers), the method is applied
to each simulated Base estimate, and the spread of those errors around the fitted
truth gives the interval (the "basic" bootstrap interval, Davison & Hinkley 1997,
Sec. 5.2). It describes the noise of the protocol plus the method as fitted; it is
an approximation, not an exact confidence interval, and the page says so.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ldpcore._validation import check_n_users
from ldpcore.datasets import round_to_total
from ldpcore.errors import InputError
from ldpcore.postprocess import get_method
from ldpcore.protocols import FrequencyOracle, get_protocol
from ldpcore.rng import trial_generators
from ldpcore.tables import TableError, inspect_table, read_numbers

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
    """

    labels: tuple[str, ...]
    protocol: FrequencyOracle
    n: int
    kind: str
    estimate: NDArray[np.float64]


def guess_kind(data: bytes, *, source: str = "the file") -> str:
    """``"counts"`` when the header names a count column, else ``"estimates"``."""
    layout = inspect_table(data, source=source, numbers="estimates")
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
    params: Mapping[str, int] | None = None,
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
    source, value_column, number_column
        As for :func:`ldpcore.tables.read_numbers`.

    Examples
    --------
    >>> c = read_collected(b"value,count\na,60\nb,40\n", protocol="GRR", epsilon=1.0, n=100)
    >>> c.kind, round(float(c.estimate.sum()), 12)
    ('counts', 1.0)
    """
    kind = kind or guess_kind(data, source=source)
    if kind not in KINDS:
        raise InputError(f"kind must be one of {', '.join(KINDS)}; got {kind!r}")
    n = check_n_users(n)
    table = read_numbers(
        data,
        source=source,
        value_column=value_column,
        number_column=number_column,
        group_column="",
        numbers=kind,
    )
    oracle = get_protocol(
        protocol, epsilon=epsilon, domain_size=len(table.labels), **dict(params or {})
    )
    if kind == "counts":
        over = np.flatnonzero(table.numbers > n)
        if over.size:
            first = int(over[0])
            raise TableError(
                f"{source}: the support count of {table.labels[first]!r} is "
                f"{table.numbers[first]:,.0f}, more than the n = {n:,} users who reported; "
                "check n, or whether the file holds estimates rather than counts"
            )
        estimate = oracle.estimate(table.numbers.astype(np.int64), n)
    else:
        estimate = table.numbers
        if np.abs(estimate).max() > 1e3:
            raise TableError(
                f"{source}: estimates are frequencies (they sum to about 1), but some are "
                f"above 1000 in size; if these are support counts, name the column 'count'"
            )
    return Collected(table.labels, oracle, n, kind, estimate)


def consistent_estimates(
    collected: Collected,
    method: str,
    *,
    trials: int = 100,
    level: float = 0.95,
    seed: int = 0,
) -> pd.DataFrame:
    """Post-process collected output and attach a simulated interval per value.

    Parameters
    ----------
    collected : Collected
        From :func:`read_collected`.
    method : str
        A post-processing method (see :func:`ldpcore.postprocess.method_names`).
    trials : int
        Bootstrap simulations (0 skips the interval).
    level : float
        The interval's nominal coverage.
    seed : int
        Seed of the simulations.

    Returns
    -------
    DataFrame
        ``value, base_estimate, estimate, low, high`` (frequencies; ``low``/``high``
        clipped to ``[0, 1]``; NaN when ``trials == 0``).
    """
    if not (isinstance(trials, int) and 0 <= trials <= 10_000):
        raise InputError(f"trials must be a whole number in [0, 10000], got {trials!r}")
    if not (0.5 <= level < 1):
        raise InputError(f"level must be in [0.5, 1), got {level!r}")
    processor = get_method(method)
    oracle, n = collected.protocol, collected.n
    fitted = processor(collected.estimate, protocol=oracle, n=n)
    low = np.full(fitted.size, np.nan)
    high = np.full(fitted.size, np.nan)
    if trials:
        # The fitted truth must be a distribution to simulate from; methods that do
        # not enforce one (Base, Base-Pos, …) are simulated from its projection.
        truth = (
            fitted
            if _is_distribution(fitted)
            else get_method("Norm-Sub")(collected.estimate, protocol=oracle, n=n)
        )
        counts = round_to_total(np.clip(truth, 0, None), n)
        centre = counts / n
        errors = np.empty((trials, fitted.size))
        for row, generator in zip(errors, trial_generators(seed, trials), strict=True):
            support = oracle.sample_support_counts(counts, generator)
            row[:] = processor(oracle.estimate(support, n), protocol=oracle, n=n) - centre
        tail = (1 - level) / 2
        lo_err, hi_err = np.quantile(errors, [tail, 1 - tail], axis=0)
        low = np.clip(fitted - hi_err, 0.0, 1.0)
        high = np.clip(fitted - lo_err, 0.0, 1.0)
    return pd.DataFrame(
        {
            "value": collected.labels,
            "base_estimate": collected.estimate,
            "estimate": fitted,
            "low": low,
            "high": high,
        }
    )


def _is_distribution(f: NDArray[np.float64]) -> bool:
    return bool(np.all(f >= 0) and abs(float(f.sum()) - 1.0) < 1e-9)


def example_collected(*, seed: int = 2026) -> bytes:
    """An example collected file: OLH support counts, ε = 1, n = 10,000 (for trying the tools).

    The truth is the 20 most populous countries' shares as 10,000 users (bundled
    ``countries``); one seeded draw of the exact sampler stands in for a collection.

    Examples
    --------
    >>> example_collected().splitlines()[0]
    b'value,count'
    """
    from ldpcore.datasets import load_bundled  # noqa: PLC0415 (reads sample_data/)

    data = load_bundled("countries", top_d=20, n=10_000)
    oracle = get_protocol("OLH", epsilon=1.0, domain_size=data.domain_size)
    support = oracle.sample_support_counts(data.counts, seed)
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["value", "count"])
    writer.writerows(zip(data.labels, support.tolist(), strict=True))
    return buffer.getvalue().encode()
