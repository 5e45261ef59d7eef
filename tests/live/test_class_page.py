"""The Class page's lesson, drawn by AppTest on a poll with reports:
the sentence a teacher reads out leads, and the steps reveal the reports, then Base,
then the consistent estimates.
"""

from __future__ import annotations

import html
import os
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from ldpcore.live.reports import poll_protocol
from ldpcore.live.store import PollStore

APP = str(Path(__file__).resolve().parents[2] / "app.py")
DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")


@pytest.fixture
def five(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[str, str]:
    """A GRR poll at ε = 1 with five reports (four students on Monday, one on Tuesday)."""
    monkeypatch.setenv("LDPCORE_DATA_DIR", str(tmp_path))
    store = PollStore(tmp_path)
    poll, key = store.create("Day?", DAYS, protocol="GRR", epsilon=1.0, max_reports=5)
    grr = poll_protocol("GRR", 1.0, 7)
    rng = np.random.default_rng(36)
    for i, value in enumerate((0, 0, 0, 0, 1)):
        report = int(grr.randomize(np.array([value]), rng=rng)[0])
        store.submit(poll.code, f"student-{i:04d}", {"value": report})
    for late in ("late-0001", "late-0002"):  # a full poll turns two browsers away
        with pytest.raises(Exception, match="is full"):
            store.submit(poll.code, late, {"value": 0})
    return poll.code, key


def _page(code: str, key: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/class.py")
    at.query_params.update({"poll": code, "key": key})
    return at.run()


def _markdown(at: AppTest) -> str:
    # As a reader sees it: the sentences holding the teacher's words carry them as
    # character references (ldpcore.formats.plain_html), which Markdown shows as typed.
    return html.unescape(" ".join(m.value for m in at.markdown))


def test_five_reports_name_no_leader_and_say_how_many_would(five: tuple[str, str]) -> None:
    at = _page(*five)
    assert not at.exception
    assert at.get("button_group")[0].value == "1 · The reports"  # the lesson's first step
    at.get("button_group")[0].set_value("3 · Post-processed: the fix").run()  # type: ignore[attr-defined]
    text = _markdown(at)
    assert "From 5 randomized reports (GRR, ε = 1), the class cannot tell yet" in text
    assert "puts" not in text  # no leader is named
    assert "reports would narrow each interval to about ±10 points" in text
    # Where the room cannot tell, what the same noise does at 1,000 students: from the
    # poll's settings, never this class's noisy estimate, and naming no option.
    larger = next(e for e in at.expander if "class of 1,000" in e.label)
    said = html.unescape(" ".join(m.value for m in larger.markdown))
    assert "Simulated from this poll's settings (GRR, ε = 1" in said
    assert "not from this class's answers" in said and "puts" not in said
    table = next(d.value for d in larger.dataframe)
    assert next(iter(table.columns)) == "the leader's lead"
    # The projector follows the step the teacher shows.
    assert PollStore(Path(os.environ["LDPCORE_DATA_DIR"])).get(five[0]).step == 2  # type: ignore[union-attr]
    assert [m.value for m in at.metric] == ["5", "2"]  # reports, turned away
    assert "2 because the poll was full" in " ".join(c.value for c in at.caption)
    assert set(at.query_params) == {"poll"}  # the old link's key left the address


def test_the_steps_show_the_noise_before_the_fix(five: tuple[str, str]) -> None:
    at = _page(*five)
    step = at.get("button_group")[0]
    step.set_value("1 · The reports").run()  # type: ignore[attr-defined]
    assert "randomized reports arrived" in _markdown(at)
    supported = at.dataframe[0].value["reports supporting it"]
    assert supported.sum() == 5  # GRR: each report supports exactly one option
    at.get("button_group")[0].set_value("2 · Base: the noise").run()  # type: ignore[attr-defined]
    assert "Base, the unbiased estimate from 5 reports" in _markdown(at)
    assert list(at.dataframe[0].value.columns) == ["option", "Base"]
    at.get("button_group")[0].set_value("3 · Post-processed: the fix").run()  # type: ignore[attr-defined]
    every = next(d.value for d in at.dataframe if "option" in d.value.columns)
    assert "Norm-Sub" in every.columns
    assert not at.exception
