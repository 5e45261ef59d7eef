"""One-way state: what a page shows, offers as a command and tabulates is a fresh run of
its current widgets, after any sequence of uploads and widget moves.

The Explorer's sidebar is driven the same way: every widget it has, in any order, and
after each move the widgets must show what the person set, and the command, the caption
and the method table must be a fresh run of what they show.

Your data's simulation is driven through Streamlit's AppTest by a Hypothesis state
machine: uploads of files of other sizes, and moves of n, the protocol, ε, the query and
k, in any order. After every step the page's command and its method table must equal
those of a configuration built here, afresh, from the model of what the person did (a
new file starts n and k at its own defaults; a person's own n stays until then).

Every other page that takes a slider or an upload has its machine too: Fake users,
Collecting again, Queries and ε trade-offs under the shared sidebar (``SidebarPage``) with
their own controls, Learn with its presets, the Class form, and Choose ε with its upload,
target, query, protocols and reverse question. Each checks what is drawn (a chart's
numbers, a table, a sentence, the command) against the core run afresh here.
"""

from __future__ import annotations

import dataclasses
import json
import re

import hypothesis.strategies as st
import numpy as np
import plotly.graph_objects as go
import pytest
from apptest import app, chart, commands, values
from hypothesis import HealthCheck, settings
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule
from streamlit.testing.v1 import AppTest

from ldpcore.advice import choose_epsilon, sweep_verdicts, winning_answer
from ldpcore.advice.bisection import advise_users
from ldpcore.advice.longitudinal import collection_plans
from ldpcore.advice.targets import AccuracyTarget
from ldpcore.attacks import AttackSpec
from ldpcore.data.datasets import parse_histogram
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.poisoning import run_attack
from ldpcore.experiments.sweeps import sweep
from ldpcore.experiments.trials import run
from ldpcore.learn.lying import lying_class
from ldpcore.learn.walkthrough import walkthrough
from ldpcore.live.lesson import class_advice
from ldpcore.live.outlook import lesson_outlook
from ldpcore.live.reports import PRESETS
from ldpcore.postprocess import default_method_names
from ldpcore.present import figures
from ldpcore.present.attack_sentences import attack_table
from ldpcore.present.class_sentences import (
    class_advice_sentence,
    outlook_sentence,
    separating_label,
)
from ldpcore.present.commands import simulate_command
from ldpcore.present.epsilon_sentences import (
    answers_table,
    epsilon_headline,
    epsilon_sentence,
    users_needed_sentence,
)
from ldpcore.present.rounds_sentences import plans_frame
from ldpcore.present.sentences import (
    query_in_words,
    settings_line,
    sweep_headline,
    users_saved_sentence,
)
from ldpcore.present.tables import method_table
from ldpcore.serving.settings import DEFAULTS, Settings
from pages.app_layer.classroom.class_form import CLASS_EPSILONS
from pages.app_layer.controls.widgets import with_query
from pages.app_layer.features.rounds import plan_config


def _histogram(prefix: str, counts: list[int]) -> bytes:
    rows = "".join(f"{prefix}{i},{c}\n" for i, c in enumerate(counts))
    return f"value,count\n{rows}".encode()


#: Files of other domain sizes and totals (one above the page's survey size of 10⁶).
FILES = {
    "ten.csv": _histogram("v", [(i + 1) * 1000 for i in range(10)]),
    "big.csv": _histogram("w", [700_000, 400_000, 300_000, 150_000, 50_000, 20_000]),
    "four.csv": _histogram("x", [480, 320, 150, 50]),
}
TRIALS = 5
SURVEY_USERS = 1_000_000


def sequences(examples: int, steps: int) -> settings:
    """Hypothesis's settings for a page's state machine: ``examples`` sequences of up to
    ``steps`` moves, the same ones each run (derandomized), no deadline (a page's run
    takes its time)."""
    return settings(
        max_examples=examples,
        stateful_step_count=steps,
        deadline=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )


def shown_command(at: AppTest) -> str:
    simulated = [c for c in commands(at) if c.startswith("ldpcore simulate")]
    assert len(simulated) == 1, commands(at)
    return simulated[0]


def shown_table(at: AppTest):
    return next(t.value for t in at.table if "vs Base" in t.value.columns)


