"""The app's simulations as plain functions, so a worker process can run them.

No streamlit here: the server's worker processes (``executors.simulation_processes``)
import this module and nothing of the app.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from ldpcore.advice import rank_methods
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.present.sentences import query_in_words


def simulate_tables(
    config: ExperimentConfig,
    *,
    executor: Executor | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> dict[str, Any]:
    """Run one configuration; return its plain tables, and the paired ranking when Base
    is run with other methods.

    ``executor`` and ``progress`` are :func:`ldpcore.experiments.trials.run`'s: the
    trials in chunks, reported as they finish (the numbers do not depend on either).
    """
    result = run(config, executor=executor, progress=progress)
    ranking = None
    if "Base" in config.methods and len(config.methods) > 1:
        ranking = rank_methods(result, config.oracle(), query_words=query_in_words(config.query))
    return {
        "summary": result.summary,
        "per_item": result.per_item,
        "analytic": result.analytic,
        "labels": result.labels,
        "ranking": ranking,
    }
