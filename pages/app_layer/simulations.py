"""The app's simulations as plain functions, so a worker process can run them.

No streamlit here: the server's worker processes (``executors.simulation_processes``)
import this module and nothing of the app.
"""

from __future__ import annotations

import os
import select
import threading
import time
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


def end_with(server: int) -> None:
    """A worker's initializer: end this process when the server process ``server`` ends.

    The workers are forked from a fork server, not from the server, and each holds both
    ends of its task queue, so a server killed outright (SIGKILL, out of memory) left
    them waiting for tasks forever (issue 53: a forkserver, two workers and the resource
    tracker, about 790 MB, a minute after). A thread here waits on the server's process
    (a pidfd where the system has one; else a check each half second) and exits.
    """
    threading.Thread(target=_wait_for, args=(server,), name="ldpcore-end-with", daemon=True).start()


def _wait_for(server: int) -> None:
    try:
        handle = os.pidfd_open(server)
    except (AttributeError, OSError):
        handle = -1
    if handle >= 0:
        # Readable once the process has ended (Linux 5.3 and later).
        select.select([handle], [], [])
    else:
        while True:
            try:
                os.kill(server, 0)
            except ProcessLookupError:
                break
            except PermissionError:  # someone else's process now holds the number
                break
            time.sleep(0.5)
    os._exit(0)
