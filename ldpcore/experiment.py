"""Reproducible simulations: a frozen config in, tidy tables out (NDSS 2020, Section V).

One integer seed drives everything: trial ``i`` uses the ``i``-th child of
``SeedSequence(seed)`` (built directly as ``SeedSequence(seed, spawn_key=(i,))``), so
the numbers are bit-identical however the trials are split across processes or
machines. Work runs on any ``concurrent.futures.Executor``; by default in-process.
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
from ldpcore._validation import check_counts, check_epsilon, check_int, check_n_users
from ldpcore.compare import compare, trial_mse
from ldpcore.datasets import Dataset, check_dataset_spec, parse_dataset, rescale
from ldpcore.errors import InputError
from ldpcore.metrics import (
    analytic_base_mse,
    equivalent_users,
    kl_divergence,
    lower_bound,
    per_answer,
    summarize_errors,
    total_variation,
)
from ldpcore.postprocess import get_method, method_names, resolve_method_name
from ldpcore.postprocess.ibu import NotConverged
from ldpcore.protocols import (
    SAMPLERS,
    FrequencyOracle,
    check_protocol_parameters,
    get_protocol,
    protocol_parameters,
    resolve_protocol_name,
)
from ldpcore.queries import Query, check_query_spec, parse_query

if TYPE_CHECKING:  # pandas costs ~0.3 s to import; the JSON path of the CLI skips it
    import pandas as pd

#: The columns of :attr:`ExperimentResult.summary`.
SUMMARY_COLUMNS = (
    "method",
    "mse",
    "mse_std",
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

#: Called as ``progress(done, total)`` while trials finish.
Progress = Callable[[int, int], None]


@dataclass(frozen=True, kw_only=True)
class ExperimentConfig:
    """Everything that determines a simulation's numbers.

    Parameters
    ----------
    dataset : str
        ``zipf:d=D,s=S``, ``uniform:d=D`` or ``file:PATH`` (see
        :func:`ldpcore.datasets.parse_dataset`); a file is rescaled to ``n``.
    n : int
        Number of users.
    protocol : str
        Registry name of the frequency oracle.
    epsilon : float
        Privacy budget.
    methods : tuple of str
        Post-processing methods (default: all).
    query : str
        ``full``, ``topk:k=K``, ``set:rho=R[,samples=M]``, ``groups`` or ``prefix``.
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
    """

    dataset: str
    n: int
    protocol: str
    epsilon: float
    methods: tuple[str, ...] = dataclasses.field(default_factory=method_names)
    query: str = "full"
    trials: int = 30
    seed: int = 0
    sampler: str = "fast"
    # A mapping is accepted and stored as sorted pairs (hashable, as configs are keys).
    params: tuple[tuple[str, int], ...] | Mapping[str, int] = ()
    true_counts: tuple[int, ...] | None = None
    labels: tuple[str, ...] | None = None
    groups: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        # Valid from birth: every field is checked here, with the messages the command
        # line prints, so a bad config fails where it is written, not deep in a run.
        # What needs the data (k <= d, a protocol's parameter against d) waits for build().
        # Names are normalised so equal configs compare (and cache) equal.
        object.__setattr__(self, "protocol", resolve_protocol_name(self.protocol))
        object.__setattr__(self, "epsilon", check_epsilon(self.epsilon))
        object.__setattr__(self, "n", check_n_users(self.n))
        if self.true_counts is None:
            check_dataset_spec(self.dataset)
        elif not isinstance(self.dataset, str):
            raise InputError(f"dataset must be a name, got {self.dataset!r}")
        else:
            self._check_explicit()
        check_query_spec(self.query)
        given = self.params
        if isinstance(given, Mapping):
            given = tuple(given.items())
        try:
            pairs = dict(given)
        except (TypeError, ValueError):
            raise InputError(f"params must map parameter names to values, got {given!r}") from None
        checked = check_protocol_parameters(self.protocol, pairs)
        object.__setattr__(self, "params", tuple(sorted(checked.items())))
        methods = tuple(dict.fromkeys(resolve_method_name(m) for m in self.methods))
        if not methods:
            raise InputError("methods must name at least one post-processing method")
        object.__setattr__(self, "methods", methods)
        object.__setattr__(
            self,
            "trials",
            check_int(
                self.trials, name="trials", minimum=bounds.TRIALS_MIN, maximum=bounds.TRIALS_MAX
            ),
        )
        object.__setattr__(self, "seed", check_int(self.seed, name="seed", minimum=0))
        if self.sampler not in SAMPLERS:
            raise InputError(f"sampler must be one of {', '.join(SAMPLERS)}; got {self.sampler!r}")

    @classmethod
    def from_dataset(
        cls,
        dataset: Dataset,
        *,
        n: int,
        protocol: str,
        epsilon: float,
        query: str = "full",
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
            methods=methods or method_names(),
            query=query,
            trials=trials,
            seed=seed,
            true_counts=tuple(int(c) for c in dataset.counts),
            labels=dataset.labels,
            groups=dataset.groups,
        )

    def _check_explicit(self) -> None:
        assert self.true_counts is not None
        d = len(self.true_counts)
        for name in ("labels", "groups"):
            given = getattr(self, name)
            if given is not None and len(given) != d:
                raise InputError(
                    f"{name} must have one entry per value of true_counts ({d}), got {len(given)}"
                )
        counts = check_counts(self.true_counts, name="true_counts", length=d)
        if counts.sum() == 0:
            raise InputError("true_counts must hold at least one user (they are all 0)")

    def build(self) -> tuple[Dataset, FrequencyOracle, Query]:
        """Resolve the dataset, protocol and query (validating every parameter)."""
        if self.true_counts is not None:
            counts = check_counts(
                self.true_counts, name="true_counts", length=len(self.true_counts)
            )
            labels = self.labels or tuple(str(i) for i in range(counts.size))
            data = Dataset(self.dataset, labels, counts, self.groups)
            data = data if data.n == self.n else rescale(data, check_n_users(self.n))
        else:
            data = parse_dataset(self.dataset, self.n)
        protocol = get_protocol(
            self.protocol, epsilon=self.epsilon, domain_size=data.domain_size, **dict(self.params)
        )
        query = parse_query(
            self.query,
            true_frequencies=data.frequencies(),
            group_of_value=data.groups,
            seed=self.seed,
            labels=data.labels,
        )
        return data, protocol, query

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
        # and deterministic for these plain values.
        values = tuple(getattr(self, field.name) for field in dataclasses.fields(self))
        digest = hashlib.sha256(pickle.dumps(values, protocol=5))
        return digest.hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """The config as plain JSON-ready values (explicit counts summarised)."""
        # Each declared protocol parameter is its own key (null when not set), where the
        # JSON contract has always had "g" and "k".
        given = dict(self.params)
        plain: dict[str, Any] = {}
        for key, value in dataclasses.asdict(self).items():
            if key == "params":
                plain |= {name: given.get(name) for name in protocol_parameters()}
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
    """

    config: ExperimentConfig
    rows: tuple[dict[str, Any], ...]
    analytic: dict[str, float | None]
    answers: NDArray[np.float64]
    truth: NDArray[np.float64]
    labels: tuple[str, ...]

    @cached_property
    def summary(self) -> pd.DataFrame:
        """One row per method (built on first use)."""
        import pandas as pd  # noqa: PLC0415

        return pd.DataFrame(list(self.rows))[list(SUMMARY_COLUMNS)]

    @cached_property
    def trial_errors(self) -> NDArray[np.float64]:
        """Per-trial MSE of each method, shape ``(methods, trials)``.

        The paired samples :mod:`ldpcore.compare` compares: every method saw the same trials.
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
        """The ``simulate --format json`` contract (see DESIGN.md, "The command line")."""
        keys = ("method", "mse", "mse_std", "bias_sq", "variance", "converged")
        return {
            "config": self.config.to_dict(),
            "analytic": self.analytic,
            "results": [{key: _plain(row[key]) for key in keys} for row in self.rows],
        }


def _plain(value: object) -> object:
    return float(value) if isinstance(value, np.floating) else value


def trial_generator(seed: int, index: int) -> np.random.Generator:
    """The generator of trial ``index``: the ``index``-th spawned child of ``seed``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(index,))))


