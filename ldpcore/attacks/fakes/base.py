"""What a protocol's fake users are: the attacks it describes and their exact draws.

Each protocol family's module (``grr``, ``olh``, ``unary``, …) defines a
:class:`FakeUsers`: functions of the protocol that say what one fake report of each
attack supports (Cao, Jia and Gong, USENIX Security 2021, Sec. 4), draw the support of
many exactly in O(d), and write the reports themselves. :mod:`ldpcore.attacks.fakes`
finds a protocol's by its class.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle


@dataclass(frozen=True)
class FakeUsers:
    """One protocol family's fake users. Every function takes the protocol first.

    Attributes
    ----------
    attacks : frozenset of str
        The attacks described besides the random item attack, which needs nothing of
        the protocol: ``"rpa"`` (a uniformly random report), ``"mga"`` (maximal gain).
    support_rate : callable, optional
        ``(protocol, kind, targets)``: per value, the probability that one fake report
        supports it.
    support : callable, optional
        ``(protocol, kind, targets, fakes, rng)``: the support counts of ``fakes`` fake
        reports, exactly, in O(d).
    reports : callable, optional
        ``(protocol, kind, targets, fakes, rng)``: the fake reports, valid reports of the
        protocol.
    padding : callable, optional
        ``(protocol, targets)``: how many other values a maximal-gain report supports
        besides ``targets`` values, *chosen by the attacker* (unary padding, a subset's
        free slots; 0 where a report needs none). None where the protocol chooses them
        (a hash, a Hadamard row), or no maximal-gain report is described.
    report_sizes : callable, optional
        ``(protocol, reports)``: how many values each report supports, where that varies.
    report_size_law : callable, optional
        ``(protocol)``: ``P(an honest report supports k values)`` for ``k = 0..d``.
    report_supports : callable, optional
        ``(protocol, reports)``: which values each report supports (``N × d`` booleans),
        for families whose support bits are independent given the user's value (the
        frequent-itemset detection, :mod:`ldpcore.attacks.itemsets`).
    shaped_rate, shaped_support, shaped_reports : callable, optional
        The maximal-gain report of an attacker who weighs each value, some for and some
        against (a tree's range, :mod:`ldpcore.attacks.ranges`): it supports every
        target and none of ``avoid``, the others as the family must. Take
        ``(protocol, targets, avoid)``, then ``fakes, rng`` for the draws and reports;
        as ``support_rate``, ``support`` and ``reports``.
    """

    attacks: frozenset[str] = frozenset()
    support_rate: Callable[..., Any] | None = None
    support: Callable[..., Any] | None = None
    reports: Callable[..., Any] | None = None
    padding: Callable[..., int] | None = None
    report_sizes: Callable[..., Any] | None = None
    report_size_law: Callable[..., Any] | None = None
    report_supports: Callable[..., Any] | None = None
    shaped_rate: Callable[..., Any] | None = None
    shaped_support: Callable[..., Any] | None = None
    shaped_reports: Callable[..., Any] | None = None


def not_described(protocol: FrequencyOracle, kind: str, attacks: frozenset[str]) -> InputError:
    """The error for an attack ``protocol`` does not describe, naming those it does."""
    offered = ", ".join(["ria", *sorted(attacks)])
    return InputError(f"{protocol.name} does not describe the {kind!r} attack; it takes {offered}")


__all__ = ["FakeUsers", "not_described"]
