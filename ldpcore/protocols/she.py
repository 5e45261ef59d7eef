"""SHE: summation with histogram encoding (Wang et al., USENIX Security 2017, Sec. 4.2).

Each user one-hot encodes its value and adds Laplace noise of scale ``b = 2/ε`` to every
coordinate; it sends the ``d`` numbers. The one-hot vector's L1 sensitivity is 2, so the
Laplace mechanism makes the vector ε-LDP. The aggregator sums the reports:
``S_v = n_v + Σ_i L_iv``, so ``S_v/n`` is unbiased with variance ``2b²/n = 8/(nε²)``
whatever the frequencies (Wang et al. 2017, Sec. 4.2).

*The noise is discrete, on a grid of 1/64, and drawn exactly (our change, for
privacy).* Laplace noise drawn in floating point leaks through its low bits: ``1 + L``
and ``L`` round to different sets of numbers, so some outputs are possible under one
value and not the other (Mironov, CCS 2012). Here each coordinate's noise is ``g·K``
with ``g = 1/64`` and ``K`` the discrete Laplace (two-sided geometric) law
``P(K = k) ∝ r^{|k|}``, ``r = e^{−γ}``, ``γ = ε'/128``: every report lies on the grid for
every value, and two values' reports have probability ratio
``r^{|k_v| − |k_v − 64| + |k_w − 64| − |k_w|} ≤ r^{−128} = e^{ε'}`` exactly, reached where
``y_v ≥ 1`` and ``y_w ≤ 0``. ``K`` is drawn from uniform integers alone
(:mod:`ldpcore.protocols.exact_noise`: Canonne, Kamath and Steinke 2020, Sec. 5), so
its law is this one with no cut tail and no rounding: ``δ = 0``. (An earlier sampler
took the inverse CDF of a 53-bit uniform; its output law broke the ratio by about
1e-15 inside the distribution, not only in a tail.) ``ε'`` is ε rounded down to a
multiple of 2⁻⁴⁵ (:func:`noise_epsilon`; equal to ε for 0.25, 0.5, 1, 2, …, and at
most 3·10⁻¹⁴ below it otherwise), so that the sampler's integers stay within 64 bits; a
smaller ε' is more noise, so the report is ε-LDP. The variance per coordinate is
``σ² = 2g²r/(1 − r)²``, below ``2b²`` by a relative ``(g/b)²/12`` (1.3·10⁻⁴ at ε = 5).

*SHE's aggregate is real.* Its "support counts" here are the sums ``S_v``, the one
protocol whose aggregate is not whole numbers (:attr:`FrequencyOracle.real_valued_reports`).

*The equivalent binomial (our derivation).* SHE has no support sets, so its ``p`` and
``q`` are defined as those of the symmetric binomial with SHE's two moments:
``s = p − q = 1/√(1 + 4σ²)`` (``ε/√(ε² + 32)`` for the continuous noise) and
``p + q = 1``. Then ``c_v = nq + s·S_v`` has ``E[c_v] = nq + s·n_v``, the binomial mean,
and ``Var[c_v] = s²·nσ² = n·pq``, the binomial variance given the counts (because
``pq/s² = (1 − s²)/(4s²) = σ²``); and when the users are drawn from ``π`` both sides
add the same ``s²·nπ_v(1 − π_v)``. So NDSS Eq. 3 with these ``p, q`` is SHE's exact
variance, and the methods that model the support counts as binomials (MLE-Apx, Power,
PowerNS, MLE, IBU, Bayes and the score intervals) use the binomial with SHE's mean and
variance: the sum of ``n`` independent terms is near-Gaussian, and so is the binomial,
but neither is SHE's exact likelihood (a convolution of ``n`` noise laws). The
sums are not sufficient for the reports: an aggregator that kept every report could
weigh each with its own noise law, which the sums (Wang et al.'s aggregation, and
this tool's) give up; the methods' and the lower bound's figures are for the sums.

*Exact sampler, O(d) whatever n.* A sum of ``n`` geometric draws is a negative binomial,
so ``S_v = n_v + g·(NB(n, 1 − r) − NB'(n, 1 − r))``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_n_users
from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.exact_noise import discrete_laplace, dyadic_rate
from ldpcore.rng import ClientRNG, RandomSource, as_source

#: Grid points per unit of a report: the noise is ``K/GRID_STEPS`` (module docstring).
GRID_STEPS = 64


def noise_rate(epsilon: float) -> Fraction:
    """``γ = ε'/128``: the discrete Laplace noise's rate per grid step, a multiple of 2⁻⁵²."""
    return dyadic_rate(epsilon / (2.0 * GRID_STEPS))


def noise_epsilon(epsilon: float) -> float:
    """``ε'``: ε rounded down to a multiple of 2⁻⁴⁵, the ε the noise gives exactly.

    Examples
    --------
    >>> noise_epsilon(1.0), noise_epsilon(0.5)
    (1.0, 0.5)
    >>> 0 <= 0.1 - noise_epsilon(0.1) < 2**-45
    True
    """
    return float(noise_rate(epsilon) * 2 * GRID_STEPS)


def noise_ratio(epsilon: float) -> float:
    """``r = e^{−γ}``: the discrete Laplace noise's ratio between neighbouring grid steps."""
    return math.exp(-float(noise_rate(epsilon)))


