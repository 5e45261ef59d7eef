"""How a method's output answers a question: from its estimate, or as the protocol's paper reads it.

For a flat protocol a question's answer is a sum of the estimate's values (NDSS 2020,
Sec. V). A raw hierarchy is read otherwise: Kulkarni, Cormode and Srivastava (VLDB 2019,
Sec. 4.1) answer a range from the fewest nodes that tile it, which the per-leaf estimate
cannot carry (its sums read two prefixes' difference, with about twice the variance on
short ranges: :meth:`~ldpcore.protocols.hierarchy.Hierarchy.prefix_difference_variances`).
So a method on a composite protocol keeps its parts' outputs beside the assembled
estimate, and every question that is a sum of ranges is read off them
(:meth:`~ldpcore.protocols.composite.Composite.read_ranges`). A method that makes the
parts consistent first (the consistency step) needs none of this: on a consistent tree
every reading agrees.

The runs (``ldpcore.experiments.trials``) and the attacks (``ldpcore.experiments.poisoning``)
both answer through here, so a question is read the same way wherever it is asked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.postprocess.base import Context, PostProcessor
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.composite import Part, as_composite
from ldpcore.queries.query import Query, contiguous_runs


@dataclass(frozen=True)
class Output:
    """A method's output: its estimate, and a composite protocol's parts before assembly.

    Attributes
    ----------
    vector : ndarray
        One value per value of the domain.
    parts : tuple of Part, optional
        A composite protocol's parts, when the output is read off them.
    outputs : list of ndarray, optional
        The method's output on each part.
    """

    vector: NDArray[np.float64]
    parts: tuple[Part, ...] | None = None
    outputs: Sequence[NDArray[np.float64]] | None = None


def post_process(
    method: PostProcessor,
    estimate: ArrayLike,
    *,
    protocol: FrequencyOracle,
    n: int,
    tallies: ArrayLike | None = None,
) -> Output:
    """``method`` on one estimate, with the parts a composite protocol's reading needs."""
    if protocol.composite and not method.for_composite:
        method.check_domain(protocol.domain_size)
        method.check_protocol(protocol)
        parts, outputs = method.part_outputs(Context(protocol=protocol, n=n, tallies=tallies))
        vector = as_composite(protocol).assemble(parts, outputs)
        return Output(vector, parts, outputs)
    return Output(method(estimate, protocol=protocol, n=n, tallies=tallies))


def read_runs(
    output: Output, protocol: FrequencyOracle, starts: ArrayLike, stops: ArrayLike
) -> NDArray[np.float64]:
    """The sum over each run ``[start, stop)``, read as the protocol's paper reads it."""
    if output.parts is not None and output.outputs is not None:
        read = as_composite(protocol).read_ranges(output.parts, output.outputs, starts, stops)
        if read is not None:
            return read
    running = np.concatenate(([0.0], np.cumsum(output.vector)))
    return running[np.asarray(stops, dtype=np.int64)] - running[np.asarray(starts, dtype=np.int64)]


def query_answers(
    query: Query, output: Output, protocol: FrequencyOracle, *, clamp: bool = False
) -> NDArray[np.float64]:
    """Every answer of ``query`` from one output; ``clamp`` is Post-Pos (NDSS Sec. IV-A).

    Read off the parts where the protocol has a reading of its own (a quantile from the
    prefixes read that way); otherwise :meth:`Query.answer` on the estimate.
    """
    if output.parts is None:
        return query.answer(output.vector, clamp=clamp)
    runs = query.runs
    if runs is None:
        # Quantiles: from the prefixes as the protocol reads them, one per value's end.
        ends = np.arange(1, protocol.domain_size + 1)
        prefixes = read_runs(output, protocol, np.zeros_like(ends), ends)
        return query.answer(np.diff(prefixes, prepend=0.0), clamp=clamp)
    starts, stops, owner = runs
    sums = read_runs(output, protocol, starts, stops)
    answers = np.bincount(owner, weights=sums, minlength=len(query.labels)).astype(np.float64)
    return np.maximum(answers, 0.0) if clamp else answers


def set_answer(
    output: Output, protocol: FrequencyOracle, members: ArrayLike, *, clamp: bool = False
) -> float:
    """The estimated total of ``members`` (a set query's one answer) from one output."""
    starts, stops, _owner = contiguous_runs([np.asarray(members, dtype=np.int64)])
    total = float(read_runs(output, protocol, starts, stops).sum())
    return max(total, 0.0) if clamp else total


__all__ = ["Output", "post_process", "query_answers", "read_runs", "set_answer"]
