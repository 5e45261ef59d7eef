"""SHE: summation with histogram encoding (Wang et al., USENIX Security 2017, Sec. 4.2).

Each user one-hot encodes its value and adds Laplace noise of scale ``b = 2/ε`` to every
coordinate; it sends the ``d`` real numbers. The one-hot vector's L1 sensitivity is 2
(two coordinates change by 1), so the Laplace mechanism makes the vector ε-LDP: for any
report ``y`` the density ratio of values ``v`` and ``w`` is
``exp((|y_v| − |y_v − 1| + |y_w − 1| − |y_w|)/b) ≤ e^{2/b} = e^ε`` (triangle inequality),
with equality where ``y_v ≥ 1`` and ``y_w ≤ 0``. The aggregator sums the reports:
``S_v = n_v + Σ_i L_iv``, so ``S_v/n`` is unbiased and its variance is
``2b²/n = 8/(nε²)`` whatever the frequencies (Wang et al. 2017, Sec. 4.2).

*SHE's aggregate is real.* Its "support counts" here are the sums ``S_v``, the one
protocol whose aggregate is not whole numbers (:attr:`FrequencyOracle.real_valued_reports`).

*The equivalent binomial (our derivation).* SHE has no support sets, so its ``p`` and
``q`` are defined as those of the symmetric binomial with SHE's two moments:
``s = p − q = ε/√(ε² + 32)`` and ``p + q = 1``. Then ``c_v = nq + s·S_v`` has
``E[c_v] = nq + s·n_v``, the binomial mean, and
``Var[c_v] = s²·8n/ε² = n·pq``, the binomial variance given the counts (because
``pq/s² = (1 − s²)/(4s²) = 8/ε²``); and when the users are drawn from ``π`` both sides
add the same ``s²·nπ_v(1 − π_v)``. So NDSS Eq. 3 with these ``p, q`` is SHE's exact
variance, and the methods that model the support counts as binomials (MLE-Apx, Power,
PowerNS, MLE, IBU, Bayes and the score intervals) use the binomial with SHE's mean and
variance: the sum of ``n`` independent terms is near-Gaussian, and so is the binomial,
but neither is SHE's exact likelihood (a convolution of ``n`` Laplace densities). The
sums are not sufficient for the reports: an aggregator that kept every report could
weigh each with its own Laplace density, which the sums (Wang et al.'s aggregation, and
this tool's) give up; the methods' and the lower bound's figures are for the sums.

*Exact sampler, O(d) whatever n.* A sum of ``n`` Laplace(b) draws is the difference of
two Gamma(n, b) draws (a Laplace draw is the difference of two exponentials), so
``S_v = n_v + G_v − G'_v``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_n_users
from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle, check_prior
from ldpcore.rng import ClientRNG, as_source

if TYPE_CHECKING:
    import pandas as pd

#: Gauss-Legendre nodes per piece of the guess rate's integral, and pieces per interval
#: between two atoms: the integrand is smooth there, varying on a scale of ``1/ε`` in y.
_NODES, _PIECES = 16, 4
#: Cells of the (prior groups × nodes) table computed at once; bounds memory only.
_BLOCK_CELLS = 1 << 22


def she_pq(epsilon: float) -> tuple[float, float]:
    """The equivalent binomial's ``(p, q)``: ``p − q = ε/√(ε² + 32)``, ``p + q = 1``.

    Examples
    --------
    >>> p, q = she_pq(2.0)
    >>> round(q * (1 - q) / (p - q) ** 2, 12)  # 8/ε²
    2.0
    """
    s = epsilon / math.sqrt(epsilon * epsilon + 32.0)
    return (1.0 + s) / 2.0, (1.0 - s) / 2.0


@dataclass(frozen=True, kw_only=True)
class SHE(FrequencyOracle):
    """Summation with histogram encoding: the one-hot vector plus Laplace(2/ε) noise.

    Reports are a float64 array of shape ``(n_users, d)``.

    Examples
    --------
    >>> she = SHE(epsilon=2.0, domain_size=4)
    >>> round(float(she.approx_variance(100)), 12)  # 8/(nε²)
    0.02
    >>> she.estimate(np.array([10.0, -2.5, 30.0, 62.5]), 100).tolist()
    [0.1, -0.025, 0.3, 0.625]
    """

    name: ClassVar[str] = "SHE"
    description: ClassVar[str] = (
        "Summed histogram encoding: Laplace noise on every entry of the one-hot vector, summed"
    )
    reference: ClassVar[str] = "Wang et al., USENIX Security 2017, Sec. 4.2"
    good_for: ClassVar[str] = (
        "Teaching the Laplace mechanism in the local model: its error 8/(nε²) is above OUE's "
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
        """``S_v = n_v + Gamma(n, b) − Gamma(n, b)``: n Laplace draws summed, exactly."""
        n = float(true_counts.sum())
        d = self.domain_size
        noise = rng.gamma(n, self.scale, d) - rng.gamma(n, self.scale, d)
        return true_counts.astype(np.float64) + noise

    def users_per_batch(self) -> int:
        """About 4 M reals per batch (32 MiB)."""
        return max(1, (1 << 22) // self.domain_size)

    # ---------------------------------------------------- client and server
    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> NDArray[np.float64]:
        """The real algorithm: one-hot, plus Laplace(2/ε) noise on every coordinate.

        The Laplace draws come from uniforms by the inverse CDF, so the secure source
        (:class:`ldpcore.rng.SecureRandom`) serves as well as a numpy Generator.
        """
        v = self._values(values)
        generator = as_source(rng)
        centred = np.asarray(generator.random((v.size, self.domain_size))) - 0.5
        # Inverse CDF of Laplace(0, b): −b·sign(u)·ln(1 − 2|u|), u uniform on (−½, ½);
        # u = −½ exactly (probability 2^-53) would be −inf, so it is moved inside.
        centred = np.clip(centred, -0.5 + 2.0**-54, 0.5)
        noise = -self.scale * np.sign(centred) * np.log1p(-2.0 * np.abs(centred))
        noise[np.arange(v.size), v] += 1.0
        return noise

    def aggregate(self, reports: ArrayLike) -> NDArray[np.float64]:  # type: ignore[override]
        """The sums ``S_v = Σ_i y_iv`` (SHE's aggregate is real)."""
        array = np.asarray(reports, dtype=np.float64)
        if array.ndim != 2 or array.shape[1] != self.domain_size:
            raise InputError(
                f"SHE reports must be a (users, {self.domain_size}) array of reals, "
                f"got shape {array.shape}"
            )
        return array.sum(axis=0)

    # ------------------------------------------------------------- fake users
    #: A noise-only report (``rpa``); fake users who run the real randomizer (``ria``)
    #: need no hook. No maximal-gain report: see :meth:`_no_attack`.
    fake_attacks: ClassVar[frozenset[str]] = frozenset({"rpa"})

    def _no_attack(self, kind: str) -> InputError:
        if kind != "mga":
            return super()._no_attack(kind)
        return InputError(
            "SHE's reports are real numbers, so a maximal-gain fake user can send any number "
            "and its gain has no bound (a report of M on the target moves its estimate by "
            "M/n). Clip reports on the server before trusting SHE against fake users; "
            "it takes ria and rpa here"
        )

    def fake_support_rate(self, kind: str, targets: NDArray[np.int64]) -> NDArray[np.float64]:
        """``q`` everywhere for ``rpa``: a noise-only report adds nothing on average.

        The rate is in the equivalent binomial's terms (module docstring): the fake
        report's expected pseudo-support ``q + s·E[y_v]`` with ``E[y_v] = 0``.
        """
        if kind != "rpa":
            raise self._no_attack(kind)
        return np.full(self.domain_size, self.q)

    def fake_support(  # type: ignore[override]  # real sums (real_valued_reports)
        self, kind: str, targets: NDArray[np.int64], fakes: int, rng: np.random.Generator
    ) -> NDArray[np.float64]:
        """The sums of ``fakes`` noise-only reports: a difference of two Gamma(fakes) draws."""
        if kind != "rpa":
            raise self._no_attack(kind)
        if fakes == 0:
            return np.zeros(self.domain_size)
        d = self.domain_size
        return rng.gamma(fakes, self.scale, d) - rng.gamma(fakes, self.scale, d)

    def fake_reports(
        self, kind: str, targets: NDArray[np.int64], fakes: int, rng: np.random.Generator
    ) -> NDArray[np.float64]:
        """Noise-only reports (``rpa``): Laplace(2/ε) on every coordinate, no one-hot."""
        if kind != "rpa":
            raise self._no_attack(kind)
        return rng.laplace(0.0, self.scale, (fakes, self.domain_size))

    # --------------------------------------------------------------- privacy
    def worst_case_ratio(self) -> float:
        """``e^ε``: the Laplace densities' worst ratio, reached where ``y_v ≥ 1, y_w ≤ 0``."""
        return math.exp(self.epsilon)

    def log_density_ratio(self, reports: ArrayLike, v: int, w: int) -> NDArray[np.float64]:
        """``ln f(y | v) − ln f(y | w)`` for each report (the privacy tests bound it by ε)."""
        y = np.asarray(reports, dtype=np.float64)
        gain = np.abs(y[:, v]) - np.abs(y[:, v] - 1.0) + np.abs(y[:, w] - 1.0) - np.abs(y[:, w])
        return np.asarray(gain / self.scale)

    def channel_matrix(self) -> NDArray[np.float64]:
        """SHE's channel is a density over real vectors: there is no matrix to enumerate."""
        raise ValueError("SHE's reports are real vectors: its channel is a density, not a matrix")

    def support_matrix(self) -> NDArray[np.float64]:
        """SHE's reports support no set of values (see :meth:`channel_matrix`)."""
        raise ValueError("SHE's reports are real vectors: they support no set of values")

    def distinguishing_event(self, reports: Any, v: int, w: int) -> NDArray[np.bool_]:
        """``y_v ≥ 1`` and ``y_w ≤ 0``: where the density ratio is exactly ``e^ε``.

        Its probability is ``¼`` for users of ``v`` and ``¼e^{−ε}`` for users of ``w``.
        """
        y = np.asarray(reports, dtype=np.float64)
        return np.asarray((y[:, v] >= 1.0) & (y[:, w] <= 0.0))

    # ------------------------------------------------------------ report files
    def report_columns(self) -> tuple[str, ...]:
        """``y_0`` … ``y_{d−1}``: the noisy vector, one real per value."""
        return tuple(f"y_{v}" for v in range(self.domain_size))

    def reports_to_frame(self, reports: Any, *, text: bool) -> pd.DataFrame:
        """One row per report, one column per value (full float64 precision in CSV)."""
        import pandas as pd  # noqa: PLC0415

        array = np.asarray(reports, dtype=np.float64)
        frame = pd.DataFrame(array, columns=list(self.report_columns()))
        if text:  # repr round-trips every float64 exactly through CSV
            return frame.map(repr)
        return frame

    def frame_to_reports(self, frame: pd.DataFrame, *, source: str) -> NDArray[np.float64]:
        """The ``(n, d)`` real matrix, every cell a finite number."""
        from ldpcore.protocols.report_format import real_columns  # noqa: PLC0415

        return real_columns(frame, self.report_columns(), source)

    def describe_report(self, reports: Any, index: int) -> tuple[str, Any]:
        """The noisy vector, value 0 first, to two decimals."""
        array = np.asarray(reports, dtype=np.float64)
        text = "(" + ", ".join(f"{x:+.2f}" for x in array[index]) + ")"
        return text, array[index : index + 1]

    # ------------------------------------------------------------------- risk
    def bayes_guess_rate(self, prior: ArrayLike) -> float:
        """The MAP attacker's success rate, by one-dimensional quadrature (exact to ~1e-12).

        The posterior of ``v`` given ``y`` is ``∝ π_v·exp(h(y_v))`` with
        ``h(y) = (ε/2)·clip(2y − 1, −1, 1)`` (the other coordinates cancel), so the
        attacker guesses the largest score ``Z_v = ln π_v + h(y_v)``: independent scores,
        each continuous on ``ln π_v ± ε/2`` with an atom at either end. The rate is
        ``Σ_u π_u P(Z_u beats every other | u)``: an integral over ``Z_u``'s continuous
        part of the other scores' CDFs, Gauss-Legendre between the atoms, plus the two
        atoms, where values of equal prior tie (a uniform draw among the tied wins, which
        gives the optimal rate as any tie-break does). Equal priors are grouped, so a
        uniform prior costs as little at d = 10⁶ as at d = 3. (Two different priors whose
        atoms meet, ``π_w = e^ε·π_u`` exactly, would tie with positive probability; they
        are counted as not tied.)
        """
        pi = check_prior(prior, self.domain_size)
        half = self.epsilon / 2.0
        values, sizes = np.unique(pi[pi > 0], return_counts=True)  # ascending
        logs = np.log(values)
        # No value wins below the second-best value's lower atom (counting repeats).
        second = logs[-1] if sizes[-1] >= 2 or logs.size == 1 else logs[-2]
        low, high = second - half, logs[-1] + half
        keep = logs + half >= low  # the rest never win and never beat a winner
        logs, sizes, values = logs[keep], sizes[keep].astype(np.float64), values[keep]
        cuts = np.unique(np.clip(np.concatenate([logs - half, logs + half]), low, high))
        nodes, weights = _gauss_legendre(cuts)
        every = self._log_cdf_sum(nodes, logs, sizes)  # Σ_g k_g ln F_g(z) at the nodes
        # The other groups' CDFs at each group's two atoms (its own group left out: its
        # members tie there instead).
        above = self._others_at(logs + half, logs, sizes)
        below = self._others_at(logs - half, logs, sizes)
        tie_mass = 0.5 * math.exp(-half)  # another's y ≥ 1 when it is not its value
        rate = 0.0
        for group in range(logs.size):
            a, size = logs[group], sizes[group]
            inside = np.abs(nodes - a) < half
            z = nodes[inside]
            own_density = 0.25 * np.exp(-half * (0.5 - (z - a) / self.epsilon))
            others = every[inside] - self._log_cdf(z - a)  # this user's own CDF removed
            continuous = float(np.sum(weights[inside] * own_density * np.exp(others)))
            # The atoms: own report y ≥ 1 (probability ½) or y ≤ 0 (½e^{−ε/2}); the
            # size − 1 others of equal prior tie there, each with its atom's mass, and
            # E[1/(1 + ties)] over them is ∫_0^1 (A + tM)^{size−1} dt.
            ties = size - 1.0
            tie_top = (
                1.0
                if ties == 0
                else -math.expm1((ties + 1) * math.log1p(-tie_mass)) / ((ties + 1) * tie_mass)
            )
            tie_bottom = math.exp(ties * math.log(0.5)) / (ties + 1)
            correct = (
                continuous
                + 0.5 * math.exp(above[group]) * tie_top
                + 0.5 * math.exp(-half) * math.exp(below[group]) * tie_bottom
            )
            rate += size * values[group] * correct
        return float(min(rate, 1.0))

    def _log_cdf(self, shift: NDArray[np.float64]) -> NDArray[np.float64]:
        """``ln P(Z_w ≤ ln π_w + shift)`` for a value ``w`` that is not the user's."""
        half = self.epsilon / 2.0
        y = np.clip(0.5 + shift / self.epsilon, 0.0, 1.0)
        with np.errstate(divide="ignore"):
            inner = np.log1p(-0.5 * np.exp(-half * y))
            return np.where(shift < -half, -np.inf, np.where(shift >= half, 0.0, inner))

    def _others_at(
        self, points: NDArray[np.float64], logs: NDArray[np.float64], sizes: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """``Σ_{g ≠ j} k_g ln F_g(points_j)``: every group but the ``j``-th, at its point."""
        total = np.empty(points.size)
        step = max(1, _BLOCK_CELLS // max(1, logs.size))
        rows = np.arange(logs.size)[:, None]
        for start in range(0, points.size, step):
            columns = np.arange(start, min(start + step, points.size))
            block = self._log_cdf(points[None, columns] - logs[:, None])
            block = np.where(rows == columns[None, :], 0.0, sizes[:, None] * block)
            total[columns] = np.sum(block, axis=0)
        return total

    def _log_cdf_sum(
        self, z: NDArray[np.float64], logs: NDArray[np.float64], sizes: NDArray[np.float64]
    ) -> NDArray[np.float64]:
        """``Σ_g k_g ln F_g(z)`` at each ``z``, in blocks of bounded memory."""
        total = np.empty(z.size)
        step = max(1, _BLOCK_CELLS // max(1, logs.size))
        for start in range(0, z.size, step):
            block = self._log_cdf(z[None, start : start + step] - logs[:, None])
            # −inf·k stays −inf (k ≥ 1), so a group below its lower atom zeroes the product.
            total[start : start + step] = np.sum(sizes[:, None] * block, axis=0)
        return total


def _gauss_legendre(cuts: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Nodes and weights on each interval between consecutive ``cuts``, split in pieces."""
    unit_nodes, unit_weights = np.polynomial.legendre.leggauss(_NODES)
    if cuts.size < 2:
        return np.empty(0), np.empty(0)
    edges = np.linspace(cuts[:-1], cuts[1:], _PIECES + 1, axis=1)  # (intervals, pieces + 1)
    left, right = edges[:, :-1].ravel(), edges[:, 1:].ravel()
    middle, radius = (left + right) / 2.0, (right - left) / 2.0
    nodes = middle[:, None] + radius[:, None] * unit_nodes[None, :]
    weights = radius[:, None] * unit_weights[None, :]
    return nodes.ravel(), weights.ravel()


__all__ = ["SHE", "she_pq"]
