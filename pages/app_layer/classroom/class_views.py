"""The Class page's views: the teacher's words as plain text, the teacher's controls,
and what everyone else sees (who sent what is :mod:`.addresses`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import streamlit as st

from ldpcore.errors import InputError
from ldpcore.formats import plain_html
from ldpcore.live.access import passcode_matches
from ldpcore.live.poll import CLASS_SIZE_MAX, Poll
from ldpcore.live.reports import poll_export_text
from ldpcore.live.store import HANDOVER_SECONDS, PollStore
from ldpcore.present.class_sentences import (
    SEATS_HELP,
    TEACHERS_ONLY,
    door_words,
    every_method,
    handover_words,
    liars_caption,
    liars_words,
)
from pages.app_layer.classroom.addresses import clear_confirmation
from pages.app_layer.classroom.live_class import current_doors
from pages.app_layer.classroom.teacher import connection_address


def plain_heading(text: str) -> None:
    """The teacher's question as a heading, shown as typed (no Markdown, LaTeX or colour)."""
    st.html(f'<h2 class="ldp-question">{plain_html(text)}</h2>')


def plain_strong(text: str) -> None:
    """A sentence that holds the teacher's words (the options), in bold, shown as typed."""
    st.markdown(f"**{plain_html(text)}**")


def number_setting(
    where: Any,
    label: str,
    current: int,
    button: str,
    apply: Callable[[int], None],
    *,
    key: str,
    help: str | None = None,
) -> None:
    """A whole number the teacher changes during the poll, applied by a button (a number
    typed halfway must not reach the poll); a refusal is said, the page redrawn after."""
    value = where.number_input(
        label, min_value=1, max_value=CLASS_SIZE_MAX, value=current, step=1, key=key, help=help
    )
    if int(value) != current and where.button(button, key=f"{key}-set"):
        try:
            apply(int(value))
        except InputError as exc:
            where.error(str(exc))
        else:
            st.rerun()


def controls(store: PollStore, poll: Poll, key: str) -> None:
    """The teacher's controls: export, close or reopen, class size, addresses, handover,
    delete. Drawn only for a browser that runs the poll."""
    with st.expander("Run the poll", expanded=False, icon=":material/settings:"):
        one, two, three = st.columns(3)
        one.download_button(
            "Reports (.csv)",
            data=lambda: poll_export_text(poll, store.reports(poll.code)),
            file_name=f"poll-{poll.code}.csv",
            mime="text/csv",
            key="class-export",
            on_click="ignore",
        )
        # Another action: the last confirmation is done with.
        if not poll.closed and two.button(
            "Close the poll", key="class-close", on_click=clear_confirmation
        ):
            store.close(poll.code, key)
            st.rerun()
        if poll.closed and two.button(
            "Reopen the poll", key="class-reopen", on_click=clear_confirmation
        ):
            store.reopen(poll.code, key)
            st.rerun()
        number_setting(
            three,
            "Class size",
            poll.max_reports,
            "Set the class size",
            lambda size: store.resize(poll.code, key, size),
            key=f"class-resize-{poll.code}",
        )
        number_setting(
            st,
            "Reports counted per network address",
            poll.seats,
            "Set the seats",
            lambda seats: store.set_seats(poll.code, key, seats),
            key=f"class-seats-{poll.code}",
            help=SEATS_HELP,
        )
        if st.button(
            "Move this poll to another device", key="class-handover", on_click=clear_confirmation
        ):
            until = time.time() + HANDOVER_SECONDS
            st.session_state["class-handover-code"] = (store.handover(poll.code, key), until)
        handed, until = st.session_state.get("class-handover-code", ("", 0.0))
        # Shown while it can still be used, and only in this browser's own session.
        if handed and time.time() < until:
            st.info(handover_words(handed), icon=":material/devices:")
        sure = st.checkbox("Delete it for good", key="class-delete-sure")
        if st.button("Delete the poll and its reports", key="class-delete", disabled=not sure):
            store.delete(poll.code, key)
            st.query_params.clear()
            st.success(f"Poll {poll.code} and its reports are deleted.")
            st.stop()


