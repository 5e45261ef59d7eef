"""One configuration's run as the plain tables a page draws, and the launcher's warm-up.

A worker process runs :func:`simulate_tables` (the fork server imports this module
ahead, :func:`ldpcore.serving.workers.fork_server`), so it returns plain values that
pickle: tables and the paired ranking, never a figure.
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
    """Run one configuration: its plain tables, and the paired ranking with Base.

    The ranking is there when Base is run with other methods (None otherwise).
    ``executor`` and ``progress`` are :func:`ldpcore.experiments.trials.run`'s: the
    trials in chunks, reported as they finish (the numbers do not depend on either).
    The dataset, protocol and query are built once here and shared by the trials run
    in this process and the ranking (a protocol at d = 100,000 is not free to build).
    """
    built = config.build()
    result = run(config, executor=executor, progress=progress, built=built)
    ranking = None
    if "Base" in config.methods and len(config.methods) > 1:
        ranking = rank_methods(result, built[1], query_words=query_in_words(config.query))
    return {
        "summary": result.summary,
        "per_item": result.per_item,
        "analytic": result.analytic,
        "labels": result.labels,
        "ranking": ranking,
    }


def warm_code_paths() -> None:
    """Run a tiny experiment and build the Explorer's charts from it (about 0.3 s).

    Plotly loads a validator module per figure property on first use, and each method
    and scipy routine has first-call costs; paying them before the server listens took
    the Explorer's first chart on a fresh server from 4.0 s to the figures in
    benchmarks/README.md ("A first visit").
    """
    from ldpcore.present import figures  # noqa: PLC0415 - plotly loads only when asked

    tiny = ExperimentConfig(
        dataset="zipf:d=16,s=1.5", n=1_000, protocol="OLH", epsilon=1.0, trials=2
    )
    tables = simulate_tables(tiny)
    figures.estimates_by_rank(tables["per_item"], featured=figures.FEATURED)
    figures.error_breakdown(tables["summary"], recommended="Base").to_json()


__all__ = ["simulate_tables", "warm_code_paths"]
