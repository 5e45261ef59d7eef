"""What every post-processing method is: a map from the Base estimate to a new one.

Each method carries the metadata the dashboard shows (NDSS 2020, Table I): what it
enforces, its cost, where it comes from and how it distributes bias.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Literal

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_n_users
from ldpcore.errors import InputError
from ldpcore.postprocess.intervals import IntervalEstimates, frequency_intervals
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.composite import Part, as_composite

#: Whether a method guarantees a property of its output vector.
Enforcement = Literal["yes", "no", "almost"]
#: A frequency vector.
Vector = NDArray[np.float64]
#: A stack of frequency vectors, one per row (shape ``(k, d)``).
Rows = NDArray[np.float64]
#: Largest |f̃| accepted. A Base estimate lies within 1/(p − q) of [0, 1], and p − q is
#: at least about 1e-9 within the bounds (GRR, ε = 0.001, d = 10⁶); beyond this a value
#: is not an estimate, and squaring it would overflow to inf and NaN.
ESTIMATE_MAGNITUDE_MAX = 1e12


@dataclass(frozen=True)
class Context:
    """What a method may use besides the estimate: the protocol, n and raw tallies."""

    protocol: FrequencyOracle
    n: int
    tallies: ArrayLike | None = None


def check_estimate(estimate: ArrayLike, domain_size: int) -> NDArray[np.float64]:
    """Return a float64 copy of a Base estimate, or raise if it is not one."""
    return _checked(estimate, domain_size, rows=False)


def check_estimates(estimates: ArrayLike, domain_size: int) -> NDArray[np.float64]:
    """Return a float64 copy of a stack of Base estimates (shape ``(k, d)``), or raise."""
    return _checked(estimates, domain_size, rows=True)


def _checked(estimate: ArrayLike, domain_size: int, *, rows: bool) -> NDArray[np.float64]:
    array = np.asarray(estimate)
    if array.ndim != 1 + rows or array.shape[-1] != domain_size:
        shape = (
            f"(k, {domain_size}) array (one estimate per row)"
            if rows
            else (f"1-D array of length {domain_size} (one frequency per value)")
        )
        raise InputError(f"estimate must be a {shape}, got shape {array.shape}")
    if not (np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)):
        raise InputError(f"estimate must hold numbers, got dtype {array.dtype}")
    result = array.astype(np.float64, copy=True)
    if not np.all(np.isfinite(result)):
        raise InputError("estimate must be finite; found NaN or inf")
    largest = float(np.max(np.abs(result))) if result.size else 0.0
    if largest > ESTIMATE_MAGNITUDE_MAX:
        raise InputError(
            f"estimate values must be frequency estimates, at most {ESTIMATE_MAGNITUDE_MAX:g} "
            f"in size; got {largest:g} (check that the file holds estimates, not counts)"
        )
    return result


@dataclass(frozen=True, kw_only=True)
class PostProcessor(ABC):
    """A post-processing method for a Base frequency estimate ``f̃``.

    Call it as ``method(estimate, protocol=..., n=...)``. Methods that need the
    raw tallies of a protocol (HR's row histogram, for the exact likelihood) accept
    them as ``tallies``; every other method ignores them.
    """

    #: Canonical registry name.
    name: ClassVar[str]
    #: Other accepted names (case-insensitive), e.g. ``("CLS",)`` for Norm-Sub.
    aliases: ClassVar[tuple[str, ...]] = ()
    #: One line for people.
    description: ClassVar[str]
    #: Whether the output is non-negative.
    nonnegative: ClassVar[Enforcement]
    #: Whether the output sums to one.
    sums_to_one: ClassVar[Enforcement]
    #: Time complexity in d (and n where it matters).
    complexity: ClassVar[str]
    #: Paper and section.
    reference: ClassVar[str]
    #: How the method distributes bias, in plain words.
    bias: ClassVar[str]
    #: The rule as LaTeX (for the Learn page).
    formula: ClassVar[str] = ""
    #: One paragraph for people meeting the method for the first time.
    explanation: ClassVar[str] = ""
    #: A warning that goes wherever the method is recommended ("" for none): what its
    #: measured MSE can hide (Norm-Mul once won on all values while shrinking the
    #: most frequent ones).
    caveat: ClassVar[str] = ""
    #: True for Post-Pos: it clamps query answers, not the vector.
    answers_only: ClassVar[bool] = False
    #: A method whose output this one post-processes or starts from (PowerNS: "Power",
    #: IBU: "MLE"); callers that run both on one estimate can pass the parent's output,
    #: with that estimate and its context, to ``from_parent``.
    derived_from: ClassVar[str | None] = None
    #: Whether "all methods" includes this one. A method costing seconds per estimate
    #: (Bayes) is chosen by name, so a default Explorer run stays a fraction of a second.
    by_default: ClassVar[bool] = True
    #: True when the output is a Monte Carlo estimate (Bayes): order and ties among the
    #: values then hold only up to its Monte Carlo error.
    stochastic: ClassVar[bool] = False
    #: The largest domain the method accepts (None: any). Bayes samples a d-dimensional
    #: posterior; far beyond this it would take minutes, where MLE takes milliseconds.
    max_domain: ClassVar[int | None] = None
    #: The intervals :meth:`with_intervals` gives: confidence intervals for the true
    #: frequencies (the score interval around Base), or a posterior's credible ones.
    interval_kind: ClassVar[Literal["confidence", "credible"]] = "confidence"
    #: Whether the method takes a prior over the distribution (``configured(prior=)``).
    takes_prior: ClassVar[bool] = False
    #: Whether :meth:`_apply_rows` transforms a stack of estimates in one computation
    #: (the element-wise and sort-based rules). A simulation's trials then cost one
    #: array operation per method, not one Python call per trial.
    rows_at_once: ClassVar[bool] = False
    #: What the method reads of the protocol besides the estimate: ``"estimate"``
    #: nothing (or only its variance, which every protocol gives); ``"support"`` its
    #: ``p`` and ``q`` as the (p, q) view, each value's support count scaled by Eq. 2
    #: (MLE-Apx, Power, Bayes's separable likelihood, LDPRecover's fake users);
    #: ``"likelihood"`` the likelihood the protocol declares (MLE, IBU, EM, EMS).
    reads: ClassVar[Literal["estimate", "support", "likelihood"]] = "estimate"
    #: Whether "all methods" includes it only for a flat protocol made for ordered
    #: values (:attr:`FrequencyOracle.ordered_values`): EMS averages neighbouring values.
    for_ordered_values: ClassVar[bool] = False
    #: Whether its answer is unbiased by construction (Base; a linear map of unbiased
    #: parts, the consistent tree): its bias² is then shown as 0, and what a simulation
    #: measures, the trials' own noise (about variance ÷ trials), is shown beside it.
    unbiased: ClassVar[bool] = False
    #: Whether it works on a composite protocol's parts together (the consistency step
    #: reconciles a tree's levels): on a flat protocol it changes nothing, so "all
    #: methods" leaves it out there, and it runs there only when named.
    for_composite: ClassVar[bool] = False
    #: Whether it climbs the likelihood to its maximum (MLE, IBU): refused where the
    #: protocol says the top is out of reach (:attr:`FrequencyOracle.maximum_reachable`).
    climbs_to_top: ClassVar[bool] = False
    #: Whether a smaller Base estimate never ends larger (NDSS Sec. IV-F). EMS averages
    #: neighbours, and EM stopped early follows its path from uniform: neither keeps it.
    keeps_order: ClassVar[bool] = True

    @classmethod
    def refusal(cls, protocol: FrequencyOracle | type[FrequencyOracle]) -> str | None:
        """Why this method cannot run on ``protocol``, in words; None when it can.

        A method that reads the (p, q) view cannot run on a protocol whose estimate is
        made another way (the Square Wave's). A composite protocol's parts are flat
        collections in that view, so every method runs there, part by part.
        """
        if cls.reads == "support" and not (protocol.support_view or protocol.composite):
            return (
                f"{cls.name} reads each value's support count through p and q, and "
                f"{protocol.name}'s reports support no value on their own: its estimate "
                "inverts its channel. Choose a method that reads only the estimate "
                "(Norm-Sub) or the likelihood ("
                + ("MLE, EM, EMS" if protocol.maximum_reachable else "EM, EMS")
                + ")"
            )
        if cls.reads == "likelihood" and not protocol.offers_likelihood:
            return (
                f"{cls.name} climbs a likelihood, and {protocol.name} declares none: its "
                "estimate is consistent as it comes. Choose a method that reads only the "
                "estimate (Norm-Sub)"
            )
        if cls.climbs_to_top and not protocol.maximum_reachable:
            return (
                f"{cls.name} climbs {protocol.name}'s likelihood to its top, a deconvolution "
                "that EM reaches only after about 100,000 steps (minutes per estimate). "
                "Choose EM, stopped early by Li et al.'s rule, or EMS"
            )
        return None

    @classmethod
    def joins_all(cls, protocol: FrequencyOracle | type[FrequencyOracle]) -> bool:
        """Whether "all methods" includes this one for ``protocol``."""
        if not cls.by_default or cls.refusal(protocol) is not None:
            return False
        if cls.for_composite and not protocol.composite:
            return False
        return not cls.for_ordered_values or (protocol.ordered_values and not protocol.composite)

    def configured(
        self,
        *,
        prior: object | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> PostProcessor:
        """The method with a prior (where it :attr:`takes_prior`) and a progress callback.

        Methods that take neither return themselves; a prior given to one of them is an
        :class:`InputError`.
        """
        if prior is not None:
            raise InputError(f"{self.name} takes no prior; priors are for Bayes")
        return self

    def with_intervals(
        self,
        estimate: ArrayLike,
        *,
        protocol: FrequencyOracle,
        n: int,
        level: float,
        tallies: ArrayLike | None = None,
        simultaneous: bool = False,
    ) -> IntervalEstimates:
        """Post-process ``estimate`` and attach a ``level`` interval to every value.

        The confidence interval for each true frequency (exact up to
        :data:`~ldpcore.postprocess.intervals.EXACT_MAX_N` users, else the score
        interval from the Base estimate's exact variance, NDSS Eq. 3), widened to hold
        this method's estimate (:func:`ldpcore.postprocess.intervals.frequency_intervals`),
        so it is valid whatever the method. ``simultaneous``: for all values at once.
        """
        if not protocol.support_view:
            raise InputError(
                f"intervals are not yet given for {protocol.name}: its tallies count "
                f"{protocol.tallies_count}, so its values' errors are not each value's "
                "count's; ask for its estimates without intervals"
            )
        point = self(estimate, protocol=protocol, n=n, tallies=tallies)
        low, high = frequency_intervals(
            estimate,
            protocol=protocol,
            n=n,
            level=level,
            point=point,
            simultaneous=simultaneous,
        )
        return IntervalEstimates(point, low, high, "confidence")

    def is_no_op(self, protocol: FrequencyOracle) -> bool:
        """Whether this method returns the Base estimate unchanged for ``protocol``.

        A no-op is never credited with a gain in a comparison, whatever the noise says.
        """
        return False

    def from_parent(
        self,
        parent_output: NDArray[np.float64],
        estimate: ArrayLike | None = None,
        context: Context | None = None,
    ) -> NDArray[np.float64]:
        """Finish from the output of ``derived_from`` on the same input (if any).

        ``estimate`` and ``context`` are that input, for a method that needs more than
        the parent's output (IBU continues from MLE's maximum on the same likelihood).
        """
        raise NotImplementedError(f"{self.name} is not derived from another method")

    def __call__(
        self,
        estimate: ArrayLike,
        *,
        protocol: FrequencyOracle,
        n: int,
        tallies: ArrayLike | None = None,
    ) -> NDArray[np.float64]:
        """Post-process ``estimate`` (length ``d``); the input is never modified.

        Parameters
        ----------
        estimate : array_like
            The Base estimate ``f̃`` (frequencies; may be negative).
        protocol : FrequencyOracle
            The protocol that produced it (its ``p``, ``q`` and ``d``).
        n : int
            Number of users.
        tallies : array_like, optional
            The protocol's raw tallies (``FrequencyOracle.sample_tallies``).
        """
        f = check_estimate(estimate, protocol.domain_size)
        n = check_n_users(n)
        self.check_domain(protocol.domain_size)
        self.check_protocol(protocol)
        if protocol.composite:
            return self._apply_parts(f, Context(protocol=protocol, n=n, tallies=tallies))
        return self._apply(f, Context(protocol=protocol, n=n, tallies=tallies))

    def _apply_parts(self, estimate: Vector, context: Context) -> Vector:
        """A composite protocol's estimate: this method on each part, then assembled.

        Each level of a hierarchy is a flat collection with its own oracle, users and
        Base estimate, so every flat method has its own meaning there; the protocol
        joins the levels' outputs as it joins their Base estimates. A method that
        reads the whole structure (the consistency step) overrides this.
        """
        parts, outputs = self.part_outputs(context)
        return as_composite(context.protocol).assemble(parts, outputs)

    def part_outputs(self, context: Context) -> tuple[tuple[Part, ...], list[Vector]]:
        """A composite protocol's parts and this method's output on each (before assembly).

        What a reading of the parts needs (a raw tree's ranges,
        :meth:`~ldpcore.protocols.composite.Composite.read_ranges`).
        """
        if context.tallies is None:
            raise InputError(
                f"{context.protocol.name} is post-processed part by part: pass its tallies"
            )
        parts = as_composite(context.protocol).parts(context.tallies)
        return parts, [self(part.estimate, protocol=part.oracle, n=part.n) for part in parts]

    def apply_rows(
        self, estimates: ArrayLike, *, protocol: FrequencyOracle, n: int
    ) -> NDArray[np.float64]:
        """Post-process every row of ``estimates`` (shape ``(k, d)``); input never modified.

        The same, bit for bit, as calling the method on each row: one array
        computation where the method is :attr:`rows_at_once`, else one call per row. For
        methods that need no tallies.
        """
        f = check_estimates(estimates, protocol.domain_size)
        n = check_n_users(n)
        self.check_domain(protocol.domain_size)
        self.check_protocol(protocol)
        if protocol.composite:
            raise InputError(
                f"{protocol.name} is post-processed part by part: each estimate needs its tallies"
            )
        context = Context(protocol=protocol, n=n)
        if self.rows_at_once:
            return self._apply_rows(f, context)
        return np.stack([self._apply(row, context) for row in f]) if f.size else f

    def _apply_rows(self, estimates: Rows, context: Context) -> Rows:
        """Transform a validated private stack of estimates (for :attr:`rows_at_once`)."""
        raise NotImplementedError(f"{self.name} transforms one estimate at a time")

    def check_domain(self, domain_size: int) -> None:
        """Raise an :class:`InputError` if the domain is larger than the method accepts."""
        if self.max_domain is not None and domain_size > self.max_domain:
            raise InputError(
                f"{self.name} handles domains of at most {self.max_domain:,} values, got "
                f"d = {domain_size:,}; use MLE or Norm-Sub, or merge rare values first"
            )

    @classmethod
    def check_protocol(cls, protocol: FrequencyOracle | type[FrequencyOracle]) -> None:
        """Raise an :class:`InputError` saying why, if this method cannot run on ``protocol``."""
        reason = cls.refusal(protocol)
        if reason is not None:
            raise InputError(reason)

    @abstractmethod
    def _apply(self, estimate: Vector, context: Context) -> Vector:
        """Transform a validated private copy of the estimate."""

    def metadata(self) -> dict[str, object]:
        """The method's metadata as a plain dict (for tables and the app)."""
        return {
            "method": self.name,
            "aliases": ", ".join(self.aliases),
            "description": self.description,
            "non-negative": self.nonnegative,
            "sums to one": self.sums_to_one,
            "complexity": self.complexity,
            "reference": self.reference,
            "bias": self.bias,
        }


@dataclass(frozen=True, kw_only=True)
class RowWise(PostProcessor):
    """A method written once for a stack of estimates (:attr:`rows_at_once`).

    One estimate is a stack of one, so a single call and a simulation's many trials run
    the same code and agree bit for bit.
    """

    rows_at_once: ClassVar[bool] = True

    def _apply(self, estimate: Vector, context: Context) -> Vector:
        return self._apply_rows(estimate[np.newaxis], context)[0]

    @abstractmethod
    def _apply_rows(self, estimates: Rows, context: Context) -> Rows:
        """Transform a validated private stack of estimates, shape ``(k, d)``."""
