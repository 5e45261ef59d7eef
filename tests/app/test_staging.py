"""A first chart within about two seconds anywhere on the sliders.

A dear run is drawn first from its first trials, then from all of them; these tests
hold the staging to its promises: the first chart says how many trials it shows, a run
above the budget waits to be asked, and the final page is the single run's, bit for bit.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pandas as pd
import pytest
from conftest import ThreadWorkers, app_page
from streamlit.testing.v1 import AppTest

from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.costs import FIRST_CHART_S, first_trials, fixed_seconds, run_seconds
from ldpcore.experiments.trials import _run_trials, run
from ldpcore.present.tables import method_table
from ldpcore.serving.tables import simulate_tables
from ldpcore.serving.workers import Bounded

#: Within the default budget but too dear to draw whole at once (about 3 s of one core).
HR_16384 = ExperimentConfig(dataset="zipf:d=16384,s=1.5", n=10**6, protocol="HR", epsilon=1.0)


def test_first_trials_fit_a_first_chart_and_leave_the_rest() -> None:
    assert first_trials(1.0, 30) == 30  # a cheap run is drawn whole
    assert first_trials(3.0, 30) == 10  # a second's worth of trials first
    assert first_trials(100.0, 30) == 0  # not even two: the estimate alone
    assert first_trials(1.6, 2) == 0  # never all of them "first"
    fixed = fixed_seconds(16_384, len(HR_16384.methods))
    shown = first_trials(run_seconds(HR_16384), 30, fixed)
    assert 2 <= shown < 30
    assert fixed + shown * (run_seconds(HR_16384) - fixed) / 30 <= FIRST_CHART_S
    # A run's own cost is paid by a first chart too: none at HR, d = 100,000.
    hr_100000 = dataclasses.replace(HR_16384, dataset="zipf:d=100000,s=1.5")
    assert first_trials(run_seconds(hr_100000), 30, fixed_seconds(100_000, 13)) == 0


def test_the_first_trials_are_a_run_and_chunks_change_no_number() -> None:
    """The drawing of the first k trials is a run of k trials; all trials in chunks on
    the workers (the staged path) give the single run's numbers, bit for bit."""
    config = ExperimentConfig(
        dataset="zipf:d=512,s=1.5", n=10**5, protocol="OLH", epsilon=1.0, trials=12
    )
    whole = simulate_tables(config)
    seen: list[int] = []
    chunked = simulate_tables(
        config,
        executor=Bounded(ThreadWorkers(2), 1),  # type: ignore[arg-type]
        progress=lambda done, _total: seen.append(done),
    )
    assert len(seen) > 1
    pd.testing.assert_frame_equal(whole["summary"], chunked["summary"], check_exact=True)
    pd.testing.assert_frame_equal(whole["per_item"], chunked["per_item"], check_exact=True)
    # A run of 5 trials is the first 5 trials of the 12: each trial's answers are the
    # same whichever trials run with it.
    alone = _run_trials(dataclasses.replace(config, trials=5), list(range(5)))
    among = _run_trials(config, list(range(12)))
    for part, whole_part in zip(alone, among, strict=True):
        np.testing.assert_array_equal(part, whole_part[:, :5])
    assert not run(dataclasses.replace(config, trials=5)).summary.equals(run(config).summary)


def _explorer(monkeypatch: pytest.MonkeyPatch, budget: str) -> AppTest:
    return app_page(
        monkeypatch, "pages/explorer.py", {"protocol": "HR", "d": "16384"}, budget=budget
    )


def test_above_the_budget_the_first_trials_are_drawn_and_the_rest_wait(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    at = _explorer(monkeypatch, "0")
    at.run()
    assert not at.exception
    info = " ".join(i.value for i in at.info)
    first = first_trials(
        run_seconds(HR_16384), HR_16384.trials, fixed_seconds(16_384, len(HR_16384.methods))
    )
    assert f"Showing the first {first} of 30 trials" in info and "when you ask" in info
    assert len(at.get("plotly_chart")) == 2  # the comparison and the by-rank charts, already
    captions = " ".join(c.value for c in at.caption)
    assert f"Drawn from the first {first} of 30 trials." in captions
    preview = dataclasses.replace(HR_16384, trials=first)
    pd.testing.assert_frame_equal(
        at.table[0].value, method_table(simulate_tables(preview)["summary"]), check_exact=True
    )
    # Asked for, every trial runs and the page is drawn again from all of them: the
    # single run's table, bit for bit, with nothing said about a part.
    next(b for b in at.button if b.label.startswith("Run it")).click()
    at.run()
    assert not at.exception
    assert "Showing the first" not in " ".join(i.value for i in at.info)
    assert "Drawn from the first" not in " ".join(c.value for c in at.caption)
    pd.testing.assert_frame_equal(
        at.table[0].value, method_table(simulate_tables(HR_16384)["summary"]), check_exact=True
    )


def test_within_the_budget_the_page_ends_with_every_trial(monkeypatch: pytest.MonkeyPatch) -> None:
    """No button: the first trials are drawn, the rest run, the page is drawn again."""
    at = _explorer(monkeypatch, "5")
    at.run()
    assert not at.exception
    assert not any(b.label.startswith("Run it") for b in at.button)
    assert "Showing the first" not in " ".join(i.value for i in at.info)
    pd.testing.assert_frame_equal(
        at.table[0].value, method_table(simulate_tables(HR_16384)["summary"]), check_exact=True
    )


def test_a_sweep_is_drawn_from_its_first_trials_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """ε trade-offs at HR, d = 4,096: eight ε values and five n values, first trials."""
    at = app_page(monkeypatch, "pages/tradeoffs.py", {"protocol": "HR", "d": "4096"}, budget="0")
    at.run()
    assert not at.exception
    info = " ".join(i.value for i in at.info)
    assert "Showing the first" in info and "of 30 trials" in info
    assert at.get("plotly_chart")


def test_beyond_the_measured_sizes_nothing_runs_until_asked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """An estimate beyond the measured domain sizes is an extrapolation, which can be far
    off (IBU at GRR, d = 100,000 once ran for minutes where it said 0.1 s): the page asks
    with that caveat and computes nothing, not even first trials. (Here the measured
    sizes are made to stop at 1,024; the shipped table reaches the d slider's end.)"""
    from ldpcore.experiments import costs  # noqa: PLC0415
    from ldpcore.serving import staging  # noqa: PLC0415

    monkeypatch.setattr(staging, "measured_up_to", lambda: 1024)
    monkeypatch.setattr(costs, "measured_up_to", lambda: 1024)
    at = app_page(monkeypatch, "pages/explorer.py", {"protocol": "OLH", "d": "4096"})
    at.run()
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "Costs were measured up to d = 1,024" in warning
    assert "is an extrapolation" in " ".join(i.value for i in at.info)
    assert not at.get("plotly_chart")
    next(b for b in at.button if b.label.startswith("Run it")).click()
    at.run()
    assert not at.exception and len(at.get("plotly_chart")) == 2