class YourDataPage(RuleBasedStateMachine):
    """The person's moves on Your data's simulate tab, and what the page must show."""

    @initialize(name=st.sampled_from(sorted(FILES)))
    def open_with(self, name: str) -> None:
        self.open_page()
        self.upload(name)

    def open_page(self) -> None:
        at = app()
        at.run()
        at.switch_page("pages/your_data.py")
        at.run()
        at.radio(key="yours-source").set_value("Upload a file").run()
        self.at = at
        self.file: str | None = None
        self.n: int | None = None  # the person's own n, until the next file
        self.protocol, self.epsilon, self.kind, self.k = "OLH", 1.0, "top", None

    def _run(self) -> None:
        self.at.run()
        assert not self.at.exception, self.at.exception

    @rule(name=st.sampled_from(sorted(FILES)))
    def upload(self, name: str) -> None:
        self.at.file_uploader(key="yours-upload").set_value((name, FILES[name], "text/csv"))
        self._run()
        if self.file is None:  # the first file: fewer trials, so each step stays quick
            self.at.slider(key="yours-trials").set_value(TRIALS)
            self._run()
        if name != self.file:
            self.n, self.k = None, None
        self.file = name

    @rule(n=st.sampled_from([1_000, 20_000, 300_000]))
    def set_n(self, n: int) -> None:
        self.at.number_input(key="yours-n").set_value(n)
        self._run()
        self.n = n

    @rule(protocol=st.sampled_from(["GRR", "OUE", "OLH"]))
    def set_protocol(self, protocol: str) -> None:
        self.at.selectbox(key="yours-protocol").set_value(protocol)
        self._run()
        self.protocol = protocol

    @rule(epsilon=st.sampled_from([0.5, 1.0, 2.0]))
    def set_epsilon(self, epsilon: float) -> None:
        self.at.select_slider(key="yours-epsilon").set_value(epsilon)
        self._run()
        self.epsilon = epsilon

    @rule(kind=st.sampled_from(["top", "full"]))
    def set_query(self, kind: str) -> None:
        label = "The most frequent values" if kind == "top" else "Every value"
        self.at.radio(key="yours-query").set_value(label)
        self._run()
        if kind != self.kind:
            self.k = None  # k is drawn again at its default when the kind comes back
        self.kind = kind

    @precondition(lambda self: self.kind == "top")
    @rule(k=st.sampled_from([1, 2, 3]))
    def set_k(self, k: int) -> None:
        self.at.number_input(key="yours-k").set_value(k)
        self._run()
        self.k = k

    def expected(self) -> ExperimentConfig:
        """The configuration the person's moves describe, built afresh."""
        assert self.file is not None
        data = parse_histogram(FILES[self.file], source=self.file)
        n = self.n if self.n is not None else min(data.n, SURVEY_USERS)
        k = self.k if self.k is not None else min(10, data.domain_size - 1)
        return ExperimentConfig.from_dataset(
            data,
            n=n,
            protocol=self.protocol,
            epsilon=self.epsilon,
            query=f"topk:k={k}" if self.kind == "top" else "full",
            trials=TRIALS,
        )

    @invariant()
    def the_page_shows_a_fresh_run_of_its_widgets(self) -> None:
        if self.file is None:  # before the first file (the invariant runs after open)
            return
        expected = self.expected()
        command = shown_command(self.at)
        assert command == simulate_command(expected), (command, simulate_command(expected))
        field = self.at.number_input(key="yours-n").value
        assert f"--n {field} " in command  # the field and the run hold one n
        n_metric = self.at.metric[1].value
        assert re.sub(r"\D", "", n_metric) == str(expected.dataset.build().n)
        fresh = method_table(run(expected).summary)
        assert shown_table(self.at).equals(fresh)


#: A few sequences in the quick tier; many in the slow one, where the search found the
#: stale n of a second upload on the page as it was (a few sequences did not).
TestYourDataPage = YourDataPage.TestCase
TestYourDataPage.settings = sequences(6, 8)


@pytest.mark.slow
class TestYourDataPageAtLength(YourDataPage.TestCase):  # type: ignore[misc,valid-type]
    """Many more sequences (the slow tier)."""

    settings = sequences(15, 10)


def test_a_second_upload_runs_with_its_own_n() -> None:
    """Upload one file, then another: the field, the run and the command hold the new n."""
    machine = YourDataPage()
    machine.open_page()
    machine.upload("ten.csv")
    assert machine.at.number_input(key="yours-n").value == 55_000
    machine.the_page_shows_a_fresh_run_of_its_widgets()
    machine.upload("big.csv")
    assert machine.at.number_input(key="yours-n").value == SURVEY_USERS
    machine.the_page_shows_a_fresh_run_of_its_widgets()
    machine.set_n(20_000)
    machine.upload("four.csv")
    assert machine.at.number_input(key="yours-n").value == 1_000
    assert machine.at.number_input(key="yours-k").value == 3
    machine.the_page_shows_a_fresh_run_of_its_widgets()


def test_choose_epsilon_follows_a_second_upload() -> None:
    """Choose ε: k set on one file, then a file of fewer values. k starts afresh at the new
    file's default, and the answers shown are a fresh search of what the widgets say."""
    from ldpcore.advice import choose_epsilon  # noqa: PLC0415
    from ldpcore.advice.targets import parse_target  # noqa: PLC0415
    from ldpcore.present.epsilon_sentences import answers_table  # noqa: PLC0415

    at = app()
    at.run()
    at.switch_page("pages/choose_epsilon.py")
    at.run()
    at.radio(key="choose-source").set_value("Upload a file").run()
    at.file_uploader(key="choose-upload").set_value(("ten.csv", FILES["ten.csv"], "text/csv"))
    at.run()
    at.slider(key="choose-trials").set_value(5)
    at.multiselect(key="choose-protocols").set_value(["GRR", "OUE"])
    at.run()
    at.number_input(key="choose-k").set_value(8).run()
    assert not at.exception, at.exception
    at.file_uploader(key="choose-upload").set_value(("four.csv", FILES["four.csv"], "text/csv"))
    at.run()
    assert not at.exception, at.exception
    assert at.number_input(key="choose-k").value == 3
    data = parse_histogram(FILES["four.csv"], source="four.csv")
    config = ExperimentConfig.from_dataset(
        data,
        n=10**6,
        protocol="GRR",
        epsilon=1.0,
        query="topk:k=3",
        methods=("Base", "Base-Cut", "Norm", "Norm-Sub", "MLE-Apx", "PowerNS"),
        trials=5,
    )
    fresh = answers_table(
        choose_epsilon(config, target=parse_target("each:0.005"), protocols=["GRR", "OUE"])
    )
    shown = next(d.value for d in at.dataframe if "why" in d.value.columns)
    assert shown.equals(fresh), (shown, fresh)


