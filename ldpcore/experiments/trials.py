"""Reproducible simulations: a frozen config in, tidy tables out (NDSS 2020, Section V).

One integer seed drives everything: trial ``i`` uses the ``i``-th child of
``SeedSequence(seed)`` (built directly as ``SeedSequence(seed, spawn_key=(i,))``), so
the numbers are bit-identical however the trials are split across processes or
machines. Work runs on any ``concurrent.futures.Executor``; by default in-process.

Over 500 lines on purpose: the config, the trial loop, the summary and the sweep are one
concept (a simulation and its trial layout, which the paired comparisons depend on);
the specs it reads are in :mod:`ldpcore.data.specs` and :mod:`ldpcore.queries.specs`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import pickle
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ldpcore import bounds
from ldpcore._json import json_value
from ldpcore._validation import check_epsilon, check_int, check_n_users
from ldpcore.data.datasets import Dataset
from ldpcore.data.specs import DatasetSpec, ExplicitCounts, parse_dataset_spec
from ldpcore.errors import InputError
from ldpcore.experiments.metrics import (
    analytic_base_mse,
    equivalent_users,
    kl_divergence,
    lower_bound,
    per_answer,
    summarize_errors,
    total_variation,
)
from ldpcore.postprocess import default_method_names, get_method, resolve_method_name
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.protocols import (
    SAMPLERS,
    FrequencyOracle,
    check_protocol_parameters,
    get_protocol,
    protocol_parameters,
    resolve_protocol_name,
)
from ldpcore.queries.query import Query
from ldpcore.queries.specs import QuerySpec, SetQuery, TopKQuery, parse_query_spec
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


@dataclass(frozen=True, init=False)
class ExperimentConfig:
    """Everything that determines a simulation's numbers, checked and normalised once.

    Parameters
    ----------
    dataset : str or DatasetSpec
        ``zipf:d=D,s=S``, ``uniform:d=D``, ``file:PATH`` or a bundled name (see
        :func:`ldpcore.data.specs.parse_dataset_spec`); a file is rescaled to ``n``.
        Stored as a typed spec (with ``true_counts``: an
        :class:`~ldpcore.data.specs.ExplicitCounts` named ``dataset``).
    n : int
        Number of users.
    protocol : str
        Registry name of the frequency oracle.
    epsilon : float
        Privacy budget.
    methods : sequence of str
        Post-processing methods (default: all).
    query : str or QuerySpec
        A query spec (:data:`ldpcore.queries.specs.QUERY_KINDS`), stored typed.
    trials : int
        Independent repetitions.
    seed : int
        The one seed everything derives from.
    sampler : {"fast", "per-user"}
        How support counts are drawn.
    params : mapping or tuple of (str, int) pairs, optional
        The protocol's declared extra parameters (``FrequencyOracle.extra_parameters``),
        e.g. ``{"g": 8}`` for OLH's hash range or ``{"k": 3}`` for SS's subset size;
        stored as sorted pairs so that configs stay hashable. Absent: the defaults.
    true_counts : tuple of int, optional
        Explicit true counts (then ``dataset`` is only a name); rescaled to ``n``.
    labels : tuple of str, optional
        Value labels for ``true_counts``.
    groups : tuple of str, optional
        The group of each value of ``true_counts`` (for group queries).

    Examples
    --------
    >>> a = ExperimentConfig(dataset="Zipf:d=8,s=1", n=100, protocol="olh", epsilon=1, query="Full")
    >>> a == ExperimentConfig(dataset="zipf:d=8,s=1.0", n=100, protocol="OLH", epsilon=1.0)
    True
    """

    dataset: DatasetSpec
    n: int
    protocol: str
    epsilon: float
    methods: tuple[str, ...]
    query: QuerySpec
    trials: int
    seed: int
    sampler: str
    params: tuple[tuple[str, int], ...]
    true_counts: tuple[int, ...] | None
    labels: tuple[str, ...] | None
    groups: tuple[str, ...] | None

    def __init__(
        self,
        *,
        dataset: str | DatasetSpec,
        n: int,
        protocol: str,
        epsilon: float,
        methods: Sequence[str] | None = None,
        query: str | QuerySpec = "full",
        trials: int = 30,
        seed: int = 0,
        sampler: str = "fast",
        params: tuple[tuple[str, int], ...] | Mapping[str, int] = (),
        true_counts: Sequence[int] | None = None,
        labels: Sequence[str] | None = None,
        groups: Sequence[str] | None = None,
    ) -> None:
        # Valid from birth: every field is checked here, with the messages the command
        # line prints, so a bad config fails where it is written, not deep in a run.
        # Specs are parsed here, once, into typed values, and names are normalised, so
        # equal settings are equal configs (one fingerprint, one cache entry). What needs
        # the data (k <= d, a protocol's parameter against d) waits for build().
        setting = object.__setattr__
        setting(self, "protocol", resolve_protocol_name(protocol))
        setting(self, "epsilon", check_epsilon(epsilon))
        setting(self, "n", check_n_users(n))
        if true_counts is None:
            setting(self, "dataset", parse_dataset_spec(dataset))
            setting(self, "true_counts", None)
            setting(self, "labels", None)
            setting(self, "groups", None)
        else:
            # dataclasses.replace passes the stored spec back in: keep its name.
            name = dataset.name if isinstance(dataset, ExplicitCounts) else dataset
            if not isinstance(name, str):
                raise InputError(f"dataset must be a name, got {name!r}")
            explicit = ExplicitCounts(
                name,
                _tuple(true_counts),
                None if labels is None else _tuple(labels),
                None if groups is None else _tuple(groups),
            )
            setting(self, "dataset", explicit)
            setting(self, "true_counts", explicit.counts)
            setting(self, "labels", explicit.labels)
            setting(self, "groups", explicit.groups)
        setting(self, "query", parse_query_spec(query))
        given = params
        if isinstance(given, Mapping):
            given = tuple(given.items())
        try:
            pairs = dict(given)
        except (TypeError, ValueError):
            raise InputError(f"params must map parameter names to values, got {given!r}") from None
        checked = check_protocol_parameters(self.protocol, pairs)
        setting(self, "params", tuple(sorted(checked.items())))
        if methods is None:
            methods = default_method_names()
        if isinstance(methods, str):
            methods = (methods,)
        resolved = tuple(dict.fromkeys(resolve_method_name(m) for m in methods))
        if not resolved:
            raise InputError("methods must name at least one post-processing method")
        setting(self, "methods", resolved)
        limits = {"minimum": bounds.TRIALS_MIN, "maximum": bounds.TRIALS_MAX}
        setting(self, "trials", check_int(trials, name="trials", **limits))
        setting(self, "seed", check_int(seed, name="seed", minimum=0))
        if sampler not in SAMPLERS:
            raise InputError(f"sampler must be one of {', '.join(SAMPLERS)}; got {sampler!r}")
        setting(self, "sampler", sampler)

    @classmethod
    def from_dataset(
        cls,
        dataset: Dataset,
        *,
        n: int,
        protocol: str,
        epsilon: float,
        query: str | QuerySpec = "full",
        methods: tuple[str, ...] | None = None,
        trials: int = 20,
        seed: int = 0,
    ) -> ExperimentConfig:
        """An experiment on a dataset's own counts (rescaled to ``n``), labels and groups."""
        return cls(
            dataset=dataset.name,
            n=n,
            protocol=protocol,
            epsilon=epsilon,
            methods=methods or default_method_names(),
            query=query,
            trials=trials,
            seed=seed,
            true_counts=tuple(int(c) for c in dataset.counts),
            labels=dataset.labels,
            groups=dataset.groups,
        )

    def build(self) -> tuple[Dataset, FrequencyOracle, Query]:
        """The dataset, protocol and query, from the typed values (no text is parsed)."""
        data = self.dataset.build(self.n)
        protocol = get_protocol(
            self.protocol, epsilon=self.epsilon, domain_size=data.domain_size, **dict(self.params)
        )
        return data, protocol, self.query.build(data, seed=self.seed)

    @cached_property
    def fingerprint(self) -> str:
        """A digest that differs whenever any field does (SHA-256 of the pickled fields).

        For caches keyed on configs: hashing the explicit counts element by element
        (as generic hashers do) takes over a second at d = 200,000; this takes
        milliseconds, once per config object.

        Examples
        --------
        >>> a = ExperimentConfig(dataset="zipf:d=8,s=1", n=100, protocol="OLH", epsilon=1.0)
        >>> a.fingerprint == dataclasses.replace(a).fingerprint
        True
        >>> a.fingerprint == dataclasses.replace(a, epsilon=2.0).fingerprint
        False
        """
        # Pickle is unambiguous (a label holding a separator cannot merge two labels)
        # and deterministic for these plain values. Specs enter as their kind and
        # canonical text (not pickled: a loaded spec carries its counts in its cache);
        # explicit counts are the fields true_counts, labels and groups.
        values = tuple(
            _plain_field(getattr(self, field.name)) for field in dataclasses.fields(self)
        )
        digest = hashlib.sha256(pickle.dumps(values, protocol=5))
        return digest.hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """The config as plain JSON-ready values (explicit counts summarised)."""
        # Each declared protocol parameter is its own key (null when not set), where the
        # JSON contract has always had "g" and "k".
        given = dict(self.params)
        plain: dict[str, Any] = {}
        for key in (field.name for field in dataclasses.fields(self)):
            value = getattr(self, key)
            if key == "params":
                plain |= {name: given.get(name) for name in protocol_parameters()}
            elif key in {"dataset", "query"}:
                plain[key] = str(value)
            else:
                plain[key] = list(value) if key == "methods" else value
        if self.true_counts is not None:
            plain["true_counts"] = f"{len(self.true_counts)} explicit counts"
            plain["labels"] = None
            plain["groups"] = None
        return plain


