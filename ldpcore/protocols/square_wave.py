"""The Square Wave mechanism on a discretised ordered domain (Li et al., SIGMOD 2020).

Li, Wang, Lopuhaä-Zwakenberg, Li and Škorić, "Estimating Numerical Distributions under
Local Differential Privacy", Sec. 4. A user with value ``v`` reports a position ``y``
near ``v`` more often than one far from it: every position of the window
``[v − b, v + b]`` with probability ``p``, every other with ``q = p / e^ε``. Nearby values
then have nearby reports, so the report histogram is a blurred copy of the data. That
is what makes it good for ordered values, and why its estimators (EM, and EM with
smoothing) are post-processing with a visible bias–variance choice.

On ``d`` values the tool uses the discrete form: positions ``0 … d + 2b − 1`` (value
``v``'s window is positions ``v … v + 2b``), with ``b = ⌊b* d⌋`` for Li et al.'s
continuous half-width ``b* = (ε e^ε − e^ε + 1) / (2 e^ε (e^ε − 1 − ε))`` (Sec. 4.2, the
width that maximises their bound on the mutual information). Normalisation gives
``q = 1 / ((2b + 1) e^ε + d − 1)``.

The paper gives no unbiased estimator: EM is its estimator. The tool's Base for SW is
the unbiased least-squares inversion of the channel (``f̃ = (MᵀM)⁻¹ Mᵀ c / n``), so that
the methods that read only an estimate have one, and so that the cost of unbiasedness
is seen: its per-value variance is hundreds of times OUE's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_counts, check_n_users
from ldpcore.errors import InputError
from ldpcore.protocols.base import (
    FrequencyOracle,
    ratio_from_matrix,
)
from ldpcore.protocols.parameters import ProtocolParameter
from ldpcore.protocols.windows import window_sums
from ldpcore.rng import ClientRNG, as_source

if TYPE_CHECKING:
    from ldpcore.protocols.likelihoods import LikelihoodModel

#: Largest d: the Base estimate keeps the d × (d + 2b) inverse of the channel (about
#: 50 MB at this size), built once per protocol in about a second.
DOMAIN_MAX = 2048
#: Largest channel ``channel_matrix`` builds explicitly (outputs × values).
_MAX_EXPLICIT_CELLS = 1 << 24


def continuous_half_width(epsilon: float) -> float:
    """Li et al.'s ``b*`` on the unit interval (Sec. 4.2): 1/2 as ε → 0, → 0 as ε grows.

    Written with ``expm1`` so that the two differences of nearly equal numbers keep
    their precision at small ε.
    """
    grow = math.expm1(epsilon)
    numerator = epsilon * (grow + 1.0) - grow
    denominator = 2.0 * (grow + 1.0) * (grow - epsilon)
    if denominator <= 0.0 or numerator <= 0.0:  # ε so small that both round to zero
        return 0.5
    return numerator / denominator


@dataclass(frozen=True, kw_only=True)
class SquareWave(FrequencyOracle):
    """Square Wave: report a position in a window around the value (Li et al. 2020, Sec. 4).

    Reports are positions, an int64 array in ``[0, d + 2b)``; the tallies are their
    histogram. ``p`` and ``q`` are the channel's two levels, the chance of one position
    inside and outside the window: there is no support count per value here.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε.
    domain_size : int
        The number of ordered values ``d`` (at most :data:`DOMAIN_MAX`).
    half_width : int, optional
        ``b``, the window's half-width in values; by default ``⌊b* d⌋``
        (:func:`continuous_half_width`).

    Examples
    --------
    >>> sw = SquareWave(epsilon=1.0, domain_size=100)
    >>> sw.half_width, sw.outputs
    (25, 150)
    """

    name: ClassVar[str] = "SW"
    description: ClassVar[str] = (
        "Square Wave: report a position near the value, nearby positions more often"
    )
    good_for: ClassVar[str] = (
        "Ordered values whose distribution is smooth (ages, times): with EM and smoothing it "
        "trades a little blur for much less noise"
    )
    reference: ClassVar[str] = "Li et al., SIGMOD 2020, Sec. 4 (discretised as in Sec. 5)"
    variance_source: ClassVar[str] = "the positions' multinomial, Li et al. Sec. 4"
    communication: ClassVar[str] = "one position (log2(d + 2b) bits)"
    support_view: ClassVar[bool] = False
    tallies_count: ClassVar[str] = "the positions its reports take, not values"
    ordered_values: ClassVar[bool] = True
    maximum_reachable: ClassVar[bool] = False
    max_domain: ClassVar[int | None] = DOMAIN_MAX
    extra_parameters: ClassVar[tuple[ProtocolParameter, ...]] = (
        ProtocolParameter(
            "half_width",
            "the Square Wave's window half-width b in values (default: Li et al.'s, ⌊b* d⌋)",
            0,
            default=lambda epsilon, d: math.floor(continuous_half_width(epsilon) * d),
            examples=((1.0, 64), (1.0, 1024), (2.0, 1024)),
        ),
    )

    half_width: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.domain_size > DOMAIN_MAX:
            raise InputError(
                f"SW inverts its channel for the Base estimate and handles at most "
                f"{DOMAIN_MAX:,} values, got d = {self.domain_size:,}; merge values into "
                "fewer buckets, or use a hierarchy (TreeOUE) for a large ordered domain"
            )
        chosen = self.half_width
        if chosen is None:
            chosen = math.floor(continuous_half_width(self.epsilon) * self.domain_size)
        chosen = int(ProtocolParameter("half_width", "", 0).check(chosen))
        if chosen > self.domain_size:
            raise InputError(
                f"half_width must be at most d = {self.domain_size} (a wider window adds "
                f"only noise), got {chosen}"
            )
        object.__setattr__(self, "half_width", chosen)

    def parameters(self) -> dict[str, Any]:
        """Constructor arguments, including ``half_width``."""
        return {**super().parameters(), "half_width": self.b}

    @property
    def b(self) -> int:
        """The window's half-width in values."""
        return int(self.half_width or 0)

    @property
    def width(self) -> int:
        """``2b + 1``, the positions of one value's window."""
        return 2 * self.b + 1

    @property
    def outputs(self) -> int:
        """``d + 2b``, the positions a report can take (the tallies' length)."""
        return self.domain_size + 2 * self.b

    @property
    def p(self) -> float:
        """The chance of one position inside the window: ``e^ε q``."""
        return math.exp(self.epsilon) * self.q

    @property
    def q(self) -> float:
        """The chance of one position outside the window: ``1 / ((2b + 1) e^ε + d − 1)``."""
        return 1.0 / (self.width * math.exp(self.epsilon) + self.domain_size - 1)

    @property
    def window_share(self) -> float:
        """``(2b + 1)(p − q)``, the chance a report is uniform on the window.

        Otherwise it is uniform on all positions: the mixture both samplers draw.
        """
        return self.width * (self.p - self.q)

    # ------------------------------------------------------------ client and server
    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> NDArray[np.int64]:
        """Each user's position, drawn by the real client.

        Uniform in its window with chance ``(2b+1)(p−q)``, else uniform over all
        ``d + 2b`` positions, which gives ``p`` in the window and ``q`` outside.
        """
        v = self._values(values)
        source = as_source(rng)
        in_window = source.random(v.size) < self.window_share
        near = v + source.integers(0, self.width, size=v.size)
        anywhere = source.integers(0, self.outputs, size=v.size)
        return np.where(in_window, near, anywhere).astype(np.int64)

    def aggregate(self, reports: ArrayLike) -> NDArray[np.int64]:
        """The histogram of reported positions (the tallies)."""
        y = np.asarray(reports)
        if y.ndim != 1 or not np.issubdtype(y.dtype, np.integer):
            raise InputError(f"{self.name} reports are whole positions, got {y.dtype} {y.shape}")
        if y.size and (y.min() < 0 or y.max() >= self.outputs):
            raise InputError(f"{self.name} positions must be in [0, {self.outputs})")
        return np.bincount(y, minlength=self.outputs).astype(np.int64)

    def _sample_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        # The contract asks for it; the base refuses support counts before calling it.
        self._check_support_view()
        raise NotImplementedError

    def _tallies_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        # The mixture of `randomize`, drawn for all users at once: who is in a window
        # (a binomial per value), where the others land (one multinomial), and each
        # window's offsets, uniform on 2b + 1 positions, by halving (`_uniform_shifts`).
        windowed = rng.binomial(true_counts, self.window_share)
        spread = int(true_counts.sum() - windowed.sum())
        anywhere = rng.multinomial(spread, np.full(self.outputs, 1.0 / self.outputs))
        start = np.zeros(self.outputs, dtype=np.int64)
        start[: self.domain_size] = windowed
        return (anywhere + _uniform_shifts(start, self.width, rng)).astype(np.int64)

    def _tallies_per_user(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        return self._summed_per_user(
            true_counts, rng, self.aggregate, np.zeros(self.outputs, dtype=np.int64)
        )

    def check_tallies(self, tallies: ArrayLike) -> NDArray[np.int64]:
        """The histogram of ``d + 2b`` positions, checked."""
        return check_counts(tallies, name="tallies (positions)", length=self.outputs)

    # --------------------------------------------------------------------- estimates
    @cached_property
    def channel(self) -> NDArray[np.float64]:
        """``M[y, v] = P(position y | value v)``: ``p`` in the window, ``q`` elsewhere."""
        matrix = np.full((self.outputs, self.domain_size), self.q)
        rows = np.arange(self.width)[:, np.newaxis] + np.arange(self.domain_size)
        matrix[rows, np.arange(self.domain_size)] = self.p
        return matrix

    @cached_property
    def inverse(self) -> NDArray[np.float64]:
        """``(MᵀM)⁻¹ Mᵀ``, the least-squares inverse of the channel (``d × (d + 2b)``)."""
        m = self.channel
        return np.asarray(np.linalg.solve(m.T @ m, m.T), dtype=np.float64)

    def estimate_from_tallies(self, tallies: ArrayLike, n: int) -> NDArray[np.float64]:
        """The unbiased least-squares inversion ``f̃ = (MᵀM)⁻¹ Mᵀ c / n``.

        Unbiased because ``E[c / n] = M f`` and ``M`` has full column rank; among
        estimates linear in ``c`` it is not the lowest-variance one (that would weigh
        positions by their variance), but it needs no estimate of ``f`` to be made.
        """
        n = check_n_users(n)
        counts = self.check_tallies(tallies)
        if int(counts.sum()) != n:
            raise InputError(
                f"{self.name}'s tallies count {int(counts.sum()):,} reports, but n = {n:,}"
            )
        return self.inverse @ (counts / n)

    def _mean_positions(self, frequencies: ArrayLike) -> NDArray[np.float64]:
        f = np.asarray(frequencies, dtype=np.float64)
        if f.shape != (self.domain_size,):
            raise InputError(f"frequencies must have length {self.domain_size}, got {f.shape}")
        return self.q + (self.p - self.q) * window_sums(f, self.width, self.outputs)

    def variance(self, frequencies: ArrayLike, n: int) -> NDArray[np.float64]:
        """Each value's Base variance: ``diag(A Σ Aᵀ)`` with ``Σ`` the multinomial's.

        ``A`` is the inverse, ``Σ = (diag(m) − m mᵀ)/n`` and ``m = M f`` the positions'
        chances (exact: the positions are one multinomial).
        """
        n = check_n_users(n)
        m = self._mean_positions(frequencies)
        a = self.inverse
        return ((a**2) @ m - (a @ m) ** 2) / n

    def approx_variance(self, n: int) -> float:
        """The mean of :meth:`variance` at the uniform distribution (there is no f-free one)."""
        return self._uniform_variance_per_user / check_n_users(n)

    @cached_property
    def _uniform_variance_per_user(self) -> float:
        uniform = np.full(self.domain_size, 1.0 / self.domain_size)
        return float(np.mean(self.variance(uniform, 1)))

    def range_variances(
        self,
        frequencies: ArrayLike,
        n: int,
        starts: ArrayLike,
        stops: ArrayLike,
    ) -> NDArray[np.float64]:
        """The Base variance of each range ``[start, stop)``'s sum, exactly as :meth:`variance`."""
        n = check_n_users(n)
        m = self._mean_positions(frequencies)
        first = np.asarray(starts, dtype=np.int64)
        last = np.asarray(stops, dtype=np.int64)
        if first.shape != last.shape or np.any(first < 0) or np.any(last <= first):
            raise InputError("ranges need 0 ≤ start < stop, one stop per start")
        if np.any(last > self.domain_size):
            raise InputError(f"ranges must end by d = {self.domain_size}")
        running = np.vstack([np.zeros(self.outputs), np.cumsum(self.inverse, axis=0)])
        rows = running[last] - running[first]
        return ((rows**2) @ m - (rows @ m) ** 2) / n

    def likelihood_model(
        self, estimate: NDArray[np.float64], n: int, tallies: ArrayLike | None = None
    ) -> LikelihoodModel:
        """The exact multinomial of the positions (EM's likelihood in Li et al., Sec. 5)."""
        from ldpcore.protocols.likelihoods import WindowModel  # noqa: PLC0415 (scipy)

        if tallies is None:
            raise InputError(f"{self.name}'s likelihood is that of its positions: pass its tallies")
        counts = self.check_tallies(np.round(np.asarray(tallies, dtype=np.float64)))
        return WindowModel(counts.astype(np.float64), p=self.p, q=self.q, width=self.width)

    # ---------------------------------------------------------------------- privacy
    def worst_case_ratio(self) -> float:
        """``p / q = e^ε``: every position lies in some value's window and outside another's."""
        if self.outputs * self.domain_size <= _MAX_EXPLICIT_CELLS:
            return ratio_from_matrix(self.channel_matrix())
        return self.p / self.q

    def channel_matrix(self) -> NDArray[np.float64]:
        """``Q[y, v]``: :attr:`channel`, for channels of at most 16 million cells."""
        if self.outputs * self.domain_size > _MAX_EXPLICIT_CELLS:
            raise InputError(f"{self.name}'s channel is built for d up to about 4,000")
        return self.channel.copy()

    def support_matrix(self) -> NDArray[np.float64]:
        """``1`` where position ``y`` lies in value ``v``'s window (the likely positions)."""
        return (self.channel_matrix() == self.p).astype(np.float64)

    def distinguishing_event(self, reports: Any, v: int, w: int) -> NDArray[np.bool_]:
        """The position is in ``v``'s window and not in ``w``'s: ratio exactly ``p / q``."""
        y = np.asarray(reports)
        near_v = (y >= v) & (y < v + self.width)
        near_w = (y >= w) & (y < w + self.width)
        return near_v & ~near_w


def _uniform_shifts(
    counts: NDArray[np.int64], width: int, rng: np.random.Generator
) -> NDArray[np.int64]:
    """Move each of ``counts[x]`` users at ``x`` by an independent uniform offset in ``[0, width)``.

    Exact in O(length · log² width): ``width`` is split into blocks of powers of two (its
    binary digits); a user falls in a block with chance block/width, one binomial per
    block, and within a block of ``2^a`` its offset's ``a`` bits are fair coins, so the
    users at each place move by ``2^j`` as one binomial(·, 1/2) per bit. Each step sees
    only where users are now, which is all the later steps depend on.
    """
    total = np.zeros_like(counts)
    left = counts.copy()
    remaining = width
    start = 0
    for bit in reversed(range(width.bit_length())):
        size = 1 << bit
        if not width & size:
            continue
        chosen = left if size == remaining else rng.binomial(left, size / remaining)
        left = left - chosen
        remaining -= size
        here = np.zeros_like(counts)
        here[start:] = chosen[: counts.size - start]
        for step in range(bit):
            moving = rng.binomial(here, 0.5)
            here = here - moving
            here[1 << step :] += moving[: counts.size - (1 << step)]
        total += here
        start += size
    return total


__all__ = ["DOMAIN_MAX", "SquareWave", "continuous_half_width"]
