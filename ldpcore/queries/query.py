"""Queries answered from a frequency vector (NDSS 2020, Section V).

A query is a set of linear questions about the distribution: one row of a 0/1
matrix ``A`` per question, the answer being ``A @ f``. The full-domain query asks
every value; top-k asks the k values with the highest *true* frequency (the
estimators never see which those are); set queries ask the total frequency of
random sets; groups ask the total of each group; prefixes ask ``P(value ≤ i)`` on an
ordered domain, intervals random ranges of it. Post-Pos lives here: it clamps each answer at 0.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ldpcore import bounds
from ldpcore._validation import check_int
from ldpcore.data.tables import decode
from ldpcore.errors import InputError
from ldpcore.specs import format_spec_number

#: Most indices random set queries may hold (samples × set size): 400 MB of int64.
SET_MEMBERS_MAX = 50_000_000


@dataclass(frozen=True)
class Query:
    """A batch of linear questions ``A @ f`` with their labels.

    Attributes
    ----------
    kind : str
        The kind of its spec (:data:`ldpcore.queries.specs.QUERY_KINDS`).
    spec : str
        The spec that rebuilds it (as accepted by :func:`ldpcore.queries.specs.parse_query`).
    members : tuple of ndarray
        For each question, the indices of the values it sums.
    labels : tuple of str
        One label per question.
    layout : {"values", "ranges", "sets", "quantiles"}
        How the answers are summed: one value per question, contiguous ranges (running
        sums), any sets (ragged sums), or quantiles (not a sum: the first value at which
        the running sum reaches each of ``levels``).
    levels : tuple of float
        The quantiles asked, for the ``"quantiles"`` layout.
    """

    kind: str
    spec: str
    members: tuple[NDArray[np.int64], ...]
    labels: tuple[str, ...]
    layout: str = "sets"
    levels: tuple[float, ...] = ()

    @cached_property
    def _layout(self) -> tuple[NDArray[np.int64], NDArray[np.int64]]:
        """Index arrays for :meth:`answer`, built once per query.

        ``answer`` runs for every method and trial: ``(starts, ends)`` of ranges, or
        ``(all members, group starts)``.
        """
        if self.layout == "ranges":
            starts = np.array([int(m[0]) for m in self.members], dtype=np.int64)
            ends = np.array([int(m[-1]) + 1 for m in self.members], dtype=np.int64)
            return starts, ends
        index = np.concatenate(self.members).astype(np.int64)
        sizes = np.array([m.size for m in self.members])
        starts = np.concatenate(([0], np.cumsum(sizes)[:-1])).astype(np.int64)
        return index, np.minimum(starts, max(index.size - 1, 0))

    @cached_property
    def _values(self) -> NDArray[np.int64]:
        """The one value each question asks about, built once.

        Concatenating the members on every call (1,024 one-element arrays a trial and
        method in the Explorer's default run) took a third of that run.
        """
        return np.concatenate(self.members).astype(np.int64)

    @cached_property
    def _empty(self) -> NDArray[np.bool_]:
        """Which questions sum no value (their answer is 0)."""
        return np.array([m.size == 0 for m in self.members], dtype=bool)

    @cached_property
    def runs(self) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]] | None:
        """Every question as runs of consecutive values: ``(starts, stops, question)``.

        A question's answer is the sum of its runs' ``[start, stop)``: what a reading that
        answers ranges its own way (a raw tree's, :meth:`~ldpcore.protocols.trees.TreeLayout.
        read_ranges`) needs. None for quantiles, which are not sums.
        """
        if self.layout == "quantiles":
            return None
        if self.layout == "values":
            return self._values, self._values + 1, np.arange(self._values.size)
        if self.layout == "ranges":
            starts, ends = self._layout
            return starts, ends, np.arange(starts.size)
        return contiguous_runs(self.members)

    def matrix(self, domain_size: int) -> NDArray[np.float64]:
        """The 0/1 matrix ``A`` (questions × values)."""
        a = np.zeros((len(self.members), domain_size))
        for row, members in enumerate(self.members):
            a[row, members] = 1.0
        return a

    def answer(
        self, frequencies: NDArray[np.float64], *, clamp: bool = False
    ) -> NDArray[np.float64]:
        """Answers ``A @ f`` for one vector (or a stack, one per row); ``clamp`` is Post-Pos.

        Parameters
        ----------
        frequencies : ndarray
            Shape ``(d,)`` or ``(trials, d)``.
        clamp : bool
            Clamp every answer at 0 (Post-Pos, NDSS Sec. IV-A).
        """
        f = np.asarray(frequencies, dtype=np.float64)
        if self.layout == "quantiles":
            return quantile_positions(f, self.levels)
        if self.layout == "values":
            answers = f[..., self._values]
        elif self.layout == "ranges":
            # Contiguous ranges: differences of the running sum, O(d + questions).
            running = np.concatenate((np.zeros((*f.shape[:-1], 1)), np.cumsum(f, axis=-1)), axis=-1)
            starts, ends = self._layout
            answers = running[..., ends] - running[..., starts]
        else:
            # A ragged sum (no questions × d matrix): memory grows with the members.
            index, starts = self._layout
            taken = f[..., index]
            if taken.shape[-1] == 0:
                answers = np.zeros((*f.shape[:-1], len(self.members)))
            else:
                answers = np.add.reduceat(taken, starts, axis=-1)
                # reduceat gives an element for an empty group: its sum is 0.
                answers[..., self._empty] = 0.0
        return np.maximum(answers, 0.0) if clamp else answers


def contiguous_runs(
    members: Sequence[NDArray[np.int64]],
) -> tuple[NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]]:
    """Each set of values as its runs of consecutive values: ``(starts, stops, which set)``.

    An empty set has no run (its sum is zero).
    """
    starts, stops, owners = [], [], []
    for owner, values in enumerate(members):
        ordered = np.unique(np.asarray(values, dtype=np.int64))
        if ordered.size == 0:
            continue
        breaks = np.flatnonzero(np.diff(ordered) != 1) + 1
        starts.append(ordered[np.concatenate(([0], breaks))])
        stops.append(ordered[np.concatenate((breaks - 1, [ordered.size - 1]))] + 1)
        owners.append(np.full(breaks.size + 1, owner, dtype=np.int64))
    if not starts:
        empty = np.zeros(0, dtype=np.int64)
        return empty, empty, empty
    return np.concatenate(starts), np.concatenate(stops), np.concatenate(owners)


#: How far below a level a running sum still reaches it (floating-point rounding).
_ROUNDING = 1e-12


def quantile_positions(
    frequencies: NDArray[np.float64], levels: tuple[float, ...]
) -> NDArray[np.float64]:
    """The first value whose running sum reaches each level (the last value if none does).

    An estimate's own running sum is read as it is, not rescaled to a total of one:
    rescaling is a post-processing choice (Norm) the methods make or not. Rows of a
    stack are answered one by one. The answers are value positions, not frequencies.
    """
    f = np.asarray(frequencies, dtype=np.float64)
    rows = f.reshape(-1, f.shape[-1])
    # A running sum of exact shares can fall short of a level by a rounding error.
    wanted = np.asarray(levels, dtype=np.float64) - _ROUNDING
    answers = np.empty((rows.shape[0], wanted.size))
    for row, values in enumerate(rows):
        # The running maximum is non-decreasing and first reaches a level where the
        # running sum first does.
        highest = np.maximum.accumulate(np.cumsum(values))
        answers[row] = np.minimum(np.searchsorted(highest, wanted, side="left"), f.shape[-1] - 1)
    return answers.reshape(*f.shape[:-1], wanted.size)


def full_domain(domain_size: int) -> Query:
    """Every value on its own."""
    # Row views of one array and map(str): a tenth of building them one by one, which
    # at d = 100,000 was a fifth of a two-trial run.
    return Query(
        "full",
        "full",
        tuple(np.arange(domain_size).reshape(-1, 1)),
        tuple(map(str, range(domain_size))),
        "values",
    )


def top_k(true_frequencies: NDArray[np.float64], k: int) -> Query:
    """The ``k`` values with the highest true frequency (ties broken by index)."""
    d = len(true_frequencies)
    k = check_int(k, name="k", minimum=1, maximum=d)
    order = np.argsort(-np.asarray(true_frequencies), kind="stable")[:k]
    return Query(
        "topk",
        f"topk:k={k}",
        tuple(np.array([v]) for v in order),
        tuple(str(v) for v in order),
        "values",
    )


def random_sets(domain_size: int, rho: float, *, samples: int = 10, seed: int = 0) -> Query:
    """``samples`` sets of ``⌈ρ d⌉`` values drawn uniformly (NDSS Sec. V-D).

    The sets depend only on ``(d, ρ, samples, seed)``, so every trial and method
    answers the same questions.
    """
    if not (isinstance(rho, int | float) and math.isfinite(rho) and 0 < rho <= 1):
        raise InputError(f"rho (the set size as a fraction of d) must be in (0, 1], got {rho!r}")
    samples = check_int(samples, name="samples", minimum=1, maximum=10_000)
    size = min(domain_size, math.ceil(rho * domain_size))
    if samples * size > SET_MEMBERS_MAX:
        raise InputError(
            f"set queries of {size:,} values × {samples:,} samples would hold "
            f"{samples * size:,} indices; at most {SET_MEMBERS_MAX:,} are allowed (use fewer "
            "samples or a smaller rho)"
        )
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0x5E7,)))
    members = tuple(
        np.sort(rng.choice(domain_size, size=size, replace=False)) for _ in range(samples)
    )
    return Query(
        "set",
        f"set:rho={format_spec_number(rho)},samples={samples}",
        members,
        tuple(f"set {i + 1}" for i in range(samples)),
    )


def groups(group_of_value: list[str] | tuple[str, ...]) -> Query:
    """One question per group: the total frequency of its values (e.g. emoji categories)."""
    names = list(dict.fromkeys(group_of_value))
    if len(names) < 1:
        raise InputError("groups: every value needs a group")
    labels = np.array(group_of_value)
    members = tuple(np.flatnonzero(labels == name) for name in names)
    return Query("groups", "groups", members, tuple(names))


def groups_from_file(path: str, labels: tuple[str, ...] | list[str]) -> Query:
    """Groups from a ``value,group`` CSV/TSV matched to the dataset's value labels.

    Values the file does not list belong to no group (they are in no answer); a
    value the dataset does not have is an error, since it is most likely a typo.
    """
    file = Path(path)
    if not file.is_file():
        raise InputError(f"groups file {path!r} does not exist")
    if file.stat().st_size > bounds.UPLOAD_BYTES_MAX:
        raise InputError(f"groups file {path!r} is over {bounds.UPLOAD_BYTES_MAX // 2**20} MiB")
    text = decode(file.read_bytes(), source=f"groups file {path!r}")
    rows = list(
        csv.reader(io.StringIO(text), delimiter="\t" if "\t" in text.split("\n")[0] else ",")
    )
    header = [cell.strip().lower() for cell in rows[0]] if rows else []
    if "value" not in header or "group" not in header:
        raise InputError(f"groups file {path!r} needs a header with 'value' and 'group' columns")
    at_value, at_group = header.index("value"), header.index("group")
    index = {label: i for i, label in enumerate(labels)}
    members: dict[str, list[int]] = {}
    unknown: list[str] = []
    for row in rows[1:]:
        if not any(cell.strip() for cell in row):
            continue
        if len(row) <= max(at_value, at_group):
            raise InputError(f"groups file {path!r}: a row has too few columns: {row!r}")
        value, group = row[at_value].strip(), row[at_group].strip() or "(no group)"
        if value not in index:
            unknown.append(value)
            continue
        members.setdefault(group, []).append(index[value])
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:5])
        raise InputError(
            f"groups file {path!r} names {len(unknown)} value(s) the dataset does not have: {shown}"
        )
    if not members:
        raise InputError(f"groups file {path!r} lists no values")
    return Query(
        "groups",
        f"groups:file={path}",
        tuple(np.array(sorted(set(m)), dtype=np.int64) for m in members.values()),
        tuple(members),
    )


def prefixes(domain_size: int) -> Query:
    """``P(value ≤ i)`` for every ``i`` of an ordered domain (cumulative distribution)."""
    # Views of one range: O(d) memory, not d²/2 indices.
    values = np.arange(domain_size)
    return Query(
        "prefix",
        "prefix",
        tuple(values[: i + 1] for i in range(domain_size)),
        tuple(f"≤ {i}" for i in range(domain_size)),
        "ranges",
    )


def random_intervals(domain_size: int, *, samples: int = 10, seed: int = 0) -> Query:
    """``samples`` random ranges ``[a, b]`` of an ordered domain (endpoints uniform)."""
    samples = check_int(samples, name="samples", minimum=1, maximum=10_000)
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0x1A7,)))
    ends = np.sort(rng.integers(0, domain_size, size=(samples, 2)), axis=1)
    values = np.arange(domain_size)  # ranges are views of it: O(d + samples) memory
    return Query(
        "interval",
        f"interval:samples={samples}",
        tuple(values[a : b + 1] for a, b in ends),
        tuple(f"[{a}, {b}]" for a, b in ends),
        "ranges",
    )


def ranges_of_length(domain_size: int, length: int) -> Query:
    """Every range of ``length`` consecutive values of an ordered domain, left to right."""
    length = check_int(length, name="length", minimum=1, maximum=domain_size)
    values = np.arange(domain_size)  # ranges are views of it: O(d) memory
    starts = range(domain_size - length + 1)
    return Query(
        "range",
        f"range:length={length}",
        tuple(values[a : a + length] for a in starts),
        tuple(f"[{a}, {a + length - 1}]" for a in starts),
        "ranges",
    )


#: The quantiles ``quantile`` asks by default: the deciles (the median among them).
DECILES = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)


def quantiles(domain_size: int, levels: tuple[float, ...] = DECILES) -> Query:
    """The values at which an ordered domain's running share reaches each level."""
    if not levels or not all(0 < q < 1 for q in levels):
        raise InputError(f"quantile levels must be between 0 and 1 (exclusive), got {levels!r}")
    ordered = tuple(sorted(set(levels)))
    every = np.arange(domain_size)
    return Query(
        "quantile",
        "quantile" if ordered == DECILES else f"quantile:q={format_spec_number(ordered[0])}",
        tuple(every for _ in ordered),
        tuple(
            "median" if q == 0.5 else f"{format_spec_number(100 * q)}th percentile" for q in ordered
        ),
        "quantiles",
        ordered,
    )
