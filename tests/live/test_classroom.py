"""A small class on the real server (``benchmarks/bench_classroom.py`` at N = 5).

Five protocol clients open the Explorer on ``streamlit run`` (127.0.0.1, a free port)
and move ε together: (a) to the same value, (b) each to its own. No timing is
asserted (shared machines are noisy; the timed runs are in benchmarks/README.md), only
that every session gets its own page, both charts and no error. Then isolation: one
session's toggle never changes another session's chart.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from devtools import classroom as bench_classroom
from devtools.serving import ROOT, Session, streamlit_server, toggle_state

pytestmark = pytest.mark.browser  # a real server, like the browser tests

ARTIFACTS = ROOT / "test-artifacts"


@pytest.fixture(scope="module")
def server() -> Iterator[tuple[str, int]]:
    with streamlit_server(ROOT / "app.py", ARTIFACTS / "classroom-test-server.log") as (
        url,
        process,
    ):
        asyncio.run(bench_classroom.warm(url))
        yield url, process.pid


def test_five_sessions_move_epsilon_together_and_each_sees_its_own_page(
    server: tuple[str, int],
) -> None:
    url, pid = server
    phases = asyncio.run(bench_classroom.classroom(url, pid, 5))
    assert [phase.phase for phase in phases] == ["open", "(a) same ε", "(b) different ε"]
    for phase in phases:
        assert phase.errors == [], phase
        assert phase.wrong_state == 0, phase
        assert phase.worst < 120, phase  # a hang, not a speed target
    ARTIFACTS.mkdir(exist_ok=True)
    (ARTIFACTS / "classroom-test.json").write_text(
        json.dumps([phase.__dict__ for phase in phases], indent=1)
    )


def _mse_chart(charts: list[str]) -> dict[str, Any]:
    return json.loads(charts[1])  # the Explorer draws the comparison, then the by-rank chart


async def _isolation(url: str) -> tuple[list[str], list[str], list[str], list[str]]:
    async with Session(url) as alice, Session(url) as bob:
        alice_before, bob_before = await asyncio.gather(alice.rerun(), bob.rerun())
        switch = alice_before.widgets["Every method"]
        alice_after = await alice.rerun([toggle_state(switch, True)])
        bob_after = await bob.rerun()
        return alice_before.charts, alice_after.charts, bob_before.charts, bob_after.charts


def test_one_session_s_toggle_never_changes_another_session_s_chart(
    server: tuple[str, int],
) -> None:
    url, _ = server
    alice_before, alice_after, bob_before, bob_after = asyncio.run(_isolation(url))
    assert _mse_chart(alice_after) != _mse_chart(alice_before), "the toggle did nothing"
    assert _mse_chart(bob_after) == _mse_chart(bob_before)
    assert bob_after == bob_before


def test_concurrent_requests_for_one_configuration_compute_it_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Thirty students at the same ε cost one simulation: the others wait for it."""
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415
    from ldpcore.serving import workers  # noqa: PLC0415
    from pages.app_layer.serving import cache, executors  # noqa: PLC0415

    calls = []
    real = cache.simulate_tables

    def counted(config: ExperimentConfig) -> dict[str, Any]:
        calls.append(config.fingerprint)
        time.sleep(0.5)  # long enough for every thread to ask while it runs
        return real(config)

    monkeypatch.setenv(workers.WORKERS_VARIABLE, "0")  # in-thread, so the count is visible
    monkeypatch.setattr(cache, "simulate_tables", counted)
    executors.simulation_processes.clear()
    cache.simulate.clear()
    config = ExperimentConfig(
        dataset="zipf:d=64,s=1.5", n=10_000, protocol="OLH", epsilon=1.5, trials=3, seed=11
    )
    results: list[Any] = []
    threads = [
        threading.Thread(target=lambda: results.append(cache.simulate(config))) for _ in range(8)
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 8
    assert calls == [config.fingerprint]
    executors.simulation_processes.clear()
    cache.simulate.clear()


def test_simulation_workers_get_one_blas_thread_and_the_server_keeps_its_own(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The fork server starts with every BLAS thread count at 1 (a worker per core is
    enough; OpenBLAS's spinning threads cost a class 10% more CPU), and the server's own
    environment is as it was afterwards."""
    import multiprocessing.forkserver  # noqa: PLC0415
    import os  # noqa: PLC0415

    from ldpcore.serving import BLAS_THREAD_VARIABLES, workers  # noqa: PLC0415
    from pages.app_layer import BLAS_THREAD_VARIABLES as LAUNCHER_VARIABLES  # noqa: PLC0415

    assert LAUNCHER_VARIABLES == BLAS_THREAD_VARIABLES  # the launcher pins the same ones

    seen: dict[str, str | None] = {}

    def record() -> None:
        seen.update({name: os.environ.get(name) for name in BLAS_THREAD_VARIABLES})

    monkeypatch.setattr(multiprocessing.forkserver, "ensure_running", record)
    monkeypatch.setenv("OMP_NUM_THREADS", "3")
    monkeypatch.delenv("OPENBLAS_NUM_THREADS", raising=False)
    workers.fork_server()
    assert seen == dict.fromkeys(BLAS_THREAD_VARIABLES, "1")
    assert os.environ["OMP_NUM_THREADS"] == "3" and "OPENBLAS_NUM_THREADS" not in os.environ


def test_make_run_s_server_has_one_blas_thread_before_numpy_loads() -> None:
    """OpenBLAS reads its thread count once, when numpy loads: ``launch.main`` must set it
    before anything imports numpy (it once set it just after, where it did nothing)."""
    import os  # noqa: PLC0415
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    probe = (
        "import builtins, os, sys\n"
        "import pages.app_layer.serving.launch as launch\n"
        "seen = {}\n"
        "real = builtins.__import__\n"
        "def spy(name, *args, **kwargs):\n"
        "    if name == 'numpy' and 'numpy' not in sys.modules and 'at' not in seen:\n"
        "        seen['at'] = os.environ.get('OPENBLAS_NUM_THREADS')\n"
        "    return real(name, *args, **kwargs)\n"
        "builtins.__import__ = spy\n"
        "launch.preload = lambda: sys.exit(0 if seen.get('at') == '1' else 3)\n"
        "launch.main([])\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", probe],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr.decode()[-2000:]


def test_the_fork_server_preloads_what_a_first_simulation_would_import() -> None:
    """A worker forked from the fork server runs its first simulation without importing
    scipy or pyarrow modules of its own (each worker once paid 0.3 s for them)."""
    import subprocess  # noqa: PLC0415
    import sys  # noqa: PLC0415

    probe = (
        "import importlib, sys\n"
        "from ldpcore.serving.workers import WORKER_PRELOAD\n"
        "import ldpcore.serving.tables as simulations\n"
        "for name in WORKER_PRELOAD: importlib.import_module(name)\n"
        "from ldpcore.experiments.trials import ExperimentConfig\n"
        "before = set(sys.modules)\n"
        "simulations.simulate_tables(ExperimentConfig(\n"
        "    dataset='zipf:d=64,s=1.5', n=10_000, protocol='OLH', epsilon=1.0, trials=3))\n"
        "late = sorted(m for m in set(sys.modules) - before\n"
        "              if m.split('.')[0] in ('scipy', 'pyarrow'))\n"
        "print(' '.join(late))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True
    )
    assert done.stdout.split() == [], done.stdout
