"""Reproducible simulations: a frozen config in, tidy tables out (NDSS 2020, Section V).

One integer seed drives everything: trial ``i`` uses the ``i``-th child of
``SeedSequence(seed)`` (built directly as ``SeedSequence(seed, spawn_key=(i,))``), so
the numbers are bit-identical however the trials are split across processes or
machines. Work runs on any ``concurrent.futures.Executor``; by default in-process.

The config is :mod:`ldpcore.experiments.config`; sweeps over one parameter are
:mod:`ldpcore.experiments.sweeps`.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ldpcore._json import json_value
from ldpcore.data.datasets import Dataset
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.metrics import (
    analytic_base_mse,
    equivalent_users,
    kl_divergence_rows,
    lower_bound,
    per_answer,
    summarize_errors,
    total_variation_rows,
)
from ldpcore.experiments.readings import post_process, query_answers
from ldpcore.postprocess import get_method, method_class
from ldpcore.postprocess.base import Context
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.protocols import (
    FrequencyOracle,
)
from ldpcore.queries.query import Query
from ldpcore.stats.compare import Comparison, compare, trial_mse

if TYPE_CHECKING:  # pandas costs ~0.3 s to import; the JSON path of the CLI skips it
    import pandas as pd

#: The columns of :attr:`ExperimentResult.summary`.
SUMMARY_COLUMNS = (
    "method",
    "mse",
    "mse_std",
    "mse_low",
    "mse_high",
    "bias_sq",
    "variance",
    "bias_noise",
    "mae",
    "max_error",
    "tv",
    "kl",
    "equivalent_users",
    "mse_ratio_to_base",
    "ratio_low",
    "ratio_high",
    "mse_vs_base",
    "converged",
)

#: How many times at most a run reports progress (when asked to).
_PROGRESS_STEPS = 10
#: Called as ``progress(done, total)`` while trials finish.
Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class ExperimentResult:
    """The outcome of :func:`run`.

    Attributes
    ----------
    config : ExperimentConfig
    summary : DataFrame
        One row per method: ``mse, mse_std, bias_sq, variance, bias_noise, mae, max_error,
        tv, kl, equivalent_users``. ``bias_noise`` is what the trials' noise alone puts in
        a measured bias² (variance ÷ trials); a method unbiased by construction shows a
        bias² of 0 and, as ``bias_noise``, the bias² the trials measured.
    per_item : DataFrame
        One row per (method, answer): ``truth, mean, bias, variance, mse``.
    analytic : dict
        ``base_mse`` (Eq. 3, exact for single-value queries; None for set-type ones) and
        ``lower_bound`` (reading note 8; None for a query whose answers are not single
        values' frequencies).
    answers : ndarray
        Shape ``(methods, trials, answers)``: every answer of every trial.
    truth : ndarray
        The true answers.
    labels : tuple of str
        One label per answer.
    against_base : tuple of Comparison
        Every other method against Base (empty without Base): the paired comparisons the
        summary's ratio columns come from, kept so a verdict need not redo them.
    """

    config: ExperimentConfig
    rows: tuple[dict[str, Any], ...]
    analytic: dict[str, float | None]
    answers: NDArray[np.float64]
    truth: NDArray[np.float64]
    labels: tuple[str, ...]
    against_base: tuple[Comparison, ...] = ()

    @cached_property
    def summary(self) -> pd.DataFrame:
        """One row per method (built on first use)."""
        import pandas as pd  # noqa: PLC0415

        return pd.DataFrame(list(self.rows))[list(SUMMARY_COLUMNS)]

    @cached_property
    def trial_errors(self) -> NDArray[np.float64]:
        """Per-trial MSE of each method, shape ``(methods, trials)``.

        The paired samples :mod:`ldpcore.stats.compare` compares: every method saw the same trials.
        """
        return trial_mse(self.answers, self.truth)

    @cached_property
    def per_item(self) -> pd.DataFrame:
        """One row per (method, answer) (built on first use)."""
        import pandas as pd  # noqa: PLC0415

        # One frame from whole arrays: a frame per method, then concatenated, took a
        # third of a two-trial run at d = 100,000. The statistics reduce over
        # the trials exactly as per_answer does for one method.
        methods, _, items = self.answers.shape
        stats = per_answer(self.answers, self.truth, axis=1)

        def repeated(texts: Sequence[str], index: NDArray[np.intp]) -> Any:
            # The text columns are made once at their own length and then taken: pandas
            # converts 1.3 million Python strings to its string type in 50 ms a column.
            return pd.Series(np.array(texts, dtype=object), dtype="str").take(index).array

        return pd.DataFrame(
            {
                "method": repeated(self.config.methods, np.repeat(np.arange(methods), items)),
                "item": repeated(self.labels, np.tile(np.arange(items), methods)),
                "truth": np.tile(self.truth, methods),
            }
            | {name: column.ravel() for name, column in stats.items()}
        )

    def trials_frame(self) -> pd.DataFrame:
        """Tidy table: one row per (trial, method, answer)."""
        import pandas as pd  # noqa: PLC0415

        methods, trials, items = self.answers.shape
        return pd.DataFrame(
            {
                "trial": np.tile(np.repeat(np.arange(trials), items), methods),
                "method": np.repeat(np.array(self.config.methods), trials * items),
                "item": np.tile(np.array(self.labels), methods * trials),
                "truth": np.tile(self.truth, methods * trials),
                "estimate": self.answers.ravel(),
            }
        )

    def to_json_dict(self) -> dict[str, Any]:
        """The ``simulate --format json`` contract (README.md, "The `ldpcore` command")."""
        keys = ("method", "mse", "mse_std", "bias_sq", "variance", "converged")
        return {
            "config": self.config.to_dict(),
            "analytic": self.analytic,
            "results": [{key: json_value(row[key]) for key in keys} for row in self.rows],
        }


def exact_base_mse(
    config: ExperimentConfig, built: tuple[Dataset, FrequencyOracle, Query] | None = None
) -> float | None:
    """Base's mean MSE over the query's values, exactly (NDSS Eq. 3), without simulating.

    For single-value queries (the full domain, the top k), whose answers are Base's
    per-value estimates; None for a set query (its answer sums estimates whose errors
    the protocol correlates: no closed form here). ``built`` is ``config.build()`` when
    the caller has it.
    """
    if not config.query.single_values:
        return None
    data, protocol, query = config.build() if built is None else built
    index = np.concatenate(query.members)
    return analytic_base_mse(protocol, data.frequencies(), data.n, values=index)


def exact_base_variances(
    config: ExperimentConfig, built: tuple[Dataset, FrequencyOracle, Query] | None = None
) -> NDArray[np.float64] | None:
    """Base's variance of each of the query's answers (NDSS Eq. 3); None for a set query.

    The per-answer form of :func:`exact_base_mse`, for targets that ask each answer to
    be within a margin (:mod:`ldpcore.advice.targets`).
    """
    if not config.query.single_values:
        return None
    data, protocol, query = config.build() if built is None else built
    index = np.concatenate(query.members)
    return protocol.variance(data.frequencies(), data.n)[index]


def trial_generator(seed: int, index: int) -> np.random.Generator:
    """The generator of trial ``index``: the ``index``-th spawned child of ``seed``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(index,))))


