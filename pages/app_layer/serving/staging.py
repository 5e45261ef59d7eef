"""Staged runs bound to the page: first trials now, the rest after the page is drawn.

What is drawn first is decided in :mod:`ldpcore.serving.staging`; here a page asks
:class:`Staged` for every run or sweep it draws and calls :meth:`Staged.finish` once it
is drawn, which runs every trial in chunks on all workers but one, with a progress bar
where the run was asked for (above the server's budget only when the visitor asks,
with a Stop button: :func:`~pages.app_layer.serving.budget.approved`), and draws the page again.
Moving a slider while the rest runs starts the page again, which stops the run at its
next chunk: nothing queues behind an abandoned setting.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import streamlit as st

from ldpcore.errors import InputError
from ldpcore.experiments.clock import busy_now
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.crowd import Crowd
from ldpcore.present.run_sentences import extrapolation, run_in_words
from ldpcore.serving.staging import Shown, crowded_words, run_key, stage, trials_shown
from ldpcore.serving.workers import worker_count
from pages.app_layer.serving.budget import approved
from pages.app_layer.serving.cache import run_estimate, simulate, simulate_sweep
from pages.app_layer.views.display import run_or_explain
from pages.app_layer.views.reruns import rerun_unless_asked_elsewhere


@dataclass
class Staged:
    """One page run's staged runs: first trials now, the rest after the page is drawn."""

    _pending: list[Callable[[], None]] = field(default_factory=list)

    def run(self, config: ExperimentConfig) -> Shown:
        """Stage one configuration's run."""
        return self._stage(config, None, ())

    def sweep(self, config: ExperimentConfig, parameter: str, values: Sequence[Any]) -> Shown:
        """Stage a sweep of ``parameter`` over ``values`` (every point's first trials)."""
        return self._stage(config, parameter, tuple(values))

    def finish(self) -> None:
        """Run the rest of every staged run, then draw the page again from all trials.

        Call once, after the page is drawn. Above the server's budget a run continues
        only when its visitor asked (the button :meth:`run` or :meth:`sweep` drew).
        """
        if not self._pending:
            return
        for complete in self._pending:
            complete()
        self._pending.clear()
        rerun_unless_asked_elsewhere()

    def _stage(
        self, config: ExperimentConfig, parameter: str | None, values: tuple[Any, ...]
    ) -> Shown:
        try:
            seconds, domain_size = run_estimate(config, parameter, values)
        except InputError:
            return Shown(config)  # the run itself says what is wrong with it
        key = f"{config.fingerprint}-{parameter or 'run'}"
        finished = f"staged-finished-{key}"
        plan = stage(config, seconds, domain_size, 1 if parameter is None else len(values))
        # Just completed by finish(): every trial is in the cache now (for one rerun).
        if st.session_state.pop(finished, False):
            return Shown(config)
        crowd, session, now = server_crowd(), _session(), time.monotonic()
        run = run_key(config, parameter, values)
        others = crowd.others(session, run, now) if plan.first else 0
        crowded = others >= max(1, worker_count())
        plan = plan.crowded(crowded)
        if plan.whole:
            crowd.ask(session, run, now)
            return Shown(config)
        slot = st.container()
        go = plan.runs_unasked(crowded)
        if not go:
            with slot:
                go = approved(
                    seconds,
                    what=run_in_words(config, parameter, values, domain_size),
                    key=key,
                    caveat=extrapolation(plan.beyond) or plan.caveat(),
                    ask=True,
                    reason=crowded_words(others) if crowded else "",
                    action=f"Run all {config.trials} trials" if crowded else "",
                )
        if go:
            crowd.ask(session, run, now)

            def complete() -> None:
                with slot:
                    if parameter is None:
                        simulate(config, _stoppable=True)
                    else:
                        simulate_sweep(config, parameter, values, True)
                st.session_state[finished] = True

            self._pending.append(complete)
        return plan.shown(go, busy_now(), processes=max(1, worker_count() - 1))


def server_crowd() -> Crowd:
    """The server's record of who asked for new runs just now (one per process)."""
    return _crowd()


@st.cache_resource(show_spinner=False)
def _crowd() -> Crowd:
    return Crowd()


def _session() -> str:
    """This browser session's own id: drawn once into its session state (public API;
    Streamlit's internal session id is not part of it)."""
    return str(st.session_state.setdefault("staging-session-id", uuid.uuid4().hex))


def staged_run(
    staged: Staged, config: ExperimentConfig, spinner: str
) -> tuple[dict[str, Any] | None, Shown]:
    """A page's single run, staged: its tables (first trials, said above them) and what
    they show; None when nothing can be drawn yet or the run failed (said why)."""
    shown = staged.run(config)
    if shown.note:
        st.info(shown.note, icon=":material/hourglass_top:")
    if shown.config is None:
        return None, shown
    drawn = shown.config
    found: dict[str, Any] | None = run_or_explain(lambda: simulate(drawn), spinner)
    return found, shown


def staged_sweep(
    staged: Staged,
    config: ExperimentConfig,
    parameter: str,
    values: Sequence[Any],
    spinner: str,
) -> pd.DataFrame | None:
    """A page's sweep, staged: its frame (first trials, said above it), or None.

    None when nothing can be drawn yet, or the sweep failed
    (:func:`~pages.app_layer.views.display.run_or_explain` has then said why).
    """
    shown = staged.sweep(config, parameter, values)
    if shown.note:
        st.info(shown.note, icon=":material/hourglass_top:")
    if shown.config is None:
        return None
    drawn = shown.config
    found: pd.DataFrame | None = run_or_explain(
        lambda: simulate_sweep(drawn, parameter, tuple(values)), spinner
    )
    return found


__all__ = ["Shown", "Staged", "staged_run", "staged_sweep", "trials_shown"]
