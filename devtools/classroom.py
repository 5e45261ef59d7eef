"""A class on one server: N sessions open the Explorer and move ε, at the same moment.

The measurement behind ``benchmarks/bench_classroom.py`` and ``tests/live/test_classroom.py``.

Run: ``.venv/bin/python -m benchmarks.bench_classroom [--sessions 1 10 30]``.

It starts ``streamlit run app.py`` on a free port of 127.0.0.1 (never a fixed one), warms
it with one session (the teacher opening the page), then for each N:

- N sessions open the Explorer at the defaults (ε = 1, OLH, n = 10⁶, d = 1024);
- (a) **same ε**: all move ε to 2 at once. One configuration: computed once, the rest
  wait for it (Streamlit's cache holds one computation per key);
- (b) **different ε**: each moves to its own ε (24 slider positions; beyond 24 sessions
  the seed differs too), so every session asks for a configuration nobody computed.

A session's time runs from sending the moved slider until it has received both of the
Explorer's updated charts (by-rank and MSE), the point where a browser starts drawing.
Every session checks that its page describes its own ε and seed (no session sees
another's state) and shows no exception. Server CPU is the CPU seconds of the server and its
simulation workers, and in brackets over the phase's wall time (2.0 = both cores busy);
memory is their peak resident size together.
Protocol clients, not browsers: see ``serving.py`` for why. The server stops by itself
when the run ends. A small version (N = 5) runs in the test suite
(``tests/live/test_classroom.py``).
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import psutil

from devtools.serving import (
    ROOT,
    Run,
    Session,
    number_input_state,
    select_slider_state,
    streamlit_server,
)

EPSILON = "Privacy budget ε"
SEED = "Seed"
SAME = "2.0"  # phase (a)'s ε
# Phase (b)'s slider positions: every one but the default (1.0) and phase (a)'s.
OTHERS = (
    "0.05",
    "0.1",
    "0.15",
    "0.2",
    "0.3",
    "0.4",
    "0.5",
    "0.6",
    "0.7",
    "0.8",
    "0.9",
    "1.25",
    "1.5",
    "1.75",
    "2.5",
    "3.0",
    "3.5",
    "4.0",
    "5.0",
    "6.0",
    "7.0",
    "8.0",
    "9.0",
    "10.0",
)
CHARTS = 2  # the Explorer draws the by-rank chart and the MSE chart


@dataclass(frozen=True)
class Phase:
    """One phase's measurements."""

    sessions: int
    phase: str
    p50: float
    p95: float
    worst: float
    cpu: float  # server CPU seconds / wall seconds
    cpu_seconds: float
    peak_mb: float
    wrong_state: int  # sessions whose page described another session's settings
    errors: list[str]

    def row(self) -> str:
        """A Markdown table row."""
        errors = "; ".join(sorted(set(self.errors))) or "none"
        return (
            f"| {self.sessions} | {self.phase} | {self.p50:.2f} | {self.p95:.2f} | "
            f"{self.worst:.2f} | {self.cpu_seconds:.1f} ({self.cpu:.2f}) | "
            f"{self.peak_mb:.0f} | {self.wrong_state} | {errors} |"
        )


