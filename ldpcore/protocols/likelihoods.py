"""Likelihoods of the protocols' tallies and the EM maps that climb them.

A protocol declares its own by :meth:`FrequencyOracle.likelihood_model
<ldpcore.protocols.base.FrequencyOracle.likelihood_model>` (the MLE and IBU of
:mod:`ldpcore.postprocess` call it); this module holds the models. It is imported when
a likelihood is first asked for, not with the protocols (scipy is not needed to
randomize or to print the command line's help).

The models, each with ``log_likelihood(π)`` (relative to the saturated model:
minus ``n`` times a sum of Kullback–Leibler terms, each computed with
``scipy.special.kl_div`` so that it is non-negative and keeps full precision even
where the two log-likelihoods themselves are ~1e9 and agree to 1e-7), one EM step
``em_step(π)`` that keeps ``π`` a distribution and never lowers the likelihood, and
the diagonal curvature that IBU's acceleration uses:

* :class:`ReportModel` — GRR's report histogram ``s``: multinomial with cell
  probabilities ``(Qπ)_y = q + (p − q) π_y`` (MLE paper, Eq. 22).
* :class:`HadamardRowModel` — HR's row histogram ``h``: multinomial with
  ``(Qπ)_r = (1 + t (H π̂)_r)/K``, ``t = 2p − 1`` and ``π̂`` the frequencies placed at
  columns ``1..d``; both ``Qπ`` and ``Qᵀw`` cost one FWHT.
* :class:`UnaryReportModel` — OUE's and SUE's histogram of the ``2^d`` possible bit
  vectors (``d <= 12``): multinomial with ``Q[y, v] = β_y r(y_v)`` (MLE paper, Sec. 5).
* :class:`WindowModel` — the Square Wave's histogram of ``d + 2b`` positions:
  multinomial with ``(Mπ)_y = q + (p − q) Σ_{v: y in v's window} π_v`` (Li et al. 2020).
* :class:`SupportBinomialModel` — support counts as independent
  ``c_v ~ Bin(n, q + (p − q) π_v)``: exact for each count's marginal, and the
  likelihood used for OLH, BLH and SS, for OUE and SUE above ``d = 12`` and for HR
  without its rows, whose full report histograms are exponentially large.

The EM step is the iterative Bayesian update ``π ← π ⊙ Qᵀ(s / Qπ) / n`` (reading
note 10; generalized IBU paper). For the binomial model it treats each value's
column as its own sample of ``n`` users, so the update averages the posterior
responsibilities of ``n·d`` pseudo-observations; its fixed point maximises that
composite likelihood.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray
from scipy import special

from ldpcore.protocols.likelihood_maxima import grr_mle, support_binomial_mle
from ldpcore.protocols.simplex_newton import projected_newton, projected_newton_cg
from ldpcore.protocols.walsh import fwht_rows, hadamard_signs, sylvester_factors
from ldpcore.protocols.windows import window_adjoint, window_sums

#: Keeps cell probabilities away from 0 and 1 where floating point would round them.
_TINY = 1e-300
#: Largest d for which HR's EM takes full Newton steps (the Hessian is d × d, from K × d).
_NEWTON_MAX_D = 64


class LikelihoodModel(ABC):
    """A likelihood over distributions ``π`` on the domain, with its EM step."""

    domain_size: int
    #: Users behind the tallies.
    n: float

    @abstractmethod
    def log_likelihood(self, pi: NDArray[np.float64]) -> float:
        """Log-likelihood of ``π`` minus that of the saturated model (≤ 0)."""

    #: ``N`` in ``g_x − 1 = (∂L/∂π_x − N)/N``: users (multinomials) or users × d (binomials).
    gradient_scale: float

    @abstractmethod
    def em_multiplier(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """``g`` with ``EM(π) = π ⊙ g`` and ``Σ π g = 1``.

        At the MLE ``g ≤ 1`` everywhere, with equality on the support.
        """

    #: Whether :meth:`maximum` is exact (a closed form), so that nothing climbs further.
    exact_maximum: ClassVar[bool] = False

    def maximum(self) -> NDArray[np.float64] | None:
        """The exact maximiser over the simplex where one is known; None: climb with EM."""
        return None

    @abstractmethod
    def curvature(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """Diagonal of ``−∂²L/∂π²`` at ``π`` (the exact diagonal; HR's Hessian is not diagonal)."""

    @abstractmethod
    def value_and_gradient(
        self, pis: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The log-likelihood up to a constant, and its gradient in ``π``, for rows of ``π``.

        ``pis`` has shape ``(chains, d)``; the result is ``(chains,)`` and ``(chains, d)``.
        The constant is the same for every ``π`` (a sampler needs only differences), so
        this skips the KL terms that make :meth:`log_likelihood` precise in absolute size.
        """

    def separable_counts(self) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
        """``(a, b)`` when the log-likelihood is ``Σ_v a_v log t_v + b_v log(1 − t_v)``.

        With ``t_v = q + (p − q) π_v``: one term per value, which the pair sampler of the
        learned prior needs (:mod:`ldpcore.stats.pair_gibbs`). None where the cells mix
        values (HR's rows, UE's full reports).
        """
        return None

    def multiplier_and_value(self, pi: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
        """EM's multiplier at ``π`` and the log-likelihood there, up to a constant.

        The constant is the same for every ``π`` of this model, so differences are exact;
        a model whose two share their cells computes them once.
        """
        return self.em_multiplier(pi), self.log_likelihood(pi)

    def em_step(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """One EM (iterative Bayesian update) step from ``π``."""
        return _renormalise(pi * self.em_multiplier(pi))

    def newton_step(
        self, pi: NDArray[np.float64], multiplier: NDArray[np.float64]
    ) -> NDArray[np.float64] | None:
        """A full Newton step on ``{Σ π = 1}`` from ``π``, where the Hessian is affordable.

        ``None`` (the default) lets EM's acceleration use the diagonal curvature.
        """
        return None


class ReportModel(LikelihoodModel):
    """Multinomial likelihood of GRR's report histogram (support counts)."""

    def __init__(self, counts: NDArray[np.float64], *, p: float, q: float) -> None:
        self.domain_size = counts.size
        self.counts = counts
        self.n = float(counts.sum())
        self.p, self.q = p, q
        # An estimate that implies no reports at all (clipped counts summing to 0, e.g.
        # every share negative) leaves a flat likelihood: divide by 1, not by 0.
        self._total = self.n if self.n > 0 else 1.0
        self.gradient_scale = self._total
        self._observed = counts / self._total

    def _cells(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.maximum(self.q + (self.p - self.q) * pi, _TINY)

    def log_likelihood(self, pi: NDArray[np.float64]) -> float:
        """Log-likelihood of ``π`` against the saturated model (≤ 0)."""
        # The cells sum to one, so the linear parts of kl_div cancel in the total.
        return -self.n * float(np.sum(special.kl_div(self._observed, self._cells(pi))))

    def value_and_gradient(
        self, pis: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``Σ_y s_y log(Qπ)_y`` and ``(p − q) s / Qπ`` per row (see :class:`LikelihoodModel`)."""
        cells = self._cells(pis)
        return np.log(cells) @ self.counts, (self.p - self.q) * self.counts / cells

    def separable_counts(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The report counts and zeros: ``Σ_y s_y log(q + (p − q) π_y)``, one term per value."""
        return self.counts, np.zeros_like(self.counts)

    exact_maximum: ClassVar[bool] = True

    def maximum(self) -> NDArray[np.float64]:
        """Exact in O(d log d) (MLE paper, Appendix B, Algorithm 1)."""
        return grr_mle(self.counts, p=self.p, q=self.q)

    def em_multiplier(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """EM multiplier ``g`` at ``π`` (see :class:`LikelihoodModel`)."""
        if self.n <= 0:  # no reports: every π is a fixed point
            return np.ones_like(pi)
        ratio = self.counts / self._cells(pi)
        return (self.q * ratio.sum() + (self.p - self.q) * ratio) / self.n  # Qᵀ(s / Qπ) / n

    def curvature(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """Diagonal of ``−∂²L/∂π²`` at ``π``."""
        return (self.p - self.q) ** 2 * self.counts / self._cells(pi) ** 2


class HadamardRowModel(LikelihoodModel):
    """Multinomial likelihood of HR's row histogram, with Q applied by FWHT."""

    def __init__(
        self, rows: NDArray[np.float64], *, order: int, domain_size: int, p: float
    ) -> None:
        self.domain_size = domain_size
        self.order = order
        self.rows = rows
        self.n = float(rows.sum())
        self.t = 2.0 * p - 1.0
        self.gradient_scale = self.n
        self._observed = rows / self.n
        self._factors = sylvester_factors(self.order)
        self._last_cells: tuple[NDArray[np.float64], NDArray[np.float64]] = (
            np.empty(0),
            np.empty(0),
        )
        # Q itself (K × d), built once, for the Newton steps at small d.
        self._columns = (
            (1.0 + self.t * hadamard_signs(self.order, self.domain_size)) / self.order
            if self.domain_size <= _NEWTON_MAX_D
            else None
        )

    def _transform(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """``H x`` for one float vector of length ``K`` (factored: 3× the butterfly's speed)."""
        return fwht_rows(x[None, :], self._factors)[0]

    def _forward(self, v: NDArray[np.float64]) -> NDArray[np.float64]:
        """``(H v̂)``: ``v`` placed at columns ``1..d`` and transformed."""
        padded = np.zeros(self.order)
        padded[1 : self.domain_size + 1] = v
        return self._transform(padded)

    def _back(self, w: NDArray[np.float64]) -> NDArray[np.float64]:
        """``Qᵀ w`` (the K × d channel's transpose): ``(Σ w + t (H w)_{1..d}) / K``."""
        return (w.sum() + self.t * self._transform(w)[1 : self.domain_size + 1]) / self.order

    def _cells(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        # EM asks for the cells of one π up to three times (its likelihood, its EM
        # multiplier, its Newton step): the last answer is kept, against a copy of π
        # (comparing costs a tenth of the transform it saves).
        last_pi, last_cells = self._last_cells
        if last_pi.shape == pi.shape and np.array_equal(last_pi, pi):
            return last_cells
        cells = np.maximum((1.0 + self.t * self._forward(pi)) / self.order, _TINY)
        self._last_cells = (pi.copy(), cells)
        return cells

    def log_likelihood(self, pi: NDArray[np.float64]) -> float:
        """Log-likelihood of ``π`` against the saturated model (≤ 0)."""
        return -self.n * float(np.sum(special.kl_div(self._observed, self._cells(pi))))

    def value_and_gradient(
        self, pis: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``Σ_r h_r log(Qπ)_r`` and ``t Hᵀ(h / Qπ) / K`` per row (one FWHT each way)."""
        padded = np.zeros((len(pis), self.order))
        padded[:, 1 : self.domain_size + 1] = pis
        cells = np.maximum((1.0 + self.t * fwht_rows(padded, self._factors)) / self.order, _TINY)
        back = fwht_rows(self.rows / cells, self._factors)[:, 1 : self.domain_size + 1]
        return np.log(cells) @ self.rows, self.t * back / self.order

    def em_multiplier(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """EM multiplier ``g`` at ``π`` (see :class:`LikelihoodModel`)."""
        return self._back(self.rows / self._cells(pi)) / self.n

    def newton_step(
        self, pi: NDArray[np.float64], multiplier: NDArray[np.float64]
    ) -> NDArray[np.float64] | None:
        """A Newton step on the simplex: dense for ``d <= 64``, else by conjugate gradients.

        At small ε the rows barely depend on ``π`` and EM needs tens of thousands of
        steps (HR at ε = 0.001 stopped at its cap); Newton's needs a few.
        Above ``d = 64`` the ``d × d`` Hessian ``−Qᵀ diag(h/(Qπ)²) Q`` is never formed:
        each product with it is two FWHTs, and a preconditioned conjugate-gradient
        solve takes a few (:func:`~ldpcore.protocols.simplex_newton.projected_newton_cg`).
        The diagonal-curvature step alone converges only linearly, at a rate set by how
        unequal the rows' weights are (up to ``e^ε``): it took about 100 steps at
        d = 16,384 where this takes 5.
        """
        weights = self.rows / self._cells(pi) ** 2
        if self._columns is not None:
            return projected_newton(
                pi,
                multiplier,
                scale=self.gradient_scale,
                curvature=self._curvature(weights),
                columns=self._columns,
                weights=weights,
            )

        def product(v: NDArray[np.float64]) -> NDArray[np.float64]:
            # −H v = Qᵀ diag(w) Q v, with Q v = (Σ v + t H v̂)/K: two transforms.
            forward = (v.sum() + self.t * self._forward(v)) / self.order
            return self._back(weights * forward)

        return projected_newton_cg(
            self.gradient_scale, pi, multiplier, product, self._curvature(weights)
        )

    def curvature(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """Diagonal of ``−∂²L/∂π²`` at ``π``."""
        return self._curvature(self.rows / self._cells(pi) ** 2)

    def _curvature(self, weights: NDArray[np.float64]) -> NDArray[np.float64]:
        # Σ_r w_r Q_rx² with Q_rx² = (1 + t² + 2t H_rx)/K² (w = h/(Qπ)²): one more FWHT.
        transformed = self._transform(weights)[1 : self.domain_size + 1]
        return ((1 + self.t**2) * weights.sum() + 2 * self.t * transformed) / self.order**2


class UnaryReportModel(LikelihoodModel):
    """Multinomial likelihood of a unary encoding's full report histogram (small ``d``).

    The MLE paper's UE likelihood (Sec. 5, Fig. 3): the ``2^d`` possible bit vectors
    ``y`` are the cells. A user of value ``v`` sets bit ``v`` with probability ``p``
    and every other bit with ``q``, so ``Q[y, v] = β_y · r(y_v)`` with ``β_y`` the
    probability of ``y`` when every bit is a ``q``-coin and ``r(1) = p/q``,
    ``r(0) = (1−p)/(1−q)``; hence ``(Qπ)_y = β_y (r(0) + (r(1) − r(0)) (Yπ)_y)`` with
    ``Y`` the bit matrix, and ``Qπ`` and ``Qᵀw`` cost ``O(2^d d)``.
    """

    def __init__(
        self, histogram: NDArray[np.float64], bits: NDArray[np.float64], *, p: float, q: float
    ) -> None:
        self.domain_size = bits.shape[1]
        self.histogram = histogram
        self.bits = bits
        self.n = float(histogram.sum())
        self.gradient_scale = self.n
        self.low, self.high = (1.0 - p) / (1.0 - q), p / q
        ones = bits.sum(axis=1)
        self._base = q**ones * (1.0 - q) ** (self.domain_size - ones)
        self._observed = histogram / self.n

    def _mix(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """``(Qπ)_y / β_y``: the part of each cell that depends on ``π``."""
        return np.maximum(self.low + (self.high - self.low) * (self.bits @ pi), _TINY)

    def log_likelihood(self, pi: NDArray[np.float64]) -> float:
        """Log-likelihood of ``π`` against the saturated model (≤ 0)."""
        cells = np.maximum(self._base * self._mix(pi), _TINY)
        return -self.n * float(np.sum(special.kl_div(self._observed, cells)))

    def value_and_gradient(
        self, pis: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``Σ_y h_y log(Qπ)_y`` (up to ``Σ h log β``) and its gradient, per row of ``π``."""
        mix = np.maximum(self.low + (self.high - self.low) * (pis @ self.bits.T), _TINY)
        weights = self.histogram / mix
        return np.log(mix) @ self.histogram, (self.high - self.low) * (weights @ self.bits)

    def em_multiplier(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """EM multiplier ``g = Qᵀ(h / Qπ) / n`` (see :class:`LikelihoodModel`)."""
        w = self.histogram / self._mix(pi)
        return (self.low * w.sum() + (self.high - self.low) * (self.bits.T @ w)) / self.n

    def curvature(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """Diagonal of ``−∂²L/∂π²``: ``Σ_y h_y Q[y, v]² / (Qπ)_y²``."""
        u = self.histogram / self._mix(pi) ** 2
        return self.low**2 * u.sum() + (self.high**2 - self.low**2) * (self.bits.T @ u)

    def newton_step(
        self, pi: NDArray[np.float64], multiplier: NDArray[np.float64]
    ) -> NDArray[np.float64] | None:
        """Newton's step for the full ``d × d`` Hessian ``−Rᵀ diag(h/mix²) R`` (``d <= 12``).

        The bits of one report are not independent given ``π``, so the diagonal
        curvature is a poor model here and EM alone crawls at small ε (thousands of
        steps). See :func:`~ldpcore.protocols.simplex_newton.projected_newton`.
        """
        rates = self.low + (self.high - self.low) * self.bits
        weights = self.histogram / self._mix(pi) ** 2
        return projected_newton(
            pi,
            multiplier,
            scale=self.gradient_scale,
            curvature=self.curvature(pi),
            columns=rates,
            weights=weights,
        )


class SupportBinomialModel(LikelihoodModel):
    """Independent binomial likelihood of the support counts."""

    def __init__(self, counts: NDArray[np.float64], n: int, *, p: float, q: float) -> None:
        self.domain_size = counts.size
        self.counts = np.clip(counts, 0.0, float(n))
        self.n = float(n)
        self.p, self.q = p, q
        self.gradient_scale = self.n * self.domain_size
        self._observed = self.counts / self.n

    def _rates(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.clip(self.q + (self.p - self.q) * pi, _TINY, 1.0 - 1e-16)

    def log_likelihood(self, pi: NDArray[np.float64]) -> float:
        """Log-likelihood of ``π`` against the saturated model (≤ 0)."""
        t = self._rates(pi)
        rate = self._observed
        divergence = special.kl_div(rate, t) + special.kl_div(1.0 - rate, 1.0 - t)
        return -self.n * float(np.sum(divergence))

    def value_and_gradient(
        self, pis: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``Σ_v c_v log t_v + (n − c_v) log(1 − t_v)`` and its gradient, per row of ``π``."""
        t = self._rates(pis)
        misses = self.n - self.counts
        value = np.log(t) @ self.counts + np.log1p(-t) @ misses
        return value, (self.p - self.q) * (self.counts / t - misses / (1.0 - t))

    def separable_counts(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """The support counts and their misses ``n − c``: one binomial per value."""
        return self.counts, self.n - self.counts

    exact_maximum: ClassVar[bool] = True

    def maximum(self) -> NDArray[np.float64]:
        """Exact: a one-dimensional search for the KKT multiplier (MLE paper, Sec. 3.1)."""
        return support_binomial_mle(self.counts, n=self.n, p=self.p, q=self.q)

    def em_multiplier(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """EM multiplier ``g`` at ``π`` (see :class:`LikelihoodModel`)."""
        t = self._rates(pi)
        hits = self.counts / t
        misses = (self.n - self.counts) / (1.0 - t)
        gap = self.p - self.q
        # Σ_v [c_v P_v(x)/t_v + (n − c_v)(1 − P_v(x))/(1 − t_v)], P_v(x) = q + (p−q)[x = v]
        back = self.q * hits.sum() + gap * hits + (1.0 - self.q) * misses.sum() - gap * misses
        return back / self.gradient_scale

    def curvature(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """Diagonal of ``−∂²L/∂π²`` at ``π``."""
        t = self._rates(pi)
        return (self.p - self.q) ** 2 * (self.counts / t**2 + (self.n - self.counts) / (1 - t) ** 2)


class WindowModel(LikelihoodModel):
    """The Square Wave's positions: multinomial with ``(Mπ)_y = q + (p − q)(Bπ)_y``.

    ``B`` sums ``π`` over the values whose window holds position ``y``; ``Mπ`` and ``Mᵀr``
    are running sums, O(d) each (Li et al., SIGMOD 2020, Sec. 5: the EM their EMS adds
    smoothing to).
    """

    def __init__(self, counts: NDArray[np.float64], *, p: float, q: float, width: int) -> None:
        self.counts = counts
        self.domain_size = counts.size - width + 1
        self.width = width
        self.n = float(counts.sum())
        self.p, self.q = p, q
        self._total = self.n if self.n > 0 else 1.0
        self.gradient_scale = self._total
        self._observed = counts / self._total
        # EM's steps (thousands, for Li et al.'s rule) reuse these: the running sums'
        # ends for Mπ and for Mᵀr, and buffers for the running sums themselves.
        positions = np.arange(counts.size)
        self._high = np.minimum(positions, self.domain_size - 1) + 1
        self._low = np.clip(positions - width + 1, 0, self.domain_size)
        self._running_pi = np.zeros(self.domain_size + 1)
        self._running_r = np.zeros(counts.size + 1)

    def _cells(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        sums = window_sums(pi, self.width, self.counts.size)
        return np.maximum(self.q * pi.sum(axis=-1, keepdims=True) + (self.p - self.q) * sums, _TINY)

    def _adjoint(self, r: NDArray[np.float64]) -> NDArray[np.float64]:
        """``Mᵀ r`` along the last axis."""
        total = r.sum(axis=-1, keepdims=True)
        return self.q * total + (self.p - self.q) * window_adjoint(r, self.width, self.domain_size)

    def log_likelihood(self, pi: NDArray[np.float64]) -> float:
        """Log-likelihood of ``π`` against the saturated model (≤ 0)."""
        return -self.n * float(np.sum(special.kl_div(self._observed, self._cells(pi))))

    def value_and_gradient(
        self, pis: NDArray[np.float64]
    ) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``Σ_y c_y log(Mπ)_y`` and ``Mᵀ(c / Mπ)`` per row (see :class:`LikelihoodModel`)."""
        cells = self._cells(pis)
        return np.log(cells) @ self.counts, self._adjoint(self.counts / cells)

    def multiplier_and_value(self, pi: NDArray[np.float64]) -> tuple[NDArray[np.float64], float]:
        """``Mᵀ(c / Mπ) / n`` and ``Σ c log Mπ`` from one computation of the cells."""
        if self.n <= 0:
            return np.ones_like(pi), 0.0
        # The same arithmetic as _cells and _adjoint, on one distribution, with the
        # indices and buffers kept from the constructor (half the time of a step).
        running = self._running_pi
        np.cumsum(pi, out=running[1:])
        cells = running[self._high] - running[self._low]
        cells *= self.p - self.q
        cells += self.q * running[-1]
        np.maximum(cells, _TINY, out=cells)
        value = float(np.log(cells) @ self.counts)
        ratio = self._running_r
        np.cumsum(self.counts / cells, out=ratio[1:])
        back = ratio[self.width : self.width + self.domain_size] - ratio[: self.domain_size]
        back *= self.p - self.q
        back += self.q * ratio[-1]
        back /= self.n
        return back, value

    def em_multiplier(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """EM multiplier ``g = Mᵀ(c / Mπ) / n`` at ``π``."""
        if self.n <= 0:
            return np.ones_like(pi)
        return self._adjoint(self.counts / self._cells(pi)) / self.n

    def curvature(self, pi: NDArray[np.float64]) -> NDArray[np.float64]:
        """Diagonal of ``−∂²L/∂π²``: ``Σ_y c_y M_yv² / (Mπ)_y²``."""
        return self._curvature(self.counts / self._cells(pi) ** 2)

    def _curvature(self, weights: NDArray[np.float64]) -> NDArray[np.float64]:
        inside = window_adjoint(weights, self.width, self.domain_size)
        return self.q**2 * weights.sum() + (self.p**2 - self.q**2) * inside


def _renormalise(pi: NDArray[np.float64]) -> NDArray[np.float64]:
    # EM keeps Σπ = 1 exactly in exact arithmetic; this only removes rounding drift.
    return pi / pi.sum()


__all__ = [
    "HadamardRowModel",
    "LikelihoodModel",
    "ReportModel",
    "SupportBinomialModel",
    "UnaryReportModel",
    "WindowModel",
]
