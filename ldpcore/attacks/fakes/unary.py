"""Unary encoding's fake users (OUE, SUE, THE and the memoized chains over them).

What a fake report is, and its support drawn exactly.

Cao, Jia and Gong (USENIX Security 2021) for the attacks; :mod:`ldpcore.attacks.fakes`
registers these functions for the protocol.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ldpcore.attacks.fakes.base import FakeUsers, not_described
from ldpcore.errors import InputError
from ldpcore.protocols._halving import sample_support
from ldpcore.protocols.unary import UnaryEncoding

#: The attacks besides the random item attack, which needs nothing of the protocol.
ATTACKS = frozenset({"rpa", "mga"})


def report_sizes(protocol: UnaryEncoding, reports: Any) -> NDArray[np.int64]:
    """Each report's number of ones."""
    return np.asarray(np.asarray(reports, dtype=np.bool_).sum(axis=1), dtype=np.int64)


def report_supports(protocol: UnaryEncoding, reports: Any) -> NDArray[np.bool_]:
    """The bits themselves: a report supports the values whose bit is set."""
    bits = np.asarray(reports, dtype=np.bool_)
    if bits.ndim != 2 or bits.shape[1] != protocol.domain_size:
        raise InputError(
            f"{protocol.name} reports are rows of {protocol.domain_size} bits, got shape "
            f"{bits.shape}"
        )
    return bits


def report_size_law(protocol: UnaryEncoding) -> NDArray[np.float64]:
    """An honest report's number of ones: its own bit (``p``) plus ``Bin(d − 1, q)``.

    The same law whatever the user's value, so a report whose count it makes
    unlikely is unlikely from any honest user (Cao, Jia and Gong 2021, Sec. 6).
    """
    from scipy import stats  # noqa: PLC0415 (scipy loads where it is used)

    others = stats.binom.pmf(np.arange(protocol.domain_size), protocol.domain_size - 1, protocol.q)
    law = np.zeros(protocol.domain_size + 1)
    law[:-1] += (1.0 - protocol.p) * others
    law[1:] += protocol.p * others
    return law


def support_rate(
    protocol: UnaryEncoding, kind: str, targets: NDArray[np.int64]
) -> NDArray[np.float64]:
    """A uniform report sets each bit with ½; the maximal-gain one every target's.

    Maximal gain (Cao et al. 2021, Sec. 4.2): the targets' bits and
    :meth:`padding` of the other ``d − r``, chosen uniformly.
    """
    d = protocol.domain_size
    if kind == "rpa":
        return np.full(d, 0.5)
    if kind == "mga":
        others = d - targets.size
        rate = np.full(d, protocol.padding(targets.size) / others if others else 0.0)
        rate[targets] = 1.0
        return rate
    raise not_described(protocol, kind, ATTACKS)


def support(
    protocol: UnaryEncoding,
    kind: str,
    targets: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """Exactly, in O(d): independent bits (``rpa``); the padding by halving (``mga``).

    The padding's counts are those of ``fakes`` uniform subsets of the other values,
    each of :meth:`padding` values: Subset Selection's users who keep nothing of
    their own (:func:`ldpcore.protocols._halving.sample_support`, mixture weight 0).
    """
    d = protocol.domain_size
    if kind == "rpa":
        return rng.binomial(fakes, 0.5, size=d).astype(np.int64)
    if kind != "mga":
        raise not_described(protocol, kind, ATTACKS)
    support = np.zeros(d, dtype=np.int64)
    support[targets] = fakes
    extra, others = protocol.padding(targets.size), np.setdiff1d(np.arange(d), targets)
    if extra and fakes:
        users = np.zeros(others.size, dtype=np.int64)
        users[0] = fakes  # where they are does not matter: none keeps a value
        support[others] = sample_support(users, extra, 0.0, rng, protocol.padding_kernels())
    return support


def reports(
    protocol: UnaryEncoding,
    kind: str,
    targets: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.bool_]:
    """Uniform bit vectors (``rpa``), or the targets' bits and random padding (``mga``)."""
    d = protocol.domain_size
    if kind == "rpa":
        return rng.random((fakes, d)) < 0.5
    if kind != "mga":
        raise not_described(protocol, kind, ATTACKS)
    bits = np.zeros((fakes, d), dtype=np.bool_)
    bits[:, targets] = True
    others = np.setdiff1d(np.arange(d), targets)
    extra = protocol.padding(targets.size)
    if extra:
        # Each row's first ``extra`` of a random order of the other values.
        keys = rng.random((fakes, others.size))
        chosen = np.argpartition(keys, extra - 1, axis=1)[:, :extra]
        bits[np.arange(fakes)[:, None], others[chosen]] = True
    return bits


def shaped_rate(
    protocol: UnaryEncoding, targets: NDArray[np.int64], avoid: NDArray[np.int64]
) -> NDArray[np.float64]:
    """The targets' bits and no other: bare of padding, every other value kept out."""
    rate = np.zeros(protocol.domain_size)
    rate[targets] = 1.0
    return rate


def shaped_support(
    protocol: UnaryEncoding,
    targets: NDArray[np.int64],
    avoid: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """``fakes`` on every target, nothing elsewhere (no draw is needed)."""
    support = np.zeros(protocol.domain_size, dtype=np.int64)
    support[targets] = fakes
    return support


def shaped_reports(
    protocol: UnaryEncoding,
    targets: NDArray[np.int64],
    avoid: NDArray[np.int64],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.bool_]:
    """Bit vectors with the targets' bits set and no other."""
    bits = np.zeros((fakes, protocol.domain_size), dtype=np.bool_)
    bits[:, targets] = True
    return bits


def padding(protocol: UnaryEncoding, targets: int) -> int:
    """The ones a maximal-gain report adds besides the targets' (:meth:`padding`)."""
    return int(protocol.padding(targets))


FAKES = FakeUsers(
    attacks=ATTACKS,
    report_sizes=report_sizes,
    report_size_law=report_size_law,
    report_supports=report_supports,
    support_rate=support_rate,
    support=support,
    reports=reports,
    padding=padding,
    shaped_rate=shaped_rate,
    shaped_support=shaped_support,
    shaped_reports=shaped_reports,
)
