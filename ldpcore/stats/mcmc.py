"""Hamiltonian Monte Carlo for a smooth log density, with its convergence diagnostics.

Used by the ``Bayes`` post-processing method (:mod:`ldpcore.postprocess.bayes`); nothing
here knows about LDP. Several chains run in lockstep as one batch, so each leapfrog
step is a handful of numpy operations on a ``(chains, d)`` array.

The sampler (Neal 2011, "MCMC using Hamiltonian dynamics", Sec. 5):

* leapfrog integration with a diagonal inverse metric ``M⁻¹`` (the posterior variances,
  estimated during warmup), one step size for all chains, and an integration time
  drawn uniformly from [1, 2] per iteration (about π/2 in the metric's units, where
  a Gaussian target decorrelates; the jitter avoids periodic orbits);
* warmup as in Stan (Carpenter et al. 2017; Stan Reference Manual, "HMC algorithm
  parameters"): a fast phase that adapts only the step size, then doubling windows
  that each end by re-estimating ``M⁻¹`` from their draws, then a final step-size
  phase. The step size follows Nesterov dual averaging to a mean acceptance of 0.8
  (Hoffman & Gelman 2014, Sec. 3.2, Algorithm 5).

The diagnostics (Gelman et al., *Bayesian Data Analysis*, 3rd ed., Sec. 11.4–11.5;
Vehtari et al. 2021): split R̂ and the effective sample size from Geyer's initial
monotone sequence over split chains.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

#: A log density and its gradient for a batch of points ``(chains, d)``.
LogDensity = Callable[[NDArray[np.float64]], tuple[NDArray[np.float64], NDArray[np.float64]]]

#: Dual averaging's target mean acceptance and constants (Hoffman & Gelman 2014, Sec. 3.2).
TARGET_ACCEPTANCE = 0.75
_GAMMA, _T0, _KAPPA = 0.05, 10.0, 0.75
#: An energy error this large marks a divergent trajectory (Stan's threshold).
_DIVERGENCE = 1000.0
#: The longest trajectory in leapfrog steps (a tiny step size cannot stall a run).
_MAX_STEPS = 256


@dataclass(frozen=True)
class Chains:
    """What :func:`sample` returns.

    Attributes
    ----------
    draws : ndarray
        Shape ``(chains, draws, d)``, after warmup.
    step_size : float
        The adapted leapfrog step size.
    acceptance : float
        Mean acceptance probability after warmup.
    divergences : int
        Trajectories after warmup whose energy error exceeded 1,000.
    gradient_evaluations : int
        Batched log-density evaluations, warmup included.
    inverse_metric : ndarray
        The adapted diagonal inverse metric (posterior variances, as estimated).
    """

    draws: NDArray[np.float64]
    step_size: float
    acceptance: float
    divergences: int
    gradient_evaluations: int
    inverse_metric: NDArray[np.float64]


def _windows(warmup: int) -> tuple[int, int, list[int]]:
    """Stan's warmup plan for ``warmup`` iterations: ``(start, final, ends)``.

    Iterations before ``start`` (15%) adapt only the step size; metric windows follow,
    doubling from 5% of the warmup, each ending (at ``ends``) with a new metric; the last
    window stretches to ``final``, after which (10%) the step size settles again.
    """
    start = int(0.15 * warmup)
    final = warmup - int(0.1 * warmup)
    size = max(5, int(0.05 * warmup))
    ends: list[int] = []
    position = start
    while position + 3 * size <= final:  # this window and a next one twice as long fit
        position += size
        ends.append(position)
        size *= 2
    ends.append(final)
    return start, final, ends


def sample(
    log_density: LogDensity,
    start: NDArray[np.float64],
    inverse_metric: NDArray[np.float64],
    *,
    draws: int,
    warmup: int,
    rng: np.random.Generator,
    spread: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None = None,
    enough: Callable[[NDArray[np.float64]], bool] | None = None,
    max_draws: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Chains:
    """Draw from ``exp(log_density)`` by HMC, one chain per row of ``start``.

    Parameters
    ----------
    log_density : callable
        ``(points (chains, d)) → (values (chains,), gradients (chains, d))``.
    start : ndarray
        Initial points, ``(chains, d)``; spread them out so that R̂ can see a chain
        that has not mixed.
    inverse_metric : ndarray
        Initial guess of each coordinate's posterior variance, ``(d,)``. A coordinate
        with variance 0 is held fixed.
    draws, warmup : int
        Iterations kept per chain, and adaptation iterations before them.
    rng : numpy.random.Generator
        The only source of randomness.
    spread : callable, optional
        Each coordinate's variance from a window's draws ``(draws, d)``, for the metric;
        their plain variance by default. A target with a direction the quantity of
        interest ignores (the radius, for Bayes) passes the variance of the rest: the
        metric must fit the narrow directions, and the ignored one may mix slowly.
    enough : callable, optional
        Given the draws so far ``(chains, kept, d)``, whether they suffice. While they do
        not, the chains run ``draws`` more iterations each, up to ``max_draws`` in all: a
        posterior that mixes slowly gets a longer run rather than a short answer.
    max_draws : int, optional
        The most draws per chain when ``enough`` asks for more (default ``4 × draws``).
    progress : callable, optional
        Called as ``progress(done, total)`` after every iteration (the total grows if the
        run is extended), for a progress line.
    """
    u = np.array(start, dtype=np.float64)
    chains, dim = u.shape
    minv = np.array(inverse_metric, dtype=np.float64)
    value, grad = log_density(u)
    evaluations = 1
    plan = _Warmup(log_density, warmup, minv, rng, spread)
    step = plan.begin((u, value, grad))
    limit = max(draws, 4 * draws if max_draws is None else max_draws)
    kept = np.empty((chains, limit, dim))
    accepted_total = 0.0
    divergent_total = 0
    wanted = draws
    iteration = -1
    while True:
        iteration += 1
        if iteration == warmup + wanted:
            if enough is None or wanted >= limit or enough(kept[:, :wanted]):
                break
            wanted = min(limit, wanted + draws)
        if progress is not None and iteration:
            progress(iteration, warmup + wanted)
        length = rng.uniform(1.0, 2.0)
        steps = min(_MAX_STEPS, max(1, math.ceil(length / step)))
        u, value, grad, acceptance, divergent = _transition(
            log_density, (u, value, grad), step=step, steps=steps, minv=minv, rng=rng
        )
        evaluations += steps
        if iteration < warmup:
            step, minv = plan.adapt(iteration, (u, value, grad), float(np.mean(acceptance)))
        else:
            kept[:, iteration - warmup] = u
            accepted_total += float(np.sum(acceptance))
            divergent_total += int(np.sum(divergent))
    if progress is not None:
        progress(warmup + wanted, warmup + wanted)
    return Chains(
        draws=kept[:, :wanted],
        step_size=step,
        acceptance=accepted_total / max(1, chains * wanted),
        divergences=divergent_total,
        gradient_evaluations=evaluations,
        inverse_metric=minv,
    )


def _transition(
    log_density: LogDensity,
    state: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
    *,
    step: float,
    steps: int,
    minv: NDArray[np.float64],
    rng: np.random.Generator,
) -> tuple[
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.float64],
    NDArray[np.bool_],
]:
    """One HMC iteration for every chain: a leapfrog trajectory and a Metropolis test.

    ``state`` is the points, their log densities and gradients.
    """
    u, value, grad = state
    with np.errstate(divide="ignore"):
        scale = np.where(minv > 0, 1.0 / np.sqrt(np.where(minv > 0, minv, 1.0)), 0.0)
    momentum = rng.standard_normal(u.shape) * scale
    energy = -value + 0.5 * np.sum(minv * momentum**2, axis=1)
    position, new_value, new_grad = u, value, grad
    with np.errstate(all="ignore"):  # a diverging trajectory turns to inf/NaN and is rejected
        momentum = momentum + 0.5 * step * new_grad
        for leap in range(steps):
            position = position + step * minv * momentum
            new_value, new_grad = log_density(position)
            if leap + 1 < steps:
                momentum = momentum + step * new_grad
        momentum = momentum + 0.5 * step * new_grad
        new_energy = -new_value + 0.5 * np.sum(minv * momentum**2, axis=1)
        error = new_energy - energy
        finite = np.isfinite(error) & np.all(np.isfinite(position), axis=1)
        acceptance = np.where(finite, np.exp(np.minimum(0.0, -np.where(finite, error, 0.0))), 0.0)
    take = rng.random(len(u)) < acceptance
    u = np.where(take[:, None], position, u)
    value = np.where(take, new_value, value)
    grad = np.where(take[:, None], new_grad, grad)
    divergent = ~finite | (np.where(finite, error, 0.0) > _DIVERGENCE)
    return u, value, grad, acceptance, divergent


def _initial_step(
    log_density: LogDensity,
    state: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
    minv: NDArray[np.float64],
    rng: np.random.Generator,
) -> float:
    """A step size whose single leapfrog step is accepted about half the time.

    Halve or double from 1 until the mean acceptance crosses ½ (Hoffman & Gelman 2014,
    Algorithm 4), so dual averaging starts near the right scale.
    """
    step = 1.0
    direction = 0
    for _ in range(30):
        *_, acceptance, _ = _transition(log_density, state, step=step, steps=1, minv=minv, rng=rng)
        mean = float(np.mean(acceptance))
        going = 1 if mean > 0.5 else -1
        if direction and going != direction:
            break
        direction = going
        step = step * 2.0 if going > 0 else step / 2.0
    return step


class _Warmup:
    """Step size and metric adaptation over the warmup (Stan's plan, :func:`_windows`)."""

    def __init__(
        self,
        log_density: LogDensity,
        warmup: int,
        minv: NDArray[np.float64],
        rng: np.random.Generator,
        spread: Callable[[NDArray[np.float64]], NDArray[np.float64]] | None,
    ) -> None:
        self.log_density = log_density
        self.warmup = warmup
        self.minv = minv
        self.fixed = minv <= 0
        self.rng = rng
        self.spread = spread
        self.window_start, self.final, self.ends = _windows(warmup)
        self.window: list[NDArray[np.float64]] = []
        self.step = 1.0
        self.adapter = _DualAveraging(self.step)
        self.started = False

    def begin(
        self, state: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]
    ) -> float:
        """The first step size, from the starting points."""
        self.step = _initial_step(self.log_density, state, self.minv, self.rng)
        self.adapter = _DualAveraging(self.step)
        return self.step

    def adapt(
        self,
        iteration: int,
        state: tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]],
        acceptance: float,
    ) -> tuple[float, NDArray[np.float64]]:
        """After a warmup iteration: the step size and the inverse metric to use next."""
        self.step = self.adapter.update(acceptance)
        if self.window_start <= iteration < self.final:
            self.window.append(state[0].copy())
        if self.ends and iteration + 1 == self.ends[0]:
            self.ends.pop(0)
            seen = np.concatenate(self.window)
            count = len(seen)
            # Shrink towards the previous guess (Stan shrinks towards 1e-3, which
            # assumes unit scales; here scales span orders of magnitude).
            observed = seen.var(axis=0) if self.spread is None else self.spread(seen)
            self.minv = (count * observed + 5.0 * self.minv) / (count + 5.0)
            self.minv[self.fixed] = 0.0
            self.window = []
            self.window_start = iteration + 1
            self.begin(state)
        if iteration + 1 == self.warmup:
            self.step = self.adapter.final()
        return self.step, self.minv


