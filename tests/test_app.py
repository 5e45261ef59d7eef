"""The app renders through Streamlit's AppTest and reacts to its widgets."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def test_app_renders_every_protocol() -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    assert not at.exception
    frame = at.dataframe[0].value
    assert list(frame["protocol"]) == ["GRR", "OLH", "BLH", "OUE", "SUE", "SS", "HR"]


def test_changing_epsilon_changes_the_table() -> None:
    at = AppTest.from_file(APP, default_timeout=60).run()
    before = at.dataframe[0].value["base_std_pp"].to_numpy()
    at.slider(key="epsilon").set_value(3.0).run()
    assert not at.exception
    after = at.dataframe[0].value["base_std_pp"].to_numpy()
    # More budget, less noise, for every protocol.
    assert (after < before).all()