def _run_trials(
    config: ExperimentConfig,
    indices: Sequence[int],
    built: tuple[Dataset, FrequencyOracle, Query] | None = None,
) -> tuple[NDArray[np.float64], ...]:
    """Answers, TV and KL of every method for the given trials (runs in any worker).

    ``built`` is ``config.build()`` when the caller has it (in-process chunks share it:
    a full query at d = 10⁶ takes a second to build); a worker builds its own.
    """
    data, protocol, query = config.build() if built is None else built
    truth_vector = data.frequencies()
    methods = [get_method(name) for name in config.methods]
    n = data.n
    trials = len(indices)
    # Every trial's draw first (each from its own generator, so the draws are the same
    # in any order), then each method over all of them: the element-wise methods and
    # the scoring run once per chunk, not once per trial.
    all_tallies = []
    estimates = np.empty((trials, protocol.domain_size))
    for column, index in enumerate(indices):
        rng = trial_generator(config.seed, index)
        tallies = protocol.sample_tallies(data.counts, rng, sampler=config.sampler)  # type: ignore[arg-type]
        all_tallies.append(tallies)
        estimates[column] = protocol.estimate_from_tallies(tallies, n)
    parents = {method.derived_from for method in methods}
    answers = np.empty((len(methods), trials, len(query.labels)))
    tv = np.empty((len(methods), trials))
    kl = np.empty((len(methods), trials))
    stuck = np.zeros((len(methods), trials))  # 1 where a method hit its iteration cap
    outputs: dict[str, NDArray[np.float64]] = {}
    for row, method in enumerate(methods):
        # A composite protocol's methods run part by part from each trial's tallies.
        parent = None if protocol.composite else outputs.get(method.derived_from or "")
        read: NDArray[np.float64] | None = None  # answers read off a composite's parts
        if method.rows_at_once and parent is None and not protocol.composite:
            vectors = method.apply_rows(estimates, protocol=protocol, n=n)
        else:
            vectors = np.empty_like(estimates)
            for column in range(trials):
                context = Context(protocol=protocol, n=n, tallies=all_tallies[column])
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always", NotConverged)
                    if parent is not None:  # PowerNS finishes Power's output; IBU starts at MLE's
                        vectors[column] = method.from_parent(
                            parent[column], estimates[column], context
                        )
                    else:
                        output = post_process(
                            method,
                            estimates[column],
                            protocol=protocol,
                            n=n,
                            tallies=context.tallies,
                        )
                        vectors[column] = output.vector
                        if output.parts is not None:
                            # A raw tree answers as its paper reads it (readings.py).
                            if read is None:
                                read = np.empty((trials, len(query.labels)))
                            read[column] = query_answers(
                                query, output, protocol, clamp=method.answers_only
                            )
                stuck[row, column] = any(issubclass(w.category, NotConverged) for w in caught)
        if method.name in parents:
            outputs[method.name] = vectors
        answers[row] = query.answer(vectors, clamp=method.answers_only) if read is None else read
        tv[row] = total_variation_rows(vectors, truth_vector)
        kl[row] = kl_divergence_rows(truth_vector, vectors)
    return answers, tv, kl, stuck


