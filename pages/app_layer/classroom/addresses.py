"""The Class page's view of who sent what: the browsers turned away, the reports that
wait for the teacher, bursts from one address, and removing one address's reports.

Addresses are shown by a label (six characters of a salted hash), never themselves.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from ldpcore.live.admission import most_suspect
from ldpcore.live.poll import Poll
from ldpcore.live.store import PollStore
from ldpcore.present.class_sentences import (
    burst_words,
    removal_confirmation,
    removal_effect,
    turned_away_help,
    turned_away_words,
    waiting_words,
)

#: The teacher's last confirmation (count, discard, remove): kept in the session and
#: shown at every refresh until the teacher's next action replaces or dismisses it. A
#: message read once and dropped vanished with the page's 3-second refresh.
CONFIRMATION = "class-confirmation"


def confirm(text: str) -> None:
    """Say ``text`` until the teacher's next action."""
    st.session_state[CONFIRMATION] = text


def clear_confirmation() -> None:
    """The teacher did something else: the last confirmation is done with."""
    st.session_state.pop(CONFIRMATION, None)


def show_confirmation() -> None:
    """The last confirmation, with a button to dismiss it (drawn at every refresh)."""
    if said := st.session_state.get(CONFIRMATION):
        text, dismiss = st.columns([6, 1], vertical_alignment="center")
        text.success(said)
        dismiss.button("Dismiss", key="class-dismiss", on_click=clear_confirmation)


def turned_away_metric(where: Any, reasons: dict[str, int], poll: Poll) -> None:
    """The count of browsers turned away, with each reason in its help and below it."""
    where.metric("turned away", sum(reasons.values()), help=turned_away_help(poll))
    if said := turned_away_words(reasons):
        where.caption(said)


def address_panel(store: PollStore, poll: Poll, key: str) -> None:
    """Reports held for the teacher, bursts from one address, what each address sent, and
    removing one address's reports.

    Addresses are shown by a label (six characters of a salted hash), never themselves.
    """
    show_confirmation()
    activity = store.addresses(poll.code)
    for each in activity:
        if each.waiting:
            held_notice(store, poll, key, each.label, each.waiting)
    for each in activity:
        if each.burst and not each.removed:
            total = each.reports + each.waiting + each.turned_away
            st.warning(burst_words(each.label, total), icon=":material/bolt:")
    if not activity:
        return
    with st.expander(
        f"Reports by network address ({len(activity)} address{'es' if len(activity) > 1 else ''})"
    ):
        st.dataframe(
            pd.DataFrame(
                {
                    "address": [a.label for a in activity],
                    "reports": [a.reports for a in activity],
                    "waiting": [a.waiting for a in activity],
                    "turned away": [a.turned_away for a in activity],
                    "burst": ["yes" if a.burst else "" for a in activity],
                    "removed": ["yes" if a.removed else "" for a in activity],
                }
            ),
            hide_index=True,
            key="class-addresses",
        )
        removable = [a for a in activity if (a.reports or a.waiting) and not a.removed]
        if not removable:
            return
        flagged = {a.label for a in removable if a.burst or a.waiting}
        suspect = most_suspect(removable)
        # Keyed by the address it preselects: when another address becomes the most
        # suspect, the list starts from it again rather than keeping an earlier choice
        # (the first address to answer, an honest one).
        label = st.selectbox(
            "Remove every report from",
            [a.label for a in removable],
            index=suspect,
            format_func=lambda label: label + (" (flagged)" if label in flagged else ""),
            key=f"class-remove-which-{removable[suspect].label}",
        )
        chosen = next(a for a in removable if a.label == label)
        rows = store.reports(poll.code)
        kept = store.reports(poll.code, without=chosen.label)
        st.write(removal_effect(poll, rows, kept, chosen.label))
        sure = st.checkbox(
            removal_confirmation(chosen.label, chosen.reports, chosen.waiting),
            key=f"class-remove-sure-{chosen.label}",
        )
        if st.button(f"Remove address {chosen.label}", key="class-remove", disabled=not sure):
            removed = store.remove_address(poll.code, key, chosen.label)
            confirm(
                f"Removed {removed} report{'' if removed == 1 else 's'} from address "
                f"{chosen.label}. It takes no more reports, and the browsers that sent "
                "them cannot answer again."
            )
            st.rerun()


def held_notice(store: PollStore, poll: Poll, key: str, label: str, waiting: int) -> None:
    """Reports waiting from one address: the notice, and count or discard them."""
    st.warning(waiting_words(label, waiting, poll), icon=":material/hourglass_top:")
    left, right = st.columns(2)
    if left.button(f"Count {label}'s waiting reports", key=f"class-count-{label}"):
        counted, still = store.count_waiting(poll.code, key, label)
        confirm(
            f"Counted {counted}; {still} still wait{'s' if still == 1 else ''}: the poll "
            "is full. Raise the class size under Run the poll, then count them."
            if still
            else f"Counted {counted} report{'' if counted == 1 else 's'} from address {label}."
        )
        st.rerun()
    if right.button(f"Discard {label}'s waiting reports", key=f"class-discard-{label}"):
        dropped = store.discard_waiting(poll.code, key, label)
        confirm(
            f"Discarded {dropped} waiting report{'' if dropped == 1 else 's'} from address "
            f"{label}: they are not counted."
        )
        st.rerun()


__all__ = [
    "address_panel",
    "clear_confirmation",
    "confirm",
    "held_notice",
    "show_confirmation",
    "turned_away_metric",
]
