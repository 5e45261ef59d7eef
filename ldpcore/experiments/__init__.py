"""Simulated experiments: a config in, tidy tables out, one seed for every number.

* :mod:`~ldpcore.experiments.config` — :class:`ExperimentConfig`, the settings of a
  run, checked and normalised once;
* :mod:`~ldpcore.experiments.trials` — :func:`run`: the trials (on any executor, bit
  for bit the same however split), their errors, the summary and the paired
  comparisons with Base;
* :mod:`~ldpcore.experiments.metrics` — error summaries, equivalent users and the
  lower bound;
* :mod:`~ldpcore.experiments.sweeps` — one parameter swept, and the grids of a sweep
  file;
* :mod:`~ldpcore.experiments.cluster` — the Dask cluster that runs sweeps and
  aggregates report files.

Above the data, queries, protocols, methods and statistics it combines (and the report
files the cluster aggregates); below the advice, which decides from its tables.
"""

from __future__ import annotations

from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.sweeps import sweep, with_parameter
from ldpcore.experiments.trials import ExperimentResult, exact_base_mse, run

__all__ = [
    "ExperimentConfig",
    "ExperimentResult",
    "exact_base_mse",
    "run",
    "sweep",
    "with_parameter",
]
