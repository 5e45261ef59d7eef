"""Class: a live poll. Students answer from their own browsers; the class sees what every
post-processing method makes of its own randomized reports.

A projector view (``?view=projector``) shows the class what the teacher chooses, with
no control. Only the teacher runs a poll: the browser that started it (its key is in a cookie, never
in an address), a device it was handed to, and the server's operator. Students who open
this page see that it is for teachers, and nothing of any poll.
"""

from __future__ import annotations

import streamlit as st

from ldpcore.errors import InputError
from ldpcore.live.access import teacher_passcode
from ldpcore.live.lesson import lesson_methods
from ldpcore.present.class_sentences import seats_words
from pages.app_layer.classroom.addresses import address_panel, clear_confirmation
from pages.app_layer.classroom.class_form import creation_form, links
from pages.app_layer.classroom.class_views import (
    controls,
    handover_entry,
    own_polls,
    simulated_liars,
    teachers_only,
)
from pages.app_layer.classroom.lesson_steps import (
    STEPS,
    fingerprint,
    lesson_step,
    live_count,
)
from pages.app_layer.classroom.live_class import REFRESH_S, current_store, projector_path
from pages.app_layer.classroom.projector import projector_view
from pages.app_layer.classroom.teacher import may_start_polls, teacher_key
from pages.app_layer.controls.navigation import ensure_app

ensure_app(__file__)
st.title("Class: a live poll")

try:
    store = current_store()
    passcode = teacher_passcode()
except (InputError, ValueError) as exc:
    st.error(str(exc))
    st.stop()
key = teacher_key()


@st.fragment(run_every=REFRESH_S)
def live_results(code: str) -> None:
    """The estimates and what each address sent, refreshed every few seconds."""
    poll = store.get(code)
    if poll is None or not store.check_key(code, key):
        # Moved or deleted meanwhile: the whole page is drawn again, without the
        # controls this browser no longer has.
        st.session_state["class-lost"] = code
        st.rerun(scope="app")
    rows = store.reports(code)
    address_panel(store, poll, key)
    st.caption(
        "What no server can check: a randomized report cannot be told from a lie. The "
        f"poll takes one report per browser, {seats_words(poll)}; what a student chose "
        "to send is theirs."
    )
    if not rows:
        st.info("Waiting for the first report. Share the link or the code.")
        return
    step = STEPS.index(
        st.segmented_control(
            "Show the class",
            STEPS,
            # A reload resumes the step the class was shown.
            default=STEPS[min(poll.step, len(STEPS) - 1)],
            # A click on the step already shown keeps it (it had sent the class to step 1).
            required=True,
            key="class-step",
            on_change=clear_confirmation,  # another action: the last confirmation is done
            help="Reveal Base first, so the class sees the noise before post-processing fixes it.",
        )
        or STEPS[0]
    )
    fixes = lesson_methods(poll)[1:]  # every method that changes Base
    chosen = (
        st.selectbox(
            "Method drawn",
            fixes,
            index=fixes.index(poll.shown_method) if poll.shown_method in fixes else 0,
            key="class-method",
        )
        if step == 2
        else poll.shown_method
    )
    if (step, chosen) != (poll.step, poll.shown_method):
        store.show(code, key, step, chosen)  # the projector view follows
    if step == len(STEPS) - 1:
        simulated_liars(poll, rows, fingerprint(rows), ("Base", "Norm-Sub", "Norm-Mul", "Base-Cut"))
        return
    lesson_step(poll, rows, step, chosen, projected=False)


code = st.query_params.get("poll", "")
legacy = st.query_params.get("key", "")
if code and legacy:
    # A link from an earlier version carried the key in the address: it moves to this
    # browser's own key, and leaves the address bar.
    if store.check_key(code, legacy):
        store.adopt(code, legacy, key)
    del st.query_params["key"]
poll = store.get(code) if code else None
if poll is not None and store.check_key(poll.code, key):
    if st.query_params.get("view") == "projector":
        projector_view(store, poll, key)
        st.stop()
    links(poll)
    st.markdown(
        f"[Open the projector view]({projector_path(poll.code)}): the question, the link, "
        "the count and the step you show, large, with no control and no secret: put that "
        "window on the wall and keep this one on your own screen."
    )
    controls(store, poll, key)
    live_count(store, poll.code, teacher=True)
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
