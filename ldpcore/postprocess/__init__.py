"""Post-processing methods for Base frequency estimates, and their registry.

NDSS 2020 Section IV (Table I) plus MLE, IBU, a Bayes posterior and one defence against
fake users (LDPRecover) and the consistency step of hierarchies. Every method is called as
``method(estimate, protocol=..., n=...)`` and carries its own metadata.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

from numpy.typing import ArrayLike

from ldpcore.errors import InputError
from ldpcore.postprocess.base import PostProcessor, check_estimate
from ldpcore.postprocess.baseline import Base, BaseCut, BasePos, PostPos
from ldpcore.postprocess.bayes import Bayes
from ldpcore.postprocess.consistency import Consistency, ConsistencyNormSub
from ldpcore.postprocess.ibu import IBU, IBUResult
from ldpcore.postprocess.intervals import IntervalEstimates, check_level
from ldpcore.postprocess.mle import MLE
from ldpcore.postprocess.mle_apx import MLEApx
from ldpcore.postprocess.normalization import Norm, NormCut, NormMul, NormSub, project_to_simplex
from ldpcore.postprocess.power import Power, PowerNS
from ldpcore.postprocess.prior import JEFFREYS, LEARNED, UNIFORM, DirichletPrior, informed_prior
from ldpcore.postprocess.recover import LDPRecover
from ldpcore.postprocess.smoothing import EMS, StoppedEM
from ldpcore.protocols.base import FrequencyOracle

#: Canonical name → method class, in the order of NDSS Table I, then MLE, IBU, Bayes,
#: LDPRecover, the hierarchies' consistency step and the Square Wave's EM and EMS (last,
#: so that the earlier methods keep their colours).
METHODS: Final = MappingProxyType(
    {
        cls.name: cls
        for cls in (
            Base,
            BasePos,
            PostPos,
            BaseCut,
            Norm,
            NormMul,
            NormCut,
            NormSub,
            MLEApx,
            Power,
            PowerNS,
            MLE,
            IBU,
            Bayes,
            LDPRecover,
            Consistency,
            ConsistencyNormSub,
            StoppedEM,
            EMS,
        )
    }
)


#: A protocol, its class or its registered name.
ProtocolLike = FrequencyOracle | type[FrequencyOracle] | str


def _protocol(protocol: ProtocolLike) -> FrequencyOracle | type[FrequencyOracle]:
    if isinstance(protocol, str):
        from ldpcore.protocols import protocol_class  # noqa: PLC0415 (the registry)

        return protocol_class(protocol)
    return protocol


def method_names(protocol: ProtocolLike | None = None) -> tuple[str, ...]:
    """Every registered method's canonical name, in display order.

    For a ``protocol``, those that can run on it (:meth:`PostProcessor.refusal`) and mean
    something there: the consistency step reconciles a tree's levels, so a flat protocol
    is not offered it (:attr:`PostProcessor.for_composite`).
    """
    if protocol is None:
        return tuple(METHODS)
    chosen = _protocol(protocol)
    return tuple(
        name
        for name, cls in METHODS.items()
        if cls.refusal(chosen) is None and (chosen.composite or not cls.for_composite)
    )


def default_method_names(protocol: ProtocolLike | None = None) -> tuple[str, ...]:
    """The methods "all" means: every registered one except those chosen only by name.

    Bayes samples a posterior (about a second at d = 248), so it joins a run when named.
    For a ``protocol``, those that can run on it, and EM and EMS only for a flat protocol
    made for ordered values (:meth:`PostProcessor.joins_all`); without one, the methods
    for the (p, q) protocols.
    """
    if protocol is None:
        return tuple(
            name
            for name, cls in METHODS.items()
            if cls.by_default and not (cls.for_ordered_values or cls.for_composite)
        )
    chosen = _protocol(protocol)
    return tuple(name for name, cls in METHODS.items() if cls.joins_all(chosen))


def runnable_methods(
    methods: tuple[str, ...], protocol: ProtocolLike
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``methods`` split into those that run on ``protocol`` and those that cannot.

    Where several protocols share one list of methods (Choose ε's search, the sidebar
    after a change of protocol), each runs what it can and the rest is said.

    Examples
    --------
    >>> runnable_methods(("Base", "Power", "EMS"), "SW")
    (('Base', 'EMS'), ('Power',))
    """
    chosen = _protocol(protocol)
    kept = tuple(m for m in methods if METHODS[resolve_method_name(m)].refusal(chosen) is None)
    return kept, tuple(m for m in methods if m not in kept)


def resolve_method_name(name: str) -> str:
    """Return the canonical spelling of a method name or alias (case-insensitive)."""
    if isinstance(name, str):
        wanted = name.strip().lower()
        for canonical, cls in METHODS.items():
            if wanted == canonical.lower() or wanted in (a.lower() for a in cls.aliases):
                return canonical
    valid = ", ".join(METHODS) + " (alias: CLS = Norm-Sub)"
    raise InputError(f"unknown post-processing method {name!r}; valid methods are: {valid}")


def method_class(name: str) -> type[PostProcessor]:
    """The registered class of a method (its metadata: ``explanation``, ``nonnegative``, …).

    Read from the registry when called, so code never holds a stale copy of it.
    """
    return METHODS[resolve_method_name(name)]


def estimates_with_intervals(
    estimate: ArrayLike,
    *,
    method: str | PostProcessor,
    protocol: FrequencyOracle,
    n: int,
    level: float = 0.95,
    tallies: ArrayLike | None = None,
    simultaneous: bool = False,
) -> IntervalEstimates:
    """Post-process ``estimate`` with ``method`` and attach an interval to every value.

    Each method gives its own kind (:attr:`PostProcessor.interval_kind`): Bayes the
    posterior's credible intervals, every other method the score interval for each
    true frequency (:func:`ldpcore.postprocess.intervals.frequency_intervals`) around
    its estimate. ``method`` is a name or a configured method (a Bayes with an informed
    prior). ``simultaneous``: the intervals hold for all values at once (Bonferroni).
    """
    chosen = get_method(method) if isinstance(method, str) else method
    return chosen.with_intervals(
        estimate,
        protocol=protocol,
        n=n,
        level=check_level(level),
        tallies=tallies,
        simultaneous=simultaneous,
    )


def get_method(name: str) -> PostProcessor:
    """Return the method registered under ``name`` with its default parameters.

    Examples
    --------
    >>> get_method("cls").name
    'Norm-Sub'
    """
    return METHODS[resolve_method_name(name)]()


__all__ = [
    "EMS",
    "IBU",
    "JEFFREYS",
    "LEARNED",
    "METHODS",
    "MLE",
    "UNIFORM",
    "Base",
    "BaseCut",
    "BasePos",
    "Bayes",
    "Consistency",
    "ConsistencyNormSub",
    "DirichletPrior",
    "IBUResult",
    "IntervalEstimates",
    "LDPRecover",
    "MLEApx",
    "Norm",
    "NormCut",
    "NormMul",
    "NormSub",
    "PostPos",
    "PostProcessor",
    "Power",
    "PowerNS",
    "StoppedEM",
    "check_estimate",
    "check_level",
    "default_method_names",
    "estimates_with_intervals",
    "get_method",
    "informed_prior",
    "method_class",
    "method_names",
    "project_to_simplex",
    "resolve_method_name",
    "runnable_methods",
]
