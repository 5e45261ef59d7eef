"""Newton steps on the probability simplex, for the likelihoods' EM acceleration.

EM (:func:`ldpcore.postprocess.ibu.run_em`) tries, after each EM step, a Newton-scaled
step from the same point and keeps it only if the likelihood is at least EM's. The
steps live here, beside the models that supply their curvature
(:mod:`ldpcore.protocols.likelihoods`): the exact Newton step of a diagonal quadratic
model (:func:`diagonal_newton`), a dense projected Newton step for small Hessians
(:func:`projected_newton`), and one by conjugate gradients for Hessians known only
through products (:func:`projected_newton_cg`, HR's rows at large d).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

#: A curvature at or below this is none: the likelihood is linear in that value (GRR's
#: values that no report names: their cells do not depend on them).
_FLAT = 1e-280


def diagonal_newton(
    pi: NDArray[np.float64], gradient: NDArray[np.float64], curvature: NDArray[np.float64]
) -> NDArray[np.float64] | None:
    """The Newton step of a likelihood with a diagonal Hessian, on the simplex.

    It maximises the quadratic model ``Σ gradient·δ − ½ Σ curvature·δ²`` subject to
    ``Σ δ = 0`` and ``π + δ ≥ 0``: ``δ_v = max(−π_v, (gradient_v − λ)/curvature_v)``,
    with the one ``λ`` that keeps the total (found exactly over the sorted breakpoints
    ``λ_v = gradient_v + curvature_v π_v`` where a value reaches 0). Projecting the
    unconstrained step in the Euclidean metric instead ignores that the curvatures
    differ by orders of magnitude: at OLH, ε = 10, d = 1024, EM then took 38–817 steps
    per estimate over 30 draws (13–16 now; the classroom benchmark's slowest setting).

    A value without curvature (the model is linear in it) goes to 0 when its gradient
    is below ``λ``; were it above, the model would rise without bound along it, and the
    step is ``None``. (An earlier version made the step ``None`` for any such value: GRR at
    d = 100,000, where most values have no report, then crawled by plain EM, 3,000
    steps without converging.)
    """
    flat = curvature <= _FLAT
    curved = ~flat
    if not curved.any():
        return None
    multiplier = _diagonal_multiplier(
        pi[curved], gradient[curved], curvature[curved], float(pi[flat].sum())
    )
    if multiplier is None or np.any(gradient[flat] > multiplier):
        return None
    step = -pi.copy()
    step[curved] = np.maximum(-pi[curved], (gradient[curved] - multiplier) / curvature[curved])
    return step if np.all(np.isfinite(step)) else None


def _diagonal_multiplier(
    pi: NDArray[np.float64],
    gradient: NDArray[np.float64],
    curvature: NDArray[np.float64],
    released: float,
) -> float | None:
    """``λ`` of :func:`diagonal_newton` for curved values, ``released``: the flat ones' mass."""
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        inverse = 1.0 / curvature
        breakpoints = gradient + curvature * pi
        # Where no value reaches 0 (high ε: the MLE is interior), λ is the all-free one;
        # checking that is one O(d) pass, against the sort's 60 µs at d = 1024.
        everyone = float((gradient @ inverse - released) / inverse.sum())
        if math.isfinite(everyone) and bool(np.all(breakpoints > everyone)):
            return everyone
        order = np.argsort(-breakpoints, kind="stable")
        sorted_points = breakpoints[order]
        # λ_k when the k values with the largest breakpoints are free and the rest at 0.
        free_total = np.cumsum((gradient * inverse)[order])
        free_weight = np.cumsum(inverse[order])
        pinned_mass = pi.sum() - np.cumsum(pi[order]) + released
        lam = (free_total - pinned_mass) / free_weight
    if not np.all(np.isfinite(lam)):
        return None
    below_next = np.append(sorted_points[1:], -np.inf) <= lam
    consistent = (lam < sorted_points) & below_next
    if not consistent.any():
        return None
    return float(lam[int(np.argmax(consistent))])


def projected_newton(
    pi: NDArray[np.float64],
    multiplier: NDArray[np.float64],
    *,
    scale: float,
    curvature: NDArray[np.float64],
    columns: NDArray[np.float64],
    weights: NDArray[np.float64],
) -> NDArray[np.float64] | None:
    """A Newton step on ``{Σ π = 1}`` for a multinomial likelihood with a small Hessian.

    The Hessian is ``−Cᵀ diag(w) C`` (``C``: each cell's probability as a linear function
    of ``π``, up to a per-cell factor absorbed in ``w``). Projected Newton (Bertsekas
    1982): a value pushed down (``g_v < 1``) further than it has, by the diagonal estimate
    of its step, is pinned at 0; on the others solve ``H Δ + μ 1 = −∇L`` with ``Σ Δ = 0``.
    The caller projects onto the simplex and keeps the step only if it raises the
    likelihood.

    Parameters
    ----------
    scale : float
        The model's ``N`` (``∇L = N g``: users, or users × d for binomials).
    curvature : ndarray
        The diagonal of ``−∂²L/∂π²`` at ``π``.
    pi, multiplier : ndarray
        The point and EM's multiplier ``g`` there.
    columns, weights : ndarray
        ``C`` and ``w`` of the Hessian ``−Cᵀ diag(w) C``.
    """
    diagonal = np.maximum(curvature, np.finfo(float).tiny)
    pinned = (multiplier < 1.0) & (pi <= scale * (1.0 - multiplier) / diagonal)
    free = ~pinned
    k = int(free.sum())
    if k < 2:
        return None
    hessian = -(columns[:, free].T * weights) @ columns[:, free]
    system = np.zeros((k + 1, k + 1))
    system[:k, :k] = hessian
    system[:k, k] = system[k, :k] = 1.0
    gradient = scale * multiplier[free]
    try:
        solution = np.linalg.solve(system, np.concatenate((-gradient, [0.0])))
    except np.linalg.LinAlgError:
        return None
    step = -pi.copy()  # pinned values go to 0
    step[free] = solution[:k] + pi[pinned].sum() / k  # keeping the total at one
    return step if np.all(np.isfinite(step)) else None


def projected_newton_cg(
    scale: float,
    pi: NDArray[np.float64],
    multiplier: NDArray[np.float64],
    product: Callable[[NDArray[np.float64]], NDArray[np.float64]],
    diagonal: NDArray[np.float64],
    *,
    relative_residual: float = 3e-3,
    max_products: int = 60,
) -> NDArray[np.float64] | None:
    """A Newton step on the simplex with the Hessian known only through products.

    Which values go to 0 is decided first, by the exact Newton step of the diagonal
    model (:func:`diagonal_newton`): those it sends to 0 are pinned there. (Pinning only
    values whose own gradient pushes them down, as :func:`projected_newton` does, left
    every value at 0 that EM's multiplier still favoured free at HR, d = 100,000, where
    the full step then sent tens of thousands of them below 0 and lost to EM every
    time.) This is the gradient-projection-then-subspace pattern of Moré & Toraldo
    (SIAM J. Optim. 1(1), 1991). On the free values ``F`` the step solves
    ``A Δ = ∇L − μ 1`` with ``Σ_F Δ = m`` (``A = −H`` restricted to ``F``, ``m`` the mass
    the pinned values give up), by projected preconditioned conjugate gradients
    (Gould, Hribar & Nocedal, SIAM J. Sci. Comput. 23(4), 2001, Alg. II): the
    iterates stay on ``Σ_F Δ = m`` because every residual is projected onto
    ``{Σ Δ = 0}`` in the metric of the preconditioner, the Hessian's diagonal ``D``
    (``P r = D⁻¹ r − D⁻¹1 (1ᵀD⁻¹r)/(1ᵀD⁻¹1)``). The solve stops when the projected
    residual has fallen by ``relative_residual`` (an inexact Newton step: the caller
    keeps it only if it raises the likelihood, so accuracy here buys speed, never
    correctness), or at negative curvature, or after ``max_products`` products.

    Parameters
    ----------
    scale : float
        The model's ``N`` (``∇L = N g``).
    pi, multiplier : ndarray
        The point and EM's multiplier ``g`` there.
    product : callable
        ``v ↦ A v``, the negative Hessian times a vector.
    diagonal : ndarray
        The diagonal of ``A`` (the preconditioner).
    relative_residual : float
        Stop when the projected residual has fallen by this factor (3e-3: at HR,
        d = 16,384, n = 10⁶ a climb took 30–42 ms against 45–58 ms at 1e-3, in five or
        six steps either way; looser solves took more steps at d = 100,000).
    max_products : int
        At most this many products with ``A``.
    """
    curvature = np.maximum(diagonal, np.finfo(float).tiny)
    guide = diagonal_newton(pi, scale * (multiplier - 1.0), curvature)
    if guide is None:
        return None
    pinned = guide <= -pi  # exactly −π where the diagonal step stops a value at 0
    free = ~pinned
    if int(free.sum()) < 2:
        return guide
    inverse = np.where(free, 1.0 / curvature, 0.0)
    weight = inverse.sum()
    # The pinned values' move to 0 (Δ_P = −π_P) bends the free values' gradient by
    # −A_FP Δ_P = A_FP π_P: one product, and the step is the Newton step of the full
    # model with Δ_P fixed (the dense path spreads that mass evenly instead).
    # ∇L = N g; its constant part N·1 only moves μ, and near the MLE N g ≈ N to 1e-8,
    # so it is left out (with N g the residual's projection cancelled to below zero).
    released = np.where(pinned, pi, 0.0)
    gradient = scale * (multiplier - 1.0)
    if released.any():
        gradient = gradient + product(released)
    gradient[pinned] = 0.0

    def project(r: NDArray[np.float64]) -> NDArray[np.float64]:
        scaled = inverse * r
        return scaled - inverse * (scaled.sum() / weight)

    def size(projected: NDArray[np.float64]) -> float:
        # rᵀ P r, written as (P r)ᵀ D (P r): equal in exact arithmetic, and never < 0.
        return float(np.sum(curvature * projected**2, where=free))

    def restricted(v: NDArray[np.float64]) -> NDArray[np.float64]:
        return np.where(free, product(v), 0.0)

    # Start on the constraint: the freed mass spread in the preconditioner's metric.
    step = inverse * (pi[pinned].sum() / weight)
    residual = restricted(step) - gradient
    projected = project(residual)
    direction = -projected
    rho = size(projected)
    first = math.sqrt(rho)
    for _ in range(max_products):
        if rho <= 0.0 or math.sqrt(rho) <= relative_residual * first:
            break
        curved = restricted(direction)
        bend = float(direction @ curved)
        if not bend > 0.0:  # flat or negative curvature: keep the step so far
            break
        alpha = rho / bend
        step += alpha * direction
        residual += alpha * curved
        projected = project(residual)
        rho, previous = size(projected), rho
        direction = -projected + (rho / previous) * direction
    step[pinned] = -pi[pinned]
    return step if np.all(np.isfinite(step)) else None


__all__ = ["diagonal_newton", "projected_newton", "projected_newton_cg"]
