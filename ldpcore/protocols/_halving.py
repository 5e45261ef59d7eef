"""Exact support counts of Subset Selection, drawn by halving the domain.

Subset Selection (NDSS 2020, Sec. III-C; Ye & Barg 2018) is the mixture
``β · U(k-subsets containing v) + (1−β) · U(all k-subsets)`` (see
``SubsetSelection.mixture_weight``). So ``kept_v ~ Bin(n_v, β)`` users of value
``v`` report ``v`` plus a uniform ``(k−1)``-subset of the other values ("own"
users), and everyone else a uniform ``k``-subset ("free" users).

Users are tracked only as a histogram of how many picks ``r`` they still make
inside a block of columns, because a uniform subset's future does not depend on
its past. A block of ``L`` columns splits into a left part of ``a`` columns and
a right part of ``L − a``:

* a free user with ``r`` picks makes ``m ~ Hypergeometric(L, a, r)`` of them on
  the left and ``r − m`` on the right, free on both sides;
* an own user whose value is on the left makes ``m ~ Hypergeometric(L−1, a−1, r)``
  on the left (staying an own user there) and ``r − m`` on the right (free there);
  one whose value is on the right mirrors this with ``Hypergeometric(L−1, a, r)``.

Own users in a block have all evolved identically, whatever their value, so
which of them hold a left-part value is a uniform choice of ``Σ_{v∈left} kept_v``
of them: a multivariate hypergeometric over their histogram. Each level is a
handful of vectorised calls (one multinomial per kernel for all blocks at
once), so a trial costs O(log d) numpy calls instead of the O(d) of a column by
column sweep; at a one-column block the count is ``kept_v`` plus the free users
still holding one pick.

Exact up to floating point: a split's outcomes less likely than ``1e-32``
are left out (far below the rounding of the probabilities that remain).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

#: numpy's hypergeometric needs ``ngood`` and ``nbad`` below this.
HYPERGEOMETRIC_POPULATION_MAX = 10**9

#: A split outcome less likely than this is left out of its kernel.
_NEGLIGIBLE = 1e-32

#: Entries (users' cells × kernel slots) handled at once: bounds a split's memory.
_CHUNK_ENTRIES = 1 << 20

#: Kernel table entries kept between trials per protocol (8 bytes each: 64 MB at most).
_CACHE_ENTRIES_MAX = 1 << 23


class SplitKernels:
    """Hypergeometric split kernels, kept between trials for one domain size.

    A kernel row is the law of ``m ~ Hypergeometric(population, good, r)`` laid
    out most likely first (the mode, then alternately above and below it), so
    that numpy's conditional-binomial multinomial places every user after
    visiting only the likely outcomes.

    Parameters
    ----------
    domain_size : int
        The largest population any split sees.
    """

    def __init__(self, domain_size: int) -> None:
        # scipy loads here, with the first SS sampler, not with the protocols (the CLI's
        # --help and the randomizer need neither).
        from scipy.special import gammaln  # noqa: PLC0415

        self._log_factorial = gammaln(np.arange(domain_size + 2, dtype=np.float64) + 1.0)
        # (population, good) -> (first picks, probabilities by slot, each row's mode)
        self._tables: dict[tuple[int, int], tuple[int, NDArray[np.float64], NDArray[np.int64]]]
        self._tables = {}
        self._entries = 0

    def __getstate__(self) -> dict[str, Any]:
        # Shipping a protocol to a Dask worker should not ship megabytes of cache.
        return {"_log_factorial": self._log_factorial, "_tables": {}, "_entries": 0}

    def rows(
        self, population: int, good: int, picks: NDArray[np.int64]
    ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """Kernel rows for each entry of ``picks``: probabilities and each row's mode.

        Slot ``j`` of row ``i`` is the outcome ``m = modes[i] + SLOT_OFFSET[j]`` (the mode,
        then alternately above and below it: :func:`outcomes`). Slots outside a row's
        window have probability 0. Only the mode is kept per row, not an outcome per
        slot: half the memory, so twice the tables fit the cache (at d = 100,000 the
        tables were rebuilt in every trial).
        """
        low, high = int(picks.min()), int(picks.max())
        key = (population, good)
        table = self._tables.get(key)
        if table is not None:
            first, probs, modes = table
            if first <= low and high < first + probs.shape[0]:
                return probs[picks - first], modes[picks - first]
            low, high = min(low, first), max(high, first + probs.shape[0] - 1)
            self._entries -= probs.size
            del self._tables[key]
            # The next trial's picks spread a little further again: widen by half the
            # span on each side, so that a table is rebuilt a few times, not every trial
            # (at d = 16,384 the rebuilds were a tenth of a warm trial).
            slack = (high - low) // 2 + 1
            low, high = max(0, low - slack), min(population, high + slack)
        rows = high - low + 1
        if rows * (2 * self.reach(population, good, low, high) + 1) > _CACHE_ENTRIES_MAX:
            # Too large to keep (the top levels at d = 10⁶): build only the rows asked for.
            needed, where = np.unique(picks, return_inverse=True)
            probs, modes = self._rows_for(population, good, needed)
            return probs[where], modes[where]
        first, probs, modes = table = self._table(population, good, low, high)
        if self._entries + probs.size <= _CACHE_ENTRIES_MAX:
            self._tables[key] = table
            self._entries += probs.size
        return probs[picks - first], modes[picks - first]

    def _table(
        self, population: int, good: int, low: int, high: int
    ) -> tuple[int, NDArray[np.float64], NDArray[np.int64]]:
        probs, modes = self._rows_for(population, good, np.arange(low, high + 1))
        return low, probs, modes

    def _rows_for(
        self, population: int, good: int, r: NDArray[np.int64]
    ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        """Kernel rows for the sorted picks ``r``, built a band at a time.

        A row spans up to ~2·reach slots; at d = 10⁶ with k ≈ 270,000 building every
        row at once took gigabytes.
        """
        bands = []
        start = 0
        while start < r.size:
            reach = self.reach(population, good, int(r[start]), int(r[-1]))
            stop = start + max(1, _CHUNK_ENTRIES // (2 * reach + 1))
            bands.append(self._band(population, good, r[start:stop]))
            start = stop
        width = max(probs.shape[1] for probs, _ in bands)
        probs = np.concatenate([np.pad(p, ((0, 0), (0, width - p.shape[1]))) for p, _ in bands])
        return probs, np.concatenate([modes for _, modes in bands])

    @staticmethod
    def _window(
        population: int, good: int, r: NDArray[np.int64]
    ) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
        """``(mode, lo, hi)``: each row's mode and the outcomes worth keeping."""
        bad = population - good
        m_min, m_max = np.maximum(0, r - bad), np.minimum(r, good)
        mode = np.clip(((r + 1) * (good + 1)) // (population + 2), m_min, m_max)
        # Serfling's bound for sampling without replacement,
        # P(|m − r·good/population| ≥ t) ≤ 2 exp(−2t² / (r (1 − (r−1)/population))),
        # gives a window outside which less than _NEGLIGIBLE of the mass lies.
        spread = np.maximum(r * (1.0 - (r - 1) / population), 0.0)
        t = np.sqrt(spread * math.log(2.0 / _NEGLIGIBLE) / 2.0)
        mean = r * good / population
        lo = np.minimum(np.maximum(m_min, np.floor(mean - t).astype(np.int64)), mode)
        hi = np.maximum(np.minimum(m_max, np.ceil(mean + t).astype(np.int64)), mode)
        return mode, lo, hi

    def reach(self, population: int, good: int, low: int, high: int) -> int:
        """The widest half-window of the rows for ``r`` in ``[low, high]`` (an upper bound)."""
        # The widest window is at the largest r (the spread grows with r up to N/2,
        # and a band never mixes r on both sides of N/2 badly enough to matter: the
        # reach is recomputed for the band actually built).
        r = np.array([low, high, min(max(low, population // 2), high)], dtype=np.int64)
        mode, lo, hi = self._window(population, good, r)
        return int(np.max(np.maximum(mode - lo, hi - mode)))

    def _band(
        self, population: int, good: int, r: NDArray[np.int64]
    ) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
        lf = self._log_factorial
        bad = population - good
        mode, lo, hi = self._window(population, good, r)
        reach = int(np.max(np.maximum(mode - lo, hi - mode)))
        m = outcomes(mode, np.arange(2 * reach + 1)[None, :], row_axis=True)
        inside = (m >= lo[:, None]) & (m <= hi[:, None])
        m = np.where(inside, m, mode[:, None])
        rr = r[:, None]
        log_p = (
            (lf[good] - lf[m] - lf[good - m])
            + (lf[bad] - lf[rr - m] - lf[bad - rr + m])
            - (lf[population] - lf[rr] - lf[population - rr])
        )
        probs = np.where(inside, np.exp(log_p), 0.0)
        probs[probs < _NEGLIGIBLE] = 0.0
        width = int(np.flatnonzero(probs.any(axis=0))[-1]) + 1
        probs = probs[:, :width]
        probs /= probs.sum(axis=1, keepdims=True)
        return probs, mode


def outcomes(
    modes: NDArray[np.int64], slots: NDArray[np.int64], *, row_axis: bool = False
) -> NDArray[np.int64]:
    """The outcome ``m`` of kernel slot ``slots`` in a row whose mode is ``modes``.

    Slot 0 is the mode, then ``+1, −1, +2, −2, …`` (most likely first).
    ``row_axis``: ``modes`` is one per row of a 2-D ``slots``.
    """
    offset = np.where(slots % 2 == 1, (slots + 1) // 2, -(slots // 2))
    return (modes[:, None] if row_axis else modes) + offset


def multivariate_hypergeometric_rows(
    counts: NDArray[np.int64],
    sample: NDArray[np.int64],
    rng: np.random.Generator,
    *,
    population_max: int = HYPERGEOMETRIC_POPULATION_MAX,
) -> NDArray[np.int64]:
    """For each row, how many of a uniform ``sample[b]``-subset of its items fall in each column.

    Rows whose population numpy's hypergeometric can take are split by halving
    the columns (one vectorised call per halving). Larger populations are
    thinned: every item is chosen independently with probability
    ``sample/total``, then the shortfall or excess is added or removed by the
    same function on a smaller sample. Each step treats items exchangeably and
    the result always has exactly ``sample[b]`` items, so it is a uniform subset.
    """
    total = counts.sum(axis=1)
    if int(total.max(initial=0)) < population_max:
        return _by_halving(counts, sample, rng)
    share = np.divide(sample, total, out=np.zeros(total.shape), where=total > 0)
    chosen = rng.binomial(counts, share[:, None])
    short = sample - chosen.sum(axis=1)
    if np.any(short > 0):
        chosen += multivariate_hypergeometric_rows(
            counts - chosen, np.maximum(short, 0), rng, population_max=population_max
        )
    if np.any(short < 0):
        chosen -= multivariate_hypergeometric_rows(
            chosen, np.maximum(-short, 0), rng, population_max=population_max
        )
    return chosen


def _by_halving(
    counts: NDArray[np.int64], sample: NDArray[np.int64], rng: np.random.Generator
) -> NDArray[np.int64]:
    rows, width = counts.shape
    # Pad to a power of two with empty columns: every segment of a level then has the
    # same size, so a level is one hypergeometric call and a reshape.
    size = 1 << max(0, (width - 1).bit_length())
    prefix = np.zeros((rows, size + 1), np.int64)
    np.cumsum(counts, axis=1, out=prefix[:, 1 : width + 1])
    prefix[:, width + 1 :] = prefix[:, width : width + 1]
    need = sample[:, None].astype(np.int64)
    step = size
    while step > 1:
        half = step // 2
        lo = np.arange(0, size, step)
        before = prefix[:, lo]
        middle = prefix[:, lo + half]
        left = rng.hypergeometric(middle - before, prefix[:, lo + step] - middle, need)
        need = np.stack((left, need - left), axis=2).reshape(rows, -1)
        step = half
    return need[:, :width]


def sample_support(
    true_counts: NDArray[np.int64],
    subset_size: int,
    mixture_weight: float,
    rng: np.random.Generator,
    kernels: SplitKernels,
) -> NDArray[np.int64]:
    """Support counts of Subset Selection for ``true_counts`` users, exactly (see module notes)."""
    d, k = true_counts.size, subset_size
    kept = rng.binomial(true_counts, mixture_weight).astype(np.int64)
    n, n_kept = int(true_counts.sum()), int(kept.sum())
    level = _Level(
        starts=np.array([0]),
        lengths=np.array([d]),
        free=np.zeros((1, k + 1), np.int64),  # users by picks still to make, 0..k
        own=np.zeros((1, k + 1), np.int64),
    )
    level.free[0, k] = n - n_kept
    level.own[0, k - 1] = n_kept
    kept_before = np.concatenate(([0], np.cumsum(kept)))
    support = np.zeros(d, np.int64)
    while level.starts.size:
        done = level.lengths == 1
        if done.any():
            # One column left: own users have no picks left; free ones hold 0 or 1.
            columns = level.starts[done]
            ones = level.free[done, 1] if level.free.shape[1] > 1 else 0
            support[columns] = kept[columns] + ones
            level = level.select(~done)
        if level.starts.size:
            level = _split(level, kept_before, rng, kernels)
    return support


@dataclass(frozen=True)
class _Level:
    """The blocks of one halving level, in column order, and their users by picks left."""

    starts: NDArray[np.int64]
    lengths: NDArray[np.int64]
    free: NDArray[np.int64]
    own: NDArray[np.int64]

    def select(self, blocks: NDArray[np.bool_]) -> _Level:
        return _Level(
            self.starts[blocks], self.lengths[blocks], self.free[blocks], self.own[blocks]
        )


def _split(
    level: _Level,
    kept_before: NDArray[np.int64],
    rng: np.random.Generator,
    kernels: SplitKernels,
) -> _Level:
    """Split every block of ``level`` into its left and right halves (module notes)."""
    starts, lengths = level.starts, level.lengths
    blocks = starts.size
    left = (lengths + 1) // 2
    own_left = np.zeros_like(level.own)
    used = np.flatnonzero(level.own.any(axis=0))
    if used.size:
        span = slice(used[0], used[-1] + 1)
        kept_left = kept_before[starts + left] - kept_before[starts]
        own_left[:, span] = multivariate_hypergeometric_rows(level.own[:, span], kept_left, rng)
    child_width = min(level.free.shape[1], int(left.max()) + 1)
    # (users, population − L, good − a, left part is own, right part is own)
    groups = (
        (level.free, 0, 0, False, False),
        (own_left, 1, 1, True, False),
        (level.own - own_left, 1, 0, False, True),
    )
    size = 2 * blocks * child_width
    # Users by picks left in each child block, accumulated chunk by chunk (bounded
    # memory; the same law, drawn in the same order as one call would draw it).
    children = {False: np.zeros(size, np.int64), True: np.zeros(size, np.int64)}
    for length in np.unique(lengths).tolist():
        a = (length + 1) // 2
        this_length = lengths == length
        for users, less_population, less_good, left_own, right_own in groups:
            chosen = users if this_length.all() else np.where(this_length[:, None], users, 0)
            cells, all_picks = np.nonzero(chosen)
            if not cells.size:
                continue
            population, good = length - less_population, a - less_good
            reach = kernels.reach(population, good, int(all_picks.min()), int(all_picks.max()))
            step = max(1, _CHUNK_ENTRIES // (2 * reach + 1))
            for start in range(0, cells.size, step):
                block, picks = cells[start : start + step], all_picks[start : start + step]
                probs, modes = kernels.rows(population, good, picks)
                placed = rng.multinomial(chosen[block, picks], probs).ravel()
                # The slots that received users, found in the flat array (a 2-D nonzero
                # costs twice as much), and only their outcomes m read from the table.
                where = np.flatnonzero(placed)
                row, slot = np.divmod(where, probs.shape[1])
                # numpy's multinomial gives the last slot whatever rounding leaves
                # over, even where its probability is 0: such users take the mode.
                m = np.where(probs[row, slot] > 0, outcomes(modes[row], slot), modes[row])
                count = placed[where]
                block, picks = block[row], picks[row]
                children[left_own] += _histogram((2 * block) * child_width + m, count, size)
                children[right_own] += _histogram(
                    (2 * block + 1) * child_width + picks - m, count, size
                )
    return _Level(
        starts=np.stack((starts, starts + left), axis=1).ravel(),
        lengths=np.stack((left, lengths - left), axis=1).ravel(),
        free=children[False].reshape(2 * blocks, child_width),
        own=children[True].reshape(2 * blocks, child_width),
    )


def _histogram(index: NDArray[np.int64], weight: NDArray[np.int64], size: int) -> NDArray[np.int64]:
    # Float weights sum integer counts exactly up to 2^53, far beyond any n accepted.
    return np.bincount(index, weight, size).astype(np.int64)
