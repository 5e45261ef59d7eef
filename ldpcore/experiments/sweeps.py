"""Parameter grids from a TOML file, run locally or on any ``concurrent.futures`` executor.

A sweep file names lists to cross (every key optional except ``dataset``)::

    dataset = "zipf:d=1024,s=1.5"   # a dataset spec (see ldpcore.data.specs.parse_dataset)
    protocols = ["OLH", "OUE"]
    epsilons = [0.5, 1.0, 2.0]
    ns = [100000, 1000000]
    domain_sizes = [256, 1024]      # synthetic datasets only: replaces d in the spec
    methods = ["Base", "Norm-Sub"]  # or "all"
    queries = ["full", "topk:k=10"]
    trials = 30
    seed = 0

Each grid point is one :func:`ldpcore.experiments.trials.run`; a point's trials use the
seed's spawned children by index, so a point gives bit-identical numbers wherever
it runs. With an executor (e.g. ``distributed.Client.get_executor()``) the points
run in parallel, one task each.
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import tomllib
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ldpcore._files import replacing
from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import Progress, run
from ldpcore.postprocess import default_method_names, runnable_methods
from ldpcore.queries.specs import SetQuery, TopKQuery

if TYPE_CHECKING:  # pandas costs ~0.3 s to import; loaded where a frame is built
    import pandas as pd

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
        bound = result.analytic["lower_bound"]
        frame["lower_bound"] = math.nan if bound is None else bound
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
    if parameter == "protocol":
        # Across protocols each runs the methods it can (SW has no support counts for
        # Power to read); Base always can. "All" methods are each protocol's own (the
        # consistency step on a tree, EMS on SW: experiments.scope's rule).
        if tuple(config.methods) == default_method_names(config.protocol):
            methods = default_method_names(value)
        else:
            methods = runnable_methods(config.methods, value)[0] or ("Base",)
        return dataclasses.replace(config, protocol=value, methods=methods)
    return dataclasses.replace(config, **{parameter: value})


#: Keys a sweep file may set, with their defaults (None: required).
KEYS: dict[str, Any] = {
    "dataset": None,
    "protocols": ["OLH"],
    "epsilons": [1.0],
    "ns": [1_000_000],
    "domain_sizes": [],
    "methods": "all",
    "queries": ["full"],
    "trials": 30,
    "seed": 0,
}


def read_sweep(path: Path) -> list[ExperimentConfig]:
    """The grid points of a sweep file, validated (``ValueError`` naming the problem)."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"sweep file {str(path)!r} does not exist")
    try:
        spec = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(f"{str(path)!r} is not valid TOML: {exc}") from None
    return grid(spec, source=str(path))


def grid(spec: dict[str, Any], *, source: str = "the sweep") -> list[ExperimentConfig]:
    """Cross the lists of ``spec`` into experiment configurations."""
    unknown = set(spec) - set(KEYS)
    if unknown:
        raise InputError(
            f"{source}: unknown key(s) {', '.join(sorted(unknown))}; allowed: {', '.join(KEYS)}"
        )
    values = {key: spec.get(key, default) for key, default in KEYS.items()}
    if not isinstance(values["dataset"], str):
        raise InputError(f"{source}: 'dataset' is required, e.g. dataset = \"zipf:d=1024,s=1.5\"")
    for key in ("protocols", "epsilons", "ns", "domain_sizes", "queries"):
        if not isinstance(values[key], list) or (key != "domain_sizes" and not values[key]):
            raise InputError(f"{source}: '{key}' must be a non-empty list")
    methods = values["methods"]
    if methods != "all" and (not isinstance(methods, list | tuple) or not methods):
        raise InputError(f"{source}: 'methods' must be \"all\" or a non-empty list")
    sizes = values["domain_sizes"] or [None]
    points = []
    for protocol, epsilon, n, d, query in itertools.product(
        values["protocols"], values["epsilons"], values["ns"], sizes, values["queries"]
    ):
        try:
            config = ExperimentConfig(
                dataset=values["dataset"],
                n=n,
                protocol=protocol,
                epsilon=epsilon,
                # "all": each protocol's own methods (the rule every surface follows).
                methods=default_method_names(protocol) if methods == "all" else tuple(methods),
                query=query,
                trials=values["trials"],
                seed=values["seed"],
            )
            points.append(config if d is None else with_parameter(config, "d", d))
        except (ValueError, TypeError) as exc:
            raise InputError(f"{source}: {exc}") from None
    return points


def _summary(config: ExperimentConfig) -> pd.DataFrame:
    """One grid point's summary with its parameters (module level: picklable for workers)."""
    result = run(config)
    frame = result.summary.copy()
    for position, (key, value) in enumerate(
        [
            # The specs as their canonical text: a table's cell, in CSV and Parquet alike.
            ("dataset", str(config.dataset)),
            ("protocol", config.protocol),
            ("epsilon", config.epsilon),
            ("n", config.n),
            ("query", str(config.query)),
            ("trials", config.trials),
            ("seed", config.seed),
        ]
    ):
        frame.insert(position, key, value)
    return frame


def run_sweep(
    points: list[ExperimentConfig],
    *,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """Every grid point's summary, stacked in grid order."""
    import pandas as pd  # noqa: PLC0415

    frames: list[pd.DataFrame] = []
    if executor is None:
        for done, point in enumerate(points, start=1):
            frames.append(_summary(point))
            if progress is not None:
                progress(done, len(points))
    else:
        futures = [executor.submit(_summary, point) for point in points]
        for done, future in enumerate(futures, start=1):
            frames.append(future.result())
            if progress is not None:
                progress(done, len(points))
    return pd.concat(frames, ignore_index=True)


def write_table(frame: pd.DataFrame, path: Path) -> None:
    """Write results as Parquet (``.parquet``) or CSV (``.csv``)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in {".parquet", ".csv"}:
        raise InputError(f"--out {str(path)!r} must end in .parquet or .csv")
    with replacing(path, what="--out") as temporary:
        if suffix == ".parquet":
            frame.to_parquet(temporary, index=False)
        else:
            frame.to_csv(temporary, index=False)