def _chunks(total: int, parts: int) -> list[list[int]]:
    size = max(1, math.ceil(total / parts))
    return [list(range(start, min(start + size, total))) for start in range(0, total, size)]


def run(
    config: ExperimentConfig,
    *,
    executor: Executor | None = None,
    workers: int = 1,
    progress: Progress | None = None,
    built: tuple[Dataset, FrequencyOracle, Query] | None = None,
) -> ExperimentResult:
    """Run every trial of ``config`` and summarise.

    Parameters
    ----------
    config : ExperimentConfig
    executor : concurrent.futures.Executor, optional
        Where trials run (e.g. a ``ProcessPoolExecutor`` or a Dask client's
        ``get_executor()``); in-process when omitted.
    workers : int
        How many chunks to split the trials into for the executor.
    progress : callable, optional
        Called as ``progress(done, total)`` after each chunk.
    built : tuple, optional
        ``config.build()`` when the caller already has it (it needs the protocol too):
        the protocol is then built once per run in this process.
    """
    # Built before any work is sent out: a bad setting is said before a trial runs.
    data, protocol, query = config.build() if built is None else built
    pieces = max(1, workers) if executor is not None else 1
    if progress is not None:
        # Report as trials finish, in about ten steps; each trial has its own seed, so
        # the numbers are the same however the trials are grouped.
        pieces = max(pieces, min(config.trials, _PROGRESS_STEPS))
    chunks = _chunks(config.trials, pieces)
    results: list[tuple[NDArray[np.float64], ...]] = []
    done = 0
    if executor is None:
        built = (data, protocol, query)
        parts: Iterable[tuple[NDArray[np.float64], ...]] = (
            _run_trials(config, c, built) for c in chunks
        )
    else:
        parts = executor.map(_run_trials, [config] * len(chunks), chunks)
    for chunk, part in zip(chunks, parts, strict=True):
        results.append(part)
        done += len(chunk)
        if progress is not None:
            progress(done, config.trials)
    answers = np.concatenate([r[0] for r in results], axis=1)
    tv = np.concatenate([r[1] for r in results], axis=1)
    kl = np.concatenate([r[2] for r in results], axis=1)
    stuck = np.concatenate([r[3] for r in results], axis=1)
    truth = query.answer(data.frequencies())
    return _summarise(
        config=config,
        data=data,
        protocol=protocol,
        query=query,
        answers=answers,
        tv=tv,
        kl=kl,
        truth=truth,
        stuck=stuck,
    )