def teachers_only(store: PollStore, key: str, passcode: str | None) -> None:
    """What a student (or anyone not running a poll) sees: nothing of any poll."""
    st.info(TEACHERS_ONLY, icon=":material/school:")
    st.page_link("pages/join.py", label="Answer a poll", icon=":material/how_to_vote:")
    if passcode is not None:
        given = st.text_input("Teacher passcode", type="password", key="class-passcode")
        if st.button("Start as a teacher", key="class-passcode-go") and given:
            doors, address = current_doors(store), connection_address()
            state = doors.attempt("passcode", address)
            if not state.allowed:
                st.error(door_words(state, "passcode"))
            elif passcode_matches(given, passcode):
                doors.succeeded("passcode", address)
                store.admit_teacher(key)
                st.rerun()
            else:
                doors.failed("passcode", address)
                st.error("That passcode is not this server's. Ask whoever runs the server.")
    else:
        st.caption(
            "Polls are started on the server's own machine, or with a passcode its "
            "operator sets (LDPCORE_TEACHER_PASSCODE)."
        )


def handover_entry(store: PollStore, key: str) -> None:
    """Take a poll over from another device, with the code the teacher asked for there."""
    with st.expander("Continue a poll from another device"):
        typed = st.text_input("Handover code", key="class-redeem-code")
        if st.button("Continue the poll here", key="class-redeem") and typed.strip():
            doors, address = current_doors(store), connection_address()
            state = doors.attempt("handover", address)
            if not state.allowed:
                st.error(door_words(state, "handover"))
                return
            try:
                code = store.redeem(typed, key)
            except InputError as exc:
                doors.failed("handover", address)
                st.error(str(exc))
            else:
                doors.succeeded("handover", address)
                st.query_params.from_dict({"poll": code})
                st.rerun()


def own_polls(store: PollStore, key: str) -> None:
    """The polls this browser runs, to come back to one."""
    mine = store.owned(key)
    if mine:
        with st.expander(f"Your polls ({len(mine)})"):
            for poll in mine[:20]:
                st.page_link(
                    "pages/class.py",
                    # The teacher's words as typed: no Markdown, LaTeX or colour.
                    label=f"{poll.code}: {plain_html(poll.question)}"
                    + (" (closed)" if poll.closed else ""),
                    query_params={"poll": poll.code},
                )


__all__ = [
    "controls",
    "every_method",
    "handover_entry",
    "own_polls",
    "plain_heading",
    "plain_strong",
    "teachers_only",
]


#: The most simulated lying students a teacher can add (a few show the point).
LIARS_MAX = 30


def simulated_liars(
    poll: Poll, rows: list[Any], fingerprint: str, methods: tuple[str, ...]
) -> None:
    """Step 4: a few simulated lying students pushing one option, every method's answer.

    Clearly labelled and never stored (:func:`ldpcore.live.reports.with_simulated_liars`).
    """
    # Late imports: the cache module loads the core's estimates, which the other views
    # do not need.
    from pages.app_layer.serving.answers import class_tables, class_tables_with_liars  # noqa: PLC0415
    from pages.app_layer.views.display import run_or_explain  # noqa: PLC0415

    left, right = st.columns([3, 2])
    option = left.selectbox(
        "The option the lying students push",
        poll.options,
        index=len(poll.options) - 1,
        key="class-liar-option",
    )
    liars = int(
        right.number_input(
            "Simulated lying students",
            1,
            LIARS_MAX,
            3,
            key="class-liars",
            help="Simulated on this page only: they are not in the poll and nothing is stored.",
        )
    )
    target = poll.options.index(option)
    honest = run_or_explain(lambda: class_tables(poll, fingerprint, methods, rows), "Estimating…")
    lied = run_or_explain(
        lambda: class_tables_with_liars(poll, fingerprint, methods, (target, liars), rows),
        "Adding the simulated students…",
    )
    if not honest or not lied:
        return
    moves = [
        (m, float(honest[m]["estimate"].iloc[target]), float(lied[m]["estimate"].iloc[target]))
        for m in methods
    ]
    # The options are the teacher's words: shown as typed (no Markdown, LaTeX or colour).
    st.warning(
        plain_html(liars_words(option, liars, moves, len(rows))), icon=":material/person_alert:"
    )
    st.dataframe(every_method(poll, lied), hide_index=True, key="class-liars-table")
    st.caption(liars_caption(liars, len(rows)))
