"""The lesson's steps as the class sees them, on the teacher's screen and the projector.

The teacher chooses the step; the poll store keeps it (``Poll.step``), so the projector
view, another browser, shows the same step without any control of its own.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import pandas as pd
import streamlit as st

from ldpcore.live.lesson import lesson_methods, read_class
from ldpcore.live.outlook import LARGER_CLASS
from ldpcore.live.poll import Poll
from ldpcore.live.reports import class_support
from ldpcore.live.store import PollStore
from ldpcore.present.class_sentences import (
    base_readout,
    class_readout,
    larger_class_words,
    percent_cell,
)
from ldpcore.present.figures import poll_estimates, poll_reports
from pages.app_layer.classroom.addresses import turned_away_metric
from pages.app_layer.classroom.class_views import every_method, plain_strong
from pages.app_layer.serving.answers import class_tables, larger_class
from pages.app_layer.views.display import run_or_explain, show_chart

#: The lesson's steps: the teacher reveals the noise before the fix.
STEPS = (
    "1 · The reports",
    "2 · Base: the noise",
    "3 · Post-processed: the fix",
    "4 · If some lied (simulated)",
)
#: Seconds between two readings of the count: a report shows within about a second.
COUNT_REFRESH_S = 1.0


@st.fragment(run_every=COUNT_REFRESH_S)
def live_count(store: PollStore, code: str, *, teacher: bool) -> None:
    """The count of reports (and, for the teacher, the browsers turned away), read every
    second: a count is one indexed SQLite query, the estimates refresh apart from it."""
    poll = store.get(code)
    if poll is None:
        return
    left, right = st.columns(2)
    left.metric("reports", store.count(code))
    if teacher:
        turned_away_metric(right, store.turned_away(code), poll)


def fingerprint(rows: list[Any]) -> str:
    """The reports' fingerprint: the estimates are cached on it."""
    return hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()


def lesson_step(poll: Poll, rows: list[Any], step: int, chosen: str, *, projected: bool) -> None:
    """Draw step ``step`` (0–2) of the lesson for ``rows``; ``chosen`` is the fix's method.

    The projector shows the readout and the chart, large; the teacher's screen adds the
    table of every method.
    """
    if step == 0:
        arrived = (
            "1 randomized report arrived"
            if len(rows) == 1
            else f"{len(rows):,} randomized reports arrived"
        )
        support = class_support(poll, rows)
        _words_and_chart(
            f"{arrived}. Each one is a student's answer after their browser randomized "
            "it: the server never saw a true answer. Next: what the reports say when taken "
            "at face value (Base).",
            poll_reports(poll.options, support, wall=projected),
            projected=projected,
            plain=False,
        )
        if not projected:
            st.dataframe(
                pd.DataFrame({"option": list(poll.options), "reports supporting it": support}),
                hide_index=True,
                key="class-support",
            )
        return
    methods = lesson_methods(poll) if step == 2 else ("Base",)
    wanted = tuple(dict.fromkeys((*methods, chosen)))
    # Cached on the poll and its reports' fingerprint: the refresh every few seconds
    # recomputes nothing until the reports change (one arrives, or the teacher removes
    # an address's).
    print_ = fingerprint(rows)
    tables = run_or_explain(lambda: class_tables(poll, print_, wanted, rows), "Estimating…")
    if not tables or chosen not in tables:
        return
    reading = read_class(tables[chosen], poll=poll, method=chosen, reports=len(rows))
    if step == 1:
        _words_and_chart(
            base_readout(reading),
            poll_estimates(tables[chosen], chosen, base_only=True, wall=projected),
            projected=projected,
        )
        if not projected:
            st.dataframe(
                every_method(poll, {"Base": tables["Base"]}), hide_index=True, key="class-table"
            )
        return
    _words_and_chart(
        class_readout(reading),
        poll_estimates(tables[chosen], chosen, wall=projected),
        projected=projected,
    )
    if projected:
        return
    if len(rows) < LARGER_CLASS and not reading.leads:
        larger_class_view(poll, len(rows))
    st.dataframe(every_method(poll, tables), hide_index=True, key="class-table")
    st.caption(
        f"Each cell: the method's estimate of the share of the class, with a 95% "
        f"interval for the true share, from {len(rows):,} randomized "
        f"report{'' if len(rows) == 1 else 's'}. The "
        "intervals hold for all options at once, and are exact however small the class "
        '(never a normal approximation; benchmarks/README.md, "Intervals for a '
        'class"). Base is unbiased but noisy (it can be negative, and the column need '
        "not sum to 100%); the other methods trade a little bias for a proper "
        "distribution. With few reports every interval is wide: that is the lesson."
    )


def _words_and_chart(words: str, figure: Any, *, projected: bool, plain: bool = True) -> None:
    """A step's sentence and its chart: on the teacher's screen the sentence first (the
    answer, then its picture); on the wall the chart first, under the step's heading, so
    the whole lesson fits the projector and the teacher speaks over it."""
    if projected:
        show_chart(figure, key="chart-class", wall=True)
    if plain:
        plain_strong(words)  # it holds the teacher's words (the options)
    else:
        st.write(words)
    if not projected:
        show_chart(figure, key="chart-class")


def larger_class_view(poll: Poll, reports: int) -> None:
    """What the same noise does at :data:`LARGER_CLASS` students (the teacher's screen
    only): from the poll's settings alone, never from this class's noisy estimate."""
    with st.expander(f"What a class of {LARGER_CLASS:,} would see"):
        larger = run_or_explain(
            lambda: larger_class(poll.protocol, poll.epsilon, len(poll.options)), "Simulating…"
        )
        if larger is None:
            return
        st.write(larger_class_words(larger, reports))
        st.dataframe(
            pd.DataFrame(
                {
                    "the leader's lead": [f"{lead * 100:.0f} points" for lead in larger.leads],
                    f"a class of {LARGER_CLASS:,} names it": [
                        percent_cell(share) for share in larger.named_right
                    ],
                    "names another option": [percent_cell(s) for s in larger.named_wrong],
                }
            ),
            hide_index=True,
            key="class-larger",
        )


__all__ = [
    "COUNT_REFRESH_S",
    "STEPS",
    "fingerprint",
    "larger_class_view",
    "lesson_step",
    "live_count",
]
