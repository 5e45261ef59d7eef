"""Fake users per protocol: what a fake report is, and its support drawn exactly.

* :mod:`~ldpcore.attacks.fakes.base` — :class:`FakeUsers`, the functions a protocol
  family declares;
* one module per family: ``grr``, ``olh`` (with BLH), ``unary`` (OUE, SUE, THE and the
  memoized chains), ``subset_selection``, ``hadamard``, ``she``, ``dbitflip``.

A protocol's fake users are found by its class, the nearest registered ancestor first
(L-GRR's are GRR's); a protocol with none registered (a new one) takes the random item
attack only, which is its own randomizer run on the targets.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, Final

import numpy as np
from numpy.typing import NDArray

from ldpcore.attacks.fakes import dbitflip, grr, hadamard, olh, she, subset_selection, unary
from ldpcore.attacks.fakes.base import FakeUsers, not_described
from ldpcore.errors import InputError
from ldpcore.protocols import (
    GRR,
    OLH,
    SHE,
    DBitFlipPM,
    FrequencyOracle,
    HadamardResponse,
    SubsetSelection,
    UnaryEncoding,
    entry_for,
)

#: Protocol class → its family's fake users. Read-only: one table, no runtime mutation.
#: Keyed by class object (abstract families such as unary encoding included).
FAKE_USERS: Final[Mapping[type, FakeUsers]] = MappingProxyType(
    {
        GRR: grr.FAKES,
        OLH: olh.FAKES,
        UnaryEncoding: unary.FAKES,
        SubsetSelection: subset_selection.FAKES,
        HadamardResponse: hadamard.FAKES,
        SHE: she.FAKES,
        DBitFlipPM: dbitflip.FAKES,
    }
)

_NONE = FakeUsers()


def fake_users(protocol: FrequencyOracle | type[FrequencyOracle]) -> FakeUsers:
    """The fake users registered for ``protocol`` (an instance or a class)."""
    return entry_for(FAKE_USERS, protocol) or _NONE


def described_attacks(protocol: FrequencyOracle | type[FrequencyOracle]) -> frozenset[str]:
    """The attacks ``protocol`` describes besides the random item attack."""
    return fake_users(protocol).attacks


def _function(protocol: FrequencyOracle, kind: str, name: str) -> Any:
    found = getattr(fake_users(protocol), name)
    if found is None:
        raise not_described(protocol, kind, described_attacks(protocol))
    return found


def support_rate(
    protocol: FrequencyOracle, kind: str, targets: NDArray[np.int64]
) -> NDArray[np.float64]:
    """Per value, the probability that one ``kind`` fake report supports it."""
    rate: NDArray[np.float64] = _function(protocol, kind, "support_rate")(protocol, kind, targets)
    return rate


def support(
    protocol: FrequencyOracle,
    kind: str,
    targets: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """The support counts of ``fakes`` fake reports of ``kind``, exactly, in O(d)."""
    drawn: NDArray[np.int64] = _function(protocol, kind, "support")(
        protocol, kind, targets, fakes, rng
    )
    return drawn


def reports(
    protocol: FrequencyOracle,
    kind: str,
    targets: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> Any:
    """``fakes`` fake reports of ``kind``: valid reports of ``protocol``."""
    return _function(protocol, kind, "reports")(protocol, kind, targets, fakes, rng)


def shaped(
    protocol: FrequencyOracle,
    what: str,
    targets: NDArray[np.int64],
    avoid: NDArray[np.int64],
    *draw: Any,
) -> Any:
    """The weighed maximal-gain report's ``what`` (``rate``, ``support`` or ``reports``).

    ``draw`` is ``(fakes, rng)`` for the support and the reports. A family that shapes
    no report is refused in words.
    """
    found = getattr(fake_users(protocol), f"shaped_{what}")
    if found is None:
        raise InputError(
            f"{protocol.name} has no maximal-gain report that keeps values out; fake users "
            "against a tree's range take OUE or OLH levels"
        )
    return found(protocol, targets, avoid, *draw)


def chosen_padding(protocol: FrequencyOracle, targets: int) -> int | None:
    """How many other values a maximal-gain report supports, chosen by the attacker.

    None where the protocol chooses them (OLH's hash, HR's row) or describes no
    maximal-gain report (:class:`~ldpcore.attacks.fakes.base.FakeUsers`).
    """
    padding = fake_users(protocol).padding
    return None if padding is None else int(padding(protocol, targets))


def report_sizes(protocol: FrequencyOracle, reports: Any) -> NDArray[np.int64] | None:
    """How many values each report supports, where that varies (None: it never does).

    With :func:`report_size_law`, the one sign a single report can give of a fake user
    (:mod:`ldpcore.attacks.detection`).
    """
    sizes = fake_users(protocol).report_sizes
    return None if sizes is None else sizes(protocol, reports)


def report_supports(protocol: FrequencyOracle, reports: Any) -> NDArray[np.bool_] | None:
    """Which values each report supports, where the bits are independent given the value.

    None for the other families: GRR supports one value; a subset's or a Hadamard row's
    values are chosen together; OLH's hash is independent on two keys, not three
    (:mod:`ldpcore.attacks.itemsets` says why that matters).
    """
    supports = fake_users(protocol).report_supports
    return None if supports is None else supports(protocol, reports)


def report_size_law(protocol: FrequencyOracle) -> NDArray[np.float64] | None:
    """``P(an honest report supports k values)`` for ``k = 0..d``, where it varies."""
    law = fake_users(protocol).report_size_law
    return None if law is None else law(protocol)


__all__ = [
    "FAKE_USERS",
    "FakeUsers",
    "chosen_padding",
    "described_attacks",
    "fake_users",
    "not_described",
    "report_size_law",
    "report_sizes",
    "report_supports",
    "reports",
    "shaped",
    "support",
    "support_rate",
]