def _summarise(
    *,
    config: ExperimentConfig,
    data: Dataset,
    protocol: FrequencyOracle,
    query: Query,
    answers: NDArray[np.float64],
    tv: NDArray[np.float64],
    kl: NDArray[np.float64],
    truth: NDArray[np.float64],
    stuck: NDArray[np.float64],
) -> ExperimentResult:
    paired, against_base = _paired_to_base(config.methods, trial_mse(answers, truth), protocol)
    rows = []
    for row, name in enumerate(config.methods):
        summary = summarize_errors(answers[row], truth)
        # What the trials' noise alone puts in a measured bias²: each answer's mean
        # error over T trials has variance σ²/T, so an unbiased method shows about this.
        noise = {"bias_noise": summary.variance / max(1, answers.shape[1])}
        if method_class(name).unbiased:
            # Unbiased by construction: its bias is 0, and its MSE is all variance.
            noise = {"bias_noise": summary.bias_sq, "bias_sq": 0.0, "variance": summary.mse}
        rows.append(
            dataclasses.asdict(summary)
            | noise
            | {
                "method": name,
                "tv": float(tv[row].mean()),
                # NaN where KL is undefined for some trial; inf where a support is missed.
                "kl": float(np.mean(kl[row])),
                "equivalent_users": equivalent_users(protocol, summary.mse)
                if config.query.whole_domain
                else math.nan,
                # Share of trials whose iterative method converged (1 for the others).
                "converged": float(1.0 - stuck[row].mean()),
            }
            | paired[name]
        )
    analytic: dict[str, float | None] = {
        "base_mse": exact_base_mse(config, (data, protocol, query)),
        # A bound on each value's error (reading note 8): no bound on a sum of values'
        # (a set, a range) nor on a quantile, which is a position, not a frequency.
        "lower_bound": lower_bound(protocol.epsilon, data.n)
        if config.query.single_values
        else None,
    }
    return ExperimentResult(
        config, tuple(rows), analytic, answers, truth, query.labels, tuple(against_base)
    )


def _paired_to_base(
    methods: Sequence[str], errors: NDArray[np.float64], protocol: FrequencyOracle
) -> tuple[dict[str, dict[str, Any]], list[Comparison]]:
    """Each method's MSE ratio to Base on the same trials, with its interval and outcome.

    Simultaneous over the methods (:func:`ldpcore.stats.compare.compare`); declared no-ops
    (:meth:`PostProcessor.is_no_op`) are never tested. Empty columns without Base.
    """
    blank = {
        "mse_ratio_to_base": math.nan,
        "ratio_low": math.nan,
        "ratio_high": math.nan,
        "mse_vs_base": "",
    }
    paired = {name: dict(blank) for name in methods}
    if "Base" not in methods or len(methods) < 2:
        return paired, []
    paired["Base"] = {
        "mse_ratio_to_base": 1.0,
        "ratio_low": 1.0,
        "ratio_high": 1.0,
        "mse_vs_base": "reference",
    }
    no_ops = [name for name in methods if get_method(name).is_no_op(protocol)]
    comparisons = compare(errors, list(methods), reference="Base", no_ops=no_ops)
    for found in comparisons:
        paired[found.method] = {
            "mse_ratio_to_base": found.ratio,
            "ratio_low": found.low,
            "ratio_high": found.high,
            "mse_vs_base": found.outcome,
        }
    return paired, comparisons


__all__ = [
    "SUMMARY_COLUMNS",
    "ExperimentResult",
    "Progress",
    "exact_base_mse",
    "run",
    "trial_generator",
]
