"""Take-aways: the notebooks each results page offers, run end to end, and the decision record.

The notebooks are executed by a real Jupyter kernel (nbclient + ipykernel); a probe cell
appended by the test reads the variables the notebook made, and their numbers must equal
the page's (AppTest) or the API's on the same configuration.
"""

from __future__ import annotations

import dataclasses
import html
import json
import math
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import nbformat
import pytest
from nbclient import NotebookClient
from streamlit.testing.v1 import AppTest

from ldpcore.advice import choose_epsilon, sweep_verdicts, winning_answer
from ldpcore.advice.epsilon_context import epsilon_context
from ldpcore.data.datasets import load_bundled
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.sweeps import sweep
from ldpcore.formats import format_error, read_error
from ldpcore.present.commands import choose_epsilon_command
from ldpcore.present.epsilon_sentences import epsilon_sentence
from ldpcore.present.notebooks import (
    choose_epsilon_notebook,
    config_source,
    run_notebook,
    sweep_notebook,
)
from ldpcore.present.records import decision_record
from ldpcore.present.sentences import sweep_headline

APP = str(Path(__file__).resolve().parents[2] / "app.py")
SMALL = ExperimentConfig(dataset="zipf:d=64,s=1.5", n=10_000, protocol="OLH", epsilon=1.0, trials=5)


def execute(data: bytes, probe: str) -> tuple[list[str], Any]:
    """Run the notebook plus a probe cell that prints JSON; return the printed lines of
    every cell and the probe's value."""
    notebook = nbformat.reads(data.decode(), as_version=4)
    nbformat.validate(notebook)
    notebook.cells.append(nbformat.v4.new_code_cell(f"import json\nprint(json.dumps({probe}))"))
    NotebookClient(notebook, kernel_name="python3", timeout=300).execute()
    printed = [
        output["text"]
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "stream"
    ]
    for cell in notebook.cells:
        for output in cell.get("outputs", []):
            assert output.get("output_type") != "error", output
    # The probe's line may reach the client in more than one stream message (a busy
    # kernel flushed "[...]" and "\n" apart once in CI): join its cell's text first.
    probe_text = "".join(
        output["text"]
        for output in notebook.cells[-1].get("outputs", [])
        if output.get("output_type") == "stream"
    )
    return printed, json.loads(probe_text)


def test_config_source_rebuilds_the_same_configuration() -> None:
    dataset = load_bundled("countries")
    explicit = ExperimentConfig.from_dataset(
        dataset, n=12_345, protocol="SS", epsilon=0.7, query="topk:k=5", trials=7, seed=3
    )
    tuned = dataclasses.replace(SMALL, params={"g": 5}, methods=("Base", "Norm-Sub"))
    for config in (SMALL, explicit, tuned):
        namespace: dict[str, Any] = {"ExperimentConfig": ExperimentConfig}
        exec(config_source(config), namespace)
        assert namespace["config"] == config


def test_explorer_notebook_gives_the_page_s_numbers() -> None:
    at = AppTest.from_file(APP, default_timeout=120)
    for key, value in {"n": "10000", "d": "64", "trials": "5"}.items():
        at.query_params[key] = value
    at.run()
    assert not at.exception
    table = next(frame.value for frame in at.table if "MSE ÷ Base (95%)" in frame.value)
    shown = dict(zip(table["method"], table["MSE"], strict=True))
    config = dataclasses.replace(SMALL)  # the sidebar's defaults at these settings
    probe = "dict(zip(result.summary['method'], result.summary['mse']))"
    printed, summary = execute(run_notebook(config, title="Explorer"), probe)
    assert set(summary) == set(shown)
    # The page shows three significant digits; the notebook's numbers round to them.
    for method, mse in shown.items():
        assert format_error(summary[method]) == mse, method
        assert read_error(mse) == pytest.approx(summary[method], rel=5e-3), method
    headline = next(text for text in printed if text.startswith("Recommended:"))
    page_headline = " ".join(str(element.value) for element in [*at.success, *at.info])
    recommended = headline.split(".")[0].removeprefix("Recommended: ")
    assert f"Recommended: **{recommended}**" in page_headline


def test_sweep_notebook_gives_the_sweep_s_numbers_and_headline() -> None:
    values = [0.5, 2.0]
    printed, mse = execute(
        sweep_notebook(SMALL, "epsilon", values, title="MSE against ε", x_title="ε"),
        "frame['mse'].tolist()",
    )
    frame = sweep(SMALL, "epsilon", values)
    assert mse == pytest.approx(frame["mse"].tolist(), rel=1e-12)
    assert printed[0].strip() == sweep_headline(sweep_verdicts(frame, "epsilon"))


