"""What a run's seconds of computing take by the clock on this machine, now.

:mod:`ldpcore.experiments.costs` estimates a run in seconds of one core, measured on a
quiet machine. On a server where other visitors' runs (or anything else) keep the
cores busy, a new process gets only its share of a core: a run the page said would
take 2.2 s drew its first chart after 15.3 s at a load of 2–3 on 2 cores. So what a
page promises is the estimate divided by the share of the cores the run can expect:
each of its ``w`` processes competes with the ``L`` that are already runnable, on
``C`` cores, and gets ``min(1, C / (L + w))`` of one.

``L`` is read from ``/proc/loadavg``: the larger of the one-minute average (which lags
a burst by tens of seconds) and the runnable processes counted now, less the one
reading (a burst's first seconds). Where it cannot be read the machine counts as idle.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

#: Where Linux says how busy it is.
LOADAVG = Path("/proc/loadavg")


@dataclass(frozen=True)
class Busy:
    """How busy the machine is now.

    Attributes
    ----------
    load : float
        Processes wanting a core besides the caller (see the module docstring).
    cores : int
        Cores this process may run on.
    """

    load: float
    cores: int


def busy_now(text: str | None = None) -> Busy:
    """How busy the machine is, from ``/proc/loadavg`` (or ``text`` in its format).

    Examples
    --------
    >>> busy_now("1.27 2.16 2.15 4/76 23402").load
    3.0
    >>> busy_now("2.50 2.16 2.15 1/76 23402").load
    2.5
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if text is None:
        try:
            text = LOADAVG.read_text()
        except OSError:
            return Busy(0.0, cores or 1)
    try:
        fields = text.split()
        average = float(fields[0])
        runnable = int(fields[3].split("/")[0]) - 1  # the reader is one of them
    except (IndexError, ValueError):
        return Busy(0.0, cores or 1)
    return Busy(max(average, float(runnable), 0.0), cores or 1)


def clock_seconds(cpu_seconds: float, busy: Busy, *, processes: int = 1) -> float:
    """What ``cpu_seconds`` of one core take by the clock, spread on ``processes``.

    Each process gets ``min(1, cores / (load + processes))`` of a core; the run's
    ``processes`` together get that many times as much.

    Examples
    --------
    >>> clock_seconds(2.2, Busy(0.0, 2))
    2.2
    >>> round(clock_seconds(2.2, Busy(3.0, 2)), 2)  # one of four processes on two cores
    4.4
    >>> round(clock_seconds(4.0, Busy(0.0, 2), processes=2), 2)
    2.0
    """
    processes = max(1, int(processes))
    share = min(1.0, busy.cores / (busy.load + processes))
    return cpu_seconds / (processes * share)


__all__ = ["LOADAVG", "Busy", "busy_now", "clock_seconds"]
