"""Frequency oracles under ε-LDP and their registry.

Every protocol follows the generalized view of NDSS 2020 Section III (``p``, ``q``,
support counts, the Base estimate) and offers two ways to draw support counts: the
real per-user randomizer with the server's aggregation, and a fast exact sampler.

* :mod:`~ldpcore.protocols.base` — :class:`FrequencyOracle`, the contract every protocol
  keeps (the mechanism only: features keep their own entries in their own packages),
  over :mod:`~ldpcore.protocols.parameters` (a protocol's own parameters and the rule
  each default follows);
* one module per protocol: ``grr``, ``olh`` (OLH, BLH), ``unary`` (OUE, SUE), ``she``,
  ``the``, ``subset_selection``, ``hadamard``, ``dbitflip``;
* ranges over ordered values: ``hierarchy`` (TreeOUE, TreeOLH) over ``trees`` (the tree of
  intervals) and ``tree_least_squares`` (its consistency step), a ``composite`` protocol
  (one made of flat collections, post-processed part by part), and ``square_wave`` (SW:
  a position near the value, estimated by inverting its channel or by EM);
* repeated collection: ``rounds`` (a chain of a permanent and a fresh round),
  ``memoized`` with ``lgrr`` and ``lue`` (the memoized chains), and ``repeated`` (what
  ``T`` reports of any protocol spend, and how they are drawn);
* likelihoods and their maxima: ``likelihoods``, ``likelihood_maxima``,
  ``simplex_newton``, ``walsh``; the halving sampler ``_halving``.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, TypeVar

from ldpcore.errors import InputError
from ldpcore.protocols.base import (
    SAMPLERS,
    FrequencyOracle,
    Sampler,
    ValueReports,
    ratio_from_matrix,
)
from ldpcore.protocols.dbitflip import DBitFlipPM
from ldpcore.protocols.grr import GRR
from ldpcore.protocols.haar import HaarHRR
from ldpcore.protocols.hadamard import HadamardResponse
from ldpcore.protocols.hierarchy import Hierarchy, TreeOLH, TreeOUE
from ldpcore.protocols.lgrr import LGRR
from ldpcore.protocols.lue import LOSUE, LOUE, LSOUE, LSUE
from ldpcore.protocols.memoized import Memoized
from ldpcore.protocols.olh import BLH, OLH, HashedReports
from ldpcore.protocols.parameters import ProtocolParameter
from ldpcore.protocols.she import SHE
from ldpcore.protocols.square_wave import SquareWave
from ldpcore.protocols.subset_selection import SubsetSelection
from ldpcore.protocols.the import THE
from ldpcore.protocols.unary import OUE, SUE, UnaryEncoding
from ldpcore.protocols.walsh import fwht

_Entry = TypeVar("_Entry")

#: Canonical name → protocol class. Read-only: one registry, no runtime mutation.
PROTOCOLS: Final = MappingProxyType(
    {
        cls.name: cls
        for cls in (
            GRR,
            OLH,
            BLH,
            OUE,
            SUE,
            SHE,
            THE,
            SubsetSelection,
            HadamardResponse,
            LGRR,
            LOSUE,
            LSUE,
            LOUE,
            LSOUE,
            DBitFlipPM,
            TreeOUE,
            TreeOLH,
            HaarHRR,
            SquareWave,
        )
    }
)


def protocol_names(domain_size: int | None = None) -> tuple[str, ...]:
    """The canonical protocol names, in display order.

    With ``domain_size``, those that take it (SW takes at most 2,048 values:
    :attr:`FrequencyOracle.max_domain`).
    """
    return tuple(
        name
        for name, cls in PROTOCOLS.items()
        if domain_size is None or cls.max_domain is None or domain_size <= cls.max_domain
    )


def protocol_class(name: str) -> type[FrequencyOracle]:
    """The registered class of a protocol (its metadata: ``description``, ``reference``, …)."""
    return PROTOCOLS[resolve_protocol_name(name)]


def entry_for(
    table: Mapping[type, _Entry], protocol: FrequencyOracle | type[FrequencyOracle]
) -> _Entry | None:
    """``protocol``'s entry in a feature's table, by class: the nearest registered ancestor.

    Each feature (report files, fake users, the guess rate) keeps a table keyed by
    protocol class, so a subclass (L-GRR, THE, BLH) inherits its family's entry.
    """
    cls = protocol if isinstance(protocol, type) else type(protocol)
    return next((table[ancestor] for ancestor in cls.__mro__ if ancestor in table), None)


def resolve_protocol_name(name: str) -> str:
    """Return the canonical spelling of a protocol name (case-insensitive)."""
    if isinstance(name, str):
        for canonical in PROTOCOLS:
            if canonical.lower() == name.strip().lower():
                return canonical
    raise InputError(f"unknown protocol {name!r}; valid protocols are: {', '.join(PROTOCOLS)}")


def protocol_parameters() -> dict[str, ProtocolParameter]:
    """Every extra parameter any registered protocol declares, by name (first wins)."""
    found: dict[str, ProtocolParameter] = {}
    for cls in PROTOCOLS.values():
        for parameter in cls.extra_parameters:
            found.setdefault(parameter.name, parameter)
    return found


def check_protocol_parameters(name: str, params: Mapping[str, object]) -> dict[str, int | float]:
    """``params`` checked against what protocol ``name`` declares (``None`` values dropped).

    Only what holds whatever the domain is checked here (the declared kind, at least the
    declared minimum); the protocol's constructor checks the rest against ``d`` and ε.
    """
    canonical = resolve_protocol_name(name)
    declared = {p.name: p for p in PROTOCOLS[canonical].extra_parameters}
    return {key: declared[key].check(value) for key, value in _declared(canonical, params).items()}


def _declared(canonical: str, params: Mapping[str, object]) -> dict[str, object]:
    """``params`` without ``None`` values, each name checked against the declaration."""
    declared = {p.name for p in PROTOCOLS[canonical].extra_parameters}
    given: dict[str, object] = {}
    for key, value in params.items():
        if value is None:
            continue
        if key not in declared:
            owners = [
                n
                for n, cls in PROTOCOLS.items()
                if any(p.name == key for p in cls.extra_parameters)
            ]
            if owners:
                raise InputError(f"{key} applies to {', '.join(owners)} only, not {canonical}")
            takes = ", ".join(sorted(declared)) or "no extra parameters"
            raise InputError(f"{canonical} has no parameter {key!r}; it takes {takes}")
        given[key] = value
    return given


def get_protocol(
    name: str, *, epsilon: float, domain_size: int, **params: float | None
) -> FrequencyOracle:
    """Build a protocol from its registry name.

    Parameters
    ----------
    name : str
        A name in :data:`PROTOCOLS` (any case).
    epsilon : float
        Privacy budget ε > 0.
    domain_size : int
        Number of values ``d >= 2``.
    **params : int or float, optional
        The protocol's declared extra parameters (``extra_parameters``), e.g. OLH's
        hash range ``g`` (default ``round(e^ε + 1)``), SS's subset size ``k``
        (default ``round(d/(e^ε + 1))``) or THE's threshold ``theta``; ``None`` means
        the default.

    Examples
    --------
    >>> get_protocol("olh", epsilon=1.0, domain_size=1024)
    OLH(epsilon=1.0, domain_size=1024, g=4)
    >>> get_protocol("SS", epsilon=1.0, domain_size=10, k=3).subset_size
    3
    """
    canonical = resolve_protocol_name(name)
    # The names are checked here; the values by the protocol's own constructor.
    given = _declared(canonical, params)
    return PROTOCOLS[canonical](epsilon=epsilon, domain_size=domain_size, **given)  # type: ignore[arg-type]


def describe_protocols(*, epsilon: float, domain_size: int, n: int) -> list[dict[str, object]]:
    """One row per protocol: its metadata, ``p``, ``q`` and Base accuracy at these settings.

    ``base_variance`` is NDSS Eq. (5), the f-free variance of every Base estimate.
    """
    rows: list[dict[str, object]] = []
    for name in PROTOCOLS:
        protocol = get_protocol(name, epsilon=epsilon, domain_size=domain_size)
        rows.append(
            {
                "protocol": name,
                "description": protocol.description,
                "good for": protocol.good_for,
                "parameters": ", ".join(
                    f"{key}={value}"
                    for key, value in protocol.parameters().items()
                    if key not in {"epsilon", "domain_size"}
                ),
                "p": protocol.p,
                "q": protocol.q,
                "base_variance": protocol.approx_variance(n),
                "worst_case_ratio": protocol.worst_case_ratio(),
                "communication": protocol.communication,
                "reference": protocol.reference,
            }
        )
    return rows


__all__ = [
    "BLH",
    "GRR",
    "LGRR",
    "LOSUE",
    "LOUE",
    "LSOUE",
    "LSUE",
    "OLH",
    "OUE",
    "PROTOCOLS",
    "SAMPLERS",
    "SHE",
    "SUE",
    "DBitFlipPM",
    "FrequencyOracle",
    "HaarHRR",
    "HadamardResponse",
    "HashedReports",
    "Hierarchy",
    "Memoized",
    "ProtocolParameter",
    "Sampler",
    "SquareWave",
    "SubsetSelection",
    "UnaryEncoding",
    "ValueReports",
    "check_protocol_parameters",
    "describe_protocols",
    "entry_for",
    "fwht",
    "get_protocol",
    "protocol_class",
    "protocol_names",
    "protocol_parameters",
    "ratio_from_matrix",
    "resolve_protocol_name",
]
