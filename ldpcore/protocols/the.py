"""THE: thresholding with histogram encoding (Wang et al., USENIX Security 2017, Sec. 4.2).

Each user one-hot encodes its value, adds Laplace noise of scale ``2/ε`` to every
coordinate (the one-hot vector's L1 sensitivity is 2, so the noisy vector is ε-LDP:
that is SHE, summation with histogram encoding) and reports the coordinates above a
threshold ``θ``. Thresholding is post-processing of an ε-LDP vector, and its output is a
unary encoding: the own bit is 1 with ``p = P(1 + L > θ) = 1 − ½·e^{−ε(1−θ)/2}`` and
every other with ``q = P(L > θ) = ½·e^{−εθ/2}`` (``L ~ Laplace(2/ε)``, ``½ ≤ θ ≤ 1``),
independently. So every unary-encoding hook applies (sampler, likelihoods, fake users),
with these ``p`` and ``q``.

``θ`` defaults to the value in ``[½, 1]`` that minimises the Base estimate's variance
factor ``q(1 − q)/(p − q)²`` (NDSS 2020 Eq. 5), which Wang et al. choose numerically;
here by golden-section search (the factor is unimodal on ``[½, 1]``, checked in the
tests against a dense grid).

The channel is ε-LDP for every ``θ`` in ``[½, 1]``: with ``a = ε/2`` the worst ratio of
two reports' probabilities is ``(2e^{a(1−θ)} − 1)(2e^{aθ} − 1) ≤ e^{2a}``, since
``e^{a(1−θ)} + e^{aθ} ≥ 2e^{a/2}`` and, with ``x = e^{a/2}``,
``x⁴ − 4x² + 4x − 1 = (x − 1)²(x² + 2x − 1) ≥ 0``; the privacy audit checks the matrix.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_real
from ldpcore.protocols.parameters import ProtocolParameter
from ldpcore.protocols.unary import UnaryEncoding
from ldpcore.rng import ClientRNG, as_source

#: The golden-section search's stopping width on θ.
_THETA_TOLERANCE = 1e-12
#: The thresholds Wang et al. consider (Sec. 4.2): above ½, the noise of the other bits
#: is kept out more than the own bit's; up to 1, the own bit's noiseless value.
THETA_MIN, THETA_MAX = 0.5, 1.0


def _laplace_tail(epsilon: float, above: float) -> float:
    """``P(L > above)`` for ``L ~ Laplace(2/ε)``."""
    scale = 2.0 / epsilon
    if above >= 0:
        return 0.5 * math.exp(-above / scale)
    return 1.0 - 0.5 * math.exp(above / scale)


def the_pq(epsilon: float, theta: float) -> tuple[float, float]:
    """THE's ``(p, q)`` at threshold ``theta``."""
    return _laplace_tail(epsilon, theta - 1.0), _laplace_tail(epsilon, theta)


def variance_factor(epsilon: float, theta: float) -> float:
    """``q(1 − q)/(p − q)²``: the Base variance times ``n`` where ``f_v = 0`` (NDSS Eq. 5)."""
    p, q = the_pq(epsilon, theta)
    return q * (1.0 - q) / (p - q) ** 2


def best_theta(epsilon: float) -> float:
    """The threshold in ``[½, 1]`` with the smallest variance factor (golden-section search).

    Examples
    --------
    >>> round(best_theta(1.0), 4) > 0.5
    True
    """
    low, high = 0.5, 1.0
    ratio = (math.sqrt(5.0) - 1.0) / 2.0
    left, right = high - ratio * (high - low), low + ratio * (high - low)
    f_left, f_right = variance_factor(epsilon, left), variance_factor(epsilon, right)
    while high - low > _THETA_TOLERANCE:
        if f_left <= f_right:
            high, right, f_right = right, left, f_left
            left = high - ratio * (high - low)
            f_left = variance_factor(epsilon, left)
        else:
            low, left, f_left = left, right, f_right
            right = low + ratio * (high - low)
            f_right = variance_factor(epsilon, right)
    return (low + high) / 2.0


