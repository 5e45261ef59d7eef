"""A fresh server computes its first visitor's view ahead (``make run``'s launcher).

The launcher computes the default Explorer configuration in the background once the
server runs (``pages.app_layer.serving.launch.compute_default_view_once_serving``). This checks,
on the real server, that it happened and that the first visitor's page then computed
nothing: Streamlit's own cache counters (``/_stcore/metrics``) show every cached call of
that page as a hit. No timing is asserted (benchmarks/bench_first_visit.py times it).
"""

from __future__ import annotations

import asyncio
import re
import time
import urllib.request
from pathlib import Path

import pytest

from devtools.serving import ROOT, Session, streamlit_server
from pages.app_layer.serving.launch import READY

pytestmark = pytest.mark.browser  # a real server, like the browser tests

LOG = ROOT / "test-artifacts" / "first-visit-test-server.log"
LOOKUP = re.compile(
    r'cache_lookups_total\{cache="([\w.]+)",cache_type="\w+",result="(hit|miss)"\} (\d+)'
)


def lookups(url: str) -> dict[tuple[str, str], int]:
    """Streamlit's cache counters: (function, "hit" or "miss") -> calls."""
    with urllib.request.urlopen(
        f"{url}/_stcore/metrics?families=cache_lookups", timeout=10
    ) as reply:
        text = reply.read().decode()
    return {
        (name.rsplit(".", 1)[-1], result): int(count)
        for name, result, count in LOOKUP.findall(text)
    }


def wait_for_line(log: Path, text: str, timeout: float = 120.0) -> str:
    """The first line of ``log`` that holds ``text`` (fails after ``timeout`` seconds)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for line in log.read_text(errors="replace").splitlines():
            if text in line:
                return line
        time.sleep(0.1)
    raise AssertionError(f"{text!r} never appeared in {log}")


async def first_visit(url: str) -> list[str]:
    async with Session(url) as visitor:
        run = await visitor.rerun()
    assert not run.errors, run.errors
    return run.charts


def test_the_first_visitor_s_view_is_computed_before_they_ask() -> None:
    with streamlit_server(ROOT / "app.py", LOG) as (url, _):
        wait_for_line(LOG, READY)
        before = lookups(url)
        # The launcher's own calls: each computed once.
        assert before[("simulate", "miss")] == 1
        assert before[("simulate_summary", "miss")] == 1
        charts = asyncio.run(first_visit(url))
        after = lookups(url)
    # The comparison and the by-rank chart, drawn from the computed view.
    assert len(charts) == 2
    changed = {
        key: after[key] - before.get(key, 0) for key in after if after[key] != before.get(key, 0)
    }
    misses = {key: count for key, count in changed.items() if key[1] == "miss"}
    assert misses == {}, f"the first visit computed again: {changed}"
    assert changed.get(("simulate_summary", "hit"), 0) >= 1, changed
