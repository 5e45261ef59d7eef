"""Privacy audit: checking that a protocol's randomizer really is ε-LDP.

Two independent checks:

1. **Exact.** The worst-case ratio ``max P(y|v) / P(y|v')`` from the protocol's
   channel (:meth:`FrequencyOracle.worst_case_ratio`: enumerated where small,
   closed form otherwise). ε-LDP holds iff it is at most ``e^ε``.
2. **Empirical.** Run the *real* randomizer many times on two inputs ``v, v'`` and
   count an event ``E`` built to separate them as much as the protocol allows (for
   every shipped protocol its ratio ``P(E|v)/P(E|v')`` equals ``e^ε`` exactly, see
   :func:`distinguishing_event`). A one-sided Clopper–Pearson bound on the ratio
   (each side at half the error level, Bonferroni) that lies above ``e^ε`` is
   evidence of a violation; this is how black-box LDP audits test an implementation
   (e.g. Ding et al., CCS 2018, "Detecting violations of differential privacy").
   Both directions (``E(v, v')`` and ``E(v', v)``) are tested.

A randomizer that leaks (a bug in its code, not in its formulas) fails check 2
even when check 1 passes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from ldpcore.errors import InputError
from ldpcore.protocols import FrequencyOracle
from ldpcore.protocols.base import users_per_batch
from ldpcore.rng import ClientRNG

#: Relative slack for floating-point rounding in the exact check.
_ROUNDING = 1e-9


#: The lowest confidence the audit accepts: below it a reported violation is no evidence.
CONFIDENCE_MIN = 0.9

#: Runs per input when none are asked for.
DEFAULT_RUNS = 200_000
#: Report cells the default audit randomizes at most (2^28, about 20 s on this project's
#: machine). Unary encodings and Subset Selection write about d cells a report, so at
#: d = 10,000 the default 200,000 runs were 8·10⁹ cells and 4.5 minutes. The
#: randomizer is still the real one, whole; only the number of runs shrinks, and the
#: result says so. Asking for runs explicitly is never capped.
CELLS_MAX = 1 << 28
#: Fewest runs per input a capped audit keeps (a leak of 10% or more still shows).
RUNS_MIN_CAPPED = 5_000


@dataclass(frozen=True)
class AuditResult:
    """The outcome of :func:`audit` (ratios are ``P(·|v)/P(·|v')``; the bound is ``e^ε``).

    Attributes
    ----------
    protocol : str
    epsilon : float
    domain_size : int
    bound : float
        ``e^ε``.
    exact_ratio : float
        From the channel.
    runs : int
        Randomizer runs per input.
    counts : tuple of int
        ``(E(v,v') under v, E(v,v') under v', E(v',v) under v', E(v',v) under v)``.
    empirical_ratio : float
        The larger of the two measured event ratios.
    lower_bound : float
        The larger one-sided lower confidence bound of the two ratios.
    confidence : float
    passed : bool
        Exact ratio within ``e^ε`` and neither lower bound above it.
    capped_from : int or None
        The default runs when they were reduced to bound the time (else None).
    """

    protocol: str
    epsilon: float
    domain_size: int
    bound: float
    exact_ratio: float
    runs: int
    counts: tuple[int, int, int, int]
    empirical_ratio: float
    lower_bound: float
    confidence: float
    passed: bool
    capped_from: int | None = None

    def measured_in_words(self) -> str:
        """The measured ratio, or why this many runs cannot give one.

        At large ε the event is so rare for the other input that ``runs`` draws may
        see it never: the ratio's estimate is then unbounded, not infinite.
        """
        if math.isfinite(self.empirical_ratio):
            return f"measured {self.empirical_ratio:.4g}"
        return (
            f"not measurable with {self.runs:,} runs (the event never occurred for the "
            "other input, so the ratio has no estimate; the lower bound still tests "
            "it)"
        )

    @property
    def verdict(self) -> str:
        """One sentence a person can act on."""
        if self.passed:
            return (
                f"consistent with ε-LDP: exact ratio {self.exact_ratio:.6g} <= e^ε = "
                f"{self.bound:.6g}; {self.measured_in_words()}, lower "
                f"{self.confidence:.0%} bound {self.lower_bound:.4g} <= e^ε" + self.capped_note()
            )
        if self.exact_ratio > self.bound * (1 + _ROUNDING):
            return (
                f"VIOLATION: the channel's worst-case ratio {self.exact_ratio:.6g} exceeds "
                f"e^ε = {self.bound:.6g}"
            )
        return (
            f"VIOLATION: the randomizer's measured ratio is at least {self.lower_bound:.4g} "
            f"({self.confidence:.0%} confidence), above e^ε = {self.bound:.6g}"
        )

    def capped_note(self) -> str:
        """Where the default runs were reduced: by how much, why, and how to choose."""
        if self.capped_from is None:
            return ""
        return (
            f" ({self.runs:,} runs per input instead of {self.capped_from:,}: at d = "
            f"{self.domain_size:,} a report is large, and the default audit keeps to about "
            "20 s; pass --runs for more)"
        )


def distinguishing_event(
    protocol: FrequencyOracle, reports: Any, v: int, w: int
) -> NDArray[np.bool_]:
    """For each report, whether it lies in the event that best tells ``v`` from ``w``.

    Declared by each protocol (``FrequencyOracle.distinguishing_event``): GRR, the
    report is ``v``; unary encodings, bit ``v`` set and bit ``w`` clear; OLH, the
    bucket is ``h(v)`` and ``h(v) ≠ h(w)``; SS, ``v`` in the subset and ``w`` not; HR,
    the row is +1 in ``v``'s column and −1 in ``w``'s. Each has probability ratio
    exactly ``e^ε`` under a correct randomizer.
    """
    return protocol.distinguishing_event(reports, v, w)


def _ratio_lower_bound(hits: int, misses_hits: int, runs: int, alpha: float) -> float:
    """Lower bound of ``p1/p2`` from ``hits ~ Bin(runs, p1)``, ``misses_hits ~ Bin(runs, p2)``."""
    if hits == 0:
        return 0.0
    p1_low = stats.beta.ppf(alpha / 2, hits, runs - hits + 1)
    p2_high = (
        1.0
        if misses_hits == runs
        else stats.beta.ppf(1 - alpha / 2, misses_hits + 1, runs - misses_hits)
    )
    return float(p1_low / p2_high) if p2_high > 0 else math.inf


def audit(
    protocol: FrequencyOracle,
    *,
    runs: int | None = None,
    confidence: float = 0.99,
    rng: ClientRNG = None,
    inputs: tuple[int, int] = (0, 1),
    progress: Callable[[int, int], None] | None = None,
) -> AuditResult:
    """Audit ``protocol`` exactly and empirically (see the module docstring).

    ``progress(done, total)`` is told the reports randomized so far (``4 · runs`` in all).
    Without ``runs``, :data:`DEFAULT_RUNS`, reduced where a report is large so that at
    most :data:`CELLS_MAX` cells are randomized (see :func:`default_runs`).
    """
    capped_from = None
    if runs is None:
        runs = default_runs(protocol)
        capped_from = DEFAULT_RUNS if runs < DEFAULT_RUNS else None
    if not (isinstance(runs, int) and 1_000 <= runs <= 50_000_000):
        raise InputError(f"runs must be a whole number in [1000, 50000000], got {runs!r}")
    if not (CONFIDENCE_MIN <= confidence < 1):
        # A one-sided bound at 50% is the estimate itself: a correct randomizer would be
        # reported as a violation about half the time, which is no evidence.
        raise InputError(
            f"confidence must be in [{CONFIDENCE_MIN}, 1) for a violation to be evidence, "
            f"got {confidence!r}"
        )
    v, w = inputs
    bound = math.exp(protocol.epsilon)
    exact = protocol.worst_case_ratio()
    counts = []
    # The protocol's own batch size keeps a chunk of reports to a few MB whatever d is
    # (65,536 OUE reports at d = 10,000 were 5 GB and a MemoryError).
    chunk = min(1 << 16, users_per_batch(protocol))
    done, total = 0, 4 * runs
    for first, second in ((v, w), (w, v)):
        hits = [0, 0]
        for which, value in enumerate((first, second)):
            left = runs
            while left:
                size = min(chunk, left)
                reports = protocol.randomize(np.full(size, value), rng)
                hits[which] += int(distinguishing_event(protocol, reports, first, second).sum())
                left -= size
                done += size
                if progress is not None:
                    progress(done, total)
        counts.extend(hits)
    alpha = 1 - confidence
    ratios = [
        counts[0] / counts[1] if counts[1] else math.inf,
        counts[2] / counts[3] if counts[3] else math.inf,
    ]
    lower = max(
        _ratio_lower_bound(counts[0], counts[1], runs, alpha / 2),
        _ratio_lower_bound(counts[2], counts[3], runs, alpha / 2),
    )
    passed = exact <= bound * (1 + _ROUNDING) and lower <= bound
    return AuditResult(
        protocol.name,
        protocol.epsilon,
        protocol.domain_size,
        bound,
        exact,
        runs,
        (counts[0], counts[1], counts[2], counts[3]),
        max(ratios),
        lower,
        confidence,
        passed,
        capped_from,
    )


def default_runs(protocol: FrequencyOracle) -> int:
    """Runs per input for an audit with none asked for: the default, within the cell budget.

    A report's size in cells is read from the protocol's batch size (its per-user path
    sizes batches to about 4 million cells: d cells a report for unary encodings and
    Subset Selection, one otherwise).
    """
    cells_per_report = max(1, (1 << 22) // users_per_batch(protocol))
    affordable = CELLS_MAX // (4 * cells_per_report)
    return int(min(DEFAULT_RUNS, max(RUNS_MIN_CAPPED, affordable)))