@dataclass(frozen=True, kw_only=True)
class THE(UnaryEncoding):
    """Thresholding with histogram encoding, by default at the variance-minimising threshold.

    Parameters
    ----------
    theta : float, optional
        The threshold ``θ`` in ``[½, 1]``; default :func:`best_theta` of ε.

    Examples
    --------
    >>> the = THE(epsilon=1.0, domain_size=8)
    >>> 0.5 <= the.theta <= 1.0 and the.p > 0.5 > the.q
    True
    >>> THE(epsilon=1.0, domain_size=8, theta=0.75).theta
    0.75
    """

    name: ClassVar[str] = "THE"
    description: ClassVar[str] = (
        "Thresholded histogram encoding: Laplace noise on every bit, the ones above θ kept"
    )
    reference: ClassVar[str] = "Wang et al., USENIX Security 2017, Sec. 4.2"
    good_for: ClassVar[str] = (
        "Explaining noise simply (add Laplace noise, keep what is above θ): its error is "
        "higher than OUE's, and its reports are private at a smaller ε than asked"
    )
    #: Thresholding is post-processing: the reports are private at a smaller ε.
    spends_whole_budget: ClassVar[bool] = False
    extra_parameters: ClassVar[tuple[ProtocolParameter, ...]] = (
        ProtocolParameter(
            "theta",
            "THE's threshold, 0.5 <= theta <= 1 (default: the one with the least error at ε)",
            THETA_MIN,
            whole=False,
            default=lambda epsilon, _d: best_theta(epsilon),
            examples=((0.5, 64), (1.0, 64), (2.0, 64)),
        ),
    )

    theta: float = None  # type: ignore[assignment]  # None: best_theta(ε), set in __post_init__

    def __post_init__(self) -> None:
        super().__post_init__()
        theta = best_theta(self.epsilon) if self.theta is None else self.theta
        checked = check_real(theta, name="theta", minimum=THETA_MIN, maximum=THETA_MAX)
        object.__setattr__(self, "theta", checked)

    def parameters(self) -> dict[str, object]:
        """Constructor arguments, including ``theta``."""
        return {**super().parameters(), "theta": self.theta}

    @property
    def p(self) -> float:
        """``1 − ½·e^{−ε(1−θ)/2}``."""
        return the_pq(self.epsilon, self.theta)[0]

    @property
    def q(self) -> float:
        """``½·e^{−εθ/2}``."""
        return the_pq(self.epsilon, self.theta)[1]

    def spent_epsilon(self) -> float:
        """The ε the reports are private at: ``ln[(2e^{a(1−θ)} − 1)(2e^{aθ} − 1)]``, ``a = ε/2``.

        The worst ratio of two reports' probabilities (the user's own bit and another
        one exchanged); at most ε (module docstring), and less for every ``θ``.
        """
        half = self.epsilon / 2.0
        return math.log(
            (2.0 * math.exp(half * (1.0 - self.theta)) - 1.0)
            * (2.0 * math.exp(half * self.theta) - 1.0)
        )

    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> NDArray[np.bool_]:
        """The real algorithm: one-hot, Laplace(2/ε) noise on every coordinate, then ``> θ``.

        The Laplace draws come from uniforms by the inverse CDF, so the secure source
        (:class:`ldpcore.rng.SecureRandom`) serves as well as a numpy Generator.
        """
        v = self._values(values)
        generator = as_source(rng)
        centred = np.asarray(generator.random((v.size, self.domain_size))) - 0.5
        # Inverse CDF of Laplace(0, b): −b·sign(u)·ln(1 − 2|u|), u uniform on (−½, ½).
        with np.errstate(divide="ignore"):
            noise = -(2.0 / self.epsilon) * np.sign(centred) * np.log1p(-2.0 * np.abs(centred))
        noise[np.arange(v.size), v] += 1.0
        return np.asarray(noise > self.theta)


__all__ = ["THE", "best_theta", "the_pq", "variance_factor"]