def shown_widgets(at: AppTest) -> Settings:
    """What the Explorer's sidebar shows now, as the settings a person reads off it."""
    shape = at.session_state["dataset"]
    return Settings(
        protocol=str(at.session_state["protocol"]),
        epsilon=float(at.select_slider(key="epsilon").value),
        n=int(at.select_slider(key="n").value),
        d=int(at.select_slider(key="d").value),
        shape=str(shape),
        s=float(at.slider(key="s").value) if shape == "Zipf" else DEFAULTS.s,
        methods=tuple(at.multiselect(key="methods").value),
        trials=int(at.slider(key="trials").value),
        seed=int(at.number_input(key="seed").value),
    )


#: Cheap settings for every step (each run well under a second).
SMALL = {"n": 10_000, "d": 64, "trials": 3}


class SidebarPage(RuleBasedStateMachine):
    """A page under the shared sidebar, opened at small settings, and the sidebar's moves.

    ``self.settings`` is the model: what the person set. Subclasses name their ``PAGE``
    and add their own controls' rules.
    """

    PAGE: str | None = None  # None: the Explorer, the app's first page

    @initialize()
    def open_small(self) -> None:
        self.at = app({key: str(value) for key, value in SMALL.items()})
        self.at.run()
        if self.PAGE is not None:
            self.at.switch_page(self.PAGE)
            self._run()
        assert not self.at.exception, self.at.exception
        self.settings = dataclasses.replace(DEFAULTS, **SMALL)
        self.opened()

    def opened(self) -> None:
        """The page's own controls' starting values in the model (none by default)."""

    def _run(self) -> None:
        self.at.run()
        assert not self.at.exception, self.at.exception

    @rule(protocol=st.sampled_from(["GRR", "OUE", "OLH"]))
    def set_protocol(self, protocol: str) -> None:
        self.at.session_state["protocol"] = protocol
        self._run()
        self.settings = dataclasses.replace(self.settings, protocol=protocol)

    @rule(epsilon=st.sampled_from([0.5, 1.0, 4.0]))
    def set_epsilon(self, epsilon: float) -> None:
        self.at.select_slider(key="epsilon").set_value(epsilon)
        self._run()
        self.settings = dataclasses.replace(self.settings, epsilon=epsilon)


class ExplorerSidebar(SidebarPage):
    """Moves of the Explorer's sidebar in any order, and what the page must show."""

    @rule(protocol=st.sampled_from(["HR", "SS"]))
    def set_dear_protocol(self, protocol: str) -> None:
        self.set_protocol(protocol)

    @rule(n=st.sampled_from([1_000, 10_000, 100_000]))
    def set_n(self, n: int) -> None:
        self.at.select_slider(key="n").set_value(n)
        self._run()
        self.settings = dataclasses.replace(self.settings, n=n)

    @rule(d=st.sampled_from([16, 64, 256]))
    def set_d(self, d: int) -> None:
        self.at.select_slider(key="d").set_value(d)
        self._run()
        self.settings = dataclasses.replace(self.settings, d=d)

    @rule(shape=st.sampled_from(["Zipf", "uniform", "sample: countries"]))
    def set_dataset(self, shape: str) -> None:
        self.at.session_state["dataset"] = shape
        self._run()
        self.settings = dataclasses.replace(self.settings, shape=shape)

    @precondition(lambda self: self.settings.shape == "Zipf")
    @rule(s=st.sampled_from([0.5, 1.5, 2.5]))
    def set_s(self, s: float) -> None:
        self.at.slider(key="s").set_value(s)
        self._run()
        self.settings = dataclasses.replace(self.settings, s=s)

    @rule(methods=st.sampled_from([("Base", "Norm-Sub"), ("Base", "Base-Pos", "Norm", "PowerNS")]))
    def set_methods(self, methods: tuple[str, ...]) -> None:
        self.at.multiselect(key="methods").set_value(list(methods))
        self._run()
        self.settings = dataclasses.replace(self.settings, methods=methods)

    @rule(seed=st.sampled_from([0, 7]))
    def set_seed(self, seed: int) -> None:
        self.at.number_input(key="seed").set_value(seed)
        self._run()
        self.settings = dataclasses.replace(self.settings, seed=seed)

    @invariant()
    def the_page_shows_a_fresh_run_of_its_sidebar(self) -> None:
        shown = shown_widgets(self.at)
        # What the widgets show is what the person set (an exponent hidden with its
        # slider, while the dataset is not Zipf, is not read).
        expected = (
            self.settings
            if self.settings.shape == "Zipf"
            else dataclasses.replace(self.settings, s=DEFAULTS.s)
        )
        if expected.methods is None:
            expected = dataclasses.replace(expected, methods=tuple(default_method_names()))
        assert shown == expected, (shown, expected)
        config = shown.config()
        assert shown_command(self.at) == simulate_command(config)
        assert settings_line(config) in " ".join(c.value for c in self.at.caption)
        assert shown_table(self.at).equals(method_table(run(config).summary))