@dataclass(frozen=True)
class ExperimentResult:
    """The outcome of :func:`run`.

    Attributes
    ----------
    config : ExperimentConfig
    summary : DataFrame
        One row per method: ``mse, mse_std, bias_sq, variance, mae, max_error, tv, kl,
        equivalent_users``.
    per_item : DataFrame
        One row per (method, answer): ``truth, mean, bias, variance, mse``.
    analytic : dict
        ``base_mse`` (Eq. 3, exact for single-value queries; None for set-type ones) and
        ``lower_bound`` (reading note 8).
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

        frames = [
            pd.DataFrame(
                {"method": name, "item": list(self.labels), "truth": self.truth}
                | per_answer(self.answers[row], self.truth)
            )
            for row, name in enumerate(self.config.methods)
        ]
        return pd.concat(frames, ignore_index=True)

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


def _tuple(values: Sequence[Any]) -> tuple[Any, ...]:
    # Explicit counts, labels and groups are stored as tuples (hashable, as configs are keys).
    if isinstance(values, str):
        raise InputError(f"expected a sequence of values, got the text {values!r}")
    try:
        return tuple(values)
    except TypeError:
        raise InputError(f"expected a sequence of values, got {values!r}") from None


def _plain_field(value: object) -> object:
    if isinstance(value, DatasetSpec | QuerySpec):
        return (type(value).__name__, str(value))
    return value


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
    answers = np.empty((len(methods), len(indices), len(query.labels)))
    tv = np.empty((len(methods), len(indices)))
    kl = np.empty((len(methods), len(indices)))
    stuck = np.zeros((len(methods), len(indices)))  # 1 where a method hit its iteration cap
    for column, index in enumerate(indices):
        rng = trial_generator(config.seed, index)
        tallies = protocol.sample_tallies(data.counts, rng, sampler=config.sampler)  # type: ignore[arg-type]
        estimate = protocol.estimate(protocol.support_from_tallies(tallies), n)
        outputs: dict[str, NDArray[np.float64]] = {}
        for row, method in enumerate(methods):
            parent = outputs.get(method.derived_from or "")
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", NotConverged)
                if parent is not None:  # e.g. PowerNS reuses this trial's Power output
                    vector = method.from_parent(parent)
                else:
                    vector = method(estimate, protocol=protocol, n=n, tallies=tallies)
            stuck[row, column] = any(issubclass(w.category, NotConverged) for w in caught)
            outputs[method.name] = vector
            answers[row, column] = query.answer(vector, clamp=method.answers_only)
            tv[row, column] = total_variation(vector, truth_vector)
            kl[row, column] = kl_divergence(truth_vector, vector)
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
    """
    data, protocol, query = config.build()  # validate before any work is sent out
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
        rows.append(
            dataclasses.asdict(summary)
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
        "lower_bound": lower_bound(protocol.epsilon, data.n),
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


#: Sweep parameters that rewrite a spec rather than a config field.
_SPEC_PARAMETERS = {"d", "rho", "topk"}


def sweep(
    config: ExperimentConfig,
    parameter: str,
    values: Sequence[Any],
    *,
    executor: Executor | None = None,
    workers: int = 1,
    progress: Progress | None = None,
    keep_trials: bool = False,
) -> pd.DataFrame:
    """Run ``config`` once per value of ``parameter`` and stack the summaries.

    With ``keep_trials`` a ``trial_mse`` column holds each row's per-trial MSE (an
    array over the trials, the same trials at every point), for paired resampling.

    ``parameter`` is a config field (``epsilon``, ``n``, ``protocol``, ``trials``, …),
    or ``d`` (the synthetic dataset's domain size), ``rho`` (set queries) or ``topk``
    (the k of a top-k query). Each point uses the same seed, so curves are smooth in
    the parameter (common random numbers).
    """
    import pandas as pd  # noqa: PLC0415

    frames = []
    total = len(values) * config.trials
    for position, value in enumerate(values):
        point = with_parameter(config, parameter, value)

        def report(done: int, _total: int, offset: int = position * config.trials) -> None:
            if progress is not None:
                progress(offset + done, total)

        result = run(
            point,
            executor=executor,
            workers=workers,
            progress=report if progress is not None else None,
        )
        frame = result.summary.copy()
        frame.insert(0, parameter, value)
        frame["base_mse"] = result.analytic["base_mse"]
        frame["lower_bound"] = result.analytic["lower_bound"]
        if keep_trials:
            frame["trial_mse"] = list(result.trial_errors)
        frames.append(frame)
    return pd.concat(frames, ignore_index=True)


def with_parameter(config: ExperimentConfig, parameter: str, value: Any) -> ExperimentConfig:
    """``config`` with one parameter changed (a field, or ``d``, ``rho``, ``topk``)."""
    if parameter == "rho":
        samples = config.query.samples if isinstance(config.query, SetQuery) else 10
        return dataclasses.replace(config, query=SetQuery(value, samples))
    if parameter == "topk":
        return dataclasses.replace(config, query=TopKQuery(value))
    if parameter == "d":
        return dataclasses.replace(config, dataset=config.dataset.with_domain_size(value))
    fields = {f.name for f in dataclasses.fields(ExperimentConfig)}
    if parameter not in fields:
        valid = ", ".join(sorted(fields | _SPEC_PARAMETERS))
        raise InputError(f"cannot sweep {parameter!r}; valid parameters are: {valid}")
    return dataclasses.replace(config, **{parameter: value})
