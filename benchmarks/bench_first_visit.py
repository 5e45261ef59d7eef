"""A first visit: seconds from opening the page to the first chart, on a fresh server.

Run: ``.venv/bin/python -m benchmarks.bench_first_visit [--rounds 6] [--query Q]``.
With ``--query "?protocol=OUE&d=100000"`` the app is opened at that address (the
slider's edge): the minimal app is then skipped and the table gives the
app's seconds alone.

For each round it starts two fresh ``streamlit run`` servers in turn (127.0.0.1, free
ports, nothing cached): a minimal app that draws one Plotly chart, and this app (the
Explorer at its defaults, served as ``make run`` serves it). Headless chromium (Debian's
``/usr/bin/chromium``) opens each as soon as its health route answers. The clock is the
page's own: milliseconds from the start of its navigation (``performance.now()``) until
the first chart's SVG is in the page, recorded by a MutationObserver. (A clock started
around Playwright's ``goto`` also counts Playwright making the page, which varied by up
to 0.5 s between rounds here and blurred the ratio.) It also records every menu painted
on the way (it must only ever be the app's own), when the page's answer (its first
banner) is in the page, and which of Streamlit's element bundles the browser had fetched
before the first chart. Target: the app's median within 1.2× of the minimal app's, the
answer before the chart, and no bundle before the chart that the first screen does not use.
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
from collections.abc import Sequence
from pathlib import Path

from devtools.serving import ROOT, streamlit_server

CHROMIUM = "/usr/bin/chromium"
MINIMAL_APP = """import plotly.graph_objects as go
import streamlit as st

st.plotly_chart(go.Figure(go.Bar(y=[3, 1, 2])))
"""
MENU_JS = """() => {
  window.__menus = [];
  window.__chart = null;
  window.__answer = null;
  new MutationObserver(() => {
    if (window.__chart === null && document.querySelector(".js-plotly-plot .main-svg")) {
      window.__chart = performance.now();
    }
    if (window.__answer === null && document.querySelector("[data-testid='stAlert']")) {
      window.__answer = performance.now();
    }
    for (const id of ["stSidebarNav", "stTopNav"]) {
      const nav = document.querySelector(`[data-testid='${id}']`);
      const text = nav ? nav.innerText.trim().split("\\n").filter(Boolean).join(" ") : "";
      const entry = `${id}: ${text}`;
      if (text && window.__menus[window.__menus.length - 1] !== entry) window.__menus.push(entry);
    }
  }).observe(document, {childList: true, subtree: true, characterData: true});
}"""


#: The bundles fetched before the first chart, by the element they draw: Streamlit names
#: each lazily loaded element's bundle after it (``PlotlyChart.<hash>.js``).
BUNDLES_JS = """(before) => performance.getEntriesByType("resource")
  .filter((e) => e.name.endsWith(".js") && e.responseEnd <= before)
  .map((e) => e.name.split("/").pop().split(".")[0])"""


def _visit(browser: object, url: str) -> dict[str, object]:
    """Open ``url`` in a new browser context: seconds to its first chart and to its
    answer, the menus painted, and the bundles fetched before the chart."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
    try:
        page = context.new_page()
        page.add_init_script(f"({MENU_JS})()")
        page.goto(url)
        page.wait_for_function("() => window.__chart !== null", timeout=120_000)
        chart = page.evaluate("window.__chart")
        answer = page.evaluate("window.__answer")
        return {
            "chart": chart / 1000,
            "answer": None if answer is None else answer / 1000,
            "menus": page.evaluate("window.__menus"),
            "bundles": page.evaluate(BUNDLES_JS, chart),
        }
    finally:
        context.close()


def first_chart_seconds(
    browser: object, script: Path, log: Path, query: str = ""
) -> tuple[dict[str, object], dict[str, object]]:
    """Start a fresh server for ``script``: the first visitor's visit (:func:`_visit`),
    then a second one's (the server warm: what the browser alone costs)."""
    with streamlit_server(script, log, cwd=script.parent) as (url, _):
        first = _visit(browser, f"{url}/{query}")
        warm = _visit(browser, f"{url}/{query}")
    return first, warm


