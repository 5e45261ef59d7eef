"""A first chart, or its estimate, within about two seconds anywhere on the sliders, in a
real browser: the app served as ``make run`` serves it, the d slider moved by keyboard to
16,384 with HR (66 s of both cores to a first chart when every run was drawn whole), and
to the slider's end with Subset Selection, the dearest setting, which asks.

The times are printed and written to ``test-artifacts/first-chart.json`` (the figures in
``benchmarks/README.md`` come from there); the test asserts only a generous sanity bound:
the machines are shared and noisy.
"""

from __future__ import annotations

import json
import re
import time
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from served import ARTIFACTS, ROOT

from devtools.serving import streamlit_server
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.costs import first_trials, fixed_seconds, run_seconds
from ldpcore.postprocess import default_method_names

#: The sidebar's default methods, as the page counts them.
METHODS = len(default_method_names())

pytestmark = pytest.mark.browser

FIRST = re.compile(r"Showing the first \d+ of 30 trials")
ASKS = "is estimated at about"


def _config(protocol: str, d: int) -> ExperimentConfig:
    return ExperimentConfig(dataset=f"zipf:d={d},s=1.5", n=10**6, protocol=protocol, epsilon=1.0)


def _first(config: ExperimentConfig) -> int:
    """The first trials the page draws for ``config`` (its cost model)."""
    fixed = fixed_seconds(int(config.dataset.domain_size), len(config.methods))
    return first_trials(run_seconds(config), config.trials, fixed)


HR_16384 = _config("HR", 16_384)


def _d_slider(page: Page):
    """The sidebar's "Domain size d" slider (Streamlit labels its thumb with the label)."""
    return page.get_by_role("slider", name=re.compile("Domain size d"))


def _settled(page: Page) -> None:
    """No rerun in flight: Streamlit's running indicator has gone."""
    page.wait_for_selector("[data-testid='stStatusWidget']", state="detached", timeout=120_000)
    page.wait_for_timeout(300)


def _complete(page: Page) -> None:
    """Every trial drawn: no first-trials note or caption, a chart, nothing running.

    Both the note and the captions are waited for: while the page is drawn again, the
    first drawing's captions stay on screen until their places are reached.
    """
    page.wait_for_function(
        "(first) => !new RegExp(first).test(document.body.innerText)"
        " && !document.body.innerText.includes('Drawn from the first')"
        " && document.querySelector('.js-plotly-plot') !== null",
        arg=FIRST.pattern,
        timeout=120_000,
    )
    _settled(page)


def _move_d(page: Page, answer: str, *later: str) -> float:
    """Press → on the d slider; seconds until the page shows ``answer`` (a pattern).

    With ``later`` patterns, the seconds until each of them too, as a tuple.
    """
    slider = _d_slider(page)
    slider.focus()
    start = time.perf_counter()
    slider.press("ArrowRight")
    seen = []
    for pattern in (answer, *later):
        page.wait_for_function(
            "(answer) => new RegExp(answer).test(document.body.innerText)",
            arg=pattern,
            timeout=60_000,
        )
        seen.append(time.perf_counter() - start)
    return seen[0] if not later else tuple(seen)  # type: ignore[return-value]


def test_moving_d_to_the_edges_answers_within_about_two_seconds(
    browser: Browser, tmp_path: Path
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    env = {"LDPCORE_DATA_DIR": str(tmp_path)}  # the default budget and workers
    with streamlit_server(ROOT / "app.py", ARTIFACTS / "streamlit-first-chart.log", env=env) as (
        url,
        _process,
    ):
        page = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
        page.goto(f"{url}/?protocol=HR&d=8192")
        page.locator(".js-plotly-plot").first.wait_for(timeout=120_000)
        _complete(page)
        # 8,192 → 16,384: about 3 s of computing, within the budget: first trials, then all.
        first = _first(HR_16384)
        # The note with its estimate, at once; then the caption under the first chart,
        # drawn from the first trials.
        hr_estimate, hr = _move_d(
            page,
            f"Showing the first {first} of 30 trials \\(about [0-9.]+ s by the clock\\)",
            f"Drawn from the first {first} of 30 trials",
        )
        assert page.locator(".js-plotly-plot").count() >= 1
        assert f"Showing the first {first} of 30 trials" in page.inner_text("body")
        page.screenshot(path=str(ARTIFACTS / "first-chart-hr.png"), full_page=True)
        _complete(page)
        assert "Drawn from the first" not in page.inner_text("body")
        # Subset Selection at d = 16,384 (about 5 s of computing, within the budget).
        page.goto(f"{url}/?protocol=SS&d=8192")
        _complete(page)
        first = _first(_config("SS", 16_384))
        ss_estimate, ss_16384 = _move_d(
            page,
            f"Showing the first {first} of 30 trials \\(about [0-9.]+ s by the clock\\)",
            f"Drawn from the first {first} of 30 trials",
        )
        _complete(page)
        # HR at the slider's end (about 13 s, above the budget; the run's own 0.4 s and
        # two trials would pass a second): it asks, with its estimate.
        page.goto(f"{url}/?protocol=HR&d=65536")
        page.get_by_text("HR at d = 65,536").first.wait_for(timeout=120_000)
        _settled(page)
        hr_100000 = _move_d(page, f"HR at d = 100,000 with {METHODS} methods\\) {ASKS}")
        # Subset Selection at the slider's end: not even two trials fit a first chart,
        # so the page asks, with its estimate, and runs nothing.
        page.goto(f"{url}/?protocol=SS&d=65536")
        page.get_by_text("SS at d = 65,536").first.wait_for(timeout=120_000)
        _settled(page)
        ss = _move_d(page, f"SS at d = 100,000 with {METHODS} methods\\) {ASKS}")
        assert page.locator(".js-plotly-plot").count() == 0
        page.screenshot(path=str(ARTIFACTS / "first-chart-ss.png"), full_page=True)
        # OUE at the slider's end: within the budget, but its first chart took more than
        # two seconds above 32,768 values (costs.ASK_FIRST_ABOVE), so it asks too.
        page.goto(f"{url}/?protocol=OUE&d=65536")
        page.get_by_text("OUE at d = 65,536").first.wait_for(timeout=120_000)
        _settled(page)
        oue = _move_d(page, f"OUE at d = 100,000 with {METHODS} methods\\) {ASKS}")
        assert page.locator(".js-plotly-plot").count() == 0
    timings = {
        "HR d 8192 -> 16384 (the estimate)": round(hr_estimate, 2),
        "HR d 8192 -> 16384 (first trials)": round(hr, 2),
        "SS d 8192 -> 16384 (the estimate)": round(ss_estimate, 2),
        "SS d 8192 -> 16384 (first trials)": round(ss_16384, 2),
        "HR d 65536 -> 100000 (asks)": round(hr_100000, 2),
        "SS d 65536 -> 100000 (asks)": round(ss, 2),
        "OUE d 65536 -> 100000 (asks)": round(oue, 2),
    }
    (ARTIFACTS / "first-chart.json").write_text(json.dumps(timings, indent=2))
    # Timings are recorded, not asserted: the target and its measurements are in
    # benchmarks/README.md; what this test holds is what the page shows.
    print(f"\nfirst chart or the ask after the d slider moved: {timings}")
