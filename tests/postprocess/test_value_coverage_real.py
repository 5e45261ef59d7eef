"""Per-value intervals on a real histogram the tool ships, value by value (slow tier):
each group of values covered at its level within its Monte Carlo error, no single value
far below it, and no interval of zero width."""

from __future__ import annotations

import math

import pytest

from devtools.coverage import real_value_coverage

RUNS = 200


@pytest.mark.slow
@pytest.mark.parametrize(
    ("dataset", "protocol", "epsilon", "n"),
    [("countries", "OUE", 1.0, 73_421), ("ages", "OUE", 0.5, 300)],
)
def test_every_value_of_a_real_histogram_is_covered_at_its_level(
    dataset: str, protocol: str, epsilon: float, n: int
) -> None:
    found = real_value_coverage(dataset, protocol, epsilon, n, runs=RUNS, methods=("Base",))
    c = found["Base"]
    assert c.points == 0  # no value is ever given the point 0
    assert not math.isnan(c.groups["few"]), "the setting should hold values of few users"
    for group, rate in c.groups.items():
        # Each group pools many value-collections; at least RUNS of them.
        assert rate >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / RUNS), (group, rate)
    # A value covered 95% of the time falls below 85% of 200 runs with chance ~1e-8.
    assert c.worst >= 0.85, c.worst
