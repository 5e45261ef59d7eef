"""The B-adic tree of intervals over an ordered domain, and how ranges are read off it.

Kulkarni, Cormode and Srivastava (*Answering Range Queries Under Local Differential
Privacy*, VLDB 2019, Sec. 4) cover the domain ``[0, d)`` with a complete tree of
branching factor ``B``: level ``ℓ`` (``ℓ = 1 … h``, ``h = ⌈log_B d⌉``) has ``B^ℓ``
nodes, node ``j`` of level ``ℓ`` the ``B^(h−ℓ)`` leaves from ``j·B^(h−ℓ)``. The root
(level 0) is the whole domain, whose frequency is one. When ``d`` is not a power of
``B`` the leaves run on to ``B^h``; the leaves past ``d`` hold nobody, and a node made
only of them is known to be empty.

A range is read off a raw tree as Kulkarni et al. read it (Sec. 4.1): the fewest nodes
that tile it, each the largest node inside the range whose parent is not (at most
``2(B − 1)`` per level; the root alone for the whole domain). A prefix is the special
case with at most ``B − 1`` per level. Differencing the prefixes of consecutive leaves
turns any tree into one value per leaf whose running sums are the tree's prefix answers
(:meth:`TreeLayout.leaves`): on a consistent tree every reading agrees and those leaves
are its own, but on a raw tree a range summed from them is the *prefix-difference
reading*, two prefixes' nodes with the shared ones cancelled, which uses more nodes
than the range's own tiling (a single value: its leaf, against the two prefixes'
differing nodes at every level) and has up to about twice its variance.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_domain_size, check_int
from ldpcore.errors import InputError

#: Widest branching factor accepted: past the domain's size a tree is one flat level.
BRANCHING_MAX = 1024


@dataclass(frozen=True)
class TreeLayout:
    """The tree of branching factor ``branching`` over ``domain_size`` ordered values.

    Parameters
    ----------
    domain_size : int
        The number of leaves that hold values, ``d``.
    branching : int
        ``B``, the number of children of every node (at least 2).
    """

    domain_size: int
    branching: int = 4

    def __post_init__(self) -> None:
        object.__setattr__(self, "domain_size", check_domain_size(self.domain_size))
        object.__setattr__(
            self,
            "branching",
            check_int(self.branching, name="branching", minimum=2, maximum=BRANCHING_MAX),
        )

    @cached_property
    def height(self) -> int:
        """``h``: the smallest number of levels below the root with ``B^h ≥ d``."""
        height, size = 1, self.branching
        while size < self.domain_size:
            height, size = height + 1, size * self.branching
        return height

    @property
    def padded(self) -> int:
        """``B^h``, the number of leaves, those past ``d`` included."""
        return int(self.branching**self.height)

    def level_size(self, level: int) -> int:
        """``B^ℓ``: the nodes of level ``ℓ`` (level 0 is the root)."""
        return int(self.branching**level)

    def span(self, level: int) -> int:
        """``B^(h−ℓ)``: the leaves under each node of level ``ℓ``."""
        return int(self.branching ** (self.height - level))

    def occupied(self, level: int) -> int:
        """``⌈d/B^(h−ℓ)⌉``: the nodes of ``level`` that hold at least one value."""
        return -(-self.domain_size // self.span(level))

    def empty_nodes(self, level: int) -> NDArray[np.bool_]:
        """Which nodes of ``level`` lie wholly past the domain (known to hold nobody)."""
        starts = np.arange(self.level_size(level)) * self.span(level)
        return starts >= self.domain_size

    def shares(self, level: int) -> NDArray[np.float64]:
        """Each node's share of the ``d`` values: a level's estimate when nobody reported it.

        Read-only (one array per level, made once).
        """
        return self._shares[level - 1]

    @cached_property
    def _shares(self) -> tuple[NDArray[np.float64], ...]:
        made = []
        for level in range(1, self.height + 1):
            span = self.span(level)
            held = self.domain_size - np.arange(self.level_size(level)) * span
            share = np.clip(held, 0, span) / self.domain_size
            share.flags.writeable = False
            made.append(share)
        return tuple(made)

    @cached_property
    def _leaf_runs(self) -> tuple[tuple[NDArray[np.int64], NDArray[np.int64]], ...]:
        """Each level's prefix runs for every prefix ``[0, i + 1)``, ``i < d`` (made once)."""
        stops = np.arange(1, self.domain_size + 1)
        return tuple(self.prefix_runs(stops, level) for level in range(1, self.height + 1))

    def prefix_runs(
        self, stops: ArrayLike, level: int
    ) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """The run of level-``ℓ`` nodes ``[first, last)`` that the prefix ``[0, stop)`` sums.

        The nodes after the last whole node of the level above: ``first = B⌊s/B^(h−ℓ+1)⌋``,
        ``last = ⌊s/B^(h−ℓ)⌋`` (empty for ``s = B^h``, which the root covers).
        """
        stop = np.asarray(stops, dtype=np.int64)
        return (stop // self.span(level - 1)) * self.branching, stop // self.span(level)

    def cover_runs(
        self, starts: ArrayLike, stops: ArrayLike, level: int
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """The level-``ℓ`` nodes of the fewest that tile ``[start, stop)``: two runs.

        The nodes inside the range are ``[⌈a/s⌉, ⌊b/s⌋)`` (``s`` the level's span); those
        whose parent is inside too are left to the parent. With the parent level's inside
        run ``[P, Q)``, the level keeps ``[⌈a/s⌉, P·B)`` and ``[Q·B, ⌊b/s⌋)`` when ``P < Q``,
        else its whole inside run (and an empty second run). A range that ends at ``d``
        ends at ``B^h``: the leaves past ``d`` hold nobody, so larger nodes tile it; a
        node wholly past ``d`` is known to be empty and never in a run.

        Returns
        -------
        tuple of ndarray
            ``(first, last, second_first, second_last)``; a run with ``first ≥ last`` is
            empty.
        """
        start = np.asarray(starts, dtype=np.int64)
        stop = np.asarray(stops, dtype=np.int64)
        stop = np.where(stop >= self.domain_size, self.padded, stop)
        span, parent = self.span(level), self.span(level - 1)
        first, last = -(-start // span), stop // span
        above_first, above_last = -(-start // parent), stop // parent
        split = above_first < above_last
        left_last = np.where(split, np.maximum(first, above_first * self.branching), last)
        right_first = np.where(split, np.minimum(last, above_last * self.branching), last)
        # Nodes wholly past d are known to hold nobody: no run reaches them.
        held = self.occupied(level)
        left_last, right_first, last = (np.minimum(x, held) for x in (left_last, right_first, last))
        first = np.minimum(first, held)
        return first, np.maximum(first, left_last), right_first, np.maximum(right_first, last)

    def whole(self, starts: ArrayLike, stops: ArrayLike) -> NDArray[np.bool_]:
        """Which ranges are the whole domain: the root answers them (one, for frequencies)."""
        start = np.asarray(starts, dtype=np.int64)
        stop = np.asarray(stops, dtype=np.int64)
        return (start == 0) & (stop >= self.domain_size)

    def read_ranges(
        self,
        levels: Sequence[ArrayLike],
        starts: ArrayLike,
        stops: ArrayLike,
        *,
        total: float = 1.0,
    ) -> NDArray[np.float64]:
        """Each range ``[start, stop)`` as the sum of the fewest nodes that tile it.

        Kulkarni et al.'s raw answer (Sec. 4.1); on a consistent tree, the same as any
        other reading. O(h) per range after one running sum per level.

        Parameters
        ----------
        levels : sequence of array_like
            Level ``ℓ``'s node values at position ``ℓ − 1``, each ``(..., B^ℓ)``.
        starts, stops : array_like
            The ranges, ``0 ≤ start < stop ≤ d``.
        total : float
            The root's value.
        """
        checked = self.check_levels(levels)
        start = np.asarray(starts, dtype=np.int64)
        stop = np.asarray(stops, dtype=np.int64)
        answer = np.zeros((*checked[0].shape[:-1], start.size))
        answer[..., self.whole(start, stop)] = total
        for level, values in enumerate(checked, start=1):
            running = np.concatenate((np.zeros((*values.shape[:-1], 1)), np.cumsum(values, -1)), -1)
            first, last, second_first, second_last = self.cover_runs(start, stop, level)
            answer += running[..., last] - running[..., first]
            answer += running[..., second_last] - running[..., second_first]
        return answer

    def cover_weights(self, start: int, stop: int) -> list[NDArray[np.float64]]:
        """The nodes of levels 1 to ``h`` that tile ``[start, stop)``, a 0/1 weight each.

        The whole domain is the root alone (all zeros here: the root is known).
        """
        start = check_int(start, name="start", minimum=0, maximum=self.domain_size - 1)
        stop = check_int(stop, name="stop", minimum=start + 1, maximum=self.domain_size)
        weights = [np.zeros(self.level_size(level)) for level in range(1, self.height + 1)]
        for level in range(1, self.height + 1):  # the whole domain's runs are all empty
            first, last, second_first, second_last = self.cover_runs(start, stop, level)
            weights[level - 1][int(first) : int(last)] = 1.0
            weights[level - 1][int(second_first) : int(second_last)] = 1.0
        return weights

    def node_totals(self, leaves: ArrayLike) -> list[NDArray[np.float64]]:
        """The sum under every node of levels 1 to ``h`` of per-leaf numbers.

        Parameters
        ----------
        leaves : array_like
            Shape ``(..., d)`` (or ``(..., B^h)``, padded): counts or frequencies.

        Returns
        -------
        list of ndarray
            Level ``ℓ``'s totals at position ``ℓ − 1``, shape ``(..., B^ℓ)``.
        """
        values = np.asarray(leaves)
        if values.shape[-1] not in {self.domain_size, self.padded}:
            raise InputError(
                f"per-leaf numbers must have {self.domain_size} entries, got shape {values.shape}"
            )
        pad = self.padded - values.shape[-1]
        if pad:
            values = np.concatenate((values, np.zeros((*values.shape[:-1], pad), values.dtype)), -1)
        return [
            values.reshape(*values.shape[:-1], self.level_size(level), self.span(level)).sum(-1)
            for level in range(1, self.height + 1)
        ]

    def check_levels(self, levels: Sequence[ArrayLike]) -> list[NDArray[np.float64]]:
        """``levels`` as float arrays of the tree's shape (level ``ℓ`` at ``ℓ − 1``)."""
        if len(levels) != self.height:
            raise InputError(f"the tree has {self.height} levels, got {len(levels)}")
        checked = [np.asarray(level, dtype=np.float64) for level in levels]
        for level, values in enumerate(checked, start=1):
            if values.shape[-1] != self.level_size(level):
                raise InputError(
                    f"level {level} has {self.level_size(level)} nodes, got shape {values.shape}"
                )
        return checked

    def prefixes(self, levels: Sequence[ArrayLike], *, total: float = 1.0) -> NDArray[np.float64]:
        """Every prefix answer ``P(≤ i)``, ``i < d``, read off a tree's nodes.

        The fewest nodes that tile ``[0, i]``: with ``s = i + 1`` written in base ``B``,
        level ``ℓ`` gives the ``s_ℓ`` nodes (its digit) after the last whole node of the
        level above, and the root, ``total``, when ``s = B^h``. O(d·h).

        Parameters
        ----------
        levels : sequence of array_like
            Level ``ℓ``'s node values at position ``ℓ − 1``, each ``(..., B^ℓ)``.
        total : float
            The root's value (one, for frequencies).
        """
        checked = self.check_levels(levels)
        stop = np.arange(1, self.domain_size + 1)
        answer = np.zeros((*checked[0].shape[:-1], self.domain_size))
        answer[..., stop == self.padded] = total
        for values, (first, last) in zip(checked, self._leaf_runs, strict=True):
            running = np.concatenate((np.zeros((*values.shape[:-1], 1)), np.cumsum(values, -1)), -1)
            answer += running[..., last] - running[..., first]
        return answer

    def leaves(self, levels: Sequence[ArrayLike], *, total: float = 1.0) -> NDArray[np.float64]:
        """One value per leaf whose running sums are the tree's prefix answers.

        The differences of consecutive prefixes: on a consistent tree, its leaves.
        """
        prefix = self.prefixes(levels, total=total)
        return np.diff(prefix, axis=-1, prepend=0.0)

    def prefix_weights(self, stop: int) -> list[NDArray[np.float64]]:
        """The nodes the prefix ``[0, stop)`` sums, a 0/1 weight per node of levels 1 to ``h``.

        ``stop = 0`` is the empty prefix; ``stop = B^h`` is the root alone (all zeros here:
        the root is known, not estimated).
        """
        stop = check_int(stop, name="stop", minimum=0, maximum=self.domain_size)
        weights = [np.zeros(self.level_size(level)) for level in range(1, self.height + 1)]
        for level in range(1, self.height + 1):
            first, last = self.prefix_runs(stop, level)
            weights[level - 1][int(first) : int(last)] = 1.0
        return weights

    def prefix_difference_weights(self, start: int, stop: int) -> list[NDArray[np.float64]]:
        """The signed node weights of ``[start, stop)`` read as two prefixes' difference.

        What a range summed from :meth:`leaves` reads on a raw tree.
        """
        start = check_int(start, name="start", minimum=0, maximum=self.domain_size - 1)
        stop = check_int(stop, name="stop", minimum=start + 1, maximum=self.domain_size)
        upper = self.prefix_weights(stop)
        lower = self.prefix_weights(start)
        return [u - w for u, w in zip(upper, lower, strict=True)]


def optimal_branching(domain_size: int) -> int:
    """The branching factor that minimises a hierarchy's worst range variance.

    Kulkarni et al. (Sec. 4.3) bound the variance of a range by ``2(B − 1) h²`` times a
    level's per-node variance, with ``h = log_B d``: minimising ``(B − 1)/ln² B`` gives
    ``B ≈ 4.9``. Among whole numbers, the one with the smallest bound at this ``d``
    (with ``h = ⌈log_B d⌉``, the tree actually built).
    """
    d = check_domain_size(domain_size)

    def bound(branching: int) -> float:
        return (branching - 1) * TreeLayout(d, branching).height ** 2

    return min(range(2, min(d, 16) + 1), key=lambda b: (bound(b), b))


__all__ = ["BRANCHING_MAX", "TreeLayout", "optimal_branching"]
