"""Ranges of growing length: flat, hierarchical and Square Wave answers on the same trials.

Kulkarni, Cormode and Srivastava (VLDB 2019, Sec. 5) compare a flat oracle with
hierarchies of intervals as the asked range grows: a flat answer sums one noisy estimate
per value, so its error grows with the range's length; a hierarchy's sums a few nodes
per level, so its error grows with the tree's height instead. Here every protocol runs
the same trials (trial ``i`` from seed ``i``), every method on each, and each length's
error is the mean over the ranges of that length (every one, or
:data:`RANGES_PER_LENGTH` drawn once on a large domain), per trial: the per-trial
errors are
paired across protocols by trial (the noises are independent; the data are the same),
and every entry is compared with the flat protocol's Base on them
(:func:`ldpcore.stats.compare.compare`, simultaneous over the entries).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
from numpy.typing import NDArray

from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.metrics import BAND_QUANTILES
from ldpcore.experiments.trials import Progress, run
from ldpcore.protocols import PROTOCOLS, resolve_protocol_name
from ldpcore.protocols.square_wave import DOMAIN_MAX as SW_DOMAIN_MAX
from ldpcore.queries.query import Query
from ldpcore.queries.specs import RangeQuery
from ldpcore.stats.compare import Comparison, compare

if TYPE_CHECKING:  # pandas loads where a frame is built
    import pandas as pd

#: The flat protocol ranges are measured against when the configuration's is a hierarchy.
FLAT_REFERENCE = "OUE"
#: The protocols made for ranges compared with it by default (the Square Wave where the
#: domain is within its :data:`~ldpcore.protocols.square_wave.DOMAIN_MAX`).
ORDERED = ("TreeOUE", "TreeOLH", "HaarHRR", "SW")
#: The methods each kind of protocol runs: the flat answer and its best-known fix; the
#: raw tree, its consistency step, and Norm-Sub after it; the Square Wave's unbiased
#: inversion and Li et al.'s EMS; the Haar wavelet's estimate (consistent as it comes)
#: and Norm-Sub.
FLAT_METHODS = ("Base", "Norm-Sub")
TREE_METHODS = ("Base", "Consistency", "Cons-NS")
WAVE_METHODS = ("Base", "EMS")
WAVELET_METHODS = ("Base", "Norm-Sub")
#: The most ranges of one length asked (a fixed random sample of starts): every answer of every
#: trial and method is kept, so the ranges of a 10⁵-value domain are sampled.
RANGES_PER_LENGTH = 256


@dataclass(frozen=True)
class RangeRun:
    """Every protocol and method's error on ranges of each length.

    Attributes
    ----------
    lengths : tuple of int
        The range lengths, increasing.
    entries : tuple of str
        ``"protocol · method"``, the flat protocol's first (its Base is the reference).
    errors : ndarray
        Shape ``(entries, lengths, trials)``: each trial's mean squared error over every
        range of each length.
    comparisons : tuple of tuple of Comparison
        Per length, every entry but the reference against the flat protocol's Base.
    reference : str
        The entry the others are compared with.
    """

    lengths: tuple[int, ...]
    entries: tuple[str, ...]
    errors: NDArray[np.float64]
    comparisons: tuple[tuple[Comparison, ...], ...]
    reference: str

    def frame(self) -> pd.DataFrame:
        """One row per entry and length: its error, band and comparison with the reference.

        Columns ``protocol, method, entry, length, mse``, ``mse_low`` and ``mse_high``
        (the 10% and 90% quantiles over trials), ``ratio_to_reference``, ``ratio_low``,
        ``ratio_high`` and ``vs_reference`` (the comparison's outcome in a phrase).
        """
        import pandas as pd  # noqa: PLC0415

        rows = []
        for at, length in enumerate(self.lengths):
            against = {c.method: c for c in self.comparisons[at]}
            for index, entry in enumerate(self.entries):
                protocol, method = entry.split(" · ")
                per_trial = self.errors[index, at]
                found = against.get(entry)
                rows.append(
                    {
                        "protocol": protocol,
                        "method": method,
                        "entry": entry,
                        "length": length,
                        "mse": float(per_trial.mean()),
                        "mse_low": float(np.quantile(per_trial, BAND_QUANTILES[0])),
                        "mse_high": float(np.quantile(per_trial, BAND_QUANTILES[1])),
                        "ratio_to_reference": 1.0 if found is None else found.ratio,
                        "ratio_low": 1.0 if found is None else found.low,
                        "ratio_high": 1.0 if found is None else found.high,
                        "vs_reference": "reference" if found is None else found.outcome,
                    }
                )
        return pd.DataFrame(rows)


def range_lengths(domain_size: int) -> tuple[int, ...]:
    """Powers of two below the domain's size, and the longest range short of it."""
    lengths = []
    length = 1
    while length < domain_size:
        lengths.append(length)
        length *= 2
    if lengths[-1] != domain_size - 1:
        lengths.append(domain_size - 1)
    return tuple(lengths)


def run_ranges(
    config: ExperimentConfig,
    *,
    lengths: Sequence[int] | None = None,
    protocols: Sequence[str] | None = None,
    branching: int | None = None,
    progress: Progress | None = None,
    wave_methods: Sequence[str] = WAVE_METHODS,
) -> RangeRun:
    """Every protocol's methods on ranges of each length, on the same trials.

    Parameters
    ----------
    config : ExperimentConfig
        The data, n, ε, trials and seed (its query, methods and protocol parameters are
        replaced). Its protocol is the flat reference unless it is a hierarchy (then
        :data:`FLAT_REFERENCE`).
    lengths : sequence of int, optional
        Range lengths (default :func:`range_lengths`).
    protocols : sequence of str, optional
        Protocols besides the flat reference (default :data:`ORDERED`, SW where it
        takes the domain).
    branching : int, optional
        The hierarchies' branching factor (default: the best for the domain).
    progress : callable, optional
        Called as ``progress(done, total)`` over every protocol's trials.
    wave_methods : sequence of str
        The Square Wave's methods (default :data:`WAVE_METHODS`; plain EM costs about
        twice EMS, so it is asked for by name).
    """
    data = config.dataset.build(config.n)
    d = data.domain_size
    wanted = tuple(sorted(set(range_lengths(d) if lengths is None else lengths)))
    if not wanted or wanted[0] < 1 or wanted[-1] > d:
        raise InputError(f"range lengths must be between 1 and the domain's {d:,} values")
    chosen = resolve_protocol_name(config.protocol)
    flat = chosen if PROTOCOLS[chosen].support_view else FLAT_REFERENCE
    if protocols is None:
        protocols = tuple(p for p in ORDERED if p != "SW" or d <= SW_DOMAIN_MAX)
    others = [resolve_protocol_name(p) for p in protocols]
    names = [flat, *dict.fromkeys(p for p in others if p != flat)]
    question = _ranges(d, wanted)
    sizes = [len(_starts(d, length)) for length in wanted]
    entries: list[str] = []
    errors = []
    for position, name in enumerate(names):
        kind = PROTOCOLS[name]
        tree = kind.composite
        methods = (
            TREE_METHODS
            if tree
            else FLAT_METHODS
            if kind.support_view
            else tuple(wave_methods)
            if kind.offers_likelihood
            else WAVELET_METHODS
        )
        params = (("branching", branching),) if tree and branching is not None else ()
        point = dataclasses.replace(
            config, protocol=name, params=params, methods=methods, query=RangeQuery(wanted[0])
        )
        built = point.build()

        def report(done: int, total: int, offset: int = position * config.trials) -> None:
            if progress is not None:
                progress(offset + done, len(names) * config.trials)

        result = run(point, built=(built[0], built[1], question), progress=report)
        squared = (result.answers - result.truth) ** 2
        split = np.split(squared, np.cumsum(sizes)[:-1], axis=-1)
        per_length = np.stack([part.mean(axis=-1) for part in split], axis=-1)
        for row, method in enumerate(point.methods):
            entries.append(f"{name} · {method}")
            errors.append(per_length[row].T)  # (lengths, trials)
    stacked = np.stack(errors)
    reference = f"{flat} · Base"
    comparisons = tuple(
        tuple(compare(stacked[:, at, :], entries, reference=reference)) for at in range(len(wanted))
    )
    return RangeRun(wanted, tuple(entries), stacked, comparisons, reference)


def _starts(domain_size: int, length: int) -> NDArray[np.int64]:
    """Where the asked ranges of ``length`` start: all, or a fixed random sample of them.

    Not evenly spaced: at d = 1,024 the 256 evenly spaced starts of ranges of 4 values
    are the multiples of 4, each range one node of a tree with B = 4, which made the tree
    look 2.6× better there than over every range. A sample drawn once (seeded by the
    length) has no such pattern and is the same for every run.
    """
    last = domain_size - length
    if last + 1 <= RANGES_PER_LENGTH:
        return np.arange(last + 1)
    chosen = np.random.default_rng(length).choice(last + 1, RANGES_PER_LENGTH, replace=False)
    return np.sort(chosen).astype(np.int64)


def _ranges(domain_size: int, lengths: Sequence[int]) -> Query:
    """The ranges of every length, as one query (its answers split by length after)."""
    values = np.arange(domain_size)  # ranges are views of it
    members = []
    labels = []
    for length in lengths:
        for start in _starts(domain_size, length):
            members.append(values[start : start + length])
            labels.append(f"[{start}, {start + length - 1}]")
    spec = ";".join(f"range:length={length}" for length in lengths)
    return Query("range", spec, tuple(members), tuple(labels), "ranges")


__all__ = [
    "FLAT_METHODS",
    "ORDERED",
    "RANGES_PER_LENGTH",
    "TREE_METHODS",
    "WAVELET_METHODS",
    "WAVE_METHODS",
    "RangeRun",
    "range_lengths",
    "run_ranges",
]