def _ratio_interval(
    minimal: Sequence[float], app: Sequence[float], draws: int = 4000
) -> tuple[float, float]:
    """A 95% percentile-bootstrap interval of the ratio of medians: rounds are resampled
    as pairs, since a round's two servers ran side by side on the same machine load."""
    import numpy as np

    pairs = np.column_stack([minimal, app])
    rounds = np.random.default_rng(0).integers(0, len(pairs), (draws, len(pairs)))
    ratios = np.median(pairs[rounds, 1], axis=1) / np.median(pairs[rounds, 0], axis=1)
    low, high = np.percentile(ratios, [2.5, 97.5])
    return float(low), float(high)


def main(argv: Sequence[str] | None = None) -> None:
    """Measure, then print the table for benchmarks/README.md."""
    from playwright.sync_api import sync_playwright

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--query", default="", help='e.g. "?protocol=OUE&d=100000"')
    args = parser.parse_args(argv)
    logs = ROOT / "test-artifacts"
    minimal_times: list[float] = []
    app_times: list[float] = []
    minimal_warm: list[float] = []
    app_warm: list[float] = []
    answers: list[float] = []
    menus_seen: list[list[str]] = []
    extra: set[str] = set()
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as playwright:
        minimal = Path(folder) / "minimal.py"
        minimal.write_text(MINIMAL_APP)
        browser = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"]
        )
        for _ in range(args.rounds):
            if args.query:
                first, warm = first_chart_seconds(
                    browser, ROOT / "app.py", logs / "first-visit-app.log", args.query
                )
                print(
                    f"{args.query}: first visitor {first['chart']:.2f} s, "
                    f"second {warm['chart']:.2f} s"
                )
                continue
            first, warm = first_chart_seconds(browser, minimal, logs / "first-visit-minimal.log")
            minimal_times.append(float(first["chart"]))  # type: ignore[arg-type]
            minimal_warm.append(float(warm["chart"]))  # type: ignore[arg-type]
            minimal_bundles = set(first["bundles"])  # type: ignore[call-overload]
            first, warm = first_chart_seconds(
                browser, ROOT / "app.py", logs / "first-visit-app.log"
            )
            app_times.append(float(first["chart"]))  # type: ignore[arg-type]
            app_warm.append(float(warm["chart"]))  # type: ignore[arg-type]
            if first["answer"] is not None:
                answers.append(float(first["answer"]))  # type: ignore[arg-type]
            menus_seen.append(first["menus"])  # type: ignore[arg-type]
            extra |= set(first["bundles"]) - minimal_bundles  # type: ignore[call-overload]
        browser.close()
    if args.query:
        return
    ratio = statistics.median(app_times) / statistics.median(minimal_times)
    print(
        "| server | first chart on a fresh server, each round (s) | median (s) | "
        "second visitor, median (s) |\n| --- | --- | ---: | ---: |"
    )
    for name, times, seconds_warm in (
        ("minimal one-chart app", minimal_times, minimal_warm),
        ("this app (Explorer)", app_times, app_warm),
    ):
        rounds = ", ".join(f"{t:.2f}" for t in times)
        print(
            f"| {name} | {rounds} | {statistics.median(times):.2f} | "
            f"{statistics.median(seconds_warm):.2f} |"
        )
    warm_ratio = statistics.median(app_warm) / statistics.median(minimal_warm)
    low, high = _ratio_interval(minimal_times, app_times)
    print(
        f"\nratio of medians: {ratio:.2f} (95% bootstrap interval over the rounds "
        f"{low:.2f}–{high:.2f}; target ≤ 1.2); second visitor: {warm_ratio:.2f}"
    )
    if answers:
        print(
            f"the answer (first banner), median: {statistics.median(answers):.2f} s, "
            f"{statistics.median(app_times) - statistics.median(answers):.2f} s before the chart"
        )
    print(f"bundles before the chart beyond the minimal app's: {sorted(extra)}")
    first_menus = {tuple(m[:1]) for m in menus_seen}
    print(f"first menus painted: {sorted(first_menus)}")


if __name__ == "__main__":
    main()
