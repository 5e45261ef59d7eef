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
from ldpcore.live.lesson import class_advice, read_class
from ldpcore.live.poll import CLASS_SIZE_MAX, Poll
from ldpcore.live.reports import (
    PRESETS,
    class_support,
    live_protocols,
)
from ldpcore.live.store import OPTIONS_MAX, OPTIONS_MIN, PollStore
from ldpcore.postprocess import default_method_names
from ldpcore.present.figures import poll_estimates
from ldpcore.present.sentences import base_readout, class_advice_sentence, class_readout
from pages.app_layer.cache import class_tables
from pages.app_layer.class_views import (
    address_panel,
    controls,
    every_method,
    handover_entry,
    own_polls,
    plain_heading,
    plain_strong,
    teachers_only,
    turned_away_metric,
)
from pages.app_layer.display import run_or_explain, show_chart
from pages.app_layer.live_class import (
    REFRESH_S,
    current_store,
    join_address,
    join_link,
    qr_markdown,
)
from pages.app_layer.navigation import ensure_app
from pages.app_layer.teacher import may_start_polls, teacher_key

ensure_app()
st.title("Class: a live poll")

#: ε offered to a class (a lecture shows the trade-off at a glance at these).
CLASS_EPSILONS = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0)
#: The form's class size: a class, not the store's generous cap.
FORM_CLASS_SIZE = 30
OWN_QUESTION = "Write your own question"

try:
    store = current_store()
    passcode = teacher_passcode()
except (InputError, ValueError) as exc:
    st.error(str(exc))
    st.stop()
key = teacher_key()


def creation_form(store: PollStore) -> None:
    """The teacher writes a question and its options, picks a protocol and ε, and starts.

    Before it starts, the form says what this class will be able to see, and offers the
    smallest ε at which it separates a clear majority.
    """
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
    lines = [line for line in options.splitlines() if line.strip()]
    left, middle, right = st.columns(3)
    protocol = left.selectbox(
        "Protocol (run in each student's browser)", live_protocols(), key="class-protocol"
    )
    size = right.number_input(
        "Class size (most reports taken)",
        min_value=1,
        max_value=CLASS_SIZE_MAX,
        value=FORM_CLASS_SIZE,
        step=1,
        key="class-size",
        help="The poll takes one report per student and refuses reports beyond this, in "
        "words, counting each one it turned away. You can raise it during the poll.",
    )
    count = max(len(lines), OPTIONS_MIN)
    if "class-epsilon" not in st.session_state:
        # The first ε shown is the smallest that lets this class see a clear majority.
        first = class_advice(protocol, 1.0, count, int(size), epsilons=CLASS_EPSILONS)
        st.session_state["class-epsilon"] = first.smallest_epsilon or 1.0
    epsilon = middle.select_slider("ε", CLASS_EPSILONS, key="class-epsilon")
    advice = class_advice(protocol, float(epsilon), count, int(size), epsilons=CLASS_EPSILONS)
    shown = st.success if advice.separates else st.warning
    shown(class_advice_sentence(advice), icon=":material/visibility:")
    if not advice.separates and advice.smallest_epsilon is not None:
        st.button(
            f"Use ε = {advice.smallest_epsilon:g}",
            key="class-use-epsilon",
            on_click=st.session_state.__setitem__,
            args=("class-epsilon", advice.smallest_epsilon),
        )
    shared = st.toggle(
        "Several students share one network address (a computer lab, a school proxy)",
        key="class-shared",
        help="Off: one report per network address and per browser, so one student "
        "cannot answer again from a private window. On: one per browser only; a student "
        "opening private windows can then answer several times, and you see it only as a "
        "burst from one address.",
    )
    if shared:
        st.caption(
            "Shared addresses: one report per browser only. A student who opens private "
            "windows can answer again; you will see it only as a burst from one address."
        )
    if st.button("Start the poll", type="primary", key="class-start"):
        try:
            poll, _ = store.create(
                question,
                lines,
                protocol=protocol,
                epsilon=float(epsilon),
                max_reports=int(size),
                key=key,
                shared_addresses=shared,
            )
        except InputError as exc:
            st.error(str(exc))
            return
        st.query_params.from_dict({"poll": poll.code})
        st.rerun()


def links(poll: Poll) -> None:
    """The join link (text, QR code, short code): what the projector shows.

    No secret is on this page: the teacher's controls come from this browser's key, and
    another device gets them only by a handover code the teacher asks for.
    """
    address = join_address()
    link = join_link(poll.code)
    if address.warning:
        st.warning(address.warning, icon=":material/wifi_off:")
    left, right = st.columns([2, 1])
    with left:
        plain_heading(poll.question)
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
            f"{poll.max_reports:,} report{'' if poll.max_reports == 1 else 's'}, "
            + ("shared addresses allowed." if poll.shared_addresses else "one per address.")
            + (" Closed: no more reports are taken." if poll.closed else "")
        )
    right.markdown(qr_markdown(link, f"QR code of the join link for poll {poll.code}"))
    right.caption("Scan to join.")


#: The lesson's steps: the teacher reveals the noise before the fix (issue 36).
STEPS = ("1 · The reports", "2 · Base: the noise", "3 · Post-processed: the fix")


@st.fragment(run_every=REFRESH_S)
def live_results(code: str) -> None:
    """The count and the estimates, refreshed every few seconds without a click."""
    poll = store.get(code)
    if poll is None or not store.check_key(code, key):
        st.warning("This poll has been deleted, or this browser no longer runs it.")
        return
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
    # Cached on the poll and its reports' fingerprint: the refresh every few seconds
    # recomputes nothing until the reports change (one arrives, or the teacher removes
    # an address's).
    print_ = hashlib.sha256(json.dumps(rows, sort_keys=True).encode()).hexdigest()
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
if not may_start_polls(store.is_teacher(key)):
    teachers_only(store, key, passcode)
    handover_entry(store, key)
    st.stop()
own_polls(store, key)
creation_form(store)
handover_entry(store, key)
