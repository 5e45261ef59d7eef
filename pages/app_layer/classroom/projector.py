"""The projector view: one page for the wall, the question, the join link and QR code,
the count and the step the teacher shows, large.

It holds no control and no secret: no passcode, no handover code, no address panel, no
button. Only a browser that runs the poll opens it (the teacher's, in a second window);
it follows the step the teacher chooses on their own screen, through the poll store.
"""

from __future__ import annotations

import streamlit as st

from ldpcore.live.poll import Poll
from ldpcore.live.store import PollStore
from ldpcore.present.class_sentences import STEP_LIARS_PROJECTED
from pages.app_layer.classroom.class_views import plain_heading
from pages.app_layer.classroom.lesson_steps import STEPS, lesson_step, live_count
from pages.app_layer.classroom.live_class import REFRESH_S, join_link, qr_markdown

#: Larger type for a room: the wall is read from the back row. The count's rule names the
#: paragraph inside the metric too, and comes after the paragraphs' rule: with the same
#: weight the later wins, so the count is never drawn at the sentences' size.
#: The wall shows no menu, header or sidebar: the room sees the poll, not the app. The
#: question is the largest text, the join code next, then the count. A link breaks
#: anywhere rather than run past its narrow column.
_WALL_CSS = """<style>
.stApp [data-testid="stTopNav"], .stApp header[data-testid="stHeader"],
.stApp [data-testid="stSidebar"], .stApp [data-testid="stSidebarCollapsedControl"],
.stApp [data-testid="stHeading"]:has(h1)
{ display: none; }
.stApp h2.ldp-question { margin: 0 0 0.5rem 0; padding: 0; }
.stApp [data-testid="stMarkdownContainer"] strong a { overflow-wrap: anywhere; }
.stApp [data-testid="stMarkdownContainer"] p { font-size: 1.45rem; }
.stApp h2.ldp-question { font-size: 3.6rem; }
.stApp [data-testid="stMarkdownContainer"] h1 { font-size: 3.3rem; letter-spacing: 0.1em; }
.stApp [data-testid="stMetricValue"],
.stApp [data-testid="stMetricValue"] div,
.stApp [data-testid="stMetricValue"] p { font-size: 3rem; line-height: 1.15; }
.stApp [data-testid="stMetricLabel"] p { font-size: 1.6rem; }
.stApp [data-testid="stMainBlockContainer"] { padding-top: 1rem; }
</style>"""


def projector_view(store: PollStore, poll: Poll, key: str) -> None:
    """The wall's page for ``poll`` (drawn only for a browser that runs it).

    The question across the top; under it the step the teacher shows, its chart as wide
    as the wall allows, beside a narrow column with the join code, the QR code and the
    count: the whole lesson fits a 1280 × 720 projector without scrolling.
    """
    st.html(_WALL_CSS)
    plain_heading(poll.question)
    step_column, join_column = st.columns([2, 1])
    with join_column:
        st.markdown(f"Open **{join_link(poll.code)}** or type the code:")
        st.markdown(f"# {' '.join(poll.code)}")
        st.markdown(
            qr_markdown(join_link(poll.code), f"QR code of the join link for poll {poll.code}")
        )
        live_count(store, poll.code, teacher=False)
    with step_column:
        projected_step(store, poll.code, key)


@st.fragment(run_every=REFRESH_S)
def projected_step(store: PollStore, code: str, key: str) -> None:
    """The step the teacher shows now, read from the store at every refresh."""
    poll = store.get(code)
    if poll is None or not store.check_key(code, key):
        st.info("This poll is no longer run from this browser.")
        return
    if poll.closed:
        st.caption("The poll is closed: no more reports are taken.")
    rows = store.reports(code)
    if not rows:
        st.info("Waiting for the first report.")
        return
    step = min(poll.step, len(STEPS) - 1)
    st.subheader(STEPS[step])
    if step == len(STEPS) - 1:
        st.caption(STEP_LIARS_PROJECTED)
    lesson_step(poll, rows, min(step, 2), poll.shown_method, projected=True)


__all__ = ["projected_step", "projector_view"]
