"""Downloads a person can take away: the numbers, the chart, the command line."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from pages.app_layer.views.reruns import rerun_unless_asked_elsewhere


def downloads(
    name: str,
    table: pd.DataFrame,
    figure: go.Figure | None,
    command: str,
    notebook: Callable[[], bytes] | None = None,
) -> None:
    """CSV of the numbers, the notebook that reproduces the view, the chart (HTML, PNG)
    and the command line. Files are made on request (callables), not on every rerun."""
    columns = st.columns(5)
    if notebook is not None:
        columns[4].download_button(
            "Notebook (.ipynb)",
            data=notebook,
            file_name=f"{name}.ipynb",
            mime="application/x-ipynb+json",
            key=f"ipynb-{name}",
            on_click="ignore",
            help="A Jupyter notebook that makes this view again with the ldpcore API.",
        )
    columns[0].download_button(
        # Made on request (a callable), not on every rerun: the server serves a class.
        "Numbers (CSV)",
        data=lambda: table.to_csv(index=False).encode(),
        file_name=f"{name}.csv",
        mime="text/csv",
        key=f"csv-{name}",
        on_click="ignore",
    )
    columns[1].download_button(
        "Command line",
        data=command.encode(),
        file_name=f"{name}.sh",
        mime="text/plain",
        key=f"cmd-{name}",
        on_click="ignore",
    )
    show_command(command)
    if figure is not None:
        _figure_downloads(columns, name, figure, command)


def show_command(command: str) -> None:
    """The command in view too, to copy, folded: made from the same configuration as the
    run above it, so what is copied is what was computed.

    Inline code, not ``st.code``: a code block makes a first visit load the browser's
    1.5 MB syntax highlighter, for a line that needs no colours (and inline code wraps,
    so the line never scrolls out of a keyboard's reach).
    """
    with st.expander("The command that computes this", icon=":material/terminal:"):
        st.markdown(command_markdown(command))


def command_markdown(command: str) -> str:
    """``command`` as Markdown inline code, whatever backticks it holds.

    Examples
    --------
    >>> command_markdown("ldpcore simulate --epsilon 1")
    '` ldpcore simulate --epsilon 1 `'
    >>> command_markdown("echo `date`")
    '`` echo `date` ``'
    """
    # The fence is one backtick longer than the longest run of backticks inside.
    runs = [len(part) for part in "".join(c if c == "`" else " " for c in command).split()]
    fence = "`" * (max(runs, default=0) + 1)
    return f"{fence} {command} {fence}"


def _figure_downloads(columns: Any, name: str, figure: go.Figure, command: str) -> None:
    columns[2].download_button(
        "Chart (HTML)",
        data=lambda: figure.to_html(include_plotlyjs=True).encode(),
        file_name=f"{name}.html",
        mime="text/html",
        key=f"html-{name}",
        on_click="ignore",
    )
    _png_download(columns[3], name, figure, command)


def _png_download(column: Any, name: str, figure: go.Figure, command: str) -> None:
    # Rendering a PNG starts a headless browser (~3 s), so it is done on request and
    # remembered for this exact view (the command line identifies it).
    slot = f"png-{name}"
    stored = st.session_state.get(slot)
    if stored is not None and stored[0] == command:
        column.download_button(
            "Chart (PNG)",
            data=stored[1],
            file_name=f"{name}.png",
            mime="image/png",
            key=f"{slot}-download",
            on_click="ignore",
        )
        return
    if column.button("Prepare PNG", key=f"{slot}-prepare"):
        try:
            with st.spinner("Rendering the PNG…"):
                image = figure.to_image(format="png", width=1200, height=700)
        except Exception as exc:  # kaleido reports a missing browser in several ways
            st.error(
                "PNG export needs Chrome or Chromium on the server (kaleido drives it): "
                f"{exc}. The HTML download works without it."
            )
            return
        st.session_state[slot] = (command, image)
        rerun_unless_asked_elsewhere()
