"""The live class's Streamlit parts: the poll store, the answer form and the links.

The store and the estimates are in ``ldpcore`` (streamlit-free); this module holds what
only a page needs: one store per server, the component registered once, and the URLs.
"""

from __future__ import annotations

import dataclasses
from typing import Any
from urllib.parse import urlencode, urlsplit

import streamlit as st

from ldpcore.live.doors import Doors
from ldpcore.live.network import (
    JoinOrigin,
    check_public_url,
    join_origin,
    network_addresses,
    public_url_setting,
)
from ldpcore.live.store import PollStore, default_data_dir
from ldpcore.live.web import answer_form_source

#: The pages' URL paths (the join link is what students open).
CLASS_PATH, JOIN_PATH = "class", "join"
#: Seconds between the teacher page's refreshes of the count and the estimates.
REFRESH_S = 3

_FORM_HTML = '<div class="ldp-answer"></div>'
# The theme's own colours and font (st.components.v2 exposes them as CSS variables); a
# 2.75 rem target for each option and the button (WCAG 2.5.8 asks 24 px; phones need more).
_FORM_CSS = """
.ldp-answer { font-family: var(--st-font); color: var(--st-text-color); }
fieldset { border: 1px solid var(--st-border-color); border-radius: 0.5rem; padding: 0.75rem; }
legend { font-weight: 600; font-size: 1.15rem; padding: 0 0.25rem; }
label { display: flex; align-items: center; gap: 0.5rem; min-height: 2.75rem; cursor: pointer; }
input[type=radio] { width: 1.25rem; height: 1.25rem; accent-color: var(--st-primary-color); }
button { margin-top: 0.75rem; min-height: 2.75rem; padding: 0 1.25rem; border-radius: 0.5rem;
         border: none; background: var(--st-primary-color); color: #fff; font-size: 1rem;
         cursor: pointer; }
button:disabled { opacity: 0.6; cursor: default; }
.ldp-done { font-weight: 600; }
"""


@st.cache_resource(show_spinner=False)
def poll_store(directory: str) -> PollStore:
    """The poll store of a data directory, opened once per server."""
    return PollStore(directory)


def current_store() -> PollStore:
    """The store under ``LDPCORE_DATA_DIR`` (read on every call: tests point it elsewhere)."""
    return poll_store(str(default_data_dir()))


@st.cache_resource(show_spinner=False)
def _doors(path: str) -> Doors:
    return Doors(path)


def current_doors(store: PollStore) -> Doors:
    """The wrong tries at the passcode and handover codes, in ``store``'s file."""
    return _doors(str(store.path))


@st.cache_resource(show_spinner=False)
def answer_form() -> Any:
    """The answer form component (registered once per server: names must be unique)."""
    return st.components.v2.component(
        "ldpcore.answer_form", html=_FORM_HTML, css=_FORM_CSS, js=answer_form_source()
    )


def browser_origin() -> tuple[str, str]:
    """The teacher's browser URL and the app's base path under it (``/ldp`` behind a proxy).

    AppTest has no URL: a placeholder keeps the page drawable there.
    """
    url = st.context.url or "http://localhost:8501/"
    path = urlsplit(url).path.rstrip("/")
    for page in (CLASS_PATH, JOIN_PATH):
        if path.endswith("/" + page):
            path = path[: -len(page) - 1]
    return url, path


@st.cache_data(ttl=30, show_spinner=False)
def _network_addresses() -> tuple[str, ...]:
    # Read again every half minute: a laptop may change networks during a lesson.
    return network_addresses()


def join_address() -> JoinOrigin:
    """Where students' links point, with what the teacher must know (:mod:`.network`).

    A malformed ``LDPCORE_PUBLIC_URL`` is said as the warning, and the browser's
    address is used meanwhile.
    """
    url, base = browser_origin()
    problem = ""
    public: str | None = None
    if setting := public_url_setting():
        try:
            public = check_public_url(setting)
        except ValueError as exc:
            problem = str(exc) + ". Until then: "
    found = join_origin(
        url,
        public_url=public,
        server_address=st.get_option("server.address"),
        addresses=_network_addresses(),
        base_path=base,
    )
    if problem:
        found = dataclasses.replace(
            found, warning=problem + (found.warning or f"links use {found.origin}.")
        )
    return found


def app_origin() -> str:
    """``scheme://host[:port]`` and base path of the links students and teacher open."""
    return join_address().origin


def join_link(code: str) -> str:
    """The link students open."""
    return f"{app_origin()}/{JOIN_PATH}?{urlencode({'code': code})}"


def projector_path(code: str) -> str:
    """The projector view's address, relative to the Class page (the teacher's own
    origin: the view is for the browser that runs the poll, in a second window)."""
    return f"{CLASS_PATH}?{urlencode({'poll': code, 'view': 'projector'})}"


def qr_markdown(text: str, name: str) -> str:
    """A QR code of ``text`` as a markdown image whose alternative text names it.

    Markdown, not ``st.image``: an image drawn there gets no alternative text, and its
    caption's link fell below AA contrast (axe). ``st.html`` strips SVG.
    """
    import segno  # noqa: PLC0415 (only the teacher page draws one)

    uri = segno.make(text, error="m").svg_data_uri(scale=6, dark="#16181F", light="#FFFFFF")
    # The alternative text is plain words: markdown rewrites a URL inside it.
    return f"![{name}]({uri})"


__all__ = [
    "CLASS_PATH",
    "JOIN_PATH",
    "REFRESH_S",
    "answer_form",
    "app_origin",
    "browser_origin",
    "current_store",
    "join_address",
    "join_link",
    "poll_store",
    "projector_path",
    "qr_markdown",
]