HEADER = (
    "| sessions | phase | p50 (s) | p95 (s) | worst (s) | server CPU s (cores) | "
    "peak RSS (MB) | wrong state | errors |\n| ---: | --- | ---: | ---: | ---: | ---: | "
    "---: | ---: | --- |"
)


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q``-th percentile by linear interpolation (numpy's default rule)."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = (len(ordered) - 1) * q / 100
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _family(process: psutil.Process) -> list[psutil.Process]:
    """The server and its worker processes (the simulations run in the workers)."""
    try:
        return [process, *process.children(recursive=True)]
    except psutil.Error:
        return [process]


def _cpu_seconds(processes: Sequence[psutil.Process]) -> dict[int, float]:
    seconds = {}
    for each in processes:
        try:
            times = each.cpu_times()
        except psutil.Error:
            continue
        seconds[each.pid] = times.user + times.system
    return seconds


def _resident(processes: Sequence[psutil.Process]) -> float:
    total = 0.0
    for each in processes:
        with contextlib.suppress(psutil.Error):
            total += each.memory_info().rss
    return total


@contextmanager
def watched(pid: int) -> Iterator[dict[str, float]]:
    """CPU seconds and peak resident memory of the server and its workers over the block.

    Memory is sampled every 50 ms; CPU counts a worker started during the block from 0.
    """
    server = psutil.Process(pid)
    numbers = {"peak": _resident(_family(server))}
    stop = threading.Event()

    def sample() -> None:
        while not stop.wait(0.05):
            numbers["peak"] = max(numbers["peak"], _resident(_family(server)))

    sampler = threading.Thread(target=sample, daemon=True)
    before = _cpu_seconds(_family(server))
    start = time.perf_counter()
    sampler.start()
    try:
        yield numbers
    finally:
        stop.set()
        sampler.join()
        after = _cpu_seconds(_family(server))
        numbers["wall"] = time.perf_counter() - start
        numbers["cpu"] = sum(seconds - before.get(pid, 0.0) for pid, seconds in after.items())


def describes(run: Run, epsilon: str, seed: int) -> bool:
    """Whether the page's caption describes this ε and seed (and no other)."""
    pattern = re.compile(r"ε = ([0-9.]+), n = .*, seed (\d+)\.")
    for text in run.texts:
        found = pattern.search(text)
        if found:
            return float(found[1]) == float(epsilon) and int(found[2]) == seed
    return False


async def _open(url: str, count: int) -> tuple[list[Session], list[Run]]:
    sessions = [Session(url) for _ in range(count)]
    await asyncio.gather(*(session.__aenter__() for session in sessions))
    runs = await asyncio.gather(*(session.rerun() for session in sessions))
    return sessions, list(runs)


async def _move(
    sessions: Sequence[Session], first: Run, targets: Sequence[tuple[str, int]]
) -> list[Run]:
    epsilon, seed = first.widgets[EPSILON], first.widgets[SEED]
    return list(
        await asyncio.gather(
            *(
                session.rerun([select_slider_state(epsilon, value), number_input_state(seed, s)])
                for session, (value, s) in zip(sessions, targets, strict=True)
            )
        )
    )


def _phase(
    sessions: int,
    name: str,
    runs: Sequence[Run],
    targets: Sequence[tuple[str, int]],
    numbers: dict[str, float],
) -> Phase:
    times = [run.chart_seconds(CHARTS) for run in runs]
    errors = [error for run in runs for error in run.errors]
    missing = sum(len(run.charts_at) < CHARTS for run in runs)
    if missing:
        errors.append(f"{missing} sessions got fewer than {CHARTS} charts")
    wrong = sum(not describes(run, e, s) for run, (e, s) in zip(runs, targets, strict=True))
    return Phase(
        sessions=sessions,
        phase=name,
        p50=percentile(times, 50),
        p95=percentile(times, 95),
        worst=max(times),
        cpu=numbers["cpu"] / numbers["wall"],
        cpu_seconds=numbers["cpu"],
        peak_mb=numbers["peak"] / 2**20,
        wrong_state=wrong,
        errors=errors,
    )


async def classroom(url: str, pid: int, count: int) -> list[Phase]:
    """Open ``count`` sessions, then run phases (a) and (b); close the sessions."""
    with watched(pid) as numbers:
        sessions, firsts = await _open(url, count)
    try:
        defaults = [("1.0", 0)] * count
        phases = [_phase(count, "open", firsts, defaults, numbers)]
        same = [(SAME, 0)] * count
        with watched(pid) as numbers:
            runs = await _move(sessions, firsts[0], same)
        phases.append(_phase(count, "(a) same ε", runs, same, numbers))
        different = [(OTHERS[i % len(OTHERS)], i // len(OTHERS)) for i in range(count)]
        with watched(pid) as numbers:
            runs = await _move(sessions, firsts[0], different)
        phases.append(_phase(count, "(b) different ε", runs, different, numbers))
        return phases
    finally:
        await asyncio.gather(*(session.__aexit__() for session in sessions))


async def warm(url: str) -> None:
    """The teacher opens the Explorer first: imports and the default configuration."""
    async with Session(url) as session:
        await session.rerun()


def measure(counts: Sequence[int], log: Path) -> list[Phase]:
    """Every N on its own fresh server (so no N inherits another's cache)."""
    phases: list[Phase] = []
    for count in counts:
        with streamlit_server(ROOT / "app.py", log) as (url, process):
            asyncio.run(warm(url))
            phases += asyncio.run(classroom(url, process.pid, count))
    return phases
