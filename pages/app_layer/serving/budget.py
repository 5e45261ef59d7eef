"""A server one visitor cannot stall: every simulation's cost is estimated before it runs.

Every page that simulates stages its runs (:mod:`pages.app_layer.serving.staging`), which asks
:func:`approved` with the run's estimated seconds (:mod:`ldpcore.experiments.costs`).
Up to the server's budget the run starts at once. Above it the page shows the estimate
and a button, and the rest of the run starts only when the visitor asks; it then runs
in chunks (``cache.simulate(..., _stoppable=True)``) on all workers but one, with a
progress bar and a Stop button. In a classroom, a student who opens
``?protocol=SS&d=100000`` (about 35 s of computing) sees a question, not a frozen page,
and everyone else's pages keep answering.

The budget is the person's who runs the server: ``LDPCORE_RUN_BUDGET_S`` (CPU seconds
of one core; :func:`ldpcore.experiments.costs.run_budget_s`). The arithmetic and the words
are in the core (``experiments.costs``, ``present.run_sentences``); this is the question.
"""

from __future__ import annotations

import streamlit as st

from ldpcore.errors import InputError
from ldpcore.experiments.clock import busy_now, clock_seconds
from ldpcore.experiments.costs import run_budget_s
from ldpcore.formats import format_duration
from ldpcore.present.run_sentences import budget_question, clock_words, stopped_words
from ldpcore.serving.workers import worker_count


def approved(
    seconds: float,
    *,
    what: str,
    key: str,
    caveat: str = "",
    ask: bool = False,
    reason: str = "",
    action: str = "",
) -> bool:
    """Whether the run may start now; above the budget, asks first and offers Stop.

    Parameters
    ----------
    seconds : float
        The run's estimated seconds of one core.
    what : str
        The run in words ("30 trials of HR at d = 16,384, 13 methods").
    key : str
        Identifies this run (a configuration's fingerprint): an approval holds for it.
    caveat : str
        Said after the estimate (e.g. that it is an extrapolation).
    ask : bool
        Ask even within the budget (an estimate not to be trusted).
    reason : str
        Why it asks, said instead of the budget (e.g. that the server is busy).
    action : str
        The button's words (default: "Run it" with the estimate).

    Returns
    -------
    bool
        True when the run is within the budget, or its visitor asked for it (and has
        not stopped it). Call ``cache.simulate(..., _stoppable=not within)`` then.
    """
    try:
        budget = run_budget_s()
    except InputError as exc:
        st.error(str(exc))
        return False
    if seconds <= budget and not ask:
        return True
    state = f"budget-approved-{key}"
    if st.session_state.get(state):
        if st.button("Stop this run", key=f"budget-stop-{key}", icon=":material/stop:"):
            st.session_state[state] = False
            st.info(stopped_words(what, seconds, budget))
            return False
        return True
    # What the visitor will wait, by the clock: the run's processes (all workers but one)
    # share the cores with whatever else is running now.
    busy = busy_now()
    clock = clock_seconds(seconds, busy, processes=max(1, worker_count() - 1))
    if reason:
        st.info(reason, icon=":material/groups:")
    else:
        more = caveat + clock_words(seconds, clock, busy)
        st.warning(budget_question(what, seconds, budget, more), icon=":material/hourglass_top:")
    label = action or f"Run it (about {format_duration(clock)} by the clock)"
    if st.button(label, key=f"budget-run-{key}", type="primary"):
        st.session_state[state] = True
        st.rerun()
    return False


__all__ = ["approved"]
