"""The pair sampler: a Dirichlet prior (fixed or learned) and a separable likelihood.

Used by the ``Bayes`` post-processing method (:mod:`ldpcore.postprocess.posterior_draws`)
wherever the protocol's likelihood is a sum of one term per value; nothing here knows
about LDP. Its rooms:

* :mod:`~ldpcore.stats.separable` — the likelihood, one term per value;
* :mod:`~ldpcore.stats.pair_moves` — exact Gibbs moves on pairs of values, for any α
  (those far below ½ that Zipf-like data choose included);
* :mod:`~ldpcore.stats.concentration` — the learned prior's α and its four moves;
* :mod:`~ldpcore.stats.logspace` — the arithmetic in ``log π`` that keeps them exact.

:func:`run` alternates them: one pair step, then (for a learned α) one concentration
step, and keeps the draws.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ldpcore.stats.concentration import TUNE_EVERY, ConcentrationWalk, concentration_step
from ldpcore.stats.logspace import exp_floored, log_sum_rows
from ldpcore.stats.pair_moves import pair_step, schedule
from ldpcore.stats.separable import SeparableLikelihood


def run(
    log_pi: NDArray[np.float64],
    alpha: NDArray[np.float64] | ConcentrationWalk,
    likelihood: SeparableLikelihood,
    rng: np.random.Generator,
    *,
    steps: int,
    keep: bool,
) -> tuple[NDArray[np.float64] | None, NDArray[np.float64] | None, float]:
    """Run ``steps`` pair steps from ``log_pi`` (updated in place).

    ``alpha`` is a fixed concentration (one per value) or a :class:`ConcentrationWalk`,
    which then moves once per step (and adapts its widths while ``walk.adapt``).
    Returns the draws of ``π`` after each step (``(chains, steps, d)``) when ``keep``,
    each step's ``log α`` per chain (``(chains, steps)``; None for a fixed ``α``), and
    the pair moves' mean acceptance.
    """
    chains, d = log_pi.shape
    draws = np.empty((chains, steps, d)) if keep else None
    walk = alpha if isinstance(alpha, ConcentrationWalk) else None
    trace = np.empty((chains, steps)) if walk is not None else None
    accepted = 0.0
    order, seen = likelihood.order, likelihood.seen
    plan = schedule(order, seen, rng)
    for step in range(steps):
        k = step % len(plan.first)
        if k == 0 and step:
            plan = schedule(order, seen, rng)
        now = walk.alpha(d) if walk is not None else alpha
        assert isinstance(now, np.ndarray)
        accepted += pair_step(log_pi, (plan.first[k], plan.second[k]), now, likelihood, rng)
        if k == 0:  # rounding drifts Σπ by ~1e-16 a step; re-centring keeps it there
            log_pi -= log_sum_rows(log_pi)[:, None]
        if walk is not None and trace is not None:
            concentration_step(log_pi, walk, likelihood, rng)
            trace[:, step] = walk.log_alpha
            if walk.adapt and step % TUNE_EVERY == TUNE_EVERY - 1:
                walk.tune(TUNE_EVERY)
        if draws is not None:
            draws[:, step] = exp_floored(log_pi)
    return draws, trace, accepted / max(steps, 1)


__all__ = ["run"]
