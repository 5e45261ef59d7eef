"""A first chart within about two seconds anywhere on the sliders (issue 37).

A page asks :class:`Staged` for every run or sweep it draws, and calls
:meth:`Staged.finish` once the page is drawn. A run that costs little
(``costs.WHOLE_AT_ONCE_S``) runs whole, as before. A dearer one is drawn first from
its first trials, about a second of computing (``costs.first_trials``), with a caption
that says how many trials it shows. Then :meth:`Staged.finish` runs every trial in
chunks on all workers but one, with a progress bar where the run was asked for (above
the server's budget only when the visitor asks, with a Stop button:
:func:`~pages.app_layer.budget.approved`), and draws the page again from all of them.

On a crowded server (other visitors asked for as many whole new runs in the last few
seconds as there are simulation workers: :mod:`ldpcore.experiments.crowd`) a new run is
drawn from its first :data:`CROWDED_TRIALS` trials, and the rest wait to be asked for.

Each trial has its own seed, so the first ``k`` trials of a run are a run of ``k``
trials, and the final page is the one a single run draws, bit for bit
(``tests/test_staging.py``). Moving a slider while the rest runs starts the page again,
which stops the run at its next chunk: nothing queues behind an abandoned setting.
"""

from __future__ import annotations

import dataclasses
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd
import streamlit as st

from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.costs import (
    ASK_FIRST_ABOVE,
    first_trials,
    fixed_seconds,
    measured_up_to,
    within_budget,
)
from ldpcore.experiments.crowd import WINDOW_S, Crowd
from ldpcore.formats import format_duration
from ldpcore.present.run_sentences import extrapolation, run_in_words
from pages.app_layer.budget import approved
from pages.app_layer.cache import run_estimate, simulate, simulate_sweep
from pages.app_layer.display import run_or_explain
from pages.app_layer.executors import worker_count

#: Trials a new run is drawn from while the server is crowded (:mod:`ldpcore.experiments.crowd`):
#: a third of the Explorer's 30. Its trials then cost a third; the page, charts and
#: summaries do not shrink (0.20 → 0.15 CPU s a new configuration at the defaults). Each
#: interval is about √3 wider, and drawn so.
CROWDED_TRIALS = 10


@dataclass(frozen=True)
class Shown:
    """What a page draws now for one run or sweep.

    Attributes
    ----------
    config : ExperimentConfig or None
        The configuration to draw: the one asked for, or its first trials; None when
        nothing can be drawn yet (not even two trials fit in a first chart's time).
    note : str
        How many trials the drawing shows, in words; empty when it shows them all.
    asked : int
        The trials asked for (when the drawing shows fewer).
    """

    config: ExperimentConfig | None
    note: str = ""
    asked: int = 0

    @property
    def complete(self) -> bool:
        """Whether the drawing shows every trial asked for."""
        return not self.note


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
        st.rerun()

    def _stage(
        self, config: ExperimentConfig, parameter: str | None, values: tuple[Any, ...]
    ) -> Shown:
        try:
            seconds, domain_size = run_estimate(config, parameter, values)
        except InputError:
            return Shown(config)  # the run itself says what is wrong with it
        key = f"{config.fingerprint}-{parameter or 'run'}"
        finished = f"staged-finished-{key}"
        beyond = domain_size > measured_up_to()
        # Above ASK_FIRST_ABOVE values a first chart takes longer than the promise,
        # whatever the protocol (measured; ldpcore.experiments.costs): ask first there.
        large = domain_size > ASK_FIRST_ABOVE
        points = 1 if parameter is None else len(values)
        fixed = points * fixed_seconds(domain_size, len(config.methods))
        # Beyond the measured domain sizes the estimate is an extrapolation (it can be far
        # off): nothing runs, not even first trials, until the visitor asks.
        first = 0 if beyond or large else first_trials(seconds, config.trials, fixed)
        # Just completed by finish(): every trial is in the cache now (for one rerun).
        if st.session_state.pop(finished, False):
            return Shown(config)
        crowd, session, now = server_crowd(), _session(), time.monotonic()
        run = run_key(config, parameter, values)
        others = crowd.others(session, run, now) if first else 0
        crowded = others >= max(1, worker_count())
        if crowded:
            first = min(first, CROWDED_TRIALS)
        if first == config.trials:
            crowd.ask(session, run, now)
            return Shown(config)
        slot = st.container()
        go = within_budget(seconds) and not beyond and not large and not crowded
        if not go:
            with slot:
                go = approved(
                    seconds,
                    what=run_in_words(config, parameter, values, domain_size),
                    key=key,
                    caveat=extrapolation(beyond) or _large_words(large),
                    ask=True,
                    reason=_crowded_words(others) if crowded else "",
                    action=f"Run all {config.trials} trials" if crowded else "",
                )
        if go:
            crowd.ask(session, run, now)
        shown = dataclasses.replace(config, trials=first) if first else None
        if shown is not None:
            rest = "the rest are running" if go else "the rest run when you ask, above"
            note = f"Showing the first {first} of {config.trials} trials; {rest}."
        elif beyond:
            note = "Nothing to show yet: this run's cost is an extrapolation (above)."
        elif large:
            note = (
                f"Nothing to show yet: with more than {ASK_FIRST_ABOVE:,} values even a first "
                "chart takes longer than two seconds, so the run waits for you to ask (above)."
            )
        else:
            two = fixed + 2 * (seconds - fixed) / config.trials
            note = (
                f"Nothing to show yet: even the first two of the {config.trials} trials "
                f"would take about {format_duration(two)} of computing."
            )
        if go:

            def complete() -> None:
                with slot:
                    if parameter is None:
                        simulate(config, _stoppable=True)
                    else:
                        simulate_sweep(config, parameter, values, True)
                st.session_state[finished] = True

            self._pending.append(complete)
        return Shown(shown, note, config.trials)


def run_key(config: ExperimentConfig, parameter: str | None, values: Sequence[Any]) -> str:
    """What identifies a run or sweep in the server's crowd (:func:`server_crowd`)."""
    return f"{config.fingerprint}-{parameter or 'run'}-{tuple(values)!r}"


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


def _large_words(large: bool) -> str:
    """Why a run within the budget still waits to be asked for (empty when it does not)."""
    if not large:
        return ""
    return (
        f" With more than {ASK_FIRST_ABOVE:,} values even its first chart takes longer than "
        "the two seconds this app aims for, so nothing runs until you ask."
    )


def _crowded_words(others: int) -> str:
    return (
        f"The server is busy: {others} other visitor{'s' if others != 1 else ''} asked for "
        f"new runs in the last {WINDOW_S:.0f} seconds (a class moving its sliders "
        "together?), so this page is drawn from its first trials to keep everyone's pages "
        "quick. Its intervals are wider, and say so."
    )


def trials_shown(shown: Shown) -> str:
    """ " Drawn from the first 6 of 30 trials." for a caption (empty when complete)."""
    if shown.complete or shown.config is None:
        return ""
    return f" Drawn from the first {shown.config.trials} of {shown.asked} trials."


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
    (:func:`~pages.app_layer.display.run_or_explain` has then said why).
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
