"""Fake users against a hierarchy's ranges: one target range, and the levels they fill.

Liao et al. (*Data Poisoning Attacks to Locally Differentially Private Range Query
Protocols*, arXiv 2503.03454, 2025) show that fake users can push a tree's answer for a
target range up, and that Norm-Sub, run after the tree's estimate, amplifies what they
do. This module models that setting on the tool's hierarchies (TreeOUE, TreeOLH).

**The gain** is the one Cao, Jia and Gong define (USENIX Security 2021, Sec. 3) and
Liao et al. carry to ranges: the target range's estimated frequency *after* the attack
minus the same *before* it, on the same honest reports.

**A fake user** of a hierarchy names a level and sends that level's oracle a report
over the level's nodes. The three attacks of :mod:`ldpcore.attacks.kinds`:

* ``ria``: a value of the range drawn uniformly, through the real randomizer (the level
  drawn as an honest user draws it);
* ``rpa``: a uniformly drawn level and a uniformly random report of it;
* ``mga``: the tree's maximal-gain attack: at each level, the level oracle's
  maximal-gain report (Cao et al. Sec. 4: OUE's bits, OLH's joining hash) on the
  level's nodes that raise the range's answer, with the fake users spread over the
  levels where they raise it most (below). An OUE report sets those bits and no
  other: Cao et al. pad theirs with random ones to the honest count, a cover against a
  server that counts ones (:mod:`ldpcore.attacks.detection`), but padding supports
  nodes that lower the answer, and leaves the level's Base sum near one, where a
  bare report pulls it below one and lets Norm-Sub hand the missing mass to the
  nodes left standing, the targets among them. That is how Norm-Sub amplifies the
  gain, measured where the levels the fake users fill hold no node the reading
  subtracts (the consistent tree's weights can be negative; the raw tree's fewest
  nodes are all added); where they hold one, its fall is part of the gain and Norm-Sub
  stops it at zero, so the gain shrinks (``benchmarks/bench_range_attack.py``).

**The expected gain.** With ``n_ℓ`` honest and ``m_ℓ`` fake users at level ℓ, Base
estimates node ``j`` as ``(C_ℓj/N_ℓ − q)/(p − q)``, ``N_ℓ = n_ℓ + m_ℓ`` (NDSS 2020 Sec.
III). An honest report supports the node with ``q + (p − q) f_ℓj``, a fake one with
its attack's rate ``ρ_ℓj``. Any linear reading of the tree answers the range as
``c + Σ W_ℓj f̂_ℓj``: the raw tree's fewest nodes that tile the range (weight one each,
Kulkarni et al. Sec. 4.1) or the consistent tree (Hay et al. 2010; its weights by
:func:`~ldpcore.protocols.tree_least_squares.range_weights`). Given ``n_ℓ`` the fake
users move each node's mean by ``β_ℓ[(ρ_ℓj − q)/(p − q) − f_ℓj]``, ``β_ℓ = m_ℓ/N_ℓ``, so

    G = Σ_ℓ E[β_ℓ] Σ_j W_ℓj [(ρ_ℓj − q)/(p − q) − f_ℓj].

For the raw tree it is exact: ``E[β_ℓ]`` is summed over ``n_ℓ ~ Bin(n, 1/h)`` for the
maximal-gain attack, and is ``m/(n + m)`` for the other two, whose fake users draw
their levels as honest ones do. For the consistent tree it is to first order: its
weights move with the levels' users, which the fake users change.

**The attacker at its best** knows the protocol and the data's distribution (as the
tool's best attacker does elsewhere) and aims at one reading of the tree. The level
``ℓ`` is worth ``g_ℓ = Σ_j W_ℓj[(ρ_ℓj − q)/(p − q) − f_ℓj]`` per unit ``β_ℓ``; the
``m`` fake users are spread to maximise ``Σ_ℓ g_ℓ m_ℓ/(a + m_ℓ)``, ``a = n/h``: concave,
so ``m_ℓ = max(0, √(a g_ℓ/λ) − a)`` with ``λ`` found by bisection, then rounded to whole
users by largest remainders. With few fake users they all go to the best level.

**OLH levels.** A maximal-gain report's hash is searched until it sends the level's
targets to the reported bucket *and keeps the nodes the reading subtracts out of it*
(the attacker at its best). The simulation draws the other nodes under the ideal hash
the honest users' draw assumes too (Kulkarni et al. Sec. 4), ``1/g`` each. The tool's
real hash (multiply-shift, :mod:`ldpcore.protocols.olh`) is pairwise independent only:
once a report's targets share a bucket the nodes next to them join it more or less
often than ``1/g``. The raw reading subtracts no node, so its gain is the same under
both hashes (the nodes outside the range weigh nothing in it; measured in
``benchmarks/bench_range_attack.py``); readings that weigh every node (the consistent
tree, Norm-Sub) can still see the difference.

The library holds Liao et al.'s abstract, not their full text: the attack here is
derived from the estimator as Cao et al. derive theirs, and is not claimed to be
Liao et al.'s construction; their finding on Norm-Sub is measured against it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_counts
from ldpcore.attacks import fakes as per_protocol
from ldpcore.attacks.gains import check_attackable
from ldpcore.attacks.kinds import AIMS, AttackSpec
from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.hierarchy import Hierarchy, TreeReports
from ldpcore.protocols.tree_least_squares import range_weights
from ldpcore.rng import as_generator


@dataclass(frozen=True)
class TreePlan:
    """Where the maximal-gain attack puts its fake users, level by level.

    Attributes
    ----------
    start, stop : int
        The target range ``[start, stop)``.
    reading : str
        The reading of the tree it aims at (:data:`~ldpcore.attacks.kinds.AIMS`).
    weights : tuple of ndarray
        Level ``ℓ``'s node weights in that reading's answer, over the nodes that hold
        values, at position ``ℓ − 1``.
    targets : tuple of ndarray
        Each level's nodes a fake report there supports: those of positive weight.
    avoided : tuple of ndarray
        Each level's nodes of negative weight, which a fake report there keeps out
        (OUE's bare bits do; an OLH report's hash is searched for it).
    worth : ndarray
        ``g_ℓ``: the range's expected gain per unit share of fake users at each level
        (NaN for a level with no node of positive weight, which gets none).
    fakes : ndarray of int64
        ``m_ℓ``: the fake users sent to each level.
    """

    start: int
    stop: int
    reading: str
    weights: tuple[NDArray[np.float64], ...]
    targets: tuple[NDArray[np.int64], ...]
    avoided: tuple[NDArray[np.int64], ...]
    worth: NDArray[np.float64]
    fakes: NDArray[np.int64]


@dataclass(frozen=True)
class PoisonedTree:
    """A hierarchy's collection with fake users in it.

    Attributes
    ----------
    tallies : ndarray of int64
        All ``users`` reports' tallies (users per level, then each level's support counts).
    users, honest, fakes : int
        ``n + m``, ``n`` and ``m``.
    targets : ndarray of int64
        The target range's values.
    honest_tallies : ndarray of int64
        The honest users' tallies alone: the collection before the attack.
    """

    tallies: NDArray[np.int64]
    users: int
    honest: int
    fakes: int
    targets: NDArray[np.int64]
    honest_tallies: NDArray[np.int64]


def as_tree(protocol: FrequencyOracle) -> Hierarchy:
    """``protocol`` as a hierarchy, or refused in words (a range attack is a tree's).

    A protocol outside the (p, q) view is refused as every attack refuses it
    (:func:`~ldpcore.attacks.gains.check_attackable`).
    """
    if not isinstance(protocol, Hierarchy):
        check_attackable(protocol)
        raise InputError(
            f"{protocol.name}'s fake users push values up (ldpcore.attacks.gains); an attack "
            "on a range is a tree's (TreeOUE, TreeOLH)"
        )
    return protocol


def check_range(targets: ArrayLike, domain_size: int) -> tuple[int, int]:
    """Consecutive values as the range ``[start, stop)``, or an :class:`InputError`."""
    chosen = np.unique(np.asarray(targets, dtype=np.int64).ravel())
    if chosen.size == 0 or chosen.min() < 0 or chosen.max() >= domain_size:
        raise InputError(f"a target range must be values in [0, {domain_size - 1}]")
    if chosen.size != np.asarray(targets).size or chosen[-1] - chosen[0] + 1 != chosen.size:
        raise InputError(
            "fake users against a tree push one range up: name consecutive values "
            "(e.g. 30+31+32), or let them be drawn"
        )
    return int(chosen[0]), int(chosen[-1]) + 1


def tree_weights(
    protocol: Hierarchy, start: int, stop: int, reading: str
) -> list[NDArray[np.float64]]:
    """Each level's node weights in ``reading``'s answer for ``[start, stop)``.

    Over the nodes that hold values. The consistent reading weighs the levels as equal
    in variance: every level's oracle has the same ``p`` and ``q``, and the attacker
    expects ``n/h`` users at each.
    """
    if reading not in AIMS:
        raise InputError(f"a tree attack aims at the {' or the '.join(AIMS)} reading")
    layout = protocol.layout
    if reading == "raw":
        weights = layout.cover_weights(start, stop)
    else:
        weights = range_weights(layout, start, stop, np.ones(protocol.height))
    return [w[: layout.occupied(level)] for level, w in enumerate(weights, start=1)]


def _level_rates(
    protocol: Hierarchy,
    kind: str,
    level: int,
    *,
    span: tuple[int, int],
    targets: NDArray[np.int64],
    avoid: NDArray[np.int64],
) -> NDArray[np.float64]:
    """``ρ_ℓj``: the chance one fake report at ``level`` supports each of its nodes."""
    oracle = protocol.levels[level - 1]
    if kind == "ria":
        start, stop = span
        held = np.zeros(protocol.domain_size)
        held[start:stop] = 1.0 / (stop - start)
        share = protocol.layout.node_totals(held)[level - 1][: oracle.domain_size]
        return np.asarray(oracle.q + (oracle.p - oracle.q) * share)
    if kind == "mga":
        return np.asarray(per_protocol.shaped(oracle, "rate", targets, avoid), dtype=np.float64)
    return np.asarray(per_protocol.support_rate(oracle, kind, targets), dtype=np.float64)


def _level_support(
    oracle: FrequencyOracle,
    kind: str,
    nodes: tuple[NDArray[np.int64], NDArray[np.int64]],
    fakes: int,
    rng: np.random.Generator,
) -> NDArray[np.int64]:
    """The support counts of ``fakes`` fake reports at one level, exactly.

    ``nodes``: the level's targets and the nodes a maximal-gain report keeps out.
    """
    targets, avoid = nodes
    if fakes == 0:
        return np.zeros(oracle.domain_size, dtype=np.int64)
    if kind == "mga":
        drawn = per_protocol.shaped(oracle, "support", targets, avoid, fakes, rng)
    else:
        drawn = per_protocol.support(oracle, kind, targets, fakes, rng)
    return np.asarray(drawn, dtype=np.int64)


def _level_reports(
    oracle: FrequencyOracle,
    kind: str,
    nodes: tuple[NDArray[np.int64], NDArray[np.int64]],
    fakes: int,
    rng: np.random.Generator,
) -> Any:
    """``fakes`` fake reports at one level, in the level oracle's format."""
    targets, avoid = nodes
    if kind == "mga":
        return per_protocol.shaped(oracle, "reports", targets, avoid, fakes, rng)
    return per_protocol.reports(oracle, kind, targets, fakes, rng)


def plan_attack(
    protocol: FrequencyOracle,
    start: int,
    stop: int,
    *,
    fakes: int,
    honest: int,
    frequencies: ArrayLike,
    reading: str = "raw",
) -> TreePlan:
    """The maximal-gain attack's levels and nodes against ``reading`` (module docstring).

    Parameters
    ----------
    protocol : Hierarchy
    start, stop : int
        The target range.
    fakes, honest : int
        ``m`` and ``n``.
    frequencies : array_like
        The honest users' distribution, which the attacker at its best knows.
    reading : str
        :data:`~ldpcore.attacks.kinds.AIMS`.
    """
    tree = as_tree(protocol)
    f = np.asarray(frequencies, dtype=np.float64)
    nodes = tree.layout.node_totals(f)
    weights = tree_weights(tree, start, stop, reading)
    p, q = tree.p, tree.q
    targets, avoided, worth = [], [], np.full(tree.height, np.nan)
    for level, w in enumerate(weights, start=1):
        chosen = np.flatnonzero(w > 1e-12).astype(np.int64)
        shunned = np.flatnonzero(w < -1e-12).astype(np.int64)
        targets.append(chosen)
        avoided.append(shunned)
        if chosen.size:
            rate = _level_rates(
                tree, "mga", level, span=(start, stop), targets=chosen, avoid=shunned
            )
            node = nodes[level - 1][: w.size]
            worth[level - 1] = float(np.sum(w * ((rate - q) / (p - q) - node)))
    return TreePlan(
        start,
        stop,
        reading,
        tuple(weights),
        tuple(targets),
        tuple(avoided),
        worth,
        spread_fakes(worth, fakes, honest / tree.height),
    )


def spread_fakes(worth: ArrayLike, fakes: int, per_level: float) -> NDArray[np.int64]:
    """``m_ℓ`` maximising ``Σ g_ℓ m_ℓ/(a + m_ℓ)`` with ``Σ m_ℓ = m`` (``a``: ``per_level``).

    Levels of no or negative worth get none; if none is worth anything, all go to the
    least bad level (a fake user there still moves the answer least against the attacker).
    """
    g = np.nan_to_num(np.asarray(worth, dtype=np.float64), nan=-np.inf)
    spread = np.zeros(g.size, dtype=np.int64)
    if fakes <= 0:
        return spread
    good = g > 0
    if not np.any(good):
        spread[int(np.argmax(g))] = fakes
        return spread
    a = max(float(per_level), 1.0)

    def placed(lam: float) -> NDArray[np.float64]:
        return np.where(good, np.maximum(0.0, np.sqrt(a * np.where(good, g, 0.0) / lam) - a), 0.0)

    high = float(np.max(g[good])) / a  # λ at which no level takes anyone
    low = high
    while placed(low).sum() < fakes:  # a λ small enough to place every fake user
        low /= 4.0
    for _ in range(200):
        middle = 0.5 * (low + high)
        if placed(middle).sum() >= fakes:
            low = middle
        else:
            high = middle
    share = placed(low) * fakes / max(placed(low).sum(), 1e-300)
    spread = np.floor(share).astype(np.int64)
    left = fakes - int(spread.sum())
    spread[np.argsort(-(share - spread), kind="stable")[:left]] += 1
    return spread


def _nodes(plan: TreePlan | None, level: int) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
    """A level's targets and avoided nodes under ``plan`` (none without one)."""
    if plan is None:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    return plan.targets[level - 1], plan.avoided[level - 1]


def _level_spread(
    plan: TreePlan | None, kind: str, fakes: int, height: int, rng: np.random.Generator
) -> NDArray[np.int64]:
    """How many fake users each level gets: the plan's, or drawn as honest users draw."""
    if kind == "mga":
        assert plan is not None
        return plan.fakes.copy()
    return rng.multinomial(fakes, np.full(height, 1.0 / height)).astype(np.int64)


def fake_tallies(
    protocol: FrequencyOracle,
    kind: str,
    start: int,
    stop: int,
    *,
    fakes: int,
    rng: np.random.Generator,
    plan: TreePlan | None = None,
) -> NDArray[np.int64]:
    """The ``fakes`` fake users' tallies, drawn exactly in O(nodes).

    ``ria`` is the protocol's own sampler on a histogram of the range's values; the
    others draw each level's support from the level oracle's fake users
    (:mod:`ldpcore.attacks.fakes`). ``mga`` needs the ``plan``.
    """
    tree = as_tree(protocol)
    if fakes == 0:  # nothing to draw (the protocol's sampler refuses no users)
        return np.zeros(tree.tally_length, dtype=np.int64)
    if kind == "ria":
        held = np.zeros(tree.domain_size, dtype=np.int64)
        held[start:stop] = rng.multinomial(fakes, np.full(stop - start, 1.0 / (stop - start)))
        return tree.sample_tallies(held, rng)
    if kind == "mga" and plan is None:
        raise InputError("the tree's maximal-gain attack needs its plan (plan_attack)")
    spread = _level_spread(plan, kind, fakes, tree.height, rng)
    parts: list[NDArray[np.int64]] = [spread]
    for level, oracle in enumerate(tree.levels, start=1):
        parts.append(_level_support(oracle, kind, _nodes(plan, level), int(spread[level - 1]), rng))
    return np.concatenate(parts)


def fake_tree_reports(
    protocol: FrequencyOracle,
    kind: str,
    start: int,
    stop: int,
    *,
    fakes: int,
    rng: Any = None,
    plan: TreePlan | None = None,
) -> TreeReports:
    """The fake users' reports themselves: valid reports of the hierarchy, one per user."""
    tree = as_tree(protocol)
    generator = as_generator(rng)
    if kind == "ria":
        return tree.randomize(generator.integers(start, stop, size=fakes), generator)
    if kind == "mga" and plan is None:
        raise InputError("the tree's maximal-gain attack needs its plan (plan_attack)")
    spread = _level_spread(plan, kind, fakes, tree.height, generator)
    levels = np.repeat(np.arange(1, tree.height + 1, dtype=np.int64), spread)
    reports = tuple(
        _level_reports(oracle, kind, _nodes(plan, level), int(spread[level - 1]), generator)
        for level, oracle in enumerate(tree.levels, start=1)
    )
    return TreeReports(levels, reports)


def expected_range_gain(
    protocol: FrequencyOracle,
    kind: str,
    start: int,
    stop: int,
    *,
    fakes: int,
    honest: int,
    frequencies: ArrayLike,
    plan: TreePlan | None = None,
    reading: str = "raw",
) -> float:
    """``G``, the range's expected gain in ``reading`` (module docstring).

    Exact for the raw tree's Base estimate; first order for the consistent one.
    """
    tree = as_tree(protocol)
    if fakes == 0:
        return 0.0
    f = np.asarray(frequencies, dtype=np.float64)
    nodes = tree.layout.node_totals(f)
    weights = tree_weights(tree, start, stop, reading)
    p, q, h = tree.p, tree.q, tree.height
    if kind == "mga":
        if plan is None:
            plan = plan_attack(
                tree, start, stop, fakes=fakes, honest=honest, frequencies=f, reading=reading
            )
        shares = [_mean_share(int(m), honest, h) for m in plan.fakes]
    else:
        shares = [fakes / (honest + fakes)] * h
    gain = 0.0
    for level, w in enumerate(weights, start=1):
        if shares[level - 1] == 0.0:
            continue
        chosen, shunned = _nodes(plan, level)
        rate = _level_rates(tree, kind, level, span=(start, stop), targets=chosen, avoid=shunned)
        node = nodes[level - 1][: w.size]
        gain += shares[level - 1] * float(np.sum(w * ((rate - q) / (p - q) - node)))
    return gain


def _mean_share(fakes: int, honest: int, height: int) -> float:
    """``E[m/(n_ℓ + m)]`` over ``n_ℓ ~ Bin(n, 1/h)``: exactly, over the binomial's bulk."""
    if fakes == 0:
        return 0.0
    from scipy import stats  # noqa: PLC0415 (scipy loads where it is used)

    mean = honest / height
    sd = math.sqrt(max(mean * (1 - 1 / height), 1e-12))
    users = np.arange(
        max(0, math.floor(mean - 12 * sd)), min(honest, math.ceil(mean + 12 * sd)) + 1
    )
    law = stats.binom.pmf(users, honest, 1.0 / height)
    return float(np.sum(law * fakes / (users + fakes)) / law.sum())


def poison_tree(
    protocol: FrequencyOracle,
    true_counts: ArrayLike,
    attack: AttackSpec,
    rng: Any,
    *,
    start: int,
    stop: int,
    plan: TreePlan | None = None,
) -> PoisonedTree:
    """Honest users' tallies plus the attack's fake users', drawn exactly.

    The honest tallies come first from the generator, as an honest run draws them, and
    are kept: the gain is measured against this very collection.
    """
    tree = as_tree(protocol)
    generator = as_generator(rng)
    counts = check_counts(np.asarray(true_counts), name="true_counts", length=tree.domain_size)
    n = int(counts.sum())
    m = attack.fake_users(n)
    honest = tree.sample_tallies(counts, generator)
    if attack.kind == "mga" and plan is None:
        plan = plan_attack(
            tree, start, stop, fakes=m, honest=n, frequencies=counts / max(n, 1), reading=attack.aim
        )
    fake = fake_tallies(tree, attack.kind, start, stop, fakes=m, rng=generator, plan=plan)
    return PoisonedTree(honest + fake, n + m, n, m, np.arange(start, stop, dtype=np.int64), honest)


__all__ = [
    "PoisonedTree",
    "TreePlan",
    "as_tree",
    "check_range",
    "expected_range_gain",
    "fake_tallies",
    "fake_tree_reports",
    "plan_attack",
    "poison_tree",
    "spread_fakes",
    "tree_weights",
]
