"""The Fake users page through AppTest: it runs the attack the controls name,
shows the same numbers as the core, and restores from the URL."""

from __future__ import annotations

import dataclasses
import re

import pytest
from apptest import app, chart, commands, small, values

from ldpcore.attacks import AttackSpec
from ldpcore.experiments.poisoning import run_attack
from ldpcore.formats import format_number

PAGE = "pages/fake_users.py"


def _table(at) -> dict[str, dict[str, str]]:
    frame = at.table[0].value
    return {row["method"]: row for row in frame.to_dict("records")}


def test_the_page_shows_the_core_s_gain_with_the_honest_run_beside_it() -> None:
    at = app()
    at.switch_page(PAGE)
    small(at).multiselect(key="methods").set_value(["Base", "Norm-Sub", "Base-Pos"]).run()
    assert not at.exception, at.exception
    gains = chart(at, "chart-attack-gain")
    assert [t["name"] for t in gains["data"]] == [
        "gain: with minus without the fake users",
        "own bias, honest run (no attack)",
    ]
    # The page equals its record: the same run through the core gives the same numbers.
    from ldpcore.serving.settings import default_config  # noqa: PLC0415

    config = dataclasses.replace(
        default_config(),
        n=10_000,
        dataset="zipf:d=64,s=1.5",
        trials=5,
        methods=("Base", "Norm-Sub", "Base-Pos"),
    )
    result = run_attack(config, AttackSpec("mga", beta=0.05, targets=3), top_k=10)
    core = result.summary.set_index("method")
    table = _table(at)
    assert table["Base"]["gain: with minus without the fakes (95% interval)"].startswith(
        format_number(core.loc["Base", "gain"])
    )
    assert values(gains["data"][0]["y"]) == pytest.approx(list(core["gain"]))
    words = " ".join(m.value for m in at.markdown)
    assert f"{result.fakes:,} fake users" in words and "Top-10 query" in words
    assert "--attack mga:beta=0.05,targets=3 --top-k 10" in commands(at)[0]


def test_no_fake_users_no_gain_for_any_method() -> None:
    at = app()
    at.switch_page(PAGE)
    small(at).multiselect(key="methods").set_value(["Base", "Norm-Sub"]).run()
    at.select_slider(key="beta").set_value(0.0).run()
    assert not at.exception, at.exception
    gains = chart(at, "chart-attack-gain")
    # The run's two methods and LDPRecover, always beside them as the defence.
    assert values(gains["data"][0]["y"]) == [0.0, 0.0, 0.0]
    assert "0 fake users" in " ".join(m.value for m in at.markdown)
    for method in ("Norm-Sub", "LDPRecover"):
        assert _table(at)[method]["against Base, same trials"].startswith("the same as Base")


def test_the_url_restores_the_attack() -> None:
    at = app({"attack": "rpa", "beta": "0.1", "targets": "2", "top_k": "5", "d": "64"})
    at.switch_page(PAGE).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="attack").value == "rpa"
    assert at.select_slider(key="beta").value == 0.1
    assert at.number_input(key="targets").value == 2
    assert "--attack rpa:beta=0.1,targets=2 --top-k 5" in commands(at)[0]


def test_learn_adds_fake_users_to_the_class() -> None:
    at = app()
    at.switch_page("pages/learn.py").run()
    assert not at.exception, at.exception

    # A keyed dataframe has no id in AppTest: found by its columns instead.
    def table(column: str):
        return next(d.value for d in at.dataframe if column in d.value.columns)

    assert len(table("fake user")) == 2  # the slider's default
    at.slider(key="lie-fakes").set_value(5).run()
    assert len(table("fake user")) == 5
    assert "Base, 5 fake" in table("Base, honest").columns
    assert "the smaller ε is, the further" in " ".join(m.value for m in at.markdown)


