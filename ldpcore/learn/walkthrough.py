"""A small population through one protocol, step by step (the Learn page's engine).

Each user's real report is produced by the protocol's client randomizer and read back
by the server's own aggregation, one report at a time, so the table shows exactly
which values every report supports.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ldpcore.collection.formats import report_format
from ldpcore.errors import InputError
from ldpcore.postprocess import get_method, method_names
from ldpcore.protocols import FrequencyOracle, get_protocol, protocol_class, protocol_names
from ldpcore.protocols.base import empty_support


@dataclass(frozen=True)
class Walkthrough:
    """Every step for one small population.

    Attributes
    ----------
    protocol : FrequencyOracle
    reports : DataFrame
        One row per user: ``user, true value, report, supports``.
    support_counts : ndarray
        ``c_v`` for each value.
    base : ndarray
        The Base estimate.
    methods : DataFrame
        One column per method, one row per value, plus ``truth``.
    """

    protocol: FrequencyOracle
    reports: pd.DataFrame
    support_counts: NDArray[np.int64]
    base: NDArray[np.float64]
    methods: pd.DataFrame


@dataclass(frozen=True)
class ReportWords:
    """What the walkthrough says of a protocol's reports and their aggregate (steps 2–4)."""

    reports: str
    aggregate_header: str
    aggregate_formula: str
    aggregate_name: str
    estimate_formula: str


def report_words(oracle: FrequencyOracle, good_for: str) -> ReportWords:
    """Steps 2–4's words: support and its counts, or SHE's noisy vectors and their sums."""
    e = math.exp(oracle.epsilon)
    choose = f"When to choose it: {good_for[0].lower()}{good_for[1:]}."
    if oracle.real_valued_reports:
        return ReportWords(
            reports=(
                f"**{oracle.name}**: {oracle.description}. Each report is the user's one-hot "
                f"vector (1 at its value, 0 elsewhere) plus Laplace noise of scale "
                f"2/ε = {2 / oracle.epsilon:.2f} on every entry, in steps of 1/64; two "
                f"values' reports differ in probability by at most e^ε = {e:.2f}, which is "
                "what protects each user. " + choose
            ),
            aggregate_header="3. The aggregator sums the reports",
            aggregate_formula=r"S_v = \sum_{\text{users}} y_v",
            aggregate_name="sum of the reports",
            estimate_formula=r"\tilde f_v = \frac{S_v}{n}",
        )
    return ReportWords(
        reports=(
            f"**{oracle.name}**: {oracle.description}. A report supports its user's own value "
            f"with probability p = {oracle.p:.3f} and any other value with q = {oracle.q:.3f}; "
            f"p/q ≤ e^ε = {e:.2f} is what protects each user. " + choose
        ),
        aggregate_header="3. The aggregator counts support",
        aggregate_formula=r"c_v = \#\{\text{reports that support } v\}",
        aggregate_name="support count",
        estimate_formula=r"\tilde f_v = \frac{c_v/n - q}{p - q}",
    )


def supports_text(
    oracle: FrequencyOracle, supported: NDArray[np.int64], labels: Sequence[str]
) -> str:
    """The values one report supports, in words (SHE's real vector supports none)."""
    if oracle.real_valued_reports:
        return "(none: its numbers are added to the sums)"
    return ", ".join(labels[int(v)] for v in np.flatnonzero(supported)) or "(nothing)"


def teachable_protocols() -> tuple[str, ...]:
    """The protocols the walkthrough shows: those whose reports support values.

    A hierarchy's report supports nodes of one level of a tree and the Square Wave's
    is a position; their lesson is the Queries page's ranges, not support per value.
    """
    return tuple(name for name in protocol_names() if protocol_class(name).support_view)


def walkthrough(
    *,
    protocol: str,
    epsilon: float,
    values: NDArray[np.int64],
    labels: tuple[str, ...],
    seed: int = 0,
) -> Walkthrough:
    """Randomize ``values`` (0-based) under ``protocol`` and post-process the result."""
    oracle = get_protocol(protocol, epsilon=epsilon, domain_size=len(labels))
    if not oracle.support_view:
        raise InputError(
            f"the walkthrough counts each report's support per value; {oracle.name} counts "
            f"{oracle.tallies_count}: see it on the Queries page (Ranges by length), or "
            "pick " + ", ".join(teachable_protocols()[:4]) + " here"
        )
    values = np.asarray(values, dtype=np.int64)
    if values.size == 0:
        raise InputError("add at least one user")
    rng = np.random.default_rng(seed)
    reports = oracle.randomize(values, rng)
    rows = []
    support = empty_support(oracle)
    for user in range(values.size):
        text, single = report_format(oracle).describe(oracle, reports, user)
        supported = oracle.aggregate(single)
        support += supported
        rows.append(
            {
                "user": user + 1,
                "true value": labels[values[user]],
                "report": text,
                "supports": supports_text(oracle, supported, labels),
            }
        )
    n = values.size
    base = oracle.estimate(support, n)
    truth = np.bincount(values, minlength=len(labels)) / n
    outputs = {"value": list(labels), "truth": truth}
    for name in method_names():
        outputs[name] = get_method(name)(base, protocol=oracle, n=n)
    return Walkthrough(oracle, pd.DataFrame(rows), support, base, pd.DataFrame(outputs))
