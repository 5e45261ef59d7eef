"""The Class page's first view and its projected view: the form that starts a poll, and
the join link with its QR code (the form says what the class will see first).
"""

from __future__ import annotations

import streamlit as st

from ldpcore.errors import InputError
from ldpcore.live.lesson import class_advice
from ldpcore.live.outlook import (
    LESSON_EPSILON,
    MOST_CLASSES,
    LessonOutlook,
    lesson_outlook,
    teaching_epsilon,
)
from ldpcore.live.poll import CLASS_SIZE_MAX, Poll
from ldpcore.live.reports import LESSON_PRESET, PRESETS, live_protocols
from ldpcore.live.store import OPTIONS_MAX, OPTIONS_MIN, PollStore
from ldpcore.present.class_sentences import (
    SEATS_HELP,
    class_advice_sentence,
    outlook_sentence,
    seats_words,
    separating_label,
    teaching_label,
)
from pages.app_layer.classroom.class_views import plain_heading
from pages.app_layer.classroom.live_class import join_address, join_link, qr_markdown

#: ε offered to a class (a lecture shows the trade-off at a glance at these).
CLASS_EPSILONS = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0)
#: The form's class size: a class, not the store's generous cap.
FORM_CLASS_SIZE = 30
OWN_QUESTION = "Write your own question"


def creation_form(store: PollStore, key: str) -> None:
    """The teacher writes a question and its options, picks a protocol and ε, and starts.

    Before it starts, the form says what this class will see at the chosen ε: how often
    the noise and the fix show, and whether a clear majority will stand apart (with the
    smallest ε at which it would, as a choice, not a default).
    """
    st.write(
        "Each student answers from their own browser, which randomizes the answer before "
        "anything is sent: the class then post-processes its own noisy reports."
    )
    choices = [*PRESETS, OWN_QUESTION]
    preset = st.selectbox(
        "Start from", choices, index=choices.index(LESSON_PRESET), key="class-preset"
    )
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
    # The lesson's ε: the class sees the noise and the fix (not the ε at which a majority
    # separates, which at 30 students hides both); the form says what each ε shows.
    epsilon = middle.select_slider("ε", CLASS_EPSILONS, value=LESSON_EPSILON, key="class-epsilon")
    outlook = _outlook(protocol, float(epsilon), count, int(size))
    st.info(outlook_sentence(outlook), icon=":material/school:")
    advice = class_advice(protocol, float(epsilon), count, int(size), epsilons=CLASS_EPSILONS)
    st.caption(class_advice_sentence(advice))
    # Two changes a teacher may want, each one click: the ε at which the class sees the
    # noise and the fix (the lesson), and the one at which a majority stands apart.
    teaching = _teaching(protocol, count, int(size))
    shows_both = min(outlook.noise_shown, outlook.fix_shown) >= MOST_CLASSES
    if teaching is not None and teaching.epsilon != float(epsilon) and not shows_both:
        st.button(
            teaching_label(teaching),
            key="class-use-teaching-epsilon",
            on_click=st.session_state.__setitem__,
            args=("class-epsilon", teaching.epsilon),
        )
    if not advice.separates and advice.smallest_epsilon is not None:
        other = _outlook(protocol, advice.smallest_epsilon, count, int(size))
        st.button(
            separating_label(other),
            key="class-use-epsilon",
            on_click=st.session_state.__setitem__,
            args=("class-epsilon", advice.smallest_epsilon),
        )
    seats = st.number_input(
        "Reports counted per network address",
        min_value=1,
        max_value=CLASS_SIZE_MAX,
        value=1,
        step=1,
        key="class-seats",
        help=SEATS_HELP,
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
                seats=int(seats),
            )
        except InputError as exc:
            st.error(str(exc))
            return
        st.query_params.from_dict({"poll": poll.code})
        st.rerun()


@st.cache_data(show_spinner=False, max_entries=64)
def _teaching(protocol: str, options: int, size: int) -> LessonOutlook | None:
    return teaching_epsilon(protocol, options, size, CLASS_EPSILONS)


@st.cache_data(show_spinner=False, max_entries=64)
def _outlook(protocol: str, epsilon: float, options: int, size: int) -> LessonOutlook:
    return lesson_outlook(protocol, epsilon, options, size)


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
            + seats_words(poll)
            + "."
            + (" Closed: no more reports are taken." if poll.closed else "")
        )
    right.markdown(qr_markdown(link, f"QR code of the join link for poll {poll.code}"))
    right.caption("Scan to join.")


__all__ = ["CLASS_EPSILONS", "creation_form", "links"]