def test_choose_epsilon_says_how_many_fake_users_push_a_rare_value() -> None:
    """The sentence's number is the table's, at the answer's ε, and the table falls
    as ε falls (the words' claim)."""
    from apptest import frame, open_page  # noqa: PLC0415

    at = open_page("pages/choose_epsilon.py")
    at.selectbox(key="choose-bundled").set_value("countries")
    at.slider(key="choose-trials").set_value(5)
    at.multiselect(key="choose-protocols").set_value(["OUE"])
    at.multiselect(key="choose-methods").set_value(["Base", "Norm-Sub"])
    at = at.run()
    assert not at.exception, at.exception

    def counts(at: object) -> dict[str, int]:
        """The table as the page writes it (and the record files it): ε → fake users."""
        shown = frame(at, "fake users needed")
        return {
            e: int(m.replace(",", ""))
            for e, m in zip(shown["ε"], shown["fake users needed"], strict=True)
            if m != "no number"
        }

    table = counts(at)
    assert list(table.values()) == sorted(table.values())
    words = next(m.value for m in at.markdown if "fake users (" in m.value)
    epsilon = re.search(r"At ε = ([0-9.]+),", words).group(1)
    needed = table[f"{epsilon} (the answer)"]
    assert f"{needed:,} fake users" in words and "easier to push" in words
    at.number_input(key="choose-fake-k").set_value(1).run()
    assert not at.exception, at.exception
    more = counts(at)[f"{epsilon} (the answer)"]
    assert more > needed  # the top 1 is harder to reach than the top 10


def test_the_targets_can_be_the_rarest_or_named_and_the_command_says_so() -> None:
    at = app({"attack": "mga", "beta": "0.05", "targets": "2", "pick": "rarest", "d": "64"})
    at.switch_page(PAGE)
    small(at).multiselect(key="methods").set_value(["Base", "Norm-Sub"]).run()
    assert not at.exception, at.exception
    assert at.selectbox(key="pick").value == "rarest"
    assert "pick=rarest" in commands(at)[0]
    words = " ".join(m.value for m in at.markdown)
    assert "(the least frequent)" in words
    table = _table(at)
    assert "ranking kept (Kendall's τ)" in table["Base"]
    at.selectbox(key="pick").set_value("named").run()
    at.multiselect(key="named-targets").set_value(["5", "9"]).run()
    assert not at.exception, at.exception
    assert "pick=5+9" in commands(at)[0] and "targets=2" in commands(at)[0]


def test_a_tree_s_fake_users_push_one_range_up() -> None:
    """On a tree the targets are one range, the attack aims at a reading, and the page
    shows what each fake user is worth in honest users instead of the top-k query."""
    at = app()
    at.switch_page(PAGE)
    small(at).pills(key="protocol").set_value("TreeOUE").run()
    at.multiselect(key="methods").set_value(["Base", "Norm-Sub", "Consistency"]).run()
    assert not at.exception, at.exception
    assert at.number_input(key="range-length").value == 32
    table = _table(at)
    assert set(table) == {"Base", "Norm-Sub", "Consistency", "LDPRecover"}
    assert "each fake, in honest users" in table["Base"]
    assert "targets in the top k (honest)" not in table["Base"]
    words = " ".join(m.value for m in at.markdown)
    assert "on the range" in words and "honest users holding a value in the range" in words
    assert "Liao et al." in " ".join(c.value for c in at.caption)
    assert "--attack mga:beta=0.01,targets=32" in commands(at)[0]
    at.selectbox(key="aim").set_value("consistent").run()
    at.selectbox(key="pick").set_value("named").run()
    at.selectbox(key="range-start").set_value("10").run()
    assert not at.exception, at.exception
    assert "aimed at the consistent tree" in " ".join(m.value for m in at.markdown)
    command = commands(at)[0]
    assert "pick=10+11+" in command and "+41,aim=consistent " in command


def test_choose_epsilon_sends_a_tree_s_fake_users_to_the_range_attack() -> None:
    from apptest import open_page  # noqa: PLC0415

    at = open_page("pages/choose_epsilon.py")
    at.selectbox(key="choose-bundled").set_value("ages")
    at.slider(key="choose-trials").set_value(5)
    at.multiselect(key="choose-protocols").set_value(["TreeOUE"])
    at = at.run()
    assert not at.exception, at.exception
    assert any("push a range of values up" in i.value for i in at.info)


def test_a_range_of_the_whole_domain_leaves_nothing_to_compare_and_says_so() -> None:
    at = app()
    at.switch_page(PAGE)
    small(at).pills(key="protocol").set_value("TreeOUE").run()
    at.multiselect(key="methods").set_value(["Base", "Norm-Sub"]).run()
    at.number_input(key="range-length").set_value(64).run()
    assert not at.exception, at.exception
    base = _table(at)["Base"]
    # The range is every value: no other value to damage, no honest user outside it.
    assert base["MSE on the other values"] == "—" and base["each fake, in honest users"] == "—"
    assert "(64 values)" in " ".join(m.value for m in at.markdown)