TestExplorerSidebar = ExplorerSidebar.TestCase
TestExplorerSidebar.settings = sequences(4, 8)


@pytest.mark.slow
class TestExplorerSidebarAtLength(ExplorerSidebar.TestCase):  # type: ignore[misc,valid-type]
    """Many more sequences (the slow tier)."""

    settings = sequences(12, 10)


@pytest.mark.parametrize(
    "page", ["pages/fake_users.py", "pages/queries.py", "pages/tradeoffs.py", "pages/rounds.py"]
)
def test_the_sidebar_s_settings_go_with_the_person_to_every_page(page: str) -> None:
    """Set on the Explorer, the sidebar's settings are the next page's: its widgets show
    them and its command uses them (they once started at the defaults there)."""
    at = app({"d": "64", "trials": "3"})
    at.run()
    at.select_slider(key="n").set_value(10_000)
    at.number_input(key="seed").set_value(5)
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    assert at.select_slider(key="n").value == 10_000 and at.number_input(key="seed").value == 5
    expected = dataclasses.replace(DEFAULTS, n=10_000, d=64, trials=3, seed=5).config()
    simulated = [c for c in commands(at) if c.startswith("ldpcore simulate")]
    assert simulated and all(c.startswith(simulate_command(expected)[:60]) for c in simulated)
    assert all("--n 10000 " in c and "--seed 5 " in c for c in simulated), simulated


def test_a_move_on_the_same_page_is_never_undone_by_the_carried_settings() -> None:
    """The carried settings start a page just reached, and only that page's first run: a
    session whose address names no setting (a protocol client, as in the classroom test)
    once had each move undone by the last run's value."""
    at = app()
    at.run()
    for n, seed in ((10_000, 3), (1_000, 4)):
        at.select_slider(key="n").set_value(n)
        at.select_slider(key="d").set_value(64)
        at.number_input(key="seed").set_value(seed)
        at.run()
        assert not at.exception, at.exception
        assert f"--n {n} " in shown_command(at) and f"--seed {seed} " in shown_command(at)


class FakeUsersPage(SidebarPage):
    """The sidebar and the attack's controls moved in any order on Fake users."""

    PAGE = "pages/fake_users.py"

    def opened(self) -> None:
        self.attack = AttackSpec("mga", beta=0.05, targets=3)
        self.top_k = 10

    @rule(kind=st.sampled_from(["rpa", "ria", "mga"]))
    def set_attack(self, kind: str) -> None:
        self.at.selectbox(key="attack").set_value(kind)
        self._run()
        self.attack = dataclasses.replace(self.attack, kind=kind)

    @rule(beta=st.sampled_from([0.01, 0.1]))
    def set_beta(self, beta: float) -> None:
        self.at.select_slider(key="beta").set_value(beta)
        self._run()
        self.attack = dataclasses.replace(self.attack, beta=beta)

    @rule(count=st.sampled_from([1, 2]), top_k=st.sampled_from([3, 10]))
    def set_targets_and_k(self, count: int, top_k: int) -> None:
        self.at.number_input(key="targets").set_value(count)
        self.at.number_input(key="top_k").set_value(top_k)
        self._run()
        self.attack = dataclasses.replace(self.attack, targets=count)
        self.top_k = top_k

    @invariant()
    def the_page_shows_a_fresh_attack_of_its_controls(self) -> None:
        config = self.settings.config()
        expected = f"{simulate_command(config)} --attack {self.attack} --top-k {self.top_k}"
        assert shown_command(self.at) == expected
        fresh = attack_table(run_attack(config, self.attack, top_k=self.top_k).summary)
        shown = next(t.value for t in self.at.table if "against Base, same trials" in t.value)
        assert shown.equals(fresh)


TestFakeUsersPage = FakeUsersPage.TestCase
TestFakeUsersPage.settings = sequences(3, 6)


@pytest.mark.slow
class TestFakeUsersPageAtLength(FakeUsersPage.TestCase):  # type: ignore[misc,valid-type]
    """Many more sequences (the slow tier)."""

    settings = sequences(10, 8)


class CollectingAgainPage(SidebarPage):
    """The sidebar and Collecting again's own controls moved in any order."""

    PAGE = "pages/rounds.py"

    @rule(rounds=st.sampled_from([7, 30, 365]), period=st.sampled_from(["day", "week"]))
    def set_rounds(self, rounds: int, period: str) -> None:
        self.at.select_slider(key="rounds").set_value(rounds)
        self.at.selectbox(key="period").set_value(period)
        self._run()

    @precondition(lambda self: self.settings.protocol != "OLH")  # OLH has no chain here
    @rule(lifetime=st.sampled_from([2.0, 6.0]))
    def set_lifetime(self, lifetime: float) -> None:
        self.at.number_input(key="epsilon_inf").set_value(lifetime)
        self._run()

    @invariant()
    def the_page_shows_the_plans_of_its_controls(self) -> None:
        config = self.settings.config()
        rounds = int(self.at.select_slider(key="rounds").value)
        period = str(self.at.selectbox(key="period").value)
        fields = [f for f in self.at.number_input if f.key == "epsilon_inf"]
        lifetime = float(fields[0].value) if fields else None
        # What the lifetime field shows is a lifetime the chains can have.
        assert lifetime is None or lifetime >= config.epsilon, (lifetime, config.epsilon)
        data = config.dataset.build(config.n)
        plans = collection_plans(
            config.oracle(), data.frequencies(), data.n, rounds, epsilon_inf=lifetime
        )
        shown = next(t.value for t in self.at.table if "plan" in " ".join(t.value.columns))
        assert shown.equals(plans_frame(plans))
        command = simulate_command(
            plan_config(config, plans[0], config.methods), rounds=rounds, period=period
        )
        assert shown_command(self.at) == command


