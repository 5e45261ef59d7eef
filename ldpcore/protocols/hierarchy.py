"""The hierarchical histogram: each user reports one level of a tree of intervals.

Kulkarni, Cormode and Srivastava (*Answering Range Queries Under Local Differential
Privacy*, VLDB 2019, Sec. 4.1) answer range queries on an ordered domain from a tree of
branching factor ``B`` (:mod:`ldpcore.protocols.trees`). Each user draws one level
``ℓ`` uniformly from ``1 … h`` and reports the node of that level that holds their
value through a flat frequency oracle over the level's ``B^ℓ`` nodes (OUE or OLH: their
variance does not grow with the level's size), with the whole budget ε: the level is
drawn independently of the value, so a report is exactly as private as the level's
oracle makes it. The server estimates each level's node frequencies from the users who
reported it; the root, the whole domain, has frequency one.

A hierarchy is a *composite* oracle: its Base estimate is assembled from its levels'
(one value per leaf whose running sums are the raw tree's prefix answers), and a
post-processing method runs on each level with that level's own oracle, the levels'
outputs then assembled the same way (:mod:`ldpcore.protocols.composite`). It has no support
count per value: its tallies are ``h`` numbers of users per level, then each level's
support counts over the level's nodes that hold values, level 1 first.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_counts, check_n_users, check_values
from ldpcore.errors import InputError
from ldpcore.protocols.base import (
    FrequencyOracle,
    users_per_batch,
)
from ldpcore.protocols.composite import Composite, Part
from ldpcore.protocols.olh import OLH
from ldpcore.protocols.parameters import ProtocolParameter
from ldpcore.protocols.tree_least_squares import consistent_levels
from ldpcore.protocols.trees import TreeLayout, optimal_branching
from ldpcore.protocols.unary import OUE
from ldpcore.rng import ClientRNG, as_source

#: A reading's nodes at one level: runs ``[first, last)`` of nodes with a coefficient each,
#: once for ``Σ w_j x_j`` and once for ``Σ w_j² x_j``.
_Runs = list[tuple[tuple[NDArray[np.int64], NDArray[np.int64]], float]]
_Reading = tuple[_Runs, _Runs]


def _run_sum(values: NDArray[np.float64], run: tuple[Any, Any]) -> NDArray[np.float64]:
    """``Σ values[first:last]`` for every run at once (an empty run sums to zero)."""
    running = np.concatenate(([0.0], np.cumsum(values)))
    return running[run[1]] - running[np.minimum(run[0], run[1])]


@dataclass(frozen=True)
class TreeReports:
    """Reports of a hierarchy: each user's level, and each level's own reports.

    Attributes
    ----------
    levels : ndarray of int64
        The level (``1 … h``) each user reported, in the users' order.
    reports : tuple
        Level ``ℓ``'s reports at position ``ℓ − 1`` (its users in their order), in the
        format of the level's oracle.
    """

    levels: NDArray[np.int64]
    reports: tuple[Any, ...]


@dataclass(frozen=True, kw_only=True)
class Hierarchy(Composite, FrequencyOracle):
    """A tree of branching factor ``branching``; each user reports one level.

    Parameters
    ----------
    epsilon : float
        The privacy budget ε of every report.
    domain_size : int
        The number of ordered values ``d``.
    branching : int, optional
        ``B``; by default the one with the smallest worst-case range variance at this
        ``d`` (:func:`~ldpcore.protocols.trees.optimal_branching`: 4 at d = 1,024).
    """

    #: The flat oracle every level reports through.
    level_oracle: ClassVar[type[FrequencyOracle]]
    composite: ClassVar[bool] = True
    support_view: ClassVar[bool] = False
    tallies_count: ClassVar[str] = "the nodes of each level of its tree"
    ordered_values: ClassVar[bool] = True
    extra_parameters: ClassVar[tuple[ProtocolParameter, ...]] = (
        ProtocolParameter(
            "branching",
            "a hierarchy's branching factor B, 2 to 1,024 (default: the whole B with the "
            "least worst-range variance bound at d, Kulkarni et al. Sec. 4.3)",
            2,
            default=lambda _epsilon, d: optimal_branching(d),
            examples=((1.0, 16), (1.0, 128), (1.0, 500), (1.0, 1024), (1.0, 2048)),
        ),
    )
    good_for: ClassVar[str] = (
        "Ranges of an ordered domain (ages, times, incomes): a long range sums a few "
        "nodes of a tree instead of many values"
    )
    branching: int | None = None

    def __post_init__(self) -> None:
        super().__post_init__()
        chosen = optimal_branching(self.domain_size) if self.branching is None else self.branching
        object.__setattr__(self, "branching", TreeLayout(self.domain_size, chosen).branching)

    def parameters(self) -> dict[str, Any]:
        """Constructor arguments, including ``branching``."""
        return {**super().parameters(), "branching": self.layout.branching}

    @cached_property
    def layout(self) -> TreeLayout:
        """The tree over the domain."""
        return TreeLayout(self.domain_size, self.branching or 2)

    @cached_property
    def levels(self) -> tuple[FrequencyOracle, ...]:
        """Level ``ℓ``'s oracle, over its nodes that hold values, at position ``ℓ − 1``.

        A node wholly past ``d`` holds nobody, so no report names it.
        """
        return tuple(
            self.level_oracle(epsilon=self.epsilon, domain_size=self.layout.occupied(level))
            for level in range(1, self.layout.height + 1)
        )

    @property
    def height(self) -> int:
        """``h``, the number of levels users report."""
        return self.layout.height

    @property
    def tally_length(self) -> int:
        """``h`` plus the nodes that hold values: users per level, then support counts."""
        return self.height + sum(oracle.domain_size for oracle in self.levels)

    @property
    def p(self) -> float:
        """Every level's ``p``: a report supports its user's node with this chance."""
        return self.levels[0].p

    @property
    def q(self) -> float:
        """Every level's ``q``: a report supports another node with this chance."""
        return self.levels[0].q

    # ------------------------------------------------------------ client and server
    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> TreeReports:
        """Draw each user's level uniformly, then report its node there with the level's oracle."""
        v = check_values(values, domain_size=self.domain_size)
        source = as_source(rng)
        chosen = np.asarray(source.integers(1, self.height + 1, size=v.size), dtype=np.int64)
        reports = tuple(
            oracle.randomize(v[chosen == level] // self.layout.span(level), rng=source)  # type: ignore[arg-type]
            for level, oracle in enumerate(self.levels, start=1)
        )
        return TreeReports(chosen, reports)

    def aggregate(self, reports: TreeReports) -> NDArray[np.int64]:
        """The users per level and each level's support counts (the module's tallies)."""
        if not isinstance(reports, TreeReports) or len(reports.reports) != self.height:
            raise InputError(
                f"{self.name} reports are TreeReports with {self.height} levels, "
                f"got {type(reports).__name__}"
            )
        chosen = np.asarray(reports.levels, dtype=np.int64)
        if chosen.size and (chosen.min() < 1 or chosen.max() > self.height):
            raise InputError(f"{self.name} report levels must be in [1, {self.height}]")
        users = np.bincount(chosen, minlength=self.height + 1)[1:].astype(np.int64)
        parts = [users]
        for oracle, level_reports in zip(self.levels, reports.reports, strict=True):
            parts.append(np.asarray(oracle.aggregate(level_reports), dtype=np.int64))
        return np.concatenate(parts)

    def split(self, tallies: ArrayLike) -> tuple[NDArray[np.int64], list[NDArray[np.int64]]]:
        """``tallies`` as the users of each level and each level's support counts."""
        counts = check_counts(tallies, name="tallies", length=self.tally_length)
        users = counts[: self.height]
        support = [counts[a:b] for a, b in itertools.pairwise(self._cuts)]
        too_many = counts[self.height :] > np.repeat(users, np.diff(self._cuts))
        if np.any(too_many):
            level = int(np.searchsorted(self._cuts, self.height + np.argmax(too_many), "right"))
            raise InputError(
                f"level {level}: a support count exceeds its {int(users[level - 1]):,} users"
            )
        return users, support

    @cached_property
    def _cuts(self) -> NDArray[np.int64]:
        """Where each level's support counts start and end in the tallies."""
        return np.cumsum([self.height] + [oracle.domain_size for oracle in self.levels])

    # ------------------------------------------------------------------ sampling
    def _sample_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        # The contract asks for it; the base refuses support counts before calling it.
        self._check_support_view()
        raise NotImplementedError

    def _tallies_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        """Exact tallies in O(number of nodes) whatever ``n``.

        The users of each node who report its level (:meth:`_level_users`), then each
        level's support counts: a level's oracle supports its nodes independently (OUE's
        bits; OLH under the ideal hash the paper assumes), one binomial pair a node.
        """
        reporting = self._level_users(true_counts, rng)
        users = np.array([int(nodes.sum()) for nodes in reporting], dtype=np.int64)
        # Every level's oracle has the same p and q (they depend on ε alone), so all the
        # levels' supports are drawn in one binomial pair.
        own = np.concatenate(reporting)
        level_users = np.repeat(users, [nodes.size for nodes in reporting])
        support = rng.binomial(own, self.p) + rng.binomial(level_users - own, self.q)
        return np.concatenate((users, support.astype(np.int64)))

    def _level_users(
        self, counts: NDArray[np.int64], rng: np.random.Generator
    ) -> list[NDArray[np.int64]]:
        """How many of each node's users report its level, drawn exactly, leaves first.

        Each user picks a level uniformly from ``1 … h``. Read from the leaves up, a user
        picks level ``h`` with chance ``1/h``; one who did not picks ``h − 1`` with chance
        ``1/(h − 1)``; and so on, level ``ℓ`` with ``1/ℓ`` among those left, so level 1
        takes all who remain. Users are independent, so under each node the number
        taking its level is binomial in the users left beneath it: one draw per node,
        one call per level.
        """
        layout = self.layout
        remaining = np.concatenate(
            (counts.astype(np.int64), np.zeros(layout.padded - counts.size, dtype=np.int64))
        )
        reporting: list[NDArray[np.int64]] = [remaining] * layout.height
        for level in range(layout.height, 0, -1):
            if level < layout.height:
                remaining = remaining.reshape(-1, layout.branching).sum(axis=1)
            taken = rng.binomial(remaining, 1.0 / level).astype(np.int64)
            reporting[level - 1] = taken[: layout.occupied(level)]
            remaining = remaining - taken
        return reporting

    def _tallies_per_user(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        total = np.zeros(self.tally_length, dtype=np.int64)
        ends = np.cumsum(true_counts)
        batch = users_per_batch(self.levels[-1])
        for start in range(0, int(ends[-1]), batch):
            users = np.arange(start, min(start + batch, int(ends[-1])))
            values = np.searchsorted(ends, users, side="right").astype(np.int64)
            total += self.aggregate(self.randomize(values, rng))
        return total

    # ------------------------------------------------------------------ estimates
    def parts(self, tallies: ArrayLike) -> tuple[Part, ...]:
        """Each level as a flat collection: its oracle, users and Base estimate.

        ``(c/n_ℓ − q)/(p − q)`` with the level's oracle (NDSS Sec. III): unbiased, since a
        level's users are a random sample of all. A level no user reported (a few users,
        many levels) is left out (:meth:`assemble` fills it in).
        """
        users, support = self.split(tallies)
        p, q = self.p, self.q  # every level's (they depend on ε alone)
        return tuple(
            Part(level - 1, oracle, int(count), (counts / count - q) / (p - q))
            for level, (oracle, count, counts) in enumerate(
                zip(self.levels, users, support, strict=True), start=1
            )
            if count > 0
        )

    def assemble(
        self, parts: Sequence[Part], outputs: Sequence[ArrayLike], *, consistent: bool = False
    ) -> NDArray[np.float64]:
        """The levels' outputs as one value per leaf: each value as the tree answers it.

        A raw tree answers a value from the fewest nodes that tile it (Kulkarni et al.,
        Sec. 4.1): its leaf, or for the last value a larger node that holds no other
        (the leaves past ``d`` are empty); a range is read off the levels
        (:meth:`read_ranges`), not summed from these values. A level no user
        reported stands at its nodes' share of the domain. ``consistent``: the
        least-squares consistent tree first, each level weighted by its variance
        (:func:`~ldpcore.protocols.tree_least_squares.consistent_levels`); every reading
        of it agrees, and its leaves' running sums are its prefixes.
        """
        levels = self.filled_levels(parts, outputs)
        if consistent:
            fitted = consistent_levels(self.layout, levels, self.part_variances(parts))
            return fitted[-1][: self.domain_size]
        # Every value's fewest nodes are its leaf but the last's, whose range ends at d and
        # may take a larger node over the empty leaves past it: read that one alone.
        last = self.domain_size - 1
        answer = np.array(np.asarray(levels[-1], dtype=np.float64)[..., : self.domain_size])
        answer[..., last] = self.layout.read_ranges(levels, [last], [last + 1])[..., 0]
        return answer

    def read_ranges(
        self,
        parts: Sequence[Part],
        outputs: Sequence[ArrayLike],
        starts: ArrayLike,
        stops: ArrayLike,
    ) -> NDArray[np.float64]:
        """Each range as the sum of the fewest nodes that tile it (Kulkarni et al., Sec. 4.1).

        The raw tree's answer, whose variance is :meth:`range_variances`. (Summing
        :meth:`prefix_difference_leaves` instead reads two prefixes' difference,
        :meth:`prefix_difference_variances`, about twice the variance on short ranges.)
        """
        levels = self.filled_levels(parts, outputs)
        return self.layout.read_ranges(levels, starts, stops)

    def filled_levels(
        self, parts: Sequence[Part], outputs: Sequence[ArrayLike]
    ) -> list[NDArray[np.float64]]:
        """Every level's values: the outputs given, the others their nodes' share of ``d``."""
        levels = [self.layout.shares(level).copy() for level in range(1, self.height + 1)]
        for part, output in zip(parts, outputs, strict=True):
            levels[part.index][: part.oracle.domain_size] = np.asarray(output, dtype=np.float64)
        return levels

    def part_variances(self, parts: Sequence[Part]) -> NDArray[np.float64]:
        """Each level's per-node variance, NDSS Eq. (5) at its own users (∞ with none)."""
        variance = np.full(self.height, math.inf)
        for part in parts:
            variance[part.index] = part.oracle.approx_variance(part.n)
        return variance

    def estimate_from_tallies(self, tallies: ArrayLike, n: int) -> NDArray[np.float64]:
        """The raw tree's per-value estimates: each value's fewest nodes (no consistency).

        A range is read off the levels as Kulkarni et al. read it (:meth:`read_ranges`);
        the prefix-difference reading is :meth:`prefix_difference_leaves`.
        """
        check_n_users(n)
        parts = self.parts(tallies)
        return self.assemble(parts, [part.estimate for part in parts])

    def prefix_difference_leaves(self, tallies: ArrayLike, n: int) -> NDArray[np.float64]:
        """One value per leaf whose running sums are the raw tree's prefix answers.

        The differences of consecutive prefixes (:meth:`TreeLayout.leaves`): a range
        summed from them is two prefixes' difference, whose variance is
        :meth:`prefix_difference_variances` (about twice the fewest nodes' on short ranges).
        """
        check_n_users(n)
        parts = self.parts(tallies)
        return self.layout.leaves(self.filled_levels(parts, [part.estimate for part in parts]))

    # ------------------------------------------------------------------- accuracy
    def range_variances(
        self, frequencies: ArrayLike, n: int, starts: ArrayLike, stops: ArrayLike
    ) -> NDArray[np.float64]:
        """The variance of the raw tree's answer for each range ``[start, stop)``, to order 1/n².

        The answer is Kulkarni et al.'s (Sec. 4.1): the sum of the fewest nodes that tile
        the range (:meth:`TreeLayout.cover_runs`), weight one each. Two parts add:

        * the oracles' noise: level ``ℓ`` contributes ``E[1/n_ℓ] Σ_j w_j² [q(1−q) + f_j
          (p−q)(1−p−q)]/(p−q)²`` (NDSS Eq. 3 for each node; a level's supports are
          independent across nodes), with ``E[1/n_ℓ] ≈ (h/n)(1 + (h − 1)/n)`` for
          ``n_ℓ ~ Bin(n, 1/h)``;
        * which users report which level: linearising each level's frequency in its users
          gives ``(h/n) Σ_ℓ Var(g_ℓ) − F(1 − F)/n``, with ``g_ℓ(x) = w_{anc_ℓ(x)}`` over
          the population and ``F`` the range's true frequency (each value of the range
          lies under exactly one of its nodes).

        The whole domain is the root, known: variance zero.
        """
        return self._reading_variances(frequencies, n, starts, stops, self._cover)

    def prefix_difference_variances(
        self, frequencies: ArrayLike, n: int, starts: ArrayLike, stops: ArrayLike
    ) -> NDArray[np.float64]:
        """The variance of each range read as two prefixes' difference, to order 1/n².

        What a range summed from :meth:`prefix_difference_leaves` reads: the upper
        prefix's nodes minus the lower's, the nodes both sum cancelling. The same two
        parts as :meth:`range_variances`, with weights ±1.
        """
        return self._reading_variances(frequencies, n, starts, stops, self._prefix_difference)

    def _cover(self, start: NDArray[np.int64], stop: NDArray[np.int64], level: int) -> _Reading:
        first, last, second_first, second_last = self.layout.cover_runs(start, stop, level)
        runs = [((first, last), 1.0), ((second_first, second_last), 1.0)]
        return runs, runs

    def _prefix_difference(
        self, start: NDArray[np.int64], stop: NDArray[np.int64], level: int
    ) -> _Reading:
        upper = self.layout.prefix_runs(stop, level)
        lower = self.layout.prefix_runs(start, level)
        low = np.maximum(upper[0], lower[0])
        overlap = (low, np.maximum(low, np.minimum(upper[1], lower[1])))
        # The nodes both prefixes sum cancel: weight +1 − 1 = 0, so no square either.
        return [(upper, 1.0), (lower, -1.0)], [(upper, 1.0), (lower, 1.0), (overlap, -2.0)]

    def _reading_variances(
        self,
        frequencies: ArrayLike,
        n: int,
        starts: ArrayLike,
        stops: ArrayLike,
        reading: Callable[[NDArray[np.int64], NDArray[np.int64], int], _Reading],
    ) -> NDArray[np.float64]:
        n = check_n_users(n)
        f = np.asarray(frequencies, dtype=np.float64)
        if f.shape != (self.domain_size,):
            raise InputError(f"frequencies must have length {self.domain_size}, got {f.shape}")
        start = np.asarray(starts, dtype=np.int64)
        stop = np.asarray(stops, dtype=np.int64)
        if np.any(start < 0) or np.any(stop > self.domain_size) or np.any(stop <= start):
            raise InputError(f"ranges must satisfy 0 ≤ start < stop ≤ {self.domain_size}")
        h, layout = self.height, self.layout
        inverse_users = (h / n) * (1 + (h - 1) / n)
        noise = np.zeros(start.shape)
        spread = np.zeros(start.shape)
        nodes = layout.node_totals(f)
        for level, (oracle, node) in enumerate(zip(self.levels, nodes, strict=True), start=1):
            p, q = oracle.p, oracle.q
            per_node = (q * (1 - q) + node * (p - q) * (1 - p - q)) / (p - q) ** 2
            signed, squared = reading(start, stop, level)
            noise += inverse_users * sum(c * _run_sum(per_node, run) for run, c in squared)
            square = sum(c * _run_sum(node, run) for run, c in squared)
            spread += square - sum(c * _run_sum(node, run) for run, c in signed) ** 2
        running = np.concatenate(([0.0], np.cumsum(f)))
        answer = running[stop] - running[start]
        variance = noise + (h / n) * spread - answer * (1 - answer) / n
        # The fewest-node reading answers the whole domain with the root, known.
        ends = layout.domain_size if reading == self._cover else layout.padded
        known = (start == 0) & (stop >= ends)
        return np.where(known, 0.0, variance)

    def variance(self, frequencies: ArrayLike, n: int) -> NDArray[np.float64]:
        """Each value's variance as the raw tree answers it (:meth:`range_variances`)."""
        values = np.arange(self.domain_size)
        return self.range_variances(frequencies, n, values, values + 1)

    def approx_variance(self, n: int) -> float:
        """The mean over values of :meth:`variance` with its frequency terms dropped.

        The hierarchy's counterpart of NDSS Eq. (5): the oracles' noise alone, on the
        fewest nodes that tile each value.
        """
        n = check_n_users(n)
        p, q = self.p, self.q
        values = np.arange(self.domain_size)
        nodes = np.zeros(self.domain_size)
        for level in range(1, self.height + 1):
            first, last, second_first, second_last = self.layout.cover_runs(
                values, values + 1, level
            )
            nodes += (last - first) + (second_last - second_first)
        h = self.height
        per_node = q * (1 - q) / (p - q) ** 2
        return float((h / n) * (1 + (h - 1) / n) * per_node * nodes.mean())

    def likelihood_model(
        self, estimate: NDArray[np.float64], n: int, tallies: ArrayLike | None = None
    ) -> Any:
        """Refused: each level has its own likelihood (methods run level by level)."""
        raise InputError(
            f"{self.name}'s likelihood is its levels' own: a method runs on each level "
            "with that level's oracle"
        )

    # -------------------------------------------------------------------- privacy
    def worst_case_ratio(self) -> float:
        """The worst ratio over every level's outputs: the levels' own, e^ε each.

        An output is a level and that level's report; the level is drawn the same way
        for every value, so ``P(ℓ, y | v)/P(ℓ, y | v') = P_ℓ(y | anc(v))/P_ℓ(y | anc(v'))``.
        """
        return max(oracle.worst_case_ratio() for oracle in self.levels)

    def channel_matrix(self) -> NDArray[np.float64]:
        """``Q[(ℓ, y), v] = P_ℓ(y | anc_ℓ(v))/h``, every level's outputs in turn (small d)."""
        return np.vstack(
            [
                np.asarray(oracle.channel_matrix(), dtype=np.float64)[:, self._ancestors(level)]
                / self.height
                for level, oracle in enumerate(self.levels, start=1)
            ]
        )

    def support_matrix(self) -> NDArray[np.float64]:
        """``M[(ℓ, y), v] = 1`` when output ``y`` of level ``ℓ`` supports ``v``'s node there."""
        return np.vstack(
            [
                np.asarray(oracle.support_matrix(), dtype=np.float64)[:, self._ancestors(level)]
                for level, oracle in enumerate(self.levels, start=1)
            ]
        )

    def _ancestors(self, level: int) -> NDArray[np.int64]:
        return np.arange(self.domain_size) // self.layout.span(level)

    def distinguishing_event(self, reports: TreeReports, v: int, w: int) -> NDArray[np.bool_]:
        """A report of a level where ``v`` and ``w`` differ, in that level's best event.

        Its chance is the level oracle's for each such level over ``h``: the ratio is the
        level oracle's, ``e^ε``.
        """
        if not isinstance(reports, TreeReports):
            raise InputError(f"{self.name} reports are TreeReports")
        chosen = np.asarray(reports.levels, dtype=np.int64)
        event = np.zeros(chosen.size, dtype=bool)
        for level, (oracle, level_reports) in enumerate(
            zip(self.levels, reports.reports, strict=True), start=1
        ):
            span = self.layout.span(level)
            if v // span != w // span:
                event[chosen == level] = oracle.distinguishing_event(
                    level_reports, v // span, w // span
                )
        return event


@dataclass(frozen=True, kw_only=True)
class TreeOUE(Hierarchy):
    """The hierarchical histogram with OUE at every level (Kulkarni et al.'s TreeOUE)."""

    name: ClassVar[str] = "TreeOUE"
    description: ClassVar[str] = (
        "Hierarchy of intervals: each user reports one level's node with OUE"
    )
    reference: ClassVar[str] = "Kulkarni, Cormode and Srivastava, VLDB 2019, Sec. 4"
    variance_source: ClassVar[str] = "the fewest nodes' variance, Kulkarni et al. Sec. 4.1"
    communication: ClassVar[str] = "a level and B^level bits (at most about B·d)"
    level_oracle: ClassVar[type[FrequencyOracle]] = OUE
    vector_reports: ClassVar[bool] = True


@dataclass(frozen=True, kw_only=True)
class TreeOLH(Hierarchy):
    """The hierarchical histogram with OLH at every level (Kulkarni et al.'s TreeOLH)."""

    name: ClassVar[str] = "TreeOLH"
    description: ClassVar[str] = (
        "Hierarchy of intervals: each user reports one level's node with OLH"
    )
    reference: ClassVar[str] = "Kulkarni, Cormode and Srivastava, VLDB 2019, Sec. 4"
    variance_source: ClassVar[str] = "the fewest nodes' variance, Kulkarni et al. Sec. 4.1"
    communication: ClassVar[str] = "a level, a hash seed and one bucket"
    level_oracle: ClassVar[type[FrequencyOracle]] = OLH


__all__ = ["Hierarchy", "TreeOLH", "TreeOUE", "TreeReports"]
