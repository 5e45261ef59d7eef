"""The app's menu and page setup: what app.py runs, and what a deep-linked page needs."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

import streamlit as st

from pages.app_layer.views.reruns import rerun_unless_asked_elsewhere

TITLE = "LDP post-processing explorer"
#: Session-state key app.py sets before running a page: the session has been through
#: app.py (see ensure_app). Never removed: deleting a key mid-run disturbs widget state.

THROUGH_APP = "_ldp_through_app"

#: The menu runs along the top. A first run on a fresh server, before app.py has called
#: st.navigation, is Streamlit's legacy multipage mode, which lists every file of pages/
#: ("app, choose epsilon, common, …") in the sidebar; .streamlit/config.toml hides that
#: sidebar listing (client.showSidebarNavigation = false), which would hide a sidebar
#: menu too, so the app's own menu is drawn at the top from the first paint.
MENU_POSITION: Final = "top"


#: The app's pages in menu order: file, title and st.Page's other arguments. The one
#: list of them: the navigation below and the tests (every page renders) read it.
PAGES: Final[tuple[tuple[str, str, dict[str, Any]], ...]] = (
    ("pages/explorer.py", "Explorer", {"icon": ":material/query_stats:", "default": True}),
    # Second: the gentle way in, next to the page a first visit lands on.
    ("pages/learn.py", "Learn", {"icon": ":material/school:"}),
    ("pages/tradeoffs.py", "ε trade-offs", {"icon": ":material/tune:"}),
    ("pages/queries.py", "Queries", {"icon": ":material/join:"}),
    ("pages/fake_users.py", "Fake users", {"icon": ":material/report:"}),
    ("pages/your_data.py", "Your data", {"icon": ":material/upload_file:"}),
    ("pages/choose_epsilon.py", "Choose ε", {"icon": ":material/shield:"}),
    ("pages/rounds.py", "Collecting again", {"icon": ":material/event_repeat:"}),
    ("pages/class.py", "Class", {"icon": ":material/groups:", "url_path": "class"}),
    ("pages/paper.py", "Paper", {"icon": ":material/article:"}),
    # Students reach it by the teacher's link or QR code; it has no place in the menu.
    ("pages/join.py", "Join a poll", {"url_path": "join", "visibility": "hidden"}),
)


def page_files() -> tuple[str, ...]:
    """Every page's file, in menu order (the hidden join page last)."""
    return tuple(path for path, _, _ in PAGES)


def app_pages() -> list[Any]:
    """The app's pages, in menu order (app.py's navigation, and ensure_app's)."""
    return [st.Page(path, title=title, **extra) for path, title, extra in PAGES]


def run_app() -> None:
    """Set up the page and run the app's navigation (what app.py does)."""
    st.set_page_config(page_title=TITLE, layout="wide")
    st.session_state[THROUGH_APP] = True
    st.navigation(app_pages(), position=MENU_POSITION).run()


#: Session-state keys: the page this run draws, and the one the run before drew.
PAGE_NOW, PAGE_BEFORE = "_ldp_page_now", "_ldp_page_before"


def page_switched() -> bool:
    """Whether this run is a page's first after another page (or the session's first)."""
    return st.session_state.get(PAGE_BEFORE) != st.session_state.get(PAGE_NOW)


def ensure_app(page: str) -> None:
    """Note which page runs (``page``: its ``__file__``); give a page reached without
    app.py the app's layout and menu.

    The page is noted for :func:`page_switched`: the sidebar starts a page reached from
    another at the settings the person last drew, and only then (a move on the same page
    is the person's own).

    When a server's first request is a deep link (``/choose_epsilon``) and a ``pages/``
    folder exists, Streamlit runs the page file on its own with a sidebar listing every
    file of the folder (its legacy multipage mode, which stays on until ``st.navigation``
    is called; AppTest starts every run in it). Declaring the app's navigation here
    replaces that menu and switches the mode off for the server; the page then carries
    on in the same run, so no widget event is lost.
    """
    st.session_state[PAGE_BEFORE] = st.session_state.get(PAGE_NOW)
    st.session_state[PAGE_NOW] = Path(page).name
    if st.session_state.get(THROUGH_APP, False):
        return
    if not st.runtime.exists():
        # AppTest (no server) re-enters the legacy mode on every run by design; there is
        # no menu to fix, and switching modes mid-run there would reset widget state.
        return
    st.set_page_config(page_title=TITLE, layout="wide")
    st.navigation(app_pages(), position=MENU_POSITION)
    # Run again, now through app.py's navigation: a widget drawn in this legacy-mode run
    # belongs to another page identity, and the first click on it was lost (measured on
    # the Class page: "Start the poll" did nothing once). The first paint costs one run.
    rerun_unless_asked_elsewhere()