TestCollectingAgainPage = CollectingAgainPage.TestCase
TestCollectingAgainPage.settings = sequences(3, 6)


@pytest.mark.slow
class TestCollectingAgainPageAtLength(CollectingAgainPage.TestCase):  # type: ignore[misc,valid-type]
    """Many more sequences (the slow tier)."""

    settings = sequences(10, 8)


def chart_lines(at: AppTest, key: str) -> list[tuple[str, list, list]]:
    """The chart's traces as (name, x, y): the numbers a person reads off it."""
    return figure_lines(chart(at, key))


def figure_lines(spec: dict) -> list[tuple[str, list, list]]:
    return [
        (str(t.get("name")), values(t.get("x", [])), values(t.get("y", []))) for t in spec["data"]
    ]


def fresh_lines(figure: go.Figure) -> list[tuple[str, list, list]]:
    return figure_lines(json.loads(figure.to_json()))


#: The grids the Queries page sweeps, and what each kind of query offers as a command.
SWEPT_QUERIES = {
    "Sets of values": (
        "chart-sets",
        "rho",
        (0.01, 0.05, 0.1, 0.2, 0.3, 0.5, 0.7, 0.9),
        "set:rho=0.5",
    ),
    "Most frequent values": ("chart-topk", "topk", (2, 4, 8, 16, 32), "topk:k=8"),
}
RUN_QUERIES = {
    "Groups": ("chart-groups", "groups"),
    "Intervals": ("chart-intervals", "interval:samples=20"),
}


class QueriesPage(SidebarPage):
    """The sidebar and the Queries page's kind of query moved in any order."""

    PAGE = "pages/queries.py"

    def opened(self) -> None:
        self.kind = "Sets of values"

    @rule(kind=st.sampled_from([*SWEPT_QUERIES, *RUN_QUERIES]))
    def set_kind(self, kind: str) -> None:
        self.at.radio(key="query").set_value(kind)
        self._run()
        self.kind = kind

    @rule(shape=st.sampled_from(["Zipf", "sample: countries"]))
    def set_dataset(self, shape: str) -> None:
        self.at.session_state["dataset"] = shape
        self._run()
        self.settings = dataclasses.replace(self.settings, shape=shape)

    @invariant()
    def the_chart_and_command_are_a_fresh_run_of_the_controls(self) -> None:
        config = self.settings.config()
        assert self.at.radio(key="query").value == self.kind
        if self.kind in SWEPT_QUERIES:
            key, parameter, grid, query = SWEPT_QUERIES[self.kind]
            frame = sweep(config, parameter, list(grid))
            figure = figures.curves(frame, parameter, title="", x_title="", y_title="")
        elif self.kind == "Groups" and self.settings.shape == "Zipf":
            # No groups in a Zipf shape: the page says so and draws nothing.
            assert not self.at.get("plotly_chart") and not commands(self.at)
            assert "Group queries need values with groups" in self.at.info[0].value
            return
        else:
            key, query = RUN_QUERIES[self.kind]
            summary = run(with_query(config, query)).summary
            figure = figures.error_breakdown(summary)
        assert chart_lines(self.at, key) == fresh_lines(figure)
        assert shown_command(self.at) == simulate_command(config, query=query)


TestQueriesPage = QueriesPage.TestCase
TestQueriesPage.settings = sequences(3, 6)


@pytest.mark.slow
class TestQueriesPageAtLength(QueriesPage.TestCase):  # type: ignore[misc,valid-type]
    """Many more sequences (the slow tier)."""

    settings = sequences(10, 8)


#: The grids the ε trade-offs page sweeps.
TRADEOFF_EPSILONS = (0.2, 0.4, 0.7, 1.0, 1.5, 2.0, 3.0, 4.0)
TRADEOFF_USERS = (10**4, 10**5, 10**6, 10**7, 10**8)


