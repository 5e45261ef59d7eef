"""The app through Streamlit's AppTest, as the page tests drive it.

``app`` starts the app (with a query string), ``small`` shrinks the sidebar's defaults,
``open_page`` switches to a page, and ``chart``, ``values``, ``frame`` and ``messages``
read what it drew.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

APP = str(Path(__file__).resolve().parents[1] / "app.py")


def app(query: dict[str, str] | None = None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in (query or {}).items():
        at.query_params[key] = value
    return at


def small(at: AppTest) -> AppTest:
    """Shrink the sidebar's defaults so each run takes well under a second."""
    at.run()
    at.select_slider(key="n").set_value(10_000)
    at.select_slider(key="d").set_value(64)
    at.slider(key="trials").set_value(5)
    return at.run()


def chart(at: AppTest, key: str) -> dict:
    """The Plotly spec of the chart with this key."""
    for element in at.get("plotly_chart"):
        if element.proto.id and key in element.proto.id:
            return json.loads(element.proto.spec)
    raise AssertionError(f"no chart {key!r}; have {[e.proto.id for e in at.get('plotly_chart')]}")


def values(data: object) -> list:
    """A Plotly array as a list (Plotly 6 sends numpy arrays as base64 typed arrays)."""
    if isinstance(data, dict) and "bdata" in data:
        return np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"]).tolist()
    return list(data)  # type: ignore[call-overload]


def open_page(page: str) -> AppTest:
    at = app()
    at.run()
    at.switch_page(page)
    return at.run()


def messages(at: AppTest) -> str:
    return " | ".join(e.value for e in [*at.error, *at.warning, *at.info])


def frame(at: AppTest, column: str):
    """The first table with this column (AppTest does not look tables up by key)."""
    for element in [*at.dataframe, *at.table]:
        if column in element.value.columns:
            return element.value
    raise AssertionError(f"no table with a {column!r} column")


def page_caption(at: AppTest) -> str:
    """The caption under a page's first chart and its text alternative: its settings."""
    captions = [c.value for c in at.caption]
    first = next(i for i, text in enumerate(captions) if text.startswith('Chart "'))
    return next(text for text in captions[first + 1 :] if not text.startswith('Chart "'))


def compared(spec: dict) -> dict[str, tuple[float, float]]:
    """The comparison chart's rows: each method's MSE ÷ Base and typical error in pp.

    Read off the hover data the chart carries for every row (its bars are cut at the
    axis's edge, its hover is not).
    """
    bias = spec["data"][0]
    custom = np.asarray(values(bias["customdata"])).reshape(len(values(bias["y"])), -1)
    return {
        str(method): (float(row[0]), float(row[2]))
        for method, row in zip(values(bias["y"]), custom, strict=True)
    }


def commands(at: AppTest) -> list[str]:
    """The command lines a page shows (inline code under "The command that computes
    this"), as a person would copy them."""
    shown = []
    for block in at.markdown:
        text = str(block.value)
        fence = text[: len(text) - len(text.lstrip("`"))]
        if fence and text.endswith(f" {fence}") and text.startswith(f"{fence} ldpcore "):
            shown.append(text[len(fence) + 1 : -len(fence) - 1])
    return shown
