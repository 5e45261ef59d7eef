"""The class's sentences read the numbers beside them: no claim the table contradicts."""

from __future__ import annotations

import re

import pandas as pd

from ldpcore.live.lesson import read_class
from ldpcore.live.poll import Poll
from ldpcore.present.class_sentences import class_readout


def test_the_readout_says_the_widths_the_table_shows() -> None:
    """One narrow interval (Bicycle 0%–41.7%) among wide ones: the sentence says the
    range of widths, never that every interval spans most of 0–100%."""
    options = ("Car", "Bus", "Walk", "Bicycle")
    poll = Poll("ABCDEF", "How?", options, "GRR", 1.0, 0.0, False)
    table = pd.DataFrame(
        {
            "value": options,
            "base_estimate": [0.74, 0.2, 0.1, -0.04],
            "estimate": [0.72, 0.2, 0.08, 0.0],
            "low": [0.1, 0.0, 0.0, 0.0],
            "high": [1.0, 0.95, 0.9, 0.417],
        }
    )
    reading = read_class(table, poll=poll, method="Norm-Sub", reports=24)
    said = class_readout(reading)
    assert "every interval" not in said
    widths = (table["high"] - table["low"]) * 100
    found = re.search(r"(\d+) points of 0–100% on average \(from (\d+) to (\d+)\)", said)
    assert found, said
    assert [int(x) for x in found.groups()] == [
        round(widths.mean()),
        round(widths.min()),
        round(widths.max()),
    ]


def test_the_fix_step_says_how_far_each_method_moved_a_proper_base() -> None:
    """Base already shares summing to 100%: a method that moves an option by 12 points is
    said to, and one that moves nothing is said to change little (it had been "changed
    little" for every method)."""
    options = ("Car", "Bus", "Walk")
    poll = Poll("ABCDEF", "How?", options, "GRR", 1.0, 0.0, False)
    base = [0.5, 0.3, 0.2]

    def said(estimate: list[float]) -> str:
        table = pd.DataFrame(
            {
                "value": options,
                "base_estimate": base,
                "estimate": estimate,
                "low": [0.0] * 3,
                "high": [1.0] * 3,
            }
        )
        return class_readout(read_class(table, poll=poll, method="Power", reports=30))

    moved = said([0.44, 0.24, 0.32])
    assert "moved Walk by 12 percentage points" in moved and "changed" not in moved
    still = said([0.5, 0.3, 0.2])
    assert "changed each by under 1 percentage point" in still
