"""IBU: the iterative Bayesian update (EM) to the maximum-likelihood distribution.

Generalized IBU paper (CSS 2020); Agrawal & Aggarwal, PODS 2001; reading note 10.

Why plain EM is not enough. EM moves each ``π_x`` by ``π_x (g_x − 1)`` where
``g_x − 1 = (∂L/∂π_x − N)/N`` (``N`` = users, or users × d for the support-count
likelihood): a gradient step preconditioned by ``diag(π)/N``. Its speed on a
coordinate is ``π_x · curvature_x / N``, so with frequencies spanning five decades
(a Zipf head and tail) the small ones crawl, and values whose MLE is 0 decay only
geometrically. At d = 1024 that is tens of thousands of steps.

The acceleration. After every EM step we also try the step that the same EM
quantities imply under the exact diagonal curvature of the log-likelihood,
``π + N (g − 1) / curvature`` projected onto the simplex (a diagonal Newton step,
Lange's EM-gradient idea, which for the separable likelihoods here is nearly
exact), and keep it only if its likelihood is at least that of the EM step.
Every accepted iterate is therefore at least as good as plain EM from the same
point: the likelihood never decreases and the fixed point is the MLE. A model whose
full Hessian is cheap (unary encodings on their 2^d reports, d <= 12) offers the
full Newton step on the simplex instead (``LikelihoodModel.newton_step``), under the
same acceptance rule.

Stopping. When the EM step's relative likelihood gain ``ΔL/|L|`` (``L`` against the
saturated model) is below ``tolerance`` *and* the KKT residual ``max_x g_x − 1``
is below ``kkt_tolerance`` (it is ≤ 0 only at the MLE). The second test matters:
a value stuck near 0 that should be positive barely changes ``L`` per step, so the
likelihood gain alone would stop too early. A residual left on values at exactly 0
(which EM cannot move) also counts as met when a Newton step on them would gain less
than ``tolerance · |L|``: below that, rounding hides any change of ``L``.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar, TypeVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_int
from ldpcore.errors import InputError
from ldpcore.postprocess.base import Context, PostProcessor, Vector, check_estimate
from ldpcore.postprocess.normalization import project_to_simplex
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.simplex_newton import diagonal_newton

T = TypeVar("T")

if TYPE_CHECKING:  # the models load scipy; they arrive from likelihood_model() when used
    from ldpcore.protocols.likelihoods import LikelihoodModel


@dataclass(frozen=True)
class IBUResult:
    """What an IBU run returns.

    Attributes
    ----------
    frequencies : ndarray
        The estimated distribution.
    iterations : int
        EM steps taken.
    log_likelihood : float
        Final log-likelihood relative to the saturated model (≤ 0).
    converged : bool
        Whether the stopping rule was met before the iteration cap.
    history : tuple of float
        The log-likelihood after every iteration (non-decreasing).
    """

    frequencies: NDArray[np.float64]
    iterations: int
    log_likelihood: float
    converged: bool
    history: tuple[float, ...]


def projected_start(estimate: Vector) -> NDArray[np.float64]:
    """Where EM starts near the top: the Base estimate projected onto the simplex.

    Floored at ``10⁻³/d`` and renormalised: EM's multiplicative step cannot revive a value
    that starts at exactly 0, and the projection zeroes many. The likelihoods are concave,
    so the top reached is the one from uniform (tests/protocols/test_hr_rows_mle.py).
    """
    start = np.maximum(project_to_simplex(estimate), 1e-3 / estimate.size)
    return np.asarray(start / start.sum(), dtype=np.float64)


def run_em(
    model: LikelihoodModel,
    *,
    tolerance: float = 1e-13,
    kkt_tolerance: float = 1e-12,
    max_iterations: int = 100_000,
    accelerate: bool = True,
    start: NDArray[np.float64] | None = None,
) -> IBUResult:
    """Climb ``model``'s likelihood from ``start`` (default: the uniform distribution).

    See the module docstring for the steps and the stopping rule.
    """
    d = model.domain_size
    pi = np.full(d, 1.0 / d) if start is None else start
    current = model.log_likelihood(pi)
    history = [current]
    for iteration in range(1, max_iterations + 1):
        multiplier = model.em_multiplier(pi)
        em = pi * multiplier
        em /= em.sum()
        em_value = model.log_likelihood(em)
        gain = em_value - current
        if gain <= tolerance * abs(current) and _stationary(
            model, pi, multiplier, kkt_tolerance, tolerance * abs(current)
        ):
            history.append(max(em_value, current))
            return IBUResult(em, iteration, max(em_value, current), True, tuple(history))
        start = pi
        pi, current = em, em_value
        if accelerate:
            # The Newton-scaled step is taken from the point EM started at (`start`):
            # the model's full Newton step where it offers one, else the exact Newton
            # step of the diagonal quadratic model on the simplex (diagonal_newton).
            step = model.newton_step(start, multiplier)
            diagonal = step is None
            if diagonal:
                step = diagonal_newton(
                    start, model.gradient_scale * (multiplier - 1.0), model.curvature(start)
                )
            if step is not None and np.all(np.isfinite(step)) and np.abs(step).max() < 1e6:
                # The full step, then shorter ones (a step past the simplex's edge
                # can overshoot); the first at least as good as EM's is kept.
                for fraction in (1.0, 0.5, 0.25):
                    candidate = start + fraction * step
                    if diagonal or candidate.min() >= 0.0:
                        # The step keeps Σ δ = 0 (and the diagonal one π + δ ≥ 0), and
                        # so does any fraction of it: only rounding is left to remove.
                        # A projection would sort the values again (a tenth of a step)
                        # and, where rounding left Σ below 1, lift every value at 0 by
                        # that shortfall (~1e-20: the MLE's zeros would not be zeros).
                        candidate = np.maximum(candidate, 0.0)
                        candidate /= candidate.sum()
                    else:
                        candidate = project_to_simplex(candidate)
                    candidate_value = model.log_likelihood(candidate)
                    if candidate_value >= em_value:
                        pi, current = candidate, candidate_value
                        break
        history.append(current)
    # Never a silent cap: the caller (an experiment, the CLI, the app) counts these.
    warnings.warn(
        NotConverged(f"EM stopped at its cap of {max_iterations:,} iterations before converging"),
        stacklevel=2,
    )
    return IBUResult(pi, max_iterations, current, False, tuple(history))


class NotConverged(UserWarning):
    """An iterative method stopped at its iteration cap; its output is its last iterate.

    ``fact`` holds what a person must be told, where the method recorded it (Bayes: a
    :class:`~ldpcore.postprocess.caveats.Unsettled`; the words are
    :func:`ldpcore.present.run_sentences.caveat_words`); the message is the log's line.
    """

    def __init__(self, message: str, fact: object | None = None) -> None:
        super().__init__(message)
        self.fact = fact


def said_not_converged(call: Callable[[], T]) -> tuple[T, list[NotConverged]]:
    """``call()``, and the :class:`NotConverged` warnings it raised, held back.

    For front ends that say them in their own place (a page's note, the CLI's line after
    its progress line): a Python warning reaches neither. Other warnings pass on.
    """
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", NotConverged)
        result = call()
    said: list[NotConverged] = []
    for found in caught:
        if isinstance(found.message, NotConverged):
            said.append(found.message)
        else:  # not ours to hold back
            warnings.warn_explicit(found.message, found.category, found.filename, found.lineno)
    return result, said


def _stationary(
    model: LikelihoodModel,
    pi: NDArray[np.float64],
    multiplier: NDArray[np.float64],
    kkt_tolerance: float,
    resolution: float,
) -> bool:
    """Whether ``π`` meets the KKT conditions, up to what the likelihood can resolve.

    Either the residual ``max g − 1`` is below ``kkt_tolerance``, or raising the
    violating values (``g_v > 1``, stuck at 0: EM cannot revive them) would gain at most
    ``Σ (N (g_v − 1))² / (2 curvature_v)`` (one Newton step), below ``resolution``,
    the likelihood change that rounding already hides.
    """
    excess = multiplier - 1.0
    if excess.max() <= kkt_tolerance:
        return True
    violating = excess > kkt_tolerance
    curvature = np.maximum(model.curvature(pi)[violating], np.finfo(float).tiny)
    predicted = float(np.sum((model.gradient_scale * excess[violating]) ** 2 / (2 * curvature)))
    return predicted <= resolution


@dataclass(frozen=True, kw_only=True)
class IBU(PostProcessor):
    """Iterative Bayesian update (EM) on the protocol's tallies, to convergence.

    Uses the likelihood the protocol declares (``FrequencyOracle.likelihood_model``):
    GRR's report multinomial, HR's row multinomial when its row histogram is passed
    as ``tallies`` (else the support-count binomials), and the support-count
    binomials for OUE, SUE, OLH, BLH and SS. Its fixed point is the MLE.

    Parameters
    ----------
    tolerance : float
        Stop when the EM step's relative likelihood gain is below this ...
    kkt_tolerance : float
        ... and the KKT residual ``max_x g_x − 1`` is below this.
    max_iterations : int
        Cap on EM steps.
    accelerate : bool
        Curvature-scaled, likelihood-guarded extrapolation (default) or plain EM.
    warm_start : bool
        Start from the likelihood's exact maximiser where the model has one in closed
        form (GRR's reports, the support counts' binomials), so that EM confirms the
        fixed point it converges to in a step, and elsewhere (HR's rows, UE's reports)
        from the projected Base estimate (:func:`projected_start`), as MLE does (default);
        False starts from the uniform distribution, as the papers' IBU does. Its fixed
        point, and so the answer within the stopping tolerance, is the same either way:
        at the Explorer's defaults (OLH, d = 1,024) EM took 8 steps a trial from uniform,
        a third of a new configuration's computing, and HR's rows at d = 16,384 took 5–6
        Newton steps from uniform and 3–4 from the projected estimate.
    """

    name: ClassVar[str] = "IBU"
    reads: ClassVar = "likelihood"
    climbs_to_top: ClassVar[bool] = True
    description: ClassVar[str] = "Iterative Bayesian update (EM) to the maximum-likelihood estimate"
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "yes"
    complexity: ClassVar[str] = "O(d log d) per step (HR: O(K log K)); ~10 accelerated steps"
    reference: ClassVar[str] = "Generalized IBU, CSS 2020; Agrawal & Aggarwal, PODS 2001"
    bias: ClassVar[str] = "Like the MLE: zeroes many rare values, slight shrinkage of frequent ones"
    formula: ClassVar[str] = r"\pi \leftarrow \pi \odot Q^\top\!\left(\frac{s}{Q\pi}\right)/n"
    explanation: ClassVar[str] = (
        "Repeatedly ask: given the current guess, where did each report most likely come from? "
        "Re-count and repeat. It climbs to the maximum-likelihood estimate."
    )

    #: With a warm start IBU begins at the likelihood's exact maximiser, which is MLE's
    #: output on the same input: a run of both hands it over (:meth:`from_parent`)
    #: instead of solving it twice (a tenth of a class's new configuration).
    derived_from: ClassVar[str | None] = "MLE"

    tolerance: float = 1e-13
    kkt_tolerance: float = 1e-12
    max_iterations: int = 100_000
    accelerate: bool = True
    warm_start: bool = True

    def __post_init__(self) -> None:
        for label, value in (("tolerance", self.tolerance), ("kkt_tolerance", self.kkt_tolerance)):
            if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                raise InputError(f"{label} must be a finite number > 0, got {value!r}")
        check_int(self.max_iterations, name="max_iterations", minimum=1)

    def solve(
        self,
        estimate: ArrayLike,
        *,
        protocol: FrequencyOracle,
        n: int,
        tallies: ArrayLike | None = None,
    ) -> IBUResult:
        """Run IBU and return the full :class:`IBUResult` (iterations, likelihood)."""
        return self._solve(
            check_estimate(estimate, protocol.domain_size),
            Context(protocol=protocol, n=n, tallies=tallies),
        )

    def _solve(self, estimate: Vector, context: Context, mle: Vector | None = None) -> IBUResult:
        """EM from where ``warm_start`` says.

        The exact maximiser where the likelihood has one (``mle`` when the caller has it),
        else the projected Base estimate; uniform without a warm start.
        """
        rows = None if context.tallies is None else np.asarray(context.tallies, dtype=np.float64)
        model = context.protocol.likelihood_model(estimate, context.n, rows)
        start = None
        if self.warm_start and model.exact_maximum:
            start = model.maximum() if mle is None else mle
        elif self.warm_start:
            start = projected_start(estimate)
        return run_em(
            model,
            tolerance=self.tolerance,
            kkt_tolerance=self.kkt_tolerance,
            max_iterations=self.max_iterations,
            accelerate=self.accelerate,
            start=start,
        )

    def _apply(self, estimate: Vector, context: Context) -> Vector:
        return self._solve(estimate, context).frequencies

    def from_parent(
        self,
        parent_output: NDArray[np.float64],
        estimate: ArrayLike | None = None,
        context: Context | None = None,
    ) -> NDArray[np.float64]:
        """IBU from MLE's output on ``estimate`` (the same answer as calling IBU on it).

        Where the likelihood has an exact maximiser MLE's output is that maximiser, bit
        for bit, and the warm start begins there; elsewhere (HR's rows, UE's reports)
        IBU starts where it would alone (the projected Base estimate, or uniform).
        """
        if estimate is None or context is None:
            raise InputError("IBU continues from MLE's output only with its estimate and context")
        f = check_estimate(estimate, context.protocol.domain_size)
        return self._solve(f, context, mle=parent_output).frequencies
