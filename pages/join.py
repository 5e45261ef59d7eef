"""Join a live class poll: the question, the options and "Send my answer".

The answer never reaches this server: the form is a custom component whose JavaScript
randomizes it in the browser (``ldpcore/live/web/randomizer.js``) and sends only the report,
which this page stores (:meth:`ldpcore.live.store.PollStore.submit`) before saying "sent".
"""

from __future__ import annotations

import streamlit as st

from ldpcore.errors import InputError
from ldpcore.live.reports import browser_parameters, poll_protocol
from ldpcore.live.store import Held, Refused, normalize_code
from pages.app_layer.classroom.live_class import answer_form, current_store
from pages.app_layer.classroom.teacher import connection_address
from pages.app_layer.controls.navigation import ensure_app

ensure_app(__file__)
# During an outage the answer form says itself that it reconnects and keeps the report;
# Streamlit's own "connection error" modal would cover that sentence (and this page opens
# no dialog of its own), so it is not drawn here.
st.html("<style>[data-testid='stDialog'] { display: none !important; }</style>")
st.title("Answer your class's poll")

try:
    store = current_store()
except InputError as exc:
    st.error(str(exc))
    st.stop()

typed = st.query_params.get("code", "")
if not typed:
    entered = st.text_input("The poll's code, as your teacher shows it", key="join-code")
    if st.button("Open the poll", key="join-open") and entered.strip():
        st.query_params["code"] = normalize_code(entered)
        st.rerun()
    st.stop()

code = normalize_code(typed)
poll = store.get(code)
if poll is None:
    st.error(
        f"There is no poll with the code {code!r}. Check the code your teacher shows "
        "(letters and digits; 0 and O, 1 and I are never used) and open the link again."
    )
    st.stop()
if poll.closed:
    st.warning(f"Poll {poll.code} is closed: your teacher takes no more answers.")
    st.stop()

protocol = poll_protocol(poll.protocol, poll.epsilon, len(poll.options))
st.info(
    f"**Your answer stays on this device.** This browser randomizes it ({poll.protocol}, "
    f"ε = {poll.epsilon:g}) and sends only the randomized report; the server never sees "
    "what you chose. You can answer once.",
    icon=":material/lock:",
)
status_key = f"join-status-{poll.code}"
confirmed, refused, may_pass = st.session_state.get(status_key, (None, None, False))
if refused:  # the refusal reads first, above the form
    st.error(refused)
result = answer_form()(
    key=f"answer-{poll.code}",
    data={
        "code": poll.code,
        "question": poll.question,
        "options": list(poll.options),
        "params": browser_parameters(protocol),
        "confirmed": confirmed,
        "refused": refused,
        "retry": may_pass,
        # Each answer of the server draws the form anew (ending its resends), even one
        # that says what it said before.
        "answers": st.session_state.get(f"{status_key}-answers", 0),
    },
    on_report_change=lambda: None,
)
message = getattr(result, "report", None)
if message:
    try:
        if not isinstance(message, dict):  # only our component sends it; check anyway
            # Counted under "turned away" like every refused send (by a digest of it).
            store.refuse_unreadable(poll.code, message, address=connection_address())
            raise InputError("the answer form sent something that is not a report; reload")
        client = str(message.get("client", ""))
        stored = store.submit(
            poll.code, client, message.get("report") or {}, address=connection_address()
        )
    except Held as exc:
        # Stored, so this browser has answered: it sends nothing again.
        st.session_state[status_key] = (client, None, False)
        st.session_state[f"{status_key}-held"] = str(exc)
    except Refused as exc:
        st.session_state[status_key] = (None, str(exc), exc.may_pass)
    except InputError as exc:
        st.session_state[status_key] = (None, str(exc), False)
    else:
        st.session_state[status_key] = (client, None, False)
        st.session_state[f"{status_key}-count"] = stored
    st.session_state[f"{status_key}-answers"] = st.session_state.get(f"{status_key}-answers", 0) + 1
    st.rerun()
if confirmed and (held := st.session_state.get(f"{status_key}-held")):
    st.info(held, icon=":material/hourglass_top:")
elif confirmed:
    so_far = st.session_state.get(f"{status_key}-count")
    st.success(
        "Your report was **sent** and stored"
        + (f" (the class has {so_far} so far)." if so_far else ".")
        + " Your teacher's screen shows the class's estimates, never your answer.",
        icon=":material/check_circle:",
    )
