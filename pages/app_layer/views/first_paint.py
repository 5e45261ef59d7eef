"""The first screen before the rest: a page's answer and chart are drawn first, alone.

The browser loads the code for each kind of element the first time a page draws one, and
draws every element it has in one go. A first visit to the Explorer once sent the by-rank
chart, the method table, the downloads and the links with its first chart, so the first
chart waited for their code and their drawing (0.8 s of 4.7 s here; benchmarks/README.md,
"A first visit"). So a session's first run draws the first screen and a tiny component
after it; the component tells the server once the browser has drawn the first chart
(or after :data:`WAIT_MS`, whichever comes first), and the page is then drawn whole.
Every later run of the session draws it whole at once.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

#: The session's flag: its browser has drawn a first screen.
PAINTED = "first-screen-painted"
#: The most the rest of a page waits for the first chart, in milliseconds: a page whose
#: first screen has no chart (an error said instead) is drawn whole after it.
WAIT_MS = 6000

_JS = """
export default function (component) {
  const { data, setTriggerValue } = component;
  if (!data) return;
  let done = false;
  const finish = () => {
    if (done) return;
    done = true;
    observer.disconnect();
    clearTimeout(timer);
    // After the browser has painted the chart, not merely added it.
    requestAnimationFrame(() => setTimeout(() => setTriggerValue("painted", true), 0));
  };
  const drawn = () => document.querySelector(data.selector) !== null;
  const observer = new MutationObserver(() => { if (drawn()) finish(); });
  const timer = setTimeout(finish, data.wait_ms);
  observer.observe(document.body, { childList: true, subtree: true });
  if (drawn()) finish();
}
"""


@st.cache_resource(show_spinner=False)
def signal() -> Any:
    """The component (registered once per server: its name must be unique)."""
    return st.components.v2.component("ldpcore.first_paint", html="<span></span>", js=_JS)


def first_screen_drawn(selector: str = ".js-plotly-plot .main-svg") -> bool:
    """Whether to draw the rest of the page now: True once the session's browser has
    drawn ``selector`` (the first chart by default); else the signal is placed here and
    the caller stops, to be run again when the browser has drawn it."""
    if st.session_state.get(PAINTED):
        return True
    result = signal()(
        key="first-paint",
        data={"selector": selector, "wait_ms": WAIT_MS},
        on_painted_change=lambda: None,
    )
    if getattr(result, "painted", None):
        st.session_state[PAINTED] = True
        return True
    return False


__all__ = ["PAINTED", "WAIT_MS", "first_screen_drawn", "signal"]
