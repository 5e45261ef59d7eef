"""A session's first run of the Explorer draws its first screen alone: the answer, the
comparison chart and its controls, then the signal that asks for the rest once the
browser has drawn the chart (the browser tier checks that the rest follows)."""

from __future__ import annotations

from apptest import app

from pages.app_layer.views.first_paint import PAINTED


def test_the_first_run_draws_the_answer_and_its_chart_and_waits_for_the_rest() -> None:
    at = app({"n": "10000", "d": "64", "trials": "3"})
    del at.session_state[PAINTED]
    at.run()
    assert not at.exception
    assert "Recommended:" in " ".join(e.value for e in [*at.success, *at.info])
    charts = [e.proto.id for e in at.get("plotly_chart")]
    assert len(charts) == 1 and "chart-mse" in charts[0], charts
    assert not at.table and not at.dataframe  # the method table waits
    whole = app({"n": "10000", "d": "64", "trials": "3"})
    whole.run()
    assert len(whole.get("plotly_chart")) == 2 and whole.table
