"""Power and PowerNS: calibration with a fitted power-law prior (Jia & Gong, INFOCOM 2019).

NDSS 2020, Section IV-E, Eq. (11); the count-domain form of reading note 7.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.postprocess.base import Context, PostProcessor, Vector
from ldpcore.postprocess.normalization import project_to_simplex

#: Largest exponent considered for the prior (beyond it the prior is a point mass at 1).
_MAX_EXPONENT = 60.0
#: Counts below this are summed exactly; above it the summand is smooth.
_EXACT_BELOW = 256
#: Quadrature cells per posterior window; each cell uses 2-point Gauss–Legendre.
_CELLS = 160
#: The Gaussian likelihood is negligible beyond this many standard deviations.
_WINDOW_SIGMAS = 12.0
#: Windows up to this many counts wide are summed exactly, integer by integer.
_EXACT_WINDOW = 1024
#: Evaluate the posterior mean directly for up to this many values, else tabulate.
_DIRECT_LIMIT = 256


def power_sum(n: int, exponent: float) -> float:
    """``H(n, b) = Σ_{x=1}^{n} x^{−b}`` by Euler–Maclaurin (exact sum below 16).

    The correction terms up to ``B6`` make the relative error below 1e-12 for the
    smooth tail ``x ≥ 16``, for any ``b ≥ 0`` and any ``n`` (even 1e12).
    """
    b = exponent
    head_end = min(n, 15)
    head = float(np.sum(np.arange(1, head_end + 1, dtype=np.float64) ** -b))
    if n <= 15:
        return head
    m = 16.0
    big = float(n)
    one_minus_b = 1.0 - b
    if abs(one_minus_b) < 1e-12:
        integral = math.log(big / m)
    else:
        integral = (
            math.expm1(one_minus_b * math.log(big)) - math.expm1(one_minus_b * math.log(m))
        ) / one_minus_b

    def derivative(order: int, x: float) -> float:
        coefficient = 1.0
        for i in range(order):
            coefficient *= -(b + i)
        return coefficient * x ** (-b - order)

    corrections = (
        (m**-b + big**-b) / 2
        + (1 / 12) * (derivative(1, big) - derivative(1, m))
        - (1 / 720) * (derivative(3, big) - derivative(3, m))
        + (1 / 30240) * (derivative(5, big) - derivative(5, m))
    )
    return head + integral + corrections


def fit_power_law_exponent(mean_count: float, n: int) -> float:
    """The exponent ``a`` of ``P(x) ∝ x^{−a}`` on ``{1..n}`` whose mean is ``mean_count``.

    The mean ``H(n, a−1)/H(n, a)`` falls from ``(n+1)/2`` at ``a = 0`` to 1 as
    ``a → ∞``; a target outside that range gets the nearest end (``a = 0`` or the
    largest exponent considered).
    """
    if n == 1:
        return 0.0

    def mean(a: float) -> float:
        return power_sum(n, a - 1.0) / power_sum(n, a)

    if mean_count >= mean(0.0):
        return 0.0
    if mean_count <= mean(_MAX_EXPONENT):
        return _MAX_EXPONENT
    from scipy import optimize  # noqa: PLC0415 (not at import: the CLI's --help)

    return float(optimize.brentq(lambda a: mean(a) - mean_count, 0.0, _MAX_EXPONENT, xtol=1e-12))


def posterior_mean_counts(
    observed: NDArray[np.float64], *, exponent: float, noise_sd: float, n: int
) -> NDArray[np.float64]:
    """``E[x | c̃] = Σ x^{1−a} φ((c̃−x)/s) / Σ x^{−a} φ((c̃−x)/s)`` over ``x ∈ {1..n}``.

    Only ``x`` within ``12 s`` of ``c̃`` matter. When that window is at most 1024 counts
    wide it is summed exactly. Otherwise counts below 256 are summed exactly
    (the prior is steep there); above, each integer block ``[u, w)`` is replaced by
    the integral over ``[u − ½, w − ½]`` (the midpoint Euler–Maclaurin form) with
    2-point Gauss–Legendre on cells that are fine near the exact part and at most
    ``0.15 s`` wide elsewhere.
    """
    c = np.asarray(observed, dtype=np.float64)[:, None]
    s = noise_sd
    a = exponent
    # Clamp to {1..n}: an estimate beyond n (possible under noise) looks at x near n.
    lo = np.maximum(1.0, np.floor(np.minimum(c, float(n)) - _WINDOW_SIGMAS * s))
    hi = np.minimum(float(n), np.ceil(np.maximum(c, 1.0) + _WINDOW_SIGMAS * s) + 64.0)

    if _WINDOW_SIGMAS * 2 * s + 64 <= _EXACT_WINDOW:
        # Narrow noise: the summand changes within one count, so no integral
        # approximation is valid; sum every integer of each window exactly.
        # hi − lo ≤ 24 s + 66 (the clamps only narrow a window): no wider than needed.
        width = min(_EXACT_WINDOW + 2, math.ceil(2 * _WINDOW_SIGMAS * s) + 68)
        offsets = np.arange(width, dtype=np.float64)[None, :]
        x = lo + offsets
        log_w = np.where(x <= hi, 0.0, -np.inf)
        return _weighted_mean(x, log_w, c, a, s)

    near = lo[:, 0] < _EXACT_BELOW
    if near.all() or not near.any() or n < _EXACT_BELOW:
        return _mixed_quadrature(c, lo=lo, hi=hi, a=a, s=s, n=n, exact_part=bool(near.any()))
    # Rows whose window starts above the exact part skip its 255 nodes entirely.
    result = np.empty(c.shape[0])
    result[near] = _mixed_quadrature(
        c[near], lo=lo[near], hi=hi[near], a=a, s=s, n=n, exact_part=True
    )
    result[~near] = _mixed_quadrature(
        c[~near], lo=lo[~near], hi=hi[~near], a=a, s=s, n=n, exact_part=False
    )
    return result


def _mixed_quadrature(
    c: NDArray[np.float64],
    *,
    lo: NDArray[np.float64],
    hi: NDArray[np.float64],
    a: float,
    s: float,
    n: int,
    exact_part: bool,
) -> NDArray[np.float64]:
    nodes: list[NDArray[np.float64]] = []
    log_weights: list[NDArray[np.float64]] = []
    if exact_part:
        exact = np.arange(1, min(n, _EXACT_BELOW - 1) + 1, dtype=np.float64)[None, :]
        nodes.append(exact * np.ones_like(c))
        log_weights.append(np.where((exact >= lo) & (exact <= hi), 0.0, -np.inf))

    if n >= _EXACT_BELOW:
        start = np.maximum(lo, float(_EXACT_BELOW)) - 0.5
        stop = hi + 0.5
        active = stop > start
        stop = np.where(active, stop, start + 1.0)
        # Cells uniform in log(x − start + s/8): fine near `start`, ~uniform far away.
        offset = max(s / 8.0, 1.0)
        u = np.linspace(0.0, 1.0, _CELLS + 1)[None, :]
        span = np.log1p((stop - start) / offset)
        edges = start + offset * np.expm1(u * span)
        left, right = edges[:, :-1], edges[:, 1:]
        mid, half = (left + right) / 2, (right - left) / 2
        gauss = 1.0 / math.sqrt(3.0)
        cell_log_w = np.where(active, np.log(half), -np.inf)
        for sign in (-1.0, 1.0):
            nodes.append(mid + sign * gauss * half)
            log_weights.append(cell_log_w)

    return _weighted_mean(
        np.concatenate(nodes, axis=1), np.concatenate(log_weights, axis=1), c, a, s
    )


def _weighted_mean(
    x: NDArray[np.float64], log_w: NDArray[np.float64], c: NDArray[np.float64], a: float, s: float
) -> NDArray[np.float64]:
    """Posterior mean over nodes ``x`` with quadrature log-weights ``log_w`` (row per ``c``)."""
    log_w = log_w - a * np.log(x) - (x - c) ** 2 / (2.0 * s * s)
    log_w -= log_w.max(axis=1, keepdims=True)
    weights = np.exp(log_w)
    return (weights * x).sum(axis=1) / weights.sum(axis=1)


#: Power's grid (``PosteriorTable``), in units of ``s``: steps of 1/8 up to 10 (the
#: posterior mean bends sharply near 3–4), steps of 1/4 up to 40, then 5% steps.
_FINE_STEP, _FINE_UP_TO = 1 / 8, 10.0
_EVEN_STEP, _EVEN_UP_TO = 1 / 4, 40.0
_GROWTH = 1.05


class PosteriorTable:
    """Power's posterior mean ``E[x | c̃]`` on one fixed grid, for one ``(a, s, n)``.

    The knots are a sequence fixed by ``s`` alone: steps of ``s/8`` up to ``10 s``
    (the prior's bend near ``x = 0`` makes the mean turn sharply near ``3–4 s``), of
    ``s/4`` up to ``40 s``, then 5% steps (the posterior mean is smooth on the scale
    ``s``, and beyond ``40 s`` a 5% step is at least ``2 s``). The table evaluates the
    posterior only at the knots a call needs and keeps them, so the trials of a run
    share one table (a Power call at the Explorer's defaults fell from 4.8 to about
    0.3 ms).

    Values between knots come from the cubic through the four nearest knots. That
    interpolant is local, so an answer never depends on which knots earlier calls
    added: a trial's output is the same whatever ran before it (a global spline
    would move with the table's extent).

    Parameters
    ----------
    exponent, noise_sd : float
        The prior's exponent ``a`` and the noise's standard deviation ``s``.
    n : int
        The number of users (the prior's support is ``{1..n}``).
    """

    def __init__(self, *, exponent: float, noise_sd: float, n: int) -> None:
        self.exponent, self.noise_sd, self.n = exponent, noise_sd, n
        # Knot index at the end of the fine steps, and of the even ones.
        self._fine_end = round(_FINE_UP_TO / _FINE_STEP)
        self._even_end = self._fine_end + round((_EVEN_UP_TO - _FINE_UP_TO) / _EVEN_STEP)
        self._first = 0  # the knot index of _knots[0]
        self._knots = np.empty(0)
        self._values = np.empty(0)
        # Counts whose posterior mean was summed directly, sorted, and their values.
        self._direct: tuple[NDArray[np.float64], NDArray[np.float64]] = (np.empty(0), np.empty(0))

    def _knot(self, index: NDArray[np.int64]) -> NDArray[np.float64]:
        s = self.noise_sd
        j = index.astype(np.float64)
        fine = j * _FINE_STEP * s
        even = (_FINE_UP_TO + (j - self._fine_end) * _EVEN_STEP) * s
        grown = _EVEN_UP_TO * s * _GROWTH ** np.maximum(j - self._even_end, 0.0)
        return np.where(
            index <= self._fine_end, fine, np.where(index <= self._even_end, even, grown)
        )

    def _index_below(self, count: float) -> int:
        """The largest knot index whose knot is at most ``count``."""
        units = count / self.noise_sd
        if units <= _FINE_UP_TO:
            index = math.floor(units / _FINE_STEP)
        elif units <= _EVEN_UP_TO:
            index = self._fine_end + math.floor((units - _FINE_UP_TO) / _EVEN_STEP)
        else:
            index = self._even_end + math.floor(math.log(units / _EVEN_UP_TO) / math.log(_GROWTH))
        # Guard the float rounding at a knot.
        while self._knot(np.array([index + 1]))[0] <= count:
            index += 1
        while self._knot(np.array([index]))[0] > count:
            index -= 1
        return int(index)

    def _cover(self, low: float, high: float) -> None:
        """Evaluate the knots from two below ``low`` to three above ``high`` not yet known."""
        knots = self._knots
        if knots.size >= 6 and knots[2] <= low and high < knots[-4]:
            return  # the usual case once the first trials have run
        first = self._index_below(low) - 2
        last = self._index_below(high) + 3
        if self._knots.size:
            have_first, have_last = self._first, self._first + self._knots.size - 1
            if first >= have_first and last <= have_last:
                return
            # Grow with a margin, so that the next trials rarely need new knots.
            first = min(have_first, first - (have_first - first))
            last = max(have_last, last + (last - have_last))
        else:
            have_first, have_last = last + 1, last  # nothing known yet
        below = np.arange(first, have_first)
        above = np.arange(max(have_last + 1, first), last + 1)
        new = np.concatenate([below, above])
        values = posterior_mean_counts(
            self._knot(new), exponent=self.exponent, noise_sd=self.noise_sd, n=self.n
        )
        self._knots = np.concatenate([self._knot(below), self._knots, self._knot(above)])
        self._values = np.concatenate([values[: below.size], self._values, values[below.size :]])
        self._first = first

    def direct(self, counts: NDArray[np.float64]) -> NDArray[np.float64]:
        """``E[x | c̃]`` summed directly for each of the sorted, distinct ``counts``.

        Values already summed for an earlier call are reused: support counts are
        integers, so trials of a run repeat most small counts (at ε = 10, OLH, d = 1024
        a trial has ~240 distinct counts). A reused value is the very number the sum
        gives, so an answer does not depend on what ran before.
        """
        known, values = self._direct
        where = np.clip(np.searchsorted(known, counts), 0, max(known.size - 1, 0))
        hit = (known[where] == counts) if known.size else np.zeros(counts.size, dtype=bool)
        result = np.empty(counts.size)
        result[hit] = values[where[hit]]
        if not hit.all():
            fresh = counts[~hit]
            result[~hit] = posterior_mean_counts(
                fresh, exponent=self.exponent, noise_sd=self.noise_sd, n=self.n
            )
            merged = np.concatenate([known, fresh])
            order = np.argsort(merged, kind="stable")
            self._direct = (merged[order], np.concatenate([values, result[~hit]])[order])
        return result

    def __call__(self, counts: NDArray[np.float64]) -> NDArray[np.float64]:
        """Interpolated ``E[x | c̃]`` for each count ``c̃`` (any order)."""
        c = np.asarray(counts, dtype=np.float64)
        self._cover(float(c.min()), float(c.max()))
        knots, values = self._knots, self._values
        k = np.clip(np.searchsorted(knots, c, side="right") - 2, 0, knots.size - 4)
        x = [knots[k + i] for i in range(4)]
        result = np.zeros_like(c)
        for i in range(4):
            # Lagrange basis polynomial of knot i at c.
            basis = np.ones_like(c)
            for j in range(4):
                if j != i:
                    basis *= (c - x[j]) / (x[i] - x[j])
            result += basis * values[k + i]
        return result


@dataclass
class PowerTables:
    """Posterior tables by ``(p, q, n, d)``: one per run, shared by its trials.

    Power and PowerNS each hold one (a method object lives for one run), so no table
    outlives its run and nothing is shared between runs or threads.
    """

    tables: dict[tuple[float, float, int, int], PosteriorTable] = field(default_factory=dict)

    def get(self, *, p: float, q: float, n: int, d: int) -> PosteriorTable:
        """The table for this protocol, ``n`` and ``d``, built empty on first use."""
        key = (p, q, n, d)
        if key not in self.tables:
            self.tables[key] = PosteriorTable(
                exponent=fit_power_law_exponent(n / d, n),
                noise_sd=math.sqrt(n * q * (1 - q)) / (p - q),
                n=n,
            )
        return self.tables[key]

    def __getstate__(self) -> dict[str, object]:
        # A method shipped to a Dask worker starts with empty tables.
        return {"tables": {}}


def power_calibrate(
    estimate: NDArray[np.float64],
    *,
    p: float,
    q: float,
    n: int,
    tables: PowerTables | None = None,
) -> NDArray[np.float64]:
    """Power's output (frequencies) for a Base estimate; see :class:`Power`.

    With at most 256 distinct counts the posterior mean is evaluated directly;
    otherwise it is interpolated in the :class:`PosteriorTable` of ``tables`` (a
    fresh one when ``tables`` is omitted).
    """
    counts = n * estimate
    table = (PowerTables() if tables is None else tables).get(p=p, q=q, n=n, d=estimate.size)
    unique, inverse = np.unique(counts, return_inverse=True)
    if unique.size <= _DIRECT_LIMIT:
        return table.direct(unique)[inverse] / n
    # The posterior mean rises with c̃ (the Gaussian likelihood has a monotone
    # likelihood ratio), but an interpolant may wiggle by rounding-sized amounts; a
    # running maximum over the sorted inputs restores the order exactly.
    return np.maximum.accumulate(table(unique))[inverse] / n


@dataclass(frozen=True, kw_only=True)
class Power(PostProcessor):
    """Posterior mean under a power-law prior fitted to the data (NDSS Sec. IV-E, Eq. 11).

    In counts (reading note 7): ``c̃ = n f̃`` is the true count ``x`` plus Gaussian
    noise of variance ``s² = n q(1−q)/(p−q)²`` (Eq. 5). The prior is
    ``P(x) ∝ x^{−a}`` on ``{1, …, n}`` with ``a`` chosen so that its mean is the
    average count ``n/d``. The output is ``E[x | c̃]/n``, non-negative (at least
    ``1/n``: the prior puts no mass on a count of 0) but not summing to one.
    With more than 256 distinct inputs the posterior mean is interpolated in a
    table that the trials of a run share (:class:`PosteriorTable`).
    """

    name: ClassVar[str] = "Power"
    reads: ClassVar = "support"
    description: ClassVar[str] = "Posterior mean under a fitted power-law prior"
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "no"
    complexity: ClassVar[str] = "O(d log d) (tabulated posterior)"
    reference: ClassVar[str] = "Jia & Gong, INFOCOM 2019; NDSS 2020, Sec. IV-E, Eq. (11)"
    bias: ClassVar[str] = "Shrinks towards the fitted prior: rare values up, frequent ones down"
    formula: ClassVar[str] = r"f'_v = \mathbb{E}[x \mid \tilde c_v]/n,\quad P(x) \propto x^{-a}"
    explanation: ClassVar[str] = (
        "Assume frequencies follow a power law, fit it, and replace each estimate by its expected"
        " true value given the noisy observation. Very good on skewed data, worse when the "
        "assumption is wrong."
    )

    _tables: PowerTables = field(init=False, repr=False, compare=False, default_factory=PowerTables)

    def _apply(self, estimate: Vector, context: Context) -> Vector:
        protocol = context.protocol
        return power_calibrate(
            estimate, p=protocol.p, q=protocol.q, n=context.n, tables=self._tables
        )


@dataclass(frozen=True, kw_only=True)
class PowerNS(PostProcessor):
    """Norm-Sub applied to Power's output (NDSS Sec. IV-E)."""

    name: ClassVar[str] = "PowerNS"
    reads: ClassVar = "support"
    description: ClassVar[str] = "Power, then Norm-Sub so the estimates are consistent"
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "yes"
    complexity: ClassVar[str] = "O(d log d) (tabulated posterior)"
    reference: ClassVar[str] = "Wang et al., NDSS 2020, Sec. IV-E"
    bias: ClassVar[str] = "Like Power, then shifted so the total is 1"
    formula: ClassVar[str] = r"f' = \text{Norm-Sub}(\text{Power}(\tilde f))"
    explanation: ClassVar[str] = (
        "Power followed by Norm-Sub, so the result is also a proper distribution."
    )
    derived_from: ClassVar[str | None] = "Power"

    def from_parent(
        self,
        parent_output: NDArray[np.float64],
        estimate: ArrayLike | None = None,
        context: Context | None = None,
    ) -> NDArray[np.float64]:
        """Norm-Sub of Power's output (the input itself is not needed)."""
        return project_to_simplex(parent_output)

    _tables: PowerTables = field(init=False, repr=False, compare=False, default_factory=PowerTables)

    def _apply(self, estimate: Vector, context: Context) -> Vector:
        protocol = context.protocol
        return self.from_parent(
            power_calibrate(estimate, p=protocol.p, q=protocol.q, n=context.n, tables=self._tables)
        )