class _DualAveraging:
    """Nesterov dual averaging of the log step size (Hoffman & Gelman 2014, Algorithm 5)."""

    def __init__(self, step: float) -> None:
        self.mu = math.log(10.0 * step)
        self.count = 0
        self.average_gap = 0.0
        self.log_step_bar = 0.0

    def update(self, acceptance: float) -> float:
        self.count += 1
        t = self.count
        weight = 1.0 / (t + _T0)
        self.average_gap = (1 - weight) * self.average_gap + weight * (
            TARGET_ACCEPTANCE - acceptance
        )
        log_step = self.mu - math.sqrt(t) / _GAMMA * self.average_gap
        eta = t**-_KAPPA
        self.log_step_bar = eta * log_step + (1 - eta) * self.log_step_bar
        return math.exp(log_step)

    def final(self) -> float:
        return math.exp(self.log_step_bar)


def split_rhat_and_ess(
    draws: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Split R̂ and the effective sample size of every coordinate of ``draws``.

    Parameters
    ----------
    draws : ndarray
        Shape ``(chains, draws, d)``.

    Returns
    -------
    rhat, ess : ndarray
        Shape ``(d,)`` each. A coordinate that never moves has R̂ 1 and the full size.

    Notes
    -----
    Each chain is split in half (a chain that drifts then disagrees with itself). With
    ``M`` half-chains of ``N`` draws, ``W`` the mean within-chain variance and ``B/N``
    the variance of the chain means, ``var⁺ = (N − 1)/N · W + B/N`` and
    ``R̂ = √(var⁺ / W)`` (BDA3, Eq. 11.4). The autocorrelations ``ρ_t = 1 − (W −
    acov_t)/var⁺`` (acov averaged over chains, by FFT) are summed in pairs while the
    pair sums stay positive, made monotone (Geyer's initial monotone sequence), and
    ``ESS = M N / τ`` with ``τ = −1 + 2 Σ (ρ_{2k} + ρ_{2k+1})`` (BDA3, Eq. 11.8).
    """
    from scipy import fft  # noqa: PLC0415 (scipy loads on first use; its FFTs use every core)

    x = np.asarray(draws, dtype=np.float64)
    n = x.shape[1] // 2
    m = 2 * x.shape[0]

    def halves(part: slice) -> NDArray[np.float64]:
        # The half-chains of some coordinates, ``(m, n, ·)``: a copy of those alone (a
        # copy of every coordinate at once, 65 MB at d = 1,024, cost more than its FFTs).
        return np.concatenate((x[:, :n, part], x[:, x.shape[1] - n :, part]), axis=0)

    means = np.concatenate((x[:, :n].mean(axis=1), x[:, x.shape[1] - n :].mean(axis=1)), axis=0)
    # Each half-chain's sum of squares about its mean, per coordinate: W below. Summed
    # in the blocks, along their contiguous time axis; numpy's var along axis 1 was
    # half of this function's time (0.28 of 0.6 s at 8 chains, 1,360 draws, d = 1,025).
    squares = np.empty(x.shape[2])
    acov = np.empty((n, x.shape[2]))
    # A length the FFT handles fast (1,200 for 600 draws, not the power of two 2,048).
    size = fft.next_fast_len(2 * n - 1, real=True)
    # In blocks of coordinates: the spectra of all at once reach hundreds of MB at
    # d = 1,024 (16 half-chains of 400 draws), and a block that fits in cache is 3x faster.
    block = max(1, (1 << 21) // (m * size))
    for first in range(0, x.shape[2], block):
        part = slice(first, first + block)
        # Time on the last, contiguous axis: the FFTs run 3x faster than along axis 1.
        centred = np.ascontiguousarray(np.swapaxes(halves(part) - means[:, None, part], 1, 2))
        squares[part] = np.einsum("mvt,mvt->v", centred, centred)
        # In single precision, each coordinate scaled to unit variance first (a share
        # of 1e−300 would underflow a float32): twice as fast, and the autocorrelations
        # keep 6 digits where the ESS needs 2.
        scale = np.sqrt(np.where(squares[part] > 0, squares[part], 1.0) / (m * n))
        padded = np.zeros((m, centred.shape[1], size), dtype=np.float32)
        padded[:, :, :n] = centred / scale[:, None]
        spectrum = fft.rfft(padded, axis=2, workers=-1)
        # Averaged over the half-chains before the inverse transform, which is linear:
        # one inverse FFT per coordinate instead of one per half-chain.
        power = (spectrum.real**2 + spectrum.imag**2).mean(axis=0)
        unit = fft.irfft(power, n=size, axis=1, workers=-1)[:, :n].T
        acov[:, part] = unit * (scale * scale / n)
    within = squares / (m * (n - 1))
    var_plus = (n - 1) / n * within + means.var(axis=0, ddof=1)
    moving = within > 0
    safe_within = np.where(moving, within, 1.0)
    safe_plus = np.where(moving, var_plus, 1.0)
    rhat = np.where(moving, np.sqrt(safe_plus / safe_within), 1.0)
    rho = 1.0 - (within - acov) / safe_plus
    rho[0] = 1.0
    pairs = rho[: 2 * (n // 2)].reshape(n // 2, 2, -1).sum(axis=1)
    positive = np.cumprod(pairs > 0, axis=0).astype(bool)
    monotone = np.minimum.accumulate(np.where(positive, pairs, 0.0), axis=0)
    tau = -1.0 + 2.0 * np.sum(np.where(positive, monotone, 0.0), axis=0)
    total = m * n
    # τ below 1/log10(total) would claim more draws than exist by antithetic luck (Stan's cap).
    tau = np.maximum(tau, 1.0 / math.log10(total))
    ess = np.where(moving, total / tau, float(total))
    return rhat, ess


__all__ = ["TARGET_ACCEPTANCE", "Chains", "LogDensity", "sample", "split_rhat_and_ess"]
