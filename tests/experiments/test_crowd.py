"""A class moving its sliders together is served first trials first.

The record of who asked for new runs (:mod:`ldpcore.experiments.crowd`) with a clock of the
test's own, then the Explorer on a crowded server: drawn from its first trials with a
note that says why, and every trial once its visitor asks.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterator

import pandas as pd
import pytest
from conftest import app_page

from ldpcore.experiments.crowd import REMEMBERED, WINDOW_S, Crowd
from ldpcore.present.tables import method_table
from ldpcore.serving.settings import DEFAULTS
from ldpcore.serving.staging import CROWDED_TRIALS
from ldpcore.serving.tables import simulate_tables
from pages.app_layer.serving.staging import server_crowd


def test_only_other_sessions_new_runs_within_the_window_count() -> None:
    crowd = Crowd()
    crowd.ask("alice", "eps=1", now=100.0)
    crowd.ask("bob", "eps=2", now=101.0)
    assert crowd.others("carol", "eps=3", now=102.0) == 2
    assert crowd.others("alice", "eps=3", now=102.0) == 1  # her own run is no crowd
    # A configuration already asked for is joined, not computed again: no crowd.
    assert crowd.others("carol", "eps=2", now=102.0) == 0
    # Asking again for a known configuration adds nobody.
    crowd.ask("carol", "eps=2", now=102.0)
    assert crowd.others("dave", "eps=4", now=102.0) == 2
    # Past the window the runs no longer count, but stay known.
    assert crowd.others("carol", "eps=3", now=101.0 + WINDOW_S + 0.01) == 0
    assert crowd.others("carol", "eps=1", now=200.0) == 0
    # Known ahead (the launcher's default view): joined, and nobody counts.
    fresh = Crowd()
    fresh.know("defaults")
    assert fresh.others("erin", "defaults", now=300.0) == 0
    fresh.ask("frank", "eps=9", now=300.0)
    assert fresh.others("erin", "eps=8", now=300.5) == 1


def test_the_crowd_forgets_the_oldest_configurations_first() -> None:
    crowd = Crowd()
    for i in range(REMEMBERED + 1):
        crowd.ask("alice", f"run-{i}", now=10.0 * i)  # one in any window
    last = 10.0 * REMEMBERED
    assert crowd.others("bob", "run-0", now=last + 1.0) == 1  # forgotten, so new
    assert crowd.others("bob", "run-1", now=last + 1.0) == 0  # still known


@pytest.fixture
def crowded() -> Iterator[Crowd]:
    """The server's record with other visitors' new runs just now; emptied afterwards,
    so no other test in this process meets the crowd. The window is widened for the
    test: a cold process's first page run can take longer than the real one."""
    crowd = server_crowd()
    # Earlier tests' pages asked too, each as its own session: start from an empty room.
    crowd.clear()
    window = crowd.window_s
    crowd.window_s = 3600.0
    for visitor in ("phone-1", "phone-2", "phone-3"):
        crowd.ask(visitor, f"a run of {visitor}", now=time.monotonic())
    try:
        yield crowd
    finally:
        crowd.clear()
        crowd.window_s = window


def test_on_a_crowded_server_a_new_run_is_drawn_from_its_first_trials(
    monkeypatch: pytest.MonkeyPatch, crowded: Crowd
) -> None:
    at = app_page(monkeypatch, "pages/explorer.py", {"epsilon": "3.0", "seed": "7"})
    at.run()
    assert not at.exception
    config = DEFAULTS.config()
    asked = config.trials
    info = " ".join(i.value for i in at.info)
    assert "The server is busy: 3 other visitors asked for new runs" in info
    assert f"Showing the first {CROWDED_TRIALS} of {asked} trials" in info
    captions = " ".join(c.value for c in at.caption)
    assert f"Drawn from the first {CROWDED_TRIALS} of {asked} trials." in captions
    assert len(at.get("plotly_chart")) == 2  # the comparison, then by rank
    # What is drawn is a run of the first 10 trials, bit for bit.
    asked_config = dataclasses.replace(config, epsilon=3.0, seed=7)
    shown = at.table[0].value
    first = simulate_tables(dataclasses.replace(asked_config, trials=CROWDED_TRIALS))
    pd.testing.assert_frame_equal(shown, method_table(first["summary"]), check_exact=True)
    # Asked for, every trial runs: the single run's table, nothing said about a part.
    next(b for b in at.button if b.label == f"Run all {asked} trials").click()
    at.run()
    assert not at.exception
    assert "Showing the first" not in " ".join(i.value for i in at.info)
    assert not at.table[0].value.equals(shown)
    whole = simulate_tables(asked_config)
    pd.testing.assert_frame_equal(
        at.table[0].value, method_table(whole["summary"]), check_exact=True
    )


def test_alone_on_the_server_a_run_is_drawn_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    at = app_page(monkeypatch, "pages/explorer.py", {"epsilon": "3.0", "seed": "8"})
    at.run()
    assert not at.exception
    assert "Showing the first" not in " ".join(i.value for i in at.info)
    assert not any(b.label.startswith(("Run it", "Run all")) for b in at.button)
