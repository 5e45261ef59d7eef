"""A server one visitor cannot stall: every simulation's cost is estimated before it runs.

Every page that simulates stages its runs (:mod:`pages.app_layer.staging`), which asks
:func:`approved` with the run's estimated seconds (:mod:`ldpcore.experiments.costs`).
Up to the server's budget the run starts at once. Above it the page shows the estimate
and a button, and the rest of the run starts only when the visitor asks; it then runs
in chunks (``cache.simulate(..., _stoppable=True)``) on all workers but one, with a
progress bar and a Stop button. In a classroom, a student who opens
``?protocol=SS&d=100000`` (about 35 s of computing) sees a question, not a frozen page,
and everyone else's pages keep answering.

The budget is the person's who runs the server: ``LDPCORE_RUN_BUDGET_S`` (CPU seconds
of one core; :data:`DEFAULT_BUDGET_S` unless set).
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from typing import Any

import streamlit as st

from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.costs import measured_up_to
from ldpcore.formats import format_durations_apart

#: The variable the person who runs the server sets (seconds of one core per run).
BUDGET_VARIABLE = "LDPCORE_RUN_BUDGET_S"
#: A few seconds: every default view and most slider positions stay below it.
DEFAULT_BUDGET_S = 5.0


def run_budget_s() -> float:
    """``$LDPCORE_RUN_BUDGET_S``, else :data:`DEFAULT_BUDGET_S` (read on every call).

    Raises
    ------
    InputError
        A value that is not a number of seconds ≥ 0 (``inf`` turns the budget off).
    """
    text = os.environ.get(BUDGET_VARIABLE, "").strip()
    if not text:
        return DEFAULT_BUDGET_S
    try:
        value = float(text)
    except ValueError:
        value = math.nan
    if not value >= 0:  # also refuses nan
        raise InputError(
            f"{BUDGET_VARIABLE}={text!r}: give the most seconds of computing one run may "
            "take without asking (e.g. 5; inf for no limit), then restart the server"
        )
    return value


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
    estimate, limit = format_durations_apart(seconds, budget)
    if st.session_state.get(state):
        if st.button("Stop this run", key=f"budget-stop-{key}", icon=":material/stop:"):
            st.session_state[state] = False
            st.info(
                f"Stopped. {what} would take about {estimate}; make it smaller (fewer "
                "trials, a smaller d, fewer methods) or run it again."
            )
            return False
        return True
    where = (
        f"above this server's budget of {limit} per run (set by whoever runs it, {BUDGET_VARIABLE})"
        if seconds > budget
        else f"within this server's budget of {limit} per run"
    )
    if reason:
        st.info(reason, icon=":material/groups:")
    else:
        st.warning(
            f"{what} is estimated at about **{estimate}** of computing, {where}.{caveat} It "
            "starts only when you ask, uses at most all workers but one, and can be stopped. "
            "Or make it smaller: fewer trials, a smaller d, fewer methods.",
            icon=":material/hourglass_top:",
        )
    label = action or f"Run it (about {estimate})"
    if st.button(label, key=f"budget-run-{key}", type="primary"):
        st.session_state[state] = True
        st.rerun()
    return False


def run_in_words(
    config: ExperimentConfig, parameter: str | None, values: Sequence[Any], domain_size: int
) -> str:
    """ "This run (30 trials of HR at d = 16,384 with 13 methods)", or a sweep's."""
    # What the sweep varies is named by the sweep, not by the configuration it starts
    # from ("each 30 trials of OLH" over protocols misnamed every other protocol).
    protocol = "" if parameter == "protocol" else f" of {config.protocol}"
    size = "" if parameter == "d" else f" at d = {domain_size:,}"
    methods = len(config.methods)
    what = f"{config.trials} trials{protocol}{size} with {methods} method{'s' * (methods != 1)}"
    if parameter is not None:
        count = len(values)
        listed = f": {', '.join(map(str, values))}" if count <= 8 else ""
        return f"This sweep ({count} values of {parameter}{listed}; each {what})"
    return f"This run ({what})"


def extrapolation(beyond: bool) -> str:
    """The caveat after an estimate beyond the measured domain sizes (empty within them)."""
    if not beyond:
        return ""
    return (
        f" Costs were measured up to d = {measured_up_to():,}: beyond that this is an "
        "extrapolation, and the iterative methods (MLE, IBU) can take far longer."
    )


def within_budget(seconds: float) -> bool:
    """Whether a run of ``seconds`` starts without asking (a bad budget: it asks)."""
    try:
        return seconds <= run_budget_s()
    except InputError:
        return False


__all__ = [
    "BUDGET_VARIABLE",
    "DEFAULT_BUDGET_S",
    "approved",
    "extrapolation",
    "run_budget_s",
    "run_in_words",
    "within_budget",
]
