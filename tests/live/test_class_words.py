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