class TradeoffsPage(SidebarPage):
    """The sidebar moved in any order on ε trade-offs: both sweeps and the headline follow."""

    PAGE = "pages/tradeoffs.py"

    @rule(d=st.sampled_from([16, 64]))
    def set_d(self, d: int) -> None:
        self.at.select_slider(key="d").set_value(d)
        self._run()
        self.settings = dataclasses.replace(self.settings, d=d)

    @invariant()
    def both_sweeps_and_the_headline_are_fresh(self) -> None:
        config = self.settings.config()
        frame = sweep(config, "epsilon", list(TRADEOFF_EPSILONS))
        figure = figures.curves(frame, "epsilon", title="", x_title="", y_title="")
        shown = chart_lines(self.at, "chart-mse-epsilon")
        # The two reference lines (Eq. 3 and the bound) come after the methods' lines.
        assert shown[: len(fresh_lines(figure))] == fresh_lines(figure)
        users = sweep(config, "n", list(TRADEOFF_USERS))
        figure = figures.curves(
            users, "n", y="equivalent_users", band=None, title="", x_title="", y_title=""
        )
        assert chart_lines(self.at, "chart-equivalent-users")[: len(fresh_lines(figure))] == (
            fresh_lines(figure)
        )
        said = [alert.value for alert in [*self.at.success, *self.at.info]]
        assert sweep_headline(sweep_verdicts(frame, "epsilon", "ε")) in said
        assert users_saved_sentence(users, TRADEOFF_USERS[2]) in said
        assert commands(self.at) and all(
            c.startswith(simulate_command(config)) for c in commands(self.at)
        )


TestTradeoffsPage = TradeoffsPage.TestCase
TestTradeoffsPage.settings = sequences(3, 5)


@pytest.mark.slow
class TestTradeoffsPageAtLength(TradeoffsPage.TestCase):  # type: ignore[misc,valid-type]
    """Many more sequences (the slow tier)."""

    settings = sequences(8, 8)


class ChooseEpsilonPage(RuleBasedStateMachine):
    """Choose ε's own controls moved in any order, after any upload: the answer, its
    sentence, its table and the reverse question are a fresh search of what they show."""

    @initialize()
    def open_with_a_file(self) -> None:
        self.at = app()
        self.at.run()
        self.at.switch_page("pages/choose_epsilon.py")
        self.at.run()
        self.at.radio(key="choose-source").set_value("Upload a file").run()
        self.upload("ten.csv")
        self.at.multiselect(key="choose-protocols").set_value(["GRR", "OUE"])
        self.at.slider(key="choose-trials").set_value(5)
        self._run()

    def _run(self) -> None:
        self.at.run()
        assert not self.at.exception, self.at.exception

    @rule(name=st.sampled_from(["ten.csv", "four.csv", "big.csv"]))
    def upload(self, name: str) -> None:
        self.at.file_uploader(key="choose-upload").set_value((name, FILES[name], "text/csv"))
        self._run()
        self.file = name

    @rule(kind=st.sampled_from(["each", "all", "rmse"]), size=st.sampled_from([0.2, 1.0]))
    def set_target(self, kind: str, size: float) -> None:
        self.at.selectbox(key="choose-target-kind").set_value(kind)
        self.at.number_input(key="choose-target").set_value(size)
        self._run()

    @rule(n=st.sampled_from([10_000, 1_000_000]), trials=st.sampled_from([5, 8]))
    def set_n_and_trials(self, n: int, trials: int) -> None:
        self.at.select_slider(key="choose-n").set_value(n)
        self.at.slider(key="choose-trials").set_value(trials)
        self._run()

    @rule(kind=st.sampled_from(["The most frequent values", "Every value", "A set of values"]))
    def set_query(self, kind: str) -> None:
        self.at.radio(key="choose-query").set_value(kind)
        self._run()

    @precondition(lambda self: self.at.radio(key="choose-query").value.startswith("The most"))
    @rule(k=st.sampled_from([1, 3]))
    def set_k(self, k: int) -> None:
        self.at.number_input(key="choose-k").set_value(k)
        self._run()

    @rule(protocols=st.sampled_from([("GRR", "OUE"), ("OUE",), ("OLH", "GRR")]))
    def set_protocols(self, protocols: tuple[str, ...]) -> None:
        self.at.multiselect(key="choose-protocols").set_value(list(protocols))
        self._run()

    @rule(epsilon=st.sampled_from([0.5, 2.0]))
    def set_reverse_epsilon(self, epsilon: float) -> None:
        self.at.select_slider(key="choose-fixed-epsilon").set_value(epsilon)
        self._run()

    @invariant()
    def the_answer_is_a_fresh_search_of_the_controls(self) -> None:
        # What the controls show, read off the page, is the whole of what was asked.
        at = self.at
        data = parse_histogram(FILES[self.file], source=self.file)
        kind = at.radio(key="choose-query").value
        query = {
            "The most frequent values": f"topk:k={at.number_input(key='choose-k').value}"
            if kind.startswith("The most")
            else "",
            "Every value": "full",
            "A set of values": f"set:rho={at.slider(key='choose-rho').value:g}"
            if kind == "A set of values"
            else "",
        }[kind]
        n = int(at.select_slider(key="choose-n").value)
        protocols = tuple(at.multiselect(key="choose-protocols").value)
        config = ExperimentConfig.from_dataset(
            data,
            n=n,
            protocol=protocols[0],
            epsilon=1.0,
            query=query,
            methods=tuple(at.multiselect(key="choose-methods").value),
            trials=int(at.slider(key="choose-trials").value),
        )
        target = AccuracyTarget(
            at.selectbox(key="choose-target-kind").value,
            float(at.number_input(key="choose-target").value) / 100,
        )
        answers = choose_epsilon(config, target=target, protocols=protocols)
        shown = next(d.value for d in at.dataframe if "why" in d.value.columns)
        assert shown.equals(answers_table(answers)), (shown, answers_table(answers))
        winner = winning_answer(answers)
        words = f"{target.in_words()}, for {query_in_words(config.query)}, with {n:,} users"
        assert at.success[0].value == epsilon_headline(winner, words)
        assert epsilon_sentence(winner, n) in " ".join(m.value for m in at.markdown)
        fixed = float(at.select_slider(key="choose-fixed-epsilon").value)
        reverse = dataclasses.replace(
            config,
            protocol=winner.protocol,
            epsilon=fixed,
            methods=tuple(dict.fromkeys(("Base", winner.method))),
        )
        said = " ".join(m.value for m in at.markdown)
        for advice in advise_users(reverse, target=target):
            exact = advice.value is not None and advice.low == advice.value == advice.high
            between = None if exact else (advice.low, advice.high)
            sentence = users_needed_sentence(
                winner.protocol, advice.method, fixed, advice.value, between
            )
            assert sentence in said, sentence


