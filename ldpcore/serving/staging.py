"""How much of a run a page draws first: the whole run, its first trials, or nothing yet.

A first chart within about two seconds anywhere on the sliders. A run that costs little
(:data:`~ldpcore.experiments.costs.WHOLE_AT_ONCE_S`) is drawn whole. A dearer one is
drawn first from its first trials, about a second of computing
(:func:`~ldpcore.experiments.costs.first_trials`), and the rest run after the page is
drawn. Beyond the measured domain sizes, or above
:data:`~ldpcore.experiments.costs.ASK_FIRST_ABOVE` values, nothing runs until the
visitor asks. On a crowded server (other visitors asked for as many new runs in the last
few seconds as there are simulation workers: :mod:`ldpcore.experiments.crowd`) a new run
is drawn from its first :data:`CROWDED_TRIALS` trials.

Each trial has its own seed, so the first ``k`` trials of a run are a run of ``k``
trials, and the page drawn once every trial is done is the one a single run draws, bit
for bit. The app layer (``pages/app_layer/serving/staging.py``) binds these decisions to
the page: its buttons, its progress bar, its reruns.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ldpcore.experiments.clock import Busy, clock_seconds
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.costs import (
    ASK_FIRST_ABOVE,
    first_trials,
    fixed_seconds,
    measured_up_to,
    within_budget,
)
from ldpcore.experiments.crowd import WINDOW_S
from ldpcore.formats import format_duration

#: Trials a new run is drawn from while the server is crowded: a third of the Explorer's
#: 30. Its trials then cost a third; the page, charts and summaries do not shrink (0.20 →
#: 0.15 CPU s a new configuration at the defaults). Each interval is about √3 wider, and
#: drawn so.
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


@dataclass(frozen=True)
class Stage:
    """The plan for one run or sweep before the crowd is asked.

    Attributes
    ----------
    config : ExperimentConfig
        The run asked for.
    seconds : float
        Its estimated computing time.
    fixed : float
        The part of ``seconds`` that does not depend on the number of trials.
    first : int
        The trials drawn first (0: none; ``config.trials``: the whole run at once).
    beyond : bool
        The domain is beyond the measured sizes: ``seconds`` is an extrapolation.
    large : bool
        Above :data:`~ldpcore.experiments.costs.ASK_FIRST_ABOVE` values: even a first
        chart takes longer than two seconds.
    """

    config: ExperimentConfig
    seconds: float
    fixed: float
    first: int
    beyond: bool
    large: bool

    def crowded(self, crowded: bool) -> Stage:
        """The plan on a crowded server: at most :data:`CROWDED_TRIALS` drawn first."""
        return dataclasses.replace(self, first=min(self.first, CROWDED_TRIALS)) if crowded else self

    @property
    def whole(self) -> bool:
        """Whether the whole run is drawn at once."""
        return self.first == self.config.trials

    def runs_unasked(self, crowded: bool) -> bool:
        """Whether the rest runs without the visitor asking (within the budget)."""
        return within_budget(self.seconds) and not (self.beyond or self.large or crowded)

    def shown(self, going: bool, busy: Busy | None = None, processes: int = 1) -> Shown:
        """What the page draws now; ``going``: the rest runs (asked for, or unasked).

        The note is on the page before the first trials are computed, with what they
        take by the clock on a machine as ``busy`` as it is now (idle when not given),
        and the rest on its ``processes``: a slider's move is answered at once, by an
        estimate when not yet by a chart.
        """
        trials = self.config.trials
        if self.first:
            busy = busy or Busy(0.0, 1)
            per_trial = (self.seconds - self.fixed) / trials
            first = clock_seconds(self.fixed + self.first * per_trial, busy)
            more = clock_seconds((trials - self.first) * per_trial, busy, processes=processes)
            rest = (
                f"the rest are running, about {format_duration(more)} more"
                if going
                else "the rest run when you ask, above"
            )
            note = (
                f"Showing the first {self.first} of {trials} trials (about "
                f"{format_duration(first)} by the clock); {rest}."
            )
            return Shown(dataclasses.replace(self.config, trials=self.first), note, trials)
        if self.beyond:
            note = "Nothing to show yet: this run's cost is an extrapolation (above)."
        elif self.large:
            note = (
                f"Nothing to show yet: with more than {ASK_FIRST_ABOVE:,} values even a first "
                "chart takes longer than two seconds, so the run waits for you to ask (above)."
            )
        else:
            two = self.fixed + 2 * (self.seconds - self.fixed) / trials
            note = (
                f"Nothing to show yet: even the first two of the {trials} trials "
                f"would take about {format_duration(two)} of computing."
            )
        return Shown(None, note, trials)

    def caveat(self) -> str:
        """Why a run within the budget still waits to be asked for (empty when it does not)."""
        if not self.large:
            return ""
        return (
            f" With more than {ASK_FIRST_ABOVE:,} values even its first chart takes longer "
            "than the two seconds this app aims for, so nothing runs until you ask."
        )


def stage(config: ExperimentConfig, seconds: float, domain_size: int, points: int = 1) -> Stage:
    """The plan for a run (``points = 1``) or a sweep of ``points`` runs.

    Examples
    --------
    >>> config = ExperimentConfig(dataset="zipf:d=8", n=100, protocol="GRR", epsilon=1.0)
    >>> stage(config, seconds=0.1, domain_size=8).whole
    True
    """
    fixed = points * fixed_seconds(domain_size, len(config.methods))
    beyond = domain_size > measured_up_to()
    large = domain_size > ASK_FIRST_ABOVE
    first = 0 if beyond or large else first_trials(seconds, config.trials, fixed)
    return Stage(config, seconds, fixed, first, beyond, large)


def run_key(config: ExperimentConfig, parameter: str | None, values: Sequence[Any]) -> str:
    """What identifies a run or sweep in the server's crowd."""
    return f"{config.fingerprint}-{parameter or 'run'}-{tuple(values)!r}"


def crowded_words(others: int) -> str:
    """Why a new run is drawn from its first trials while the server is crowded."""
    return (
        f"The server is busy: {others} other visitor{'s' if others != 1 else ''} asked for "
        f"new runs in the last {WINDOW_S:.0f} seconds (a class moving its sliders "
        "together?), so this page is drawn from its first trials to keep everyone's pages "
        "quick. Its intervals are wider, and say so."
    )


def trials_shown(shown: Shown) -> str:
    """A caption's " Drawn from the first 6 of 30 trials." (empty when complete)."""
    if shown.complete or shown.config is None:
        return ""
    return f" Drawn from the first {shown.config.trials} of {shown.asked} trials."


__all__ = [
    "CROWDED_TRIALS",
    "Shown",
    "Stage",
    "crowded_words",
    "run_key",
    "stage",
    "trials_shown",
]
