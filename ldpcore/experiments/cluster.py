"""Running on Dask: a local cluster or an existing scheduler, with no code change.

``--dask local:N`` starts a ``LocalCluster`` of N single-threaded worker processes on
127.0.0.1; ``--dask tcp://HOST:PORT`` connects to a running scheduler. The work
sent is the same function that runs locally (:func:`ldpcore.collection.report_files.aggregate_file`,
:func:`ldpcore.experiments.trials.run`), so results are identical wherever they run.
Dask is an optional dependency (the ``cluster`` extra).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ldpcore.collection.report_files import CHUNK_ROWS, aggregate_file, empty_tallies
from ldpcore.errors import InputError
from ldpcore.extras import install_hint
from ldpcore.protocols import FrequencyOracle

#: Seconds to wait for a scheduler before saying it cannot be reached.
CONNECT_TIMEOUT = 10
_SPEC = re.compile(r"^(local:(?P<workers>\d+)|(?P<address>tcp://[^\s:/]+:\d+))$")


def parse_dask(spec: str) -> tuple[str, int | str]:
    """``("local", N)`` or ``("tcp", "tcp://HOST:PORT")`` from a ``--dask`` value.

    Examples
    --------
    >>> parse_dask("local:2")
    ('local', 2)
    """
    match = _SPEC.match(spec.strip()) if isinstance(spec, str) else None
    if match is None:
        raise InputError(f"--dask must be local:N or tcp://HOST:PORT, got {spec!r}")
    if match["workers"] is not None:
        workers = int(match["workers"])
        if not 1 <= workers <= 256:
            raise InputError(f"--dask local:N needs 1 <= N <= 256, got {workers}")
        return "local", workers
    return "tcp", match["address"]


def _import_distributed() -> Any:
    try:
        import distributed  # noqa: PLC0415 (optional dependency)
    except ImportError:
        raise InputError(install_hint("distributed")) from None
    return distributed


@contextmanager
def dask_client(spec: str, *, timeout: float = CONNECT_TIMEOUT) -> Iterator[Any]:
    """A ``distributed.Client`` for ``spec``; a local cluster is closed on exit."""
    client = open_client(spec, timeout=timeout)
    distributed = _import_distributed()
    try:
        yield client
    except distributed.KilledWorker as exc:
        # The scheduler already retried the task on other workers (a worker killed once
        # is replaced and its tasks rerun, giving the same answer); this is the case where
        # every worker that tried it died.
        raise InputError(
            f"every Dask worker that ran a task died running it, retries included ({exc}); "
            "nothing was written. The workers may be running out of "
            "memory: give them more, or split the input into smaller files or grid points."
        ) from None
    finally:
        cluster = client.cluster  # set only when this client started a local cluster
        client.close()
        if cluster is not None:
            cluster.close()


#: Environment variable that points the app's long runs at a cluster (local:N or tcp://…).
ENVIRONMENT = "LDPCORE_DASK"


def configured() -> str | None:
    """The cluster the app should use (``$LDPCORE_DASK``), or None for this process."""
    spec = os.environ.get(ENVIRONMENT, "").strip()
    return spec or None


def open_client(spec: str, *, timeout: float = CONNECT_TIMEOUT) -> Any:
    """A long-lived client (the app keeps one per server); the caller owns closing it."""
    kind, target = parse_dask(spec)
    distributed = _import_distributed()
    if kind == "local":
        cluster = distributed.LocalCluster(
            n_workers=int(target),
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            # Port 0: the OS picks a free port for the scheduler's HTTP routes (health,
            # metrics; "None" still bound the fixed default 8787, clashing with any other
            # Dask cluster on the machine).
            dashboard_address="127.0.0.1:0",
            silence_logs=40,
        )
        return distributed.Client(cluster)
    try:
        return distributed.Client(str(target), timeout=timeout)
    except (OSError, TimeoutError) as exc:
        raise InputError(f"cannot reach the Dask scheduler at {target}: {exc}") from None


def where(client: Any) -> str:
    """Where work runs, in words (for the command line and the app)."""
    workers = len(client.scheduler_info().get("workers", {}))
    return f"Dask scheduler {client.scheduler.address} with {workers} worker(s)"


def aggregate_on_dask(
    client: Any, protocol: FrequencyOracle, files: list[Path], *, chunk_rows: int = CHUNK_ROWS
) -> tuple[NDArray[np.int64], int]:
    """Tallies over many report files, one Dask task per file (streamed there).

    The support counts, then the protocol's tally columns (:func:`aggregate_file`).
    """
    futures = client.map(
        aggregate_file,
        [protocol] * len(files),
        [str(f) for f in files],
        chunk_rows=chunk_rows,
        pure=False,
    )
    total = empty_tallies(protocol)
    users = 0
    for counts, count in client.gather(futures):
        total += counts
        users += count
    return total, users