def test_choose_epsilon_notebook_gives_the_search_s_answer() -> None:
    config = dataclasses.replace(SMALL, methods=("Base", "Norm-Sub"), trials=5)
    printed, epsilons = execute(
        choose_epsilon_notebook(config, target_rmse=0.02, protocols=["GRR", "OLH"]),
        "[answer.epsilon for answer in answers]",
    )
    answers = choose_epsilon(config, target_rmse=0.02, protocols=["GRR", "OLH"])
    assert epsilons == [answer.epsilon for answer in answers]
    assert printed[0].strip() == epsilon_sentence(winning_answer(answers), config.n)
    # Then the chosen ε in context: shuffled among the config's n, over a year.
    from ldpcore.advice.epsilon_context import epsilon_context  # noqa: PLC0415
    from ldpcore.formats import round_up  # noqa: PLC0415
    from ldpcore.present.context_sentences import repeated_sentence, shuffle_sentence  # noqa: PLC0415

    # The ε as the page prints it, rounded up.
    context = epsilon_context(round_up(winning_answer(answers).epsilon or 1.0), config.n)
    assert printed[1].strip().splitlines() == [
        shuffle_sentence(context.shuffled),
        repeated_sentence(context.repeated, "day"),
    ]


def test_decision_record_holds_the_answer_and_its_command_reproduces_it(tmp_path: Path) -> None:
    from ldpcore.present import figures  # noqa: PLC0415

    config = dataclasses.replace(SMALL, methods=("Base", "Norm-Sub"), trials=5)
    answers = choose_epsilon(config, target_rmse=0.02, protocols=["OLH"])
    winner = winning_answer(answers)
    frame = sweep(dataclasses.replace(config, protocol="OLH"), "epsilon", [0.5, 1.0, 2.0])
    figure = figures.error_against_epsilon(frame, target_pp=2.0, protocol="OLH")
    import pandas as pd  # noqa: PLC0415

    risk = pd.DataFrame(
        [{"protocol": "OLH", "attacker guesses right": 0.25, "guessing without the report": 0.2}]
    )
    # Collected weekly for a year with the answer's protocol: the same words.
    from ldpcore.advice.longitudinal import collection_plans  # noqa: PLC0415
    from ldpcore.present.rounds_sentences import plans_words  # noqa: PLC0415
    from ldpcore.protocols import get_protocol  # noqa: PLC0415

    truth = config.build()[0].frequencies()
    olh = get_protocol("OLH", epsilon=winner.epsilon, domain_size=truth.size)
    plans = collection_plans(olh, truth, config.n, 52)
    page = decision_record(
        config=config,
        query_words="every value's frequency",
        target_rmse=0.02,
        protocols=["OLH"],
        answers=answers,
        figure=figure,
        risk=risk,
        risk_epsilon=winner.epsilon,
        context=epsilon_context(winner.epsilon, config.n, periods=52, period="week"),
        plans=(plans, "week"),
    )
    sentence = epsilon_sentence(winner, config.n)
    assert sentence.replace("'", "&#x27;") in page
    assert 'id="error-against-epsilon"' in page and "25%" in page
    # ε read as certainty, as on the page: a 50% belief becomes at most e^ε/(1 + e^ε).
    certain = math.exp(winner.epsilon) / (1 + math.exp(winner.epsilon))
    assert f"at most {certain:.0%} sure after one report" in page
    # The published deployments travel with the record, each with its source as a link.
    assert "ε in context: published deployments" in page
    assert page.count('<a href="https://desfontain.es/') == 5
    # The chosen ε after shuffling among the config's users, and over a year of weeks.
    assert 'id="shuffled">Shuffled before analysis' in page and "trusted shuffler" in page
    assert "per week for 52 weeks" in page
    said = plans_words(plans, n=config.n, period="week")
    assert all(html.escape(sentence) in page for sentence in said)
    assert 'id="collecting-again">Collected again and again' in page
    assert re.search(r"(larger than|smaller than|the same as) your ε after shuffling", page)
    assert "than than" not in page
    # Every term the record uses is explained in it, in plain words.
    from ldpcore.present.glossary import GLOSSARY, terms_in  # noqa: PLC0415

    readable = re.sub(r"<script.*?</script>", " ", page, flags=re.S)
    used = terms_in(html.unescape(re.sub(r"<[^>]+>", " ", readable.split('id="terms"')[0])))
    assert {"ε", "Base", "OLH", "95% interval"} <= set(used), used
    for term in used:
        assert f"<dt>{html.escape(term)}</dt><dd>{html.escape(GLOSSARY[term])}</dd>" in page
    # The chart's script is inlined (plotly.js, megabytes), never fetched from a CDN.
    assert len(page) > 1_000_000 and '<script src="http' not in page
    command = choose_epsilon_command(config, target_rmse=0.02, protocols=["OLH"])
    assert command in page.replace("&#x27;", "'")
    args = shlex.split(command)[1:]
    done = subprocess.run(
        [sys.executable, "-m", "ldpcore.cli", *args], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    (again,) = json.loads(done.stdout)["answers"]
    assert again["epsilon"] == winner.epsilon
    (tmp_path / "record.html").write_text(page, encoding="utf-8")


def test_the_record_and_its_command_carry_a_target_in_people_s_words() -> None:
    """a target "all within ±0.5 pp at once" is said in the record's inputs,
    and its command asks the same (--target all:0.005), read back by the CLI."""
    from ldpcore.advice.targets import AccuracyTarget  # noqa: PLC0415

    config = dataclasses.replace(SMALL, methods=("Base", "Norm-Sub"), trials=5)
    target = AccuracyTarget("all", 0.02)
    answers = choose_epsilon(config, target=target, protocols=["OLH"])
    page = decision_record(
        config=config,
        query_words="every value's frequency",
        target=target,
        protocols=["OLH"],
        answers=answers,
        figure=None,
        risk=None,
        risk_epsilon=None,
    )
    assert html.escape(target.in_words()) in page
    command = choose_epsilon_command(config, target=target, protocols=["OLH"])
    assert "--target all:0.02" in command and command in page.replace("&#x27;", "'")
    done = subprocess.run(
        [sys.executable, "-m", "ldpcore.cli", *shlex.split(command)[1:]],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["target"]["spec"] == "all:0.02"
    assert payload["answers"][0]["epsilon"] == answers[0].epsilon


def test_the_record_files_the_fake_user_question_and_the_risk_as_the_page_shows_them() -> None:
    """The fake-user section the page shows is in the record, cell for cell, and the risk
    table reads the same in both (the page once said 5.45% where the record said 5.5%)."""
    import html  # noqa: PLC0415

    import pandas as pd  # noqa: PLC0415

    from ldpcore.attacks.reach import top_k_question  # noqa: PLC0415
    from ldpcore.present.run_sentences import top_k_question_words  # noqa: PLC0415
    from ldpcore.present.tables import fake_users_table, risk_table  # noqa: PLC0415

    config = dataclasses.replace(SMALL, methods=("Base", "Norm-Sub"), trials=5)
    answers = choose_epsilon(config, target_rmse=0.02, protocols=["OLH"])
    winner = winning_answer(answers)
    data = config.build()[0]
    question = top_k_question(
        "OLH",
        data.frequencies(),
        config.n,
        labels=data.labels,
        target=data.domain_size - 1,
        k=3,
        epsilon=float(winner.epsilon or 1.0),
    )
    risk = pd.DataFrame(
        [
            {
                "protocol": "OLH",
                "attacker guesses right": 0.05449,
                "guessing without the report": 0.02,
            }
        ]
    )
    page = decision_record(
        config=config,
        query_words="every value's frequency",
        target_rmse=0.02,
        protocols=["OLH"],
        answers=answers,
        figure=None,
        risk=risk,
        risk_epsilon=winner.epsilon,
        fakes=question,
    )
    assert html.escape(top_k_question_words(question)) in page
    assert fake_users_table(question).to_html(index=False, escape=True, border=0) in page
    shown = risk_table(risk.to_dict("records"))
    assert list(shown.iloc[0]) == ["OLH", "5.45%", "2%"]
    assert shown.to_html(index=False, escape=True, border=0) in page
    # Each count in the table is the closed form's, exactly.
    needed = dict(question.by_epsilon)
    table = fake_users_table(question)
    for cell, (epsilon, count) in zip(table["fake users needed"], question.by_epsilon, strict=True):
        assert cell == ("no number" if count is None else f"{count:,}")
        assert needed[epsilon] == count


def test_the_record_and_its_command_carry_a_range_target_across_range_protocols() -> None:
    """Choose ε on ranges of ten ages for flat OUE and SW: the record says the ranges, and
    its command, run again, gives each protocol's ε back (SW runs its own methods)."""
    from ldpcore.present.sentences import query_in_words  # noqa: PLC0415

    config = ExperimentConfig(
        dataset="ages",  # the bundled sample, as the page's picker names it
        n=20_000,
        protocol="OUE",
        epsilon=1.0,
        query="range:length=10",
        methods=("Base", "Norm-Sub", "PowerNS"),
        trials=5,
    )
    answers = choose_epsilon(config, target_rmse=0.05, protocols=["OUE", "SW"])
    assert [a.protocol for a in answers] == ["OUE", "SW"]
    words = query_in_words(config.query)
    assert "10" in words
    page = decision_record(
        config=config,
        query_words=words,
        target_rmse=0.05,
        protocols=["OUE", "SW"],
        answers=answers,
        figure=None,
        risk=None,
        risk_epsilon=None,
    )
    assert html.escape(words) in page
    command = choose_epsilon_command(config, target_rmse=0.05, protocols=["OUE", "SW"])
    assert "range:length=10" in command and command in page.replace("&#x27;", "'")
    done = subprocess.run(
        [sys.executable, "-m", "ldpcore.cli", *shlex.split(command)[1:]],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    again = {a["protocol"]: a["epsilon"] for a in json.loads(done.stdout)["answers"]}
    assert again == {a.protocol: a.epsilon for a in answers}
