"""Collecting again: the plans, their words, the simulation, the CLI and the page.

The words are checked against the numbers they cite; the simulation against the exact
figures; the page against the core.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from apptest import app, chart, small, values
from conftest import K_SIGMA

from ldpcore.advice.longitudinal import (
    averaging_attack,
    collection_plans,
    memoized_chains,
    memoized_counterpart,
)
from ldpcore.cli import main
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.rounds import run_rounds
from ldpcore.formats import format_budget, format_margin, read_error
from ldpcore.present.figures.rounds import error_figure, round_grid, spending_figure
from ldpcore.present.rounds_sentences import (
    averaging_words,
    chains_words,
    plans_frame,
    plans_words,
    rounds_run_words,
)
from ldpcore.protocols import LGRR, LOSUE, get_protocol
from ldpcore.protocols.repeated import epsilon_after

F = np.array([0.4, 0.3, 0.2, 0.1] + [0.0] * 12)


def test_a_one_shot_protocol_gets_its_memoized_chain_and_its_split_budget() -> None:
    plans = collection_plans(get_protocol("OUE", epsilon=1.0, domain_size=16), F, 10_000, 365)
    assert [p.kind for p in plans] == ["memoized", "fresh", "split"]
    memo, fresh, split = plans
    assert isinstance(memo.protocol, LOSUE) and memo.protocol.epsilon_inf == 2.0
    assert fresh.spent == pytest.approx(365.0) and math.isinf(fresh.bound)
    # The split plan spends the memoized chain's lifetime in all, ε∞/T per report.
    assert split.per_report == pytest.approx(2.0 / 365) and split.spent == pytest.approx(2.0)
    # At the same ε per report one round of L-OSUE is OUE's (p = ½, the same ratio), and
    # the average of the rounds keeps the permanent noise: worse than fresh rounds' average.
    assert memo.round_error == pytest.approx(fresh.round_error, rel=1e-12)
    assert memo.average_error > 5 * fresh.average_error
    assert split.round_error > 100 * memo.round_error
    # A protocol with no memoized chain: the fresh plan and its split.
    olh = collection_plans(get_protocol("OLH", epsilon=1.0, domain_size=16), F, 10_000, 30)
    assert [p.kind for p in olh] == ["fresh", "split"]
    assert memoized_counterpart(get_protocol("OLH", epsilon=1.0, domain_size=16)) is None
    # One round: nothing to split.
    assert [p.kind for p in collection_plans(LGRR(epsilon=1, domain_size=16), F, 100, 1)] == [
        "memoized",
        "fresh",
    ]


def test_the_words_and_the_table_cite_the_plans_numbers() -> None:
    plans = collection_plans(get_protocol("L-GRR", epsilon=1.0, domain_size=16), F, 10_000, 365)
    words = plans_words(plans, n=10_000, period="week")
    assert words[0].startswith("Collected every week for 365 weeks from 10,000 users")
    for plan, sentence in zip(plans, words[1:], strict=True):
        assert sentence.startswith(plan.protocol.name)
        # In the target's unit: percentage points, 95% of the time (1.96 σ).
        printed = format_margin(plan.round_error)
        if printed == "over ±100 pp":
            # No bound past a share's reach is printed as one.
            assert 100 * 1.959964 * plan.round_error > 100
            assert "off by more than ±100 pp (no better than a guess) of the truth" in sentence
        else:
            assert f"within {printed} of the truth 95% of the time" in sentence
            margin = read_error(printed.split()[0].lstrip("±"))
            assert margin == pytest.approx(100 * 1.959964 * plan.round_error, rel=5e-3)
        averaged = format_margin(plan.average_error)
        assert averaged == "over ±100 pp" or f"within {averaged}" in sentence
        assert format_budget(plan.spent) in sentence
    assert "at most 2 however long" in words[1]
    table = plans_frame(plans)
    assert list(table["ε after 365 reports"]) == [format_budget(p.spent) for p in plans]
    assert list(table["ε after any number"]) == ["2", "no bound", "no bound"]


@pytest.mark.parametrize("protocol", ["L-OSUE", "SHE"])  # SHE: real sums, its own estimate
def test_the_simulated_average_matches_the_exact_one(protocol: str) -> None:
    config = ExperimentConfig(
        dataset="zipf:d=8", n=2000, protocol=protocol, epsilon=1.0, methods=["Norm-Sub"], trials=60
    )
    result = run_rounds(config, 20)
    assert result.methods == ("Base", "Norm-Sub")  # Base is always there to compare with
    # The mean over trials of a squared error: its sd from the trials themselves.
    for simulated, exact in (
        (result.round_mse[0], result.exact_round),
        (result.average_mse[0], result.exact_average),
    ):
        sigma = float(np.std(simulated, ddof=1)) / math.sqrt(simulated.size)
        assert abs(float(np.mean(simulated)) - exact) < K_SIGMA * sigma
    words = rounds_run_words(result)
    assert "agrees with the exact" in words and "paired on the same trials" in words


def test_the_cli_prints_the_plans_and_the_simulation(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(
        [
            "simulate",
            "--protocol",
            "GRR",
            "--epsilon",
            "1",
            "--n",
            "5000",
            "--dataset",
            "zipf:d=8",
            "--rounds",
            "30",
            "--period",
            "month",
            "--methods",
            "Base,Norm-Sub",
            "--trials",
            "4",
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "Collected every month for 30 months from 5,000 users" in out
    assert "L-GRR, memoized" in out and "GRR afresh every month" in out
    code = main(
        [
            "simulate",
            "--protocol",
            "L-GRR",
            "--epsilon",
            "1",
            "--epsilon-inf",
            "3",
            "--n",
            "5000",
            "--dataset",
            "zipf:d=8",
            "--rounds",
            "5",
            "--trials",
            "3",
            "--format",
            "json",
        ]
    )
    record = json.loads(capsys.readouterr().out)
    assert code == 0 and record["rounds"] == 5 and record["config"]["epsilon_inf"] == 3.0
    assert record["plans"][0]["epsilon_bound"] == pytest.approx(3.0)


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        (["--rounds", "0"], "--rounds must be a whole number >= 1"),
        (["--rounds", "5000"], "at most 1,000"),
        (["--rounds", "2", "--epsilon-inf", "0.5"], "must be at least epsilon"),
        (["--epsilon-inf", "x"], "--epsilon-inf must be a number"),
    ],
)
def test_the_cli_says_what_to_change(
    arguments: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        [
            *("simulate", "--protocol", "L-GRR", "--epsilon", "1", "--n", "100"),
            *("--dataset", "zipf:d=4", "--trials", "2", *arguments),
        ]
    )
    assert code == 2
    assert message in capsys.readouterr().err


def test_the_charts_draw_each_plan_from_the_exact_figures() -> None:
    plans = collection_plans(get_protocol("GRR", epsilon=1.0, domain_size=16), F, 10_000, 365)
    spend = spending_figure(plans).to_dict()
    x = round_grid(365)
    assert [t["name"] for t in spend["data"]] == [p.label for p in plans]
    assert values(spend["data"][1]["y"])[-1] == pytest.approx(365.0)
    assert values(spend["data"][0]["y"]) == pytest.approx(
        [epsilon_after(plans[0].protocol, int(t)) for t in x]
    )
    error = error_figure(plans, F, 10_000).to_dict()
    assert values(error["data"][0]["y"])[0] == pytest.approx(plans[0].round_error)
    assert values(error["data"][0]["y"])[-1] == pytest.approx(plans[0].average_error)


def test_the_page_shows_the_plans_the_core_computes() -> None:
    at = app({"rounds": "52", "period": "week", "protocol": "L-GRR"})
    at.switch_page("pages/rounds.py")
    small(at)
    assert not at.exception, at.exception
    table = at.table[0].value
    from ldpcore.serving.settings import default_config  # noqa: PLC0415

    config = default_config()
    protocol = get_protocol("L-GRR", epsilon=config.epsilon, domain_size=64)
    words = " ".join(m.value for m in at.markdown)
    assert "Collected every week for 52 weeks from 10,000 users" in words
    # The chains' comparison is the page's answer, above the charts.
    assert at.info[0].value.startswith("Of the memoized chains at ε = 1 per report")
    assert table["plan"].iloc[0] == f"L-GRR, memoized (ε∞ = {protocol.epsilon_inf:.3g})"
    averaging = chart(at, "chart-rounds-averaging")
    assert averaging["data"][0]["name"].startswith("L-GRR, memoized")
    spend = chart(at, "chart-rounds-spend")
    assert values(spend["data"][0]["y"])[-1] == pytest.approx(epsilon_after(protocol, 52), rel=1e-9)
    # The simulation below the plans, compared with averaging Base on the same trials.
    assert any(m.value.startswith("Averaging Base over 52 rounds") for m in at.markdown)
    # ε∞ below ε: said, not a traceback.
    at.number_input(key="epsilon_inf").set_value(float(config.epsilon) * 4).run()
    assert not at.exception
    assert re.search(r"L-GRR, memoized \(ε∞ = [\d.]+\)", " ".join(list(at.table[0].value["plan"])))


@pytest.mark.parametrize("name", ["GRR", "OUE", "SUE"])
def test_averaging_reveals_the_value_only_without_memoization(name: str) -> None:
    uniform = np.full(8, 1 / 8)
    plans = collection_plans(get_protocol(name, epsilon=1.0, domain_size=8), uniform, 1000, 300)
    rows = averaging_attack(plans, [1, 30, 300], users=20_000, seed=5)
    for row in rows:
        sigma = math.sqrt(row.bound * (1 - row.bound) / row.users)
        assert row.right <= row.bound + K_SIGMA * sigma, row
        assert row.low <= row.right <= row.high
    by = {(row.kind, row.rounds): row for row in rows}
    # One report: the memoized chain's is its one-shot protocol's channel (the same ε₁).
    assert abs(by["memoized", 1].right - by["fresh", 1].right) < 0.02
    # After 300: fresh reports reveal the value; the memoized chain stays at its bound.
    assert by["fresh", 300].right > 0.99
    assert by["memoized", 300].right == pytest.approx(by["memoized", 300].bound, abs=0.02)
    words = averaging_words(rows, period="day")
    assert f"after 300 days, {100 * by['memoized', 300].right:.3g}% of the time with" in words
    assert f"however many reports: {100 * by['memoized', 300].bound:.3g}%" in words


def test_the_chains_are_ranked_by_their_exact_error_and_said_so() -> None:
    for d, first in ((4, "L-GRR"), (64, "L-OSUE")):  # either side of d = 3e + 2
        uniform = np.full(d, 1 / d)
        chains = memoized_chains(uniform, 10_000, 365, epsilon=1.0, epsilon_inf=2.0)
        assert chains[0].protocol.name == first
        errors = [plan.round_error for plan in chains]
        assert errors == sorted(errors)
        assert {plan.protocol.name for plan in chains} == {
            "L-GRR",
            "L-OSUE",
            "L-SUE",
            "L-OUE",
            "L-SOUE",
        }
        words = chains_words(chains, period="week")
        assert words.startswith(f"Of the memoized chains at ε = 1 per report and ε∞ = 2, {first}")
        for plan in chains:
            assert format_margin(plan.round_error) in words
    # A chain that cannot reach this ε₁ at this ε∞ is left out, not an error.
    names = [
        p.protocol.name
        for p in memoized_chains(np.full(8, 1 / 8), 100, 5, epsilon=1.0, epsilon_inf=1.0)
    ]
    assert "L-GRR" in names and "L-OUE" not in names


def test_the_page_offers_only_registered_plans_to_simulate() -> None:
    at = app({"rounds": "30", "protocol": "dBitFlipPM"})
    at.switch_page("pages/rounds.py")
    small(at)
    assert not at.exception, at.exception
    assert at.pills(key="rounds-plan").options == ["dBitFlipPM, memoized (ε∞ = 1)"]
    captions = " ".join(c.value for c in at.caption)
    assert "Not offered: dBitFlip, afresh every round, dBitFlip, afresh at ε/T" in captions
    infos = " ".join(i.value for i in at.info)
    assert "averaging them reveals no more than one report does" in infos
