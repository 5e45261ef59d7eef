"""A run's estimate by the clock on a busy machine (ldpcore.experiments.clock).

The arithmetic against its definition and the reading of /proc/loadavg's format; the
estimate against wall time beside busy processes is benchmarks/bench_clock.py's.
"""

from __future__ import annotations

import pytest

from ldpcore.experiments.clock import Busy, busy_now, clock_seconds


@pytest.mark.parametrize(
    ("load", "cores", "processes", "expected"),
    [
        (0.0, 2, 1, 1.0),  # a quiet machine: the estimate itself
        (1.0, 2, 1, 1.0),  # a free core left
        (3.0, 2, 1, 2.0),  # four processes on two cores: half a core each
        (0.0, 2, 2, 0.5),  # two processes, two cores
        (2.0, 2, 2, 1.0),  # two of four processes on two cores: one core together
        (7.0, 4, 1, 2.0),
    ],
)
def test_each_process_gets_its_share_of_the_cores(
    load: float, cores: int, processes: int, expected: float
) -> None:
    assert clock_seconds(1.0, Busy(load, cores), processes=processes) == pytest.approx(expected)


def test_loadavg_reading_takes_the_larger_of_the_average_and_the_runnable_now() -> None:
    assert busy_now("0.10 0.20 0.30 5/300 99").load == 4.0  # a burst the average lags
    assert busy_now("3.50 1.00 1.00 1/300 99").load == 3.5  # a burst just ended
    assert busy_now("garbage").load == 0.0  # unreadable: counted as idle
    assert busy_now().cores >= 1
