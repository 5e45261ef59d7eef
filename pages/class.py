"""Class: a live poll. Students answer from their own browsers; the class sees what every
post-processing method makes of its own randomized reports (issue 24).
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from ldpcore.errors import InputError
from ldpcore.live.lesson import read_class
from ldpcore.live.poll import CLASS_SIZE_DEFAULT, CLASS_SIZE_MAX, Poll
from ldpcore.live.reports import (
    PRESETS,
    class_support,
    export_text,
    live_protocols,
    poll_protocol,
)
from ldpcore.live.store import OPTIONS_MAX, OPTIONS_MIN, PollStore
from ldpcore.postprocess import default_method_names
from ldpcore.present.figures import percent_label, poll_estimates
from ldpcore.present.sentences import base_readout, class_readout
from pages.app_layer.cache import class_tables
from pages.app_layer.display import run_or_explain, show_chart
from pages.app_layer.live_class import (
    REFRESH_S,
    current_store,
    join_address,
    join_link,
    qr_markdown,
    teacher_link,
)
from pages.app_layer.navigation import ensure_app

ensure_app()
st.title("Class: a live poll")

#: ε offered to a class (a lecture shows the trade-off at a glance at these).
CLASS_EPSILONS = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0)
OWN_QUESTION = "Write your own question"

try:
    store = current_store()
except InputError as exc:
    st.error(str(exc))
    st.stop()


def creation_form(store: PollStore) -> None:
    """The teacher writes a question and its options, picks a protocol and ε, and starts."""
    st.write(
        "Each student answers from their own browser, which randomizes the answer before "
        "anything is sent: the class then post-processes its own noisy reports."
    )
    preset = st.selectbox("Start from", [*PRESETS, OWN_QUESTION], key="class-preset")
    question = st.text_input(
        "Question", value="" if preset == OWN_QUESTION else preset, key=f"class-q-{preset}"
    )
    options = st.text_area(
        f"Options, one per line ({OPTIONS_MIN} to {OPTIONS_MAX})",
        value="\n".join(PRESETS.get(preset, ())),
        key=f"class-options-{preset}",
        height=180,
    )
    left, middle, right = st.columns(3)
    protocol = left.selectbox(
        "Protocol (run in each student's browser)", live_protocols(), key="class-protocol"
    )
    epsilon = middle.select_slider("ε", CLASS_EPSILONS, value=1.0, key="class-epsilon")
    size = right.number_input(
        "Class size (most reports taken)",
        min_value=1,
        max_value=CLASS_SIZE_MAX,
        value=CLASS_SIZE_DEFAULT,
        step=1,
        key="class-size",
        help="The poll refuses reports beyond this, in words, and shows you how many "
        "it turned away: someone clearing their browser cannot answer over and over.",
    )
    if st.button("Start the poll", type="primary", key="class-start"):
        lines = [line for line in options.splitlines() if line.strip()]
        try:
            poll, key = store.create(
                question, lines, protocol=protocol, epsilon=float(epsilon), max_reports=int(size)
            )
        except InputError as exc:
            st.error(str(exc))
            return
        st.query_params.from_dict({"poll": poll.code, "key": key})
        st.rerun()


def links(poll: Poll, key: str) -> None:
    """The join link (text, QR code, short code) and the teacher's own link.

    The link uses an address students can open (:func:`join_address`); when the page
    was opened as ``localhost`` it says so, and what to do, above the link.
    """
    address = join_address()
    link = join_link(poll.code)
    if address.warning:
        st.warning(address.warning, icon=":material/wifi_off:")
    left, right = st.columns([2, 1])
    with left:
        st.subheader(poll.question)
        st.markdown(f"Students open **{link}** or type the code:")
        st.markdown(f"## {' '.join(poll.code)}")
        if address.others:
            st.caption(
                "If that address does not open on a phone, this computer also answers at "
                + ", ".join(f"{other}/join" for other in address.others)
                + "."
            )
        st.caption(
            f"{poll.protocol}, ε = {poll.epsilon:g}, {len(poll.options)} options, up to "
            f"{poll.max_reports:,} reports."
            + (" Closed: no more reports are taken." if poll.closed else "")
        )
        with st.expander("Your own link (keep it private)"):
            st.write(
                "It brings this poll back, on any machine and after a restart. Anyone "
                "with it can close or delete the poll."
            )
            st.code(teacher_link(poll.code, key), language=None)
    right.markdown(qr_markdown(link, f"QR code of the join link for poll {poll.code}"))
    right.caption("Scan to join.")


#: The lesson's steps: the teacher reveals the noise before the fix (issue 36).
STEPS = ("1 · The reports", "2 · Base: the noise", "3 · Post-processed: the fix")


@st.fragment(run_every=REFRESH_S)
def live_results(code: str) -> None:
    """The count and the estimates, refreshed every few seconds without a click."""
    poll = store.get(code)
    if poll is None:
        st.warning("This poll has been deleted.")
        return
    rows = store.reports(code)
    refused = store.refused(code)
    left, right = st.columns(2)
    left.metric("reports", len(rows))
    right.metric(
        "turned away",
        refused,
        help=f"Reports refused because the poll had its {poll.max_reports:,} (the class "
        "size you set).",
    )
    if not rows:
        st.info("Waiting for the first report. Share the link or the code.")
        return
    step = (
        st.segmented_control(
            "Show the class",
            STEPS,
            default=STEPS[-1],
            key="class-step",
            help="Reveal Base first, so the class sees the noise before post-processing fixes it.",
        )
        or STEPS[-1]
    )
    if step == STEPS[0]:
        st.write(
            f"{len(rows)} randomized reports arrived. Each one is a student's answer after "
            "their browser randomized it: the server never saw a true answer. Next: what "
            "the reports say when taken at face value (Base)."
        )
        st.dataframe(
            pd.DataFrame(
                {"option": list(poll.options), "reports supporting it": class_support(poll, rows)}
            ),
            hide_index=True,
            key="class-support",
        )
        return
    methods = default_method_names() if step == STEPS[-1] else ("Base",)
    consistent = [m for m in default_method_names() if m != "Base"]
    chosen = (
        st.selectbox(
            "Method drawn", consistent, index=consistent.index("Norm-Sub"), key="class-method"
        )
        if step == STEPS[-1]
        else "Norm-Sub"
    )
    wanted = tuple(dict.fromkeys((*methods, chosen)))
    # Cached on the poll and its count (reports are only ever added): the refresh every
    # few seconds recomputes nothing until a new report arrives.
    tables = run_or_explain(lambda: class_tables(poll, len(rows), wanted, rows), "Estimating…")
    if not tables or chosen not in tables:
        return
    reading = read_class(tables[chosen], poll=poll, method=chosen, reports=len(rows))
    if step == STEPS[1]:
        st.markdown(f"**{base_readout(reading)}**")
        show_chart(poll_estimates(tables[chosen], chosen, base_only=True), key="chart-class")
        st.dataframe(
            every_method(poll, {"Base": tables["Base"]}), hide_index=True, key="class-table"
        )
        return
    st.markdown(f"**{class_readout(reading)}**")
    show_chart(poll_estimates(tables[chosen], chosen), key="chart-class")
    st.dataframe(every_method(poll, tables), hide_index=True, key="class-table")
    st.caption(
        f"Each cell: the method's estimate of the share of the class, with a 95% "
        f"interval for the true share, from {len(rows)} randomized reports. The "
        "intervals hold for all options at once, and are exact however small the class "
        '(never a normal approximation; benchmarks/README.md, "Intervals for a '
        'class"). Base is unbiased but noisy (it can be negative, and the column need '
        "not sum to 100%); the other methods trade a little bias for a proper "
        "distribution. With few reports every interval is wide: that is the lesson."
    )


def every_method(poll: Poll, tables: dict[str, pd.DataFrame]) -> pd.DataFrame:
    """One row per option, one column per method: "estimate (low–high)"."""
    frame = pd.DataFrame({"option": list(poll.options)})
    for method, table in tables.items():
        frame[method] = [
            f"{percent_label(round(e, 3))} ({percent_label(round(lo, 3))}–"
            f"{percent_label(round(hi, 3))})"
            for e, lo, hi in zip(table["estimate"], table["low"], table["high"], strict=True)
        ]
    return frame


def controls(poll: Poll, key: str) -> None:
    """Download the reports, close the poll, delete it with its reports."""
    protocol = poll_protocol(poll.protocol, poll.epsilon, len(poll.options))
    left, middle, right = st.columns(3)
    left.download_button(
        "Reports (.csv)",
        data=lambda: export_text(protocol, store.reports(poll.code)),
        file_name=f"poll-{poll.code}.csv",
        mime="text/csv",
        key="class-export",
        on_click="ignore",
    )
    if not poll.closed and middle.button("Close the poll", key="class-close"):
        store.close(poll.code, key)
        st.rerun()
    sure = right.checkbox("Delete it for good", key="class-delete-sure")
    if right.button("Delete the poll and its reports", key="class-delete", disabled=not sure):
        store.delete(poll.code, key)
        st.query_params.clear()
        st.success(f"Poll {poll.code} and its reports are deleted.")
        st.stop()


code, key = st.query_params.get("poll", ""), st.query_params.get("key", "")
if not code:
    creation_form(store)
    st.stop()
poll = store.get(code)
if poll is None or not store.check_key(code, key):
    st.error(
        "This link does not open a poll: the poll was deleted, or the link is incomplete "
        "(it needs both poll= and key=). Start a new poll below."
    )
    st.query_params.clear()
    creation_form(store)
    st.stop()
links(poll, key)
controls(poll, key)
live_results(poll.code)
