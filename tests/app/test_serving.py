"""What serving the app decides without Streamlit (``ldpcore.serving``), tested alone.

The app layer's pages are tested through AppTest and the browser; these check the
decisions they bind: the sidebar's typed settings, the staging plan, a run's tables (its
protocol built once), a plan's protocol carried into a config, and the cadence's plans.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from ldpcore.advice.epsilon_context import CADENCES, cadence_plans
from ldpcore.data.specs import BundledData, UniformData, ZipfData
from ldpcore.experiments import config as config_module
from ldpcore.experiments.clock import Busy
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.costs import ASK_FIRST_ABOVE, WHOLE_AT_ONCE_S
from ldpcore.formats import format_duration
from ldpcore.protocols import get_protocol
from ldpcore.serving import BLAS_THREAD_VARIABLES
from ldpcore.serving.settings import DEFAULTS, DOMAINS, EPSILONS, USERS, Settings, methods_shown
from ldpcore.serving.staging import CROWDED_TRIALS, stage, trials_shown
from ldpcore.serving.tables import simulate_tables


@pytest.mark.parametrize(
    ("settings", "text"),
    [
        (Settings(d=64, s=0.1, n=1_000), "zipf:d=64,s=0.1"),
        (Settings(shape="uniform", d=2, n=500), "uniform:d=2"),
        (Settings(shape="sample: words", n=10_000), "words"),
    ],
)
def test_the_sidebar_s_values_make_the_config_the_same_spec_as_text_would(
    settings: Settings, text: str
) -> None:
    """Typed values reach the config as they are; the config equals the one a person
    would write as text (one fingerprint, one cache entry, one command)."""
    typed = settings.config()
    assert isinstance(typed.dataset, ZipfData | UniformData | BundledData)
    written = ExperimentConfig(
        dataset=text,
        n=settings.n,
        protocol=settings.protocol,
        epsilon=settings.epsilon,
        trials=settings.trials,
        seed=settings.seed,
    )
    assert typed == written and typed.fingerprint == written.fingerprint


def test_an_exponent_between_the_printed_digits_is_not_rounded_on_its_way() -> None:
    """Written as text with ``:g`` an exponent keeps six digits; typed it keeps them all."""
    s = 1.0 + 1e-9
    assert Settings(d=8, s=s, n=100).config().dataset == ZipfData(8, s)


def test_the_slider_grids_hold_the_defaults_and_stay_in_bounds() -> None:
    assert DEFAULTS.epsilon in EPSILONS and DEFAULTS.n in USERS and DEFAULTS.d in DOMAINS
    assert list(USERS) == sorted(USERS) and list(DOMAINS) == sorted(DOMAINS)


def test_methods_shown_says_all_all_but_or_how_many() -> None:
    every, defaults = ("A", "B", "C", "D"), ("A", "B", "C")
    assert methods_shown(every, every, defaults) == "all"
    assert methods_shown(("C", "A", "B"), every, defaults) == "all but D"
    assert methods_shown(("A",), every, defaults) == "1 of 4"


CONFIG = ExperimentConfig(dataset="zipf:d=64", n=10_000, protocol="OLH", epsilon=1.0, trials=30)


def test_a_cheap_run_is_drawn_whole_and_a_dear_one_from_its_first_trials() -> None:
    assert stage(CONFIG, seconds=WHOLE_AT_ONCE_S / 2, domain_size=64).whole
    dear = stage(CONFIG, seconds=6.0, domain_size=64)
    assert 2 <= dear.first < CONFIG.trials
    shown = dear.shown(going=True)
    assert shown.config is not None and shown.config.trials == dear.first
    # The first trials' and the rest's seconds, by the clock on an idle machine.
    first = dear.fixed + dear.first * (6.0 - dear.fixed) / CONFIG.trials
    assert shown.note == (
        f"Showing the first {dear.first} of {CONFIG.trials} trials (about "
        f"{format_duration(first)} by the clock); the rest are running, about "
        f"{format_duration(6.0 - first)} more."
    )
    # Three processes already running on two cores: the first trials' one process gets
    # 2/4 of a core (twice as long); the rest's two get 2/5 each, 0.8 of a core (1.25×).
    busy = dear.shown(going=True, busy=Busy(3.0, 2), processes=2)
    assert f"(about {format_duration(2 * first)} by the clock)" in busy.note
    assert busy.note.endswith(f"about {format_duration(1.25 * (6.0 - first))} more.")
    assert trials_shown(shown) == f" Drawn from the first {dear.first} of {CONFIG.trials} trials."
    waiting = dear.shown(going=False)
    assert waiting.note.endswith("the rest run when you ask, above.")


def test_a_crowded_server_draws_at_most_its_crowded_trials() -> None:
    dear = stage(CONFIG, seconds=1e3, domain_size=64)
    assert dear.crowded(True).first == min(dear.first, CROWDED_TRIALS)
    assert dear.crowded(False) == dear
    assert not dear.runs_unasked(crowded=True)


def test_beyond_the_measured_sizes_or_above_the_first_chart_s_size_nothing_runs_unasked(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ldpcore.serving import staging  # noqa: PLC0415

    monkeypatch.setattr(staging, "measured_up_to", lambda: 1024)
    beyond = stage(CONFIG, seconds=0.5, domain_size=4096)
    assert beyond.beyond and beyond.first == 0 and not beyond.runs_unasked(crowded=False)
    assert beyond.shown(going=False).config is None
    assert "extrapolation" in beyond.shown(going=False).note
    monkeypatch.setattr(staging, "measured_up_to", lambda: 10**9)
    large = stage(CONFIG, seconds=0.5, domain_size=ASK_FIRST_ABOVE + 1)
    assert large.large and large.first == 0 and not large.runs_unasked(crowded=False)
    assert f"more than {ASK_FIRST_ABOVE:,} values" in large.caveat()
    assert stage(CONFIG, seconds=0.5, domain_size=64).caveat() == ""


def test_a_run_builds_its_protocol_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """The trials and the paired ranking share one protocol (at d = 100,000 a protocol
    is not free to build); the tables are those of a run that builds it afresh."""
    built = []
    real = config_module.get_protocol

    def counted(*args: object, **kwargs: object) -> object:
        built.append(args)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    config = dataclasses.replace(CONFIG, trials=3)
    monkeypatch.setattr(config_module, "get_protocol", counted)
    tables = simulate_tables(config)
    assert len(built) == 1
    assert tables["ranking"] is not None
    monkeypatch.undo()
    again = simulate_tables(config)
    assert tables["summary"].equals(again["summary"])


def test_a_plan_s_protocol_is_carried_into_a_config_exactly() -> None:
    """A memoized chain with its lifetime ε∞ comes back from the config as it was built."""
    protocol = get_protocol("L-GRR", epsilon=0.5, domain_size=64, epsilon_inf=1.7)
    config = CONFIG.with_oracle(protocol)
    again = config.oracle()
    assert (config.protocol, config.epsilon) == ("L-GRR", 0.5)
    assert again.parameters() == protocol.parameters()
    assert (again.p, again.q) == (protocol.p, protocol.q)


def test_the_cadence_s_plans_are_none_once_and_name_their_round() -> None:
    frequencies = np.full(8, 1 / 8)
    assert cadence_plans("GRR", 1.0, frequencies, 1_000, CADENCES["once, never again"]) is None
    daily = cadence_plans("GRR", 1.0, frequencies, 1_000, CADENCES["once a day, for a year"])
    hourly = cadence_plans("GRR", 1.0, frequencies, 1_000, CADENCES["once an hour, for a year"])
    assert daily is not None and daily[1] == "day"
    assert hourly is not None and hourly[1] == "round"


def test_the_launcher_pins_the_same_blas_threads_as_the_workers() -> None:
    from pages.app_layer import BLAS_THREAD_VARIABLES as LAUNCHER  # noqa: PLC0415

    assert LAUNCHER == BLAS_THREAD_VARIABLES


def test_the_launcher_serves_the_app_file_the_readme_names() -> None:
    from pages.app_layer.serving import launch  # noqa: PLC0415

    assert launch.APP.name == "app.py" and launch.APP.is_file()