def _run_trials(
    config: ExperimentConfig, indices: Sequence[int]
) -> tuple[NDArray[np.float64], ...]:
    """Answers, TV and KL of every method for the given trials (runs in any worker)."""
    data, protocol, query = config.build()
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
    chunks = _chunks(config.trials, max(1, workers) if executor is not None else 1)
    results: list[tuple[NDArray[np.float64], ...]] = []
    done = 0
    if executor is None:
        parts: Iterable[tuple[NDArray[np.float64], ...]] = (_run_trials(config, c) for c in chunks)
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
    paired = _paired_to_base(config.methods, trial_mse(answers, truth), protocol)
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
                if query.kind == "full"
                else math.nan,
                # Share of trials whose iterative method converged (1 for the others).
                "converged": float(1.0 - stuck[row].mean()),
            }
            | paired[name]
        )
    single_values = query.kind in {"full", "topk"}
    base_mse = None
    if single_values:
        index = np.concatenate(query.members)
        base_mse = analytic_base_mse(protocol, data.frequencies(), data.n, values=index)
    analytic: dict[str, float | None] = {
        "base_mse": base_mse,
        "lower_bound": lower_bound(protocol.epsilon, data.n),
    }
    return ExperimentResult(config, tuple(rows), analytic, answers, truth, query.labels)


def _paired_to_base(
    methods: Sequence[str], errors: NDArray[np.float64], protocol: FrequencyOracle
) -> dict[str, dict[str, Any]]:
    """Each method's MSE ratio to Base on the same trials, with its interval and outcome.

    Simultaneous over the methods (:func:`ldpcore.compare.compare`); declared no-ops
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
        return paired
    paired["Base"] = {
        "mse_ratio_to_base": 1.0,
        "ratio_low": 1.0,
        "ratio_high": 1.0,
        "mse_vs_base": "reference",
    }
    no_ops = [name for name in methods if get_method(name).is_no_op(protocol)]
    for found in compare(errors, list(methods), reference="Base", no_ops=no_ops):
        paired[found.method] = {
            "mse_ratio_to_base": found.ratio,
            "ratio_low": found.low,
            "ratio_high": found.high,
            "mse_vs_base": found.outcome,
        }
    return paired


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

        result = run(point, executor=executor, workers=workers, progress=report)
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
        return dataclasses.replace(config, query=f"set:rho={value}")
    if parameter == "topk":
        return dataclasses.replace(config, query=f"topk:k={value}")
    if parameter == "d":
        kind, _, rest = config.dataset.partition(":")
        if kind not in {"zipf", "uniform"}:
            raise InputError("sweeping d needs a synthetic dataset (zipf:… or uniform:…)")
        options = [part for part in rest.split(",") if part and not part.startswith("d=")]
        return dataclasses.replace(config, dataset=f"{kind}:" + ",".join([f"d={value}", *options]))
    fields = {f.name for f in dataclasses.fields(ExperimentConfig)}
    if parameter not in fields:
        valid = ", ".join(sorted(fields | _SPEC_PARAMETERS))
        raise InputError(f"cannot sweep {parameter!r}; valid parameters are: {valid}")
    return dataclasses.replace(config, **{parameter: value})