def noise_variance(epsilon: float) -> float:
    """``σ² = 2g²r/(1 − r)²``: one coordinate's noise variance (``≈ 8/ε²``).

    Examples
    --------
    >>> abs(noise_variance(1.0) / 8.0 - 1) < 1e-5
    True
    """
    r = noise_ratio(epsilon)
    return 2.0 * r / (GRID_STEPS * -math.expm1(-float(noise_rate(epsilon)))) ** 2


def she_pq(epsilon: float) -> tuple[float, float]:
    """The equivalent binomial's ``(p, q)``: ``p − q = 1/√(1 + 4σ²)``, ``p + q = 1``.

    Examples
    --------
    >>> p, q = she_pq(2.0)
    >>> round(q * (1 - q) / (p - q) ** 2, 4)  # σ² ≈ 8/ε²
    2.0
    """
    s = 1.0 / math.sqrt(1.0 + 4.0 * noise_variance(epsilon))
    return (1.0 + s) / 2.0, (1.0 - s) / 2.0


@dataclass(frozen=True, kw_only=True)
class SHE(FrequencyOracle):
    """Summation with histogram encoding: the one-hot vector plus Laplace noise on a 1/64 grid.

    Reports are a float64 array of shape ``(n_users, d)``.

    Examples
    --------
    >>> she = SHE(epsilon=2.0, domain_size=4)
    >>> round(float(she.approx_variance(100)), 6)  # σ²/n ≈ 8/(nε²)
    0.02
    >>> she.estimate(np.array([10.0, -2.5, 30.0, 62.5]), 100).tolist()
    [0.1, -0.025, 0.3, 0.625]
    """

    vector_reports: ClassVar[bool] = True
    name: ClassVar[str] = "SHE"
    description: ClassVar[str] = (
        "Summed histogram encoding: Laplace noise on every entry of the one-hot vector, summed"
    )
    reference: ClassVar[str] = "Wang et al., USENIX Security 2017, Sec. 4.2"
    good_for: ClassVar[str] = (
        "Teaching the Laplace mechanism in the local model: its error ≈ 8/(nε²) is above OUE's "
        "at every ε and it sends d real numbers, so THE or OUE serve better in practice"
    )
    communication: ClassVar[str] = "d real numbers"
    real_valued_reports: ClassVar[bool] = True

    @property
    def p(self) -> float:
        """The equivalent binomial's ``p = (1 + ε/√(ε² + 32))/2`` (module docstring)."""
        return she_pq(self.epsilon)[0]

    @property
    def q(self) -> float:
        """The equivalent binomial's ``q = (1 − ε/√(ε² + 32))/2``."""
        return she_pq(self.epsilon)[1]

    @property
    def scale(self) -> float:
        """The Laplace scale ``b = 2/ε`` (the one-hot vector's L1 sensitivity over ε)."""
        return 2.0 / self.epsilon

    # ------------------------------------------------------------ estimation
    def estimate(self, support_counts: ArrayLike, n: int) -> NDArray[np.float64]:
        """``S_v/n``: the sums of the reports over the number of users (Sec. 4.2)."""
        n = check_n_users(n)
        return self._sums(support_counts, "support_counts") / n

    def support_from_tallies(self, tallies: ArrayLike) -> NDArray[np.int64]:
        """The sums themselves: SHE's tallies are its aggregate."""
        # Real sums where the other protocols have whole counts (real_valued_reports).
        return self._sums(tallies, "tallies")  # type: ignore[return-value]

    def _sums(self, sums: ArrayLike, name: str) -> NDArray[np.float64]:
        try:
            array = np.asarray(sums, dtype=np.float64)
        except (TypeError, ValueError):
            raise InputError(f"{name} must be real numbers, one per domain value") from None
        if array.shape != (self.domain_size,):
            raise InputError(
                f"{name} must be a 1-D array of length {self.domain_size} (one entry per "
                f"domain value), got shape {array.shape}"
            )
        if not np.all(np.isfinite(array)):
            raise InputError(f"{name} must be finite; found NaN or inf")
        return array

    # -------------------------------------------------------------- sampling
    def _sample_fast(  # type: ignore[override]  # real sums (real_valued_reports)
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.float64]:
        """``S_v = n_v + g·(NB(n, 1 − r) − NB(n, 1 − r))``: n noise draws summed, exactly."""
        return true_counts.astype(np.float64) + self.noise_sums(int(true_counts.sum()), rng)

    def noise_sums(self, users: int, rng: np.random.Generator) -> NDArray[np.float64]:
        """The sum of ``users`` noise vectors: per coordinate a difference of two NB."""
        d = self.domain_size
        if users == 0:
            return np.zeros(d)
        success = -math.expm1(-float(noise_rate(self.epsilon)))  # 1 − r
        steps = rng.negative_binomial(users, success, d) - rng.negative_binomial(users, success, d)
        return steps / GRID_STEPS

    # ---------------------------------------------------- client and server
    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> NDArray[np.float64]:
        """The real algorithm: one-hot, plus discrete Laplace noise on the 1/64 grid.

        The noise is drawn exactly from uniform integers (:meth:`noise_steps`), so the
        secure source (:class:`ldpcore.rng.SecureRandom`) serves as well as a numpy
        Generator.
        """
        v = self._values(values)
        steps = self.noise_steps(as_source(rng), (v.size, self.domain_size))
        steps[np.arange(v.size), v] += GRID_STEPS
        return steps / GRID_STEPS

    def noise_steps(self, source: RandomSource, shape: tuple[int, int]) -> NDArray[np.int64]:
        """Grid steps of noise, ``P(K = k) ∝ r^{|k|}``, drawn exactly (module docstring)."""
        return discrete_laplace(source, shape, noise_rate(self.epsilon))

    @property
    def noise_epsilon(self) -> float:
        """``ε'``, the ε the noise gives exactly (ε rounded down to a multiple of 2⁻⁴⁵)."""
        return noise_epsilon(self.epsilon)

    def aggregate(self, reports: ArrayLike) -> NDArray[np.float64]:  # type: ignore[override]
        """The sums ``S_v = Σ_i y_iv`` (SHE's aggregate is real)."""
        array = np.asarray(reports, dtype=np.float64)
        if array.ndim != 2 or array.shape[1] != self.domain_size:
            raise InputError(
                f"SHE reports must be a (users, {self.domain_size}) array of reals, "
                f"got shape {array.shape}"
            )
        return array.sum(axis=0)

    # --------------------------------------------------------------- privacy
    def worst_case_ratio(self) -> float:
        """``e^{ε'}``: the worst ratio of the law the noise is drawn from, exactly.

        The worst of ``P(y | v)/P(y | w)`` is the worst ratio of one coordinate's noise
        law shifted by one unit, squared (two coordinates differ). It is read off that
        law on the grid, ``k = −128 … 128`` steps, where every ratio occurs: beyond, the
        ratio of ``r^{|k|}`` and ``r^{|k − 64|}`` is constant.
        """
        steps = np.arange(-2 * GRID_STEPS, 2 * GRID_STEPS + 1)
        log_law = -float(noise_rate(self.epsilon)) * np.abs(steps)
        shifted = -float(noise_rate(self.epsilon)) * np.abs(steps - GRID_STEPS)
        return math.exp(2.0 * float(np.max(log_law - shifted)))

    def log_density_ratio(self, reports: ArrayLike, v: int, w: int) -> NDArray[np.float64]:
        """``ln P(y | v) − ln P(y | w)`` for each report on the grid (the tests bound it by ε)."""
        y = np.asarray(reports, dtype=np.float64)
        gain = np.abs(y[:, v]) - np.abs(y[:, v] - 1.0) + np.abs(y[:, w] - 1.0) - np.abs(y[:, w])
        return np.asarray(gain * self.noise_epsilon / 2.0)

    def channel_matrix(self) -> NDArray[np.float64]:
        """SHE's reports are ``d`` unbounded grid numbers: there is no matrix to enumerate."""
        raise ValueError("SHE's reports are real vectors: its channel is not enumerated")

    def support_matrix(self) -> NDArray[np.float64]:
        """SHE's reports support no set of values (see :meth:`channel_matrix`)."""
        raise ValueError("SHE's reports are real vectors: they support no set of values")

    def distinguishing_event(self, reports: Any, v: int, w: int) -> NDArray[np.bool_]:
        """``y_v ≥ 1`` and ``y_w ≤ 0``: where the density ratio is exactly ``e^ε``.

        Its probability is ``1/(1 + r)²`` for users of ``v`` and ``e^{−ε}/(1 + r)²`` for
        users of ``w``.
        """
        y = np.asarray(reports, dtype=np.float64)
        return np.asarray((y[:, v] >= 1.0) & (y[:, w] <= 0.0))


__all__ = [
    "GRID_STEPS",
    "SHE",
    "noise_epsilon",
    "noise_rate",
    "noise_ratio",
    "noise_variance",
    "she_pq",
]
