"""Who is on the Class page: the teacher's browser key, the client's address, the rules.

The rules are :mod:`ldpcore.live.access`'s; this module reads what only a page can (the
session, the connection, its cookies) and keeps the key in the browser: a cookie written
by a tiny component (Streamlit sets no cookie of its own for an app), never an address,
so nothing a projector or a QR code shows can run the poll.
"""

from __future__ import annotations

import re
import secrets
from typing import Any

import streamlit as st

from ldpcore.live.access import (
    KEY_COOKIE,
    KEY_COOKIE_SECONDS,
    client_address,
    is_this_machine,
    teacher_passcode,
    trusted_proxies,
)
from ldpcore.live.network import network_addresses

#: Session-state key of the browser's teacher key (the cookie carries it across reloads).
KEY_STATE = "_ldp_teacher_key"
_KEY_SHAPE = re.compile(r"[A-Za-z0-9_-]{24,64}")

# Writes the cookie the server reads at the next connection (st.context.cookies).
# SameSite=Strict: another site's page cannot make this browser use it.
_KEEPER_JS = """
export default function (component) {
  const { data } = component;
  if (!data || !data.name) return;
  const secure = window.location.protocol === "https:" ? "; Secure" : "";
  document.cookie = data.name + "=" + data.value + "; Max-Age=" + data.age +
    "; Path=/; SameSite=Strict" + secure;
}
"""


@st.cache_resource(show_spinner=False)
def _keeper() -> Any:
    return st.components.v2.component(
        "ldpcore.key_keeper", html="<span hidden></span>", js=_KEEPER_JS
    )


def teacher_key() -> str:
    """This browser's key: from the session, else its cookie, else a new one (then kept).

    Every browser that opens the Class page has one; it runs only the polls it started
    or was handed, and starts polls only where :func:`may_start_polls` says so.
    """
    key = st.session_state.get(KEY_STATE)
    cookie = _text(st.context.cookies.get(KEY_COOKIE))
    if not key:
        key = cookie if _KEY_SHAPE.fullmatch(cookie) else secrets.token_urlsafe(24)
        st.session_state[KEY_STATE] = key
    if cookie != key:
        _keeper()(
            key="ldp-key-keeper",
            data={"name": KEY_COOKIE, "value": key, "age": KEY_COOKIE_SECONDS},
        )
    return str(key)


@st.cache_data(ttl=30, show_spinner=False)
def _own_addresses() -> tuple[str, ...]:
    return network_addresses()


def connection_address() -> str:
    """The address this session's reports are counted against (:func:`client_address`)."""
    forwarded = _text(st.context.headers.get("X-Forwarded-For"))
    remote = _text(st.context.ip_address) or None
    return client_address(remote, {"X-Forwarded-For": forwarded}, trusted_proxies())


def _text(value: object) -> str:
    # AppTest, which has no connection, answers st.context with stand-in objects.
    return value if isinstance(value, str) else ""


def on_this_machine() -> bool:
    """Whether this browser runs on the server's own machine."""
    return is_this_machine(connection_address(), _own_addresses())


def may_start_polls(is_teacher: bool) -> bool:
    """This machine's browsers, and browsers that gave the passcode (``is_teacher``)."""
    return on_this_machine() or (is_teacher and teacher_passcode() is not None)


__all__ = [
    "KEY_STATE",
    "connection_address",
    "may_start_polls",
    "on_this_machine",
    "teacher_key",
]
