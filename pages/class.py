"""Class: a live poll. Students answer from their own browsers; the class sees what every
post-processing method makes of its own randomized reports (issues 24, 36 and 53).

Only the teacher runs a poll: the browser that started it (its key is in a cookie, never
in an address), a device it was handed to, and the server's operator. Students who open
this page see that it is for teachers, and nothing of any poll.
"""

from __future__ import annotations

import hashlib
import json

import pandas as pd
import streamlit as st

from ldpcore.errors import InputError
from ldpcore.live.access import teacher_passcode
from ldpcore.live.lesson import read_class
from ldpcore.live.reports import (
    class_support,
)
from ldpcore.postprocess import default_method_names
from ldpcore.present.class_sentences import base_readout, class_readout
from ldpcore.present.figures import poll_estimates
from pages.app_layer.classroom.class_form import creation_form, links
from pages.app_layer.classroom.class_views import (
    address_panel,
    controls,
    every_method,
    handover_entry,
    own_polls,
    plain_strong,
    simulated_liars,
    teachers_only,
    turned_away_metric,
)
from pages.app_layer.classroom.live_class import (
    REFRESH_S,
    current_store,
)
from pages.app_layer.classroom.teacher import may_start_polls, teacher_key
from pages.app_layer.controls.navigation import ensure_app
from pages.app_layer.serving.answers import class_tables
from pages.app_layer.views.display import run_or_explain, show_chart

ensure_app(__file__)
st.title("Class: a live poll")

try:
    store = current_store()
    passcode = teacher_passcode()
except (InputError, ValueError) as exc:
    st.error(str(exc))
    st.stop()
key = teacher_key()


#: The lesson's steps: the teacher reveals the noise before the fix (issue 36).
STEPS = (
    "1 · The reports",
    "2 · Base: the noise",
    "3 · Post-processed: the fix",
    "4 · If some lied (simulated)",
)


@st.fragment(run_every=REFRESH_S)
def live_results(code: str) -> None:
    """The count and the estimates, refreshed every few seconds without a click."""
    poll = store.get(code)
    if poll is None or not store.check_key(code, key):
        # Moved or deleted meanwhile: the whole page is drawn again, without the
        # controls this browser no longer has.
        st.session_state["class-lost"] = code
        st.rerun(scope="app")
    rows = store.reports(code)
    left, right = st.columns(2)
    left.metric("reports", len(rows))
    turned_away_metric(right, store.turned_away(code), poll)
    address_panel(store, poll, key)
    st.caption(
        "What no server can check: a randomized report cannot be told from a lie. The "
        "poll takes one report per browser and per address; what a student chose to send "
        "is theirs."
    )
    if not rows:
        st.info("Waiting for the first report. Share the link or the code.")
        return
    step = (
        st.segmented_control(
            "Show the class",
            STEPS,
            default=STEPS[0],
            key="class-step",
            help="Reveal Base first, so the class sees the noise before post-processing fixes it.",
        )
        or STEPS[0]
    )
    if step == STEPS[0]:
        arrived = (
            "1 randomized report arrived"
            if len(rows) == 1
            else (f"{len(rows):,} randomized reports arrived")
        )
        st.write(
            f"{arrived}. Each one is a student's answer after their browser randomized "
            "it: the server never saw a true answer. Next: what the reports say when taken "
            "at face value (Base)."
        )
        st.dataframe(
            pd.DataFrame(
                {"option": list(poll.options), "reports supporting it": class_support(poll, rows)}
            ),
            hide_index=True,
            key="class-support",
        )
        return
    print_ = hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()
    if step == STEPS[3]:
        simulated_liars(poll, rows, print_, ("Base", "Norm-Sub", "Norm-Mul", "Base-Cut"))
        return
    methods = default_method_names() if step == STEPS[2] else ("Base",)
    consistent = [m for m in default_method_names() if m != "Base"]
    chosen = (
        st.selectbox(
            "Method drawn", consistent, index=consistent.index("Norm-Sub"), key="class-method"
        )
        if step == STEPS[2]
        else "Norm-Sub"
    )
    wanted = tuple(dict.fromkeys((*methods, chosen)))
    # Cached on the poll and its reports' fingerprint: the refresh every few seconds
    # recomputes nothing until the reports change (one arrives, or the teacher removes
    # an address's).
    tables = run_or_explain(lambda: class_tables(poll, print_, wanted, rows), "Estimating…")
    if not tables or chosen not in tables:
        return
    reading = read_class(tables[chosen], poll=poll, method=chosen, reports=len(rows))
    if step == STEPS[1]:
        plain_strong(base_readout(reading))
        show_chart(poll_estimates(tables[chosen], chosen, base_only=True), key="chart-class")
        st.dataframe(
            every_method(poll, {"Base": tables["Base"]}), hide_index=True, key="class-table"
        )
        return
    plain_strong(class_readout(reading))
    show_chart(poll_estimates(tables[chosen], chosen), key="chart-class")
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


code = st.query_params.get("poll", "")
legacy = st.query_params.get("key", "")
if code and legacy:
    # A link from before issue 53 carried the key in the address: it moves to this
    # browser's own key, and leaves the address bar.
    if store.check_key(code, legacy):
        store.adopt(code, legacy, key)
    del st.query_params["key"]
poll = store.get(code) if code else None
if poll is not None and store.check_key(poll.code, key):
    links(poll)
    controls(store, poll, key)
    live_results(poll.code)
    st.stop()
if code:
    st.query_params.clear()
if st.session_state.pop("class-lost", None):
    st.warning(
        "This browser no longer runs that poll: it was moved to another device with a "
        "handover code, or deleted."
    )
if not may_start_polls(store.is_teacher(key)):
    teachers_only(store, key, passcode)
    handover_entry(store, key)
    st.stop()
own_polls(store, key)
creation_form(store, key)
handover_entry(store, key)
