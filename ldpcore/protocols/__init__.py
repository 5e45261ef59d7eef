"""Frequency oracles under ε-LDP and their registry.

Every protocol follows the generalized view of NDSS 2020 Section III (``p``, ``q``,
support counts, the Base estimate) and offers two ways to draw support counts: the
real per-user randomizer with the server's aggregation, and a fast exact sampler.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

from ldpcore.errors import InputError
from ldpcore.protocols.base import SAMPLERS, FrequencyOracle, Sampler, ratio_from_matrix
from ldpcore.protocols.grr import GRR
from ldpcore.protocols.hadamard import HadamardResponse, fwht
from ldpcore.protocols.olh import BLH, OLH, HashedReports
from ldpcore.protocols.subset_selection import SubsetSelection
from ldpcore.protocols.unary import OUE, SUE

#: Canonical name → protocol class. Read-only: one registry, no runtime mutation.
PROTOCOLS: Final = MappingProxyType(
    {cls.name: cls for cls in (GRR, OLH, BLH, OUE, SUE, SubsetSelection, HadamardResponse)}
)


def protocol_names() -> tuple[str, ...]:
    """The canonical protocol names, in display order."""
    return tuple(PROTOCOLS)


def resolve_protocol_name(name: str) -> str:
    """Return the canonical spelling of a protocol name (case-insensitive)."""
    if isinstance(name, str):
        for canonical in PROTOCOLS:
            if canonical.lower() == name.strip().lower():
                return canonical
    raise InputError(f"unknown protocol {name!r}; valid protocols are: {', '.join(PROTOCOLS)}")


def get_protocol(
    name: str,
    *,
    epsilon: float,
    domain_size: int,
    g: int | None = None,
    k: int | None = None,
) -> FrequencyOracle:
    """Build a protocol from its registry name.

    Parameters
    ----------
    name : str
        One of ``GRR, OLH, BLH, OUE, SUE, SS, HR`` (any case).
    epsilon : float
        Privacy budget ε > 0.
    domain_size : int
        Number of values ``d >= 2``.
    g : int, optional
        OLH's hash range (default ``round(e^ε + 1)``).
    k : int, optional
        SS's subset size (default ``round(d/(e^ε + 1))``).

    Examples
    --------
    >>> get_protocol("olh", epsilon=1.0, domain_size=1024)
    OLH(epsilon=1.0, domain_size=1024, g=4)
    """
    canonical = resolve_protocol_name(name)
    if g is not None and canonical != "OLH":
        raise InputError(f"g (the hash range) applies to OLH only, not {canonical}")
    if k is not None and canonical != "SS":
        raise InputError(f"k (the subset size) applies to SS only, not {canonical}")
    if canonical == "OLH":
        return OLH(epsilon=epsilon, domain_size=domain_size, g=g)
    if canonical == "SS":
        return SubsetSelection(epsilon=epsilon, domain_size=domain_size, k=k)
    return PROTOCOLS[canonical](epsilon=epsilon, domain_size=domain_size)


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
    "OLH",
    "OUE",
    "PROTOCOLS",
    "SAMPLERS",
    "SUE",
    "FrequencyOracle",
    "HadamardResponse",
    "HashedReports",
    "Sampler",
    "SubsetSelection",
    "describe_protocols",
    "fwht",
    "get_protocol",
    "protocol_names",
    "ratio_from_matrix",
    "resolve_protocol_name",
]
