"""EM stopped early, and EM with smoothing (EMS): Li et al., SIGMOD 2020, Sec. 5.

Both climb the likelihood the protocol declares (the Square Wave's positions, or any
protocol's tallies) from the uniform distribution, one EM step at a time, and stop when
a step raises the log-likelihood by less than ``τ``. Stopping early is itself a choice
between bias and variance: EM run to convergence is the MLE (here: IBU), which fits the
noise of a channel as blurred as the Square Wave's with spikes.

EMS adds a smoothing step after every EM step: each value is averaged with its two
neighbours by the binomial kernel (1, 2, 1)/4 (at the ends, the kernel's part inside the
domain, rescaled). That assumes neighbouring values have similar frequencies, which is
true of ages or times of day and false of countries, so EMS joins "all methods" only for
protocols made for ordered values.

Where the tool's rule is its own: the paper stops on the likelihood's gain below a
threshold ``τ`` without one value for every setting; the tool uses ``τ = 10⁻³`` (in the
log-likelihood of all reports, nats), the value public implementations of the paper use,
and caps the steps at 50,000 (said when reached: the run's ``converged`` column, the
command line's warning, Choose ε's reason). The rule in nats does not scale with n: at
n = 10⁶ and d = 1,024 plain EM meets it after 7,800–17,000 steps (ε = 0.5 to 2, 24
trials of Zipf data, 2026-11-28), past the 10,000 this cap once was; at n = 10⁵ after
3,500–6,900.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from ldpcore._validation import check_int, check_real
from ldpcore.postprocess.base import Context, PostProcessor, Vector
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.postprocess.mle import context_model

#: The binomial smoothing kernel of EMS, centre in the middle.
KERNEL = np.array([0.25, 0.5, 0.25])


def smooth(pi: NDArray[np.float64]) -> NDArray[np.float64]:
    """``π`` averaged with its neighbours by (1, 2, 1)/4, the ends rescaled, summing to one.

    At the first and last value only two of the kernel's weights fall inside the domain;
    they are rescaled to sum to one ((2, 1)/3), as in Li et al.'s smoothing matrix.
    """
    if pi.size < 2:
        return pi.copy()
    padded = np.concatenate([[0.0], pi, [0.0]])
    out = KERNEL[0] * padded[:-2] + KERNEL[1] * padded[1:-1] + KERNEL[2] * padded[2:]
    out[0] /= KERNEL[1] + KERNEL[2]
    out[-1] /= KERNEL[0] + KERNEL[1]
    return out / out.sum()


@dataclass(frozen=True, kw_only=True)
class StoppedEM(PostProcessor):
    """EM from uniform, stopped when a step gains less than ``threshold`` (Li et al., Sec. 5).

    Parameters
    ----------
    threshold : float
        ``τ``: stop when a step changes the log-likelihood (nats, over all reports) by
        less than this.
    max_iterations : int
        The cap on steps; reaching it is said (:class:`NotConverged`).
    """

    name: ClassVar[str] = "EM"
    reads: ClassVar = "likelihood"
    description: ClassVar[str] = "EM from uniform, stopped early by Li et al.'s rule"
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "yes"
    complexity: ClassVar[str] = "O(d) per step for SW (the likelihood's cost elsewhere)"
    reference: ClassVar[str] = "Li et al., SIGMOD 2020, Sec. 5"
    bias: ClassVar[str] = "Pulled toward uniform where it stops early; few spikes"
    formula: ClassVar[str] = (
        r"\pi \leftarrow \pi \odot M^\top\!\big(c / M\pi\big)/n"
        r"\ \text{until}\ \Delta \log L < \tau"
    )
    explanation: ClassVar[str] = (
        "The iterative Bayesian update, started at uniform and stopped as soon as a step "
        "barely raises the likelihood. Run to the end it would be the MLE (IBU here); "
        "stopping early leaves it smoother and less noisy."
    )
    smooths: ClassVar[bool] = False
    for_ordered_values: ClassVar[bool] = True
    keeps_order: ClassVar[bool] = False
    #: In "all" for SW although it costs about twice EMS (0.27 s an estimate at d = 1,024,
    #: n = 10⁶: thousands of steps before the rule stops it): on spiky data it is SW's best
    #: answer where EMS is its worst, which is the trade-off SW is there to show.

    threshold: float = 1e-3
    max_iterations: int = 50_000

    def __post_init__(self) -> None:
        check_real(self.threshold, name="threshold", minimum=0.0)
        check_int(self.max_iterations, name="max_iterations", minimum=1)

    def _apply(self, estimate: Vector, context: Context) -> Vector:
        return self.climb(context_model(estimate, context))[0]

    def climb(self, model: object) -> tuple[NDArray[np.float64], int]:
        """The last iterate and the steps taken, on a likelihood model."""
        from ldpcore.protocols.likelihoods import LikelihoodModel  # noqa: PLC0415 (scipy)

        assert isinstance(model, LikelihoodModel)
        pi = np.full(model.domain_size, 1.0 / model.domain_size)
        multiplier, current = model.multiplier_and_value(pi)
        for step in range(1, self.max_iterations + 1):
            pi = pi * multiplier
            pi /= pi.sum()
            if self.smooths:
                pi = smooth(pi)
            multiplier, value = model.multiplier_and_value(pi)
            # The paper's test is on the size of the change: a smoothing step can lower
            # the likelihood, and a step that moves it little either way ends the climb.
            if step > 1 and abs(value - current) < self.threshold:
                return pi, step
            current = value
        warnings.warn(
            NotConverged(
                f"{self.name} stopped at its cap of {self.max_iterations:,} steps before its "
                "stopping rule was met"
            ),
            stacklevel=3,
        )
        return pi, self.max_iterations


@dataclass(frozen=True, kw_only=True)
class EMS(StoppedEM):
    """EM with a smoothing step after each EM step (Li et al., SIGMOD 2020, Sec. 5)."""

    name: ClassVar[str] = "EMS"
    description: ClassVar[str] = "EM with smoothing: neighbouring values averaged at each step"
    bias: ClassVar[str] = "Blurs peaks and sharp edges into their neighbours; little noise"
    formula: ClassVar[str] = (
        r"\pi \leftarrow S\big(\pi \odot M^\top(c / M\pi)/n\big),\ "
        r"S = \tfrac14(1, 2, 1)\ \text{until}\ |\Delta \log L| < \tau"
    )
    explanation: ClassVar[str] = (
        "EM, with each value averaged with its two neighbours after every step. For "
        "ordered values whose distribution is smooth (ages, times) it removes most of the "
        "noise at the price of blurring peaks."
    )
    smooths: ClassVar[bool] = True


__all__ = ["EMS", "KERNEL", "StoppedEM", "smooth"]