TestChooseEpsilonPage = ChooseEpsilonPage.TestCase
TestChooseEpsilonPage.settings = sequences(3, 6)


@pytest.mark.slow
class TestChooseEpsilonPageAtLength(ChooseEpsilonPage.TestCase):  # type: ignore[misc,valid-type]
    """Many more sequences (the slow tier)."""

    settings = sequences(10, 8)


#: Learn's presets: (protocol, ε) each starts at.
LEARN_PRESETS = {
    "Class default: GRR, ε = 1": ("GRR", 1.0),
    "The paper's headline: OLH, ε = 1": ("OLH", 1.0),
    "Strong privacy: OUE, ε = 0.5": ("OUE", 0.5),
    "Weak privacy: GRR, ε = 4": ("GRR", 4.0),
}
LEARN_LABELS = ("A", "B", "C", "D", "E", "F")
LEARN_CLASS = np.array([LEARN_LABELS.index(v) for v in "AAAAAAAABBBBBCCCDDEF"])


class LearnPage(RuleBasedStateMachine):
    """Learn's preset, protocol, ε, seed and fake users moved in any order: every step
    shown is the walk-through of what the controls say, afresh.

    Picking a preset loads its protocol and ε (a person's own choice under it lasts
    until another preset is picked).
    """

    @initialize()
    def open_learn(self) -> None:
        self.at = app()
        self.at.run()
        self.at.switch_page("pages/learn.py")
        self._run()
        self.preset = next(iter(LEARN_PRESETS))
        self.chosen = dict(LEARN_PRESETS)
        self.seed, self.fakes = 0, 2

    def _run(self) -> None:
        self.at.run()
        assert not self.at.exception, self.at.exception

    @rule(preset=st.sampled_from(list(LEARN_PRESETS)))
    def set_preset(self, preset: str) -> None:
        self.at.selectbox(key="preset").set_value(preset)
        self._run()
        if preset != self.preset:  # a preset picked loads its own protocol and ε
            self.chosen[preset] = LEARN_PRESETS[preset]
        self.preset = preset

    @rule(protocol=st.sampled_from(["GRR", "OUE", "OLH", "SS", "HR"]))
    def set_protocol(self, protocol: str) -> None:
        self.at.selectbox(key=f"learn-protocol-{self.preset}").set_value(protocol)
        self._run()
        self.chosen[self.preset] = (protocol, self.chosen[self.preset][1])

    @rule(epsilon=st.sampled_from([0.1, 2.5, 6.0]))
    def set_epsilon(self, epsilon: float) -> None:
        self.at.slider(key=f"learn-epsilon-{self.preset}").set_value(epsilon)
        self._run()
        self.chosen[self.preset] = (self.chosen[self.preset][0], epsilon)

    @rule(seed=st.sampled_from([9, 10_000]), fakes=st.sampled_from([0, 10]))
    def set_seed_and_fakes(self, seed: int, fakes: int) -> None:
        self.at.number_input(key="learn-seed").set_value(seed)
        self.at.slider(key="lie-fakes").set_value(fakes)
        self._run()
        self.seed, self.fakes = seed, fakes

    @invariant()
    def every_step_is_the_walkthrough_of_the_controls(self) -> None:
        protocol, epsilon = self.chosen[self.preset]
        at = self.at
        assert at.selectbox(key=f"learn-protocol-{self.preset}").value == protocol
        assert at.slider(key=f"learn-epsilon-{self.preset}").value == pytest.approx(epsilon)
        steps = walkthrough(
            protocol=protocol,
            epsilon=epsilon,
            values=LEARN_CLASS,
            labels=LEARN_LABELS,
            seed=self.seed,
        )
        # Each table by its first columns (AppTest does not expose a table's key).
        firsts = {"user": "reports", "fake user": "fake-reports"}
        shown = {firsts.get(str(d.value.columns[0]), ""): d.value for d in at.dataframe}
        shown["methods"] = next(d.value for d in at.dataframe if "Base-Pos" in d.value.columns)
        shown["fake-estimates"] = next(
            d.value for d in at.dataframe if "Base, honest" in d.value.columns
        )
        assert shown["reports"].equals(steps.reports)
        assert shown["methods"].equals(steps.methods)
        lying = lying_class(
            steps.protocol,
            steps.support_counts,
            LEARN_CLASS,
            LEARN_LABELS,
            target=len(LEARN_LABELS) - 1,
            fakes=self.fakes,
            seed=self.seed,
        )
        if self.fakes:
            assert shown["fake-reports"].equals(lying.reports)
        else:  # no empty table: a sentence says there are none
            assert "fake-reports" not in shown
            assert "No fake users" in " ".join(m.value for m in at.markdown)
        assert shown["fake-estimates"].equals(lying.estimates)


TestLearnPage = LearnPage.TestCase
TestLearnPage.settings = sequences(3, 6)


@pytest.mark.slow
class TestLearnPageAtLength(LearnPage.TestCase):  # type: ignore[misc,valid-type]
    """Many more sequences (the slow tier)."""

    settings = sequences(5, 8)


def test_learn_answers_each_of_its_controls_in_turn() -> None:
    """Every rule of Learn's machine once, in one fixed order (the random sequences of
    the quick tier may miss one): a preset, its protocol and ε, fake users and a seed,
    none at all, and back to a preset, which loads its own protocol and ε again."""
    machine = LearnPage()
    machine.open_learn()
    machine.every_step_is_the_walkthrough_of_the_controls()
    for step in (
        lambda: machine.set_preset("Strong privacy: OUE, ε = 0.5"),
        lambda: machine.set_protocol("SS"),
        lambda: machine.set_epsilon(6.0),
        lambda: machine.set_seed_and_fakes(9, 10),
        lambda: machine.set_seed_and_fakes(10_000, 0),
        lambda: machine.set_preset("Class default: GRR, ε = 1"),
        lambda: machine.set_epsilon(2.5),
        lambda: machine.set_preset("Strong privacy: OUE, ε = 0.5"),
    ):
        step()
        machine.every_step_is_the_walkthrough_of_the_controls()


class ClassFormPage(RuleBasedStateMachine):
    """The Class form's question, protocol, ε and class size moved in any order: what it
    says the lesson will show, and whether a majority stands apart, is the core's for
    what the controls show."""

    @initialize()
    def open_the_form(self) -> None:
        self.at = app()
        self.at.run()
        self.at.switch_page("pages/class.py")
        self._run()

    def _run(self) -> None:
        self.at.run()
        assert not self.at.exception, self.at.exception

    @rule(preset=st.sampled_from(list(PRESETS)))
    def set_preset(self, preset: str) -> None:
        self.at.selectbox(key="class-preset").set_value(preset)
        self._run()

    @rule(protocol=st.sampled_from(["GRR", "OUE", "OLH"]))
    def set_protocol(self, protocol: str) -> None:
        self.at.selectbox(key="class-protocol").set_value(protocol)
        self._run()

    @rule(epsilon=st.sampled_from([0.5, 2.0, 6.0]))
    def set_epsilon(self, epsilon: float) -> None:
        self.at.select_slider(key="class-epsilon").set_value(epsilon)
        self._run()

    @rule(size=st.sampled_from([1, 12, 200]))
    def set_size(self, size: int) -> None:
        self.at.number_input(key="class-size").set_value(size)
        self._run()

    @invariant()
    def the_form_says_what_its_controls_will_show(self) -> None:
        at = self.at
        preset = at.selectbox(key="class-preset").value
        options = len(
            [x for x in at.text_area(key=f"class-options-{preset}").value.splitlines() if x.strip()]
        )
        protocol = at.selectbox(key="class-protocol").value
        epsilon = float(at.select_slider(key="class-epsilon").value)
        size = int(at.number_input(key="class-size").value)
        outlook = lesson_outlook(protocol, epsilon, max(options, 2), size)
        assert outlook_sentence(outlook) in " ".join(i.value for i in at.info)
        advice = class_advice(protocol, epsilon, max(options, 2), size, epsilons=CLASS_EPSILONS)
        assert class_advice_sentence(advice) in " ".join(c.value for c in at.caption)
        offers = [b.label for b in at.button if b.key == "class-use-epsilon"]
        if advice.separates or advice.smallest_epsilon is None:
            assert not offers
        else:
            other = lesson_outlook(protocol, advice.smallest_epsilon, max(options, 2), size)
            assert offers == [separating_label(other)]


TestClassFormPage = ClassFormPage.TestCase
TestClassFormPage.settings = sequences(3, 6)


@pytest.mark.slow
class TestClassFormPageAtLength(ClassFormPage.TestCase):  # type: ignore[misc,valid-type]
    """Many more sequences (the slow tier)."""

    settings = sequences(15, 8)


def test_the_class_form_answers_each_of_its_controls_in_turn() -> None:
    """Every rule of the Class form's machine once, in a fixed order."""
    machine = ClassFormPage()
    machine.open_the_form()
    machine.the_form_says_what_its_controls_will_show()
    for step in (
        lambda: machine.set_size(12),
        lambda: machine.set_protocol("OUE"),
        lambda: machine.set_epsilon(6.0),
        lambda: machine.set_preset("Which day of the week were you born?"),
        lambda: machine.set_size(200),
        lambda: machine.set_epsilon(0.5),
        lambda: machine.set_size(1),
    ):
        step()
        machine.the_form_says_what_its_controls_will_show()
