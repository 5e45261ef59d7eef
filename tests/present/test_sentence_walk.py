"""A sentence walk: every sentence on Choose ε, Collecting again and Fake users, and in the
decision record, read for its units and for agreement with itself.

Each page is drawn through AppTest at small settings; the record is made by the core
from the same kind of answer. What a person reads aloud must not need the code to
decode: a share beside a target in percentage points is in points or percent (never
``±0.00254``), a number is written one way (``×10⁻⁶``, never ``e-06``; thousands
separated), no phrase is said twice in one sentence, and "exact" and "simulated" are
each said only where true.
"""

from __future__ import annotations

import dataclasses
import html
import re
from collections.abc import Iterable

import pandas as pd
import pytest
from apptest import app
from streamlit.testing.v1 import AppTest

from ldpcore.advice import choose_epsilon, privacy_risk
from ldpcore.advice.epsilon_answer import winning_answer
from ldpcore.advice.epsilon_context import CADENCES, cadence_plans, epsilon_context
from ldpcore.advice.targets import AccuracyTarget
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.formats import format_epsilon, round_up
from ldpcore.present.epsilon_sentences import option_words
from ldpcore.present.records import decision_record

#: A share written as a decimal after ± with no unit ("±0.00254", "±0.95 per value").
BARE_SHARE = re.compile(r"±\s?0\.\d+(?!\d)(?!\s?(?:pp|%|percentage|×|in frequency))")
#: A number in e-notation ("1.2e-06"): the tool writes ×10⁻⁶.
E_NOTATION = re.compile(r"\d[eE][-+]?\d")
#: Five or more digits with no thousands separator, outside specs, links and code
#: ("1000000"; "d=1024" and "seed 2021" are not numbers people read as amounts).
UNSEPARATED = re.compile(r"(?<![\w.,/=:#-])\d{5,}(?![\w.,/])")
#: Words that carry no phrase of their own.
SMALL_WORDS = frozenset(
    {
        "a",
        "an",
        "the",
        "of",
        "in",
        "on",
        "at",
        "to",
        "for",
        "by",
        "with",
        "and",
        "or",
        "is",
        "are",
        "be",
        "it",
        "its",
        "as",
        "that",
        "this",
        "than",
        "from",
        "per",
        "one",
        "each",
        "every",
    }
)


def _sentences(texts: Iterable[str]) -> list[str]:
    found = []
    for text in texts:
        plain = re.sub(r"`[^`]*`", " ", text)  # code spans are commands, not sentences
        plain = re.sub(r"https?://\S+", " ", plain)
        found += [s.strip() for s in re.split(r"(?<=[.!?])\s+", plain) if s.strip()]
    return found


def _doubled_phrase(sentence: str) -> str | None:
    """A phrase of three words said twice in one clause (None if there is none).

    Clauses end at a semicolon: "(higher than averaging Base's …); … (lower than
    averaging Base's …)" compares two things in parallel, and says nothing twice. A
    phrase with a number or a symbol in it ("at ε = 0.25, … at ε = 0.5") is a list, and a
    quoted name (a chart's title, a series) is a label, not the sentence's words.
    """
    for clause in re.sub(r'"[^"]*"', " ", sentence).split(";"):
        words = re.findall(r"\d+(?:\.\d+)?|[\w'-]+|ε", clause.lower())
        seen: set[tuple[str, ...]] = set()
        for i in range(len(words) - 2):
            phrase = tuple(words[i : i + 3])
            if all(w in SMALL_WORDS for w in phrase) or any(
                w == "ε" or any(c.isdigit() for c in w) for w in phrase
            ):
                continue
            if phrase in seen:
                return " ".join(phrase)
            seen.add(phrase)
    return None


def check_sentences(texts: Iterable[str], where: str) -> None:
    """Every check of the walk on ``texts``, failing with the sentence that breaks one."""
    for sentence in _sentences(texts):
        assert not BARE_SHARE.search(sentence), f"{where}: a share without its unit: {sentence}"
        assert not E_NOTATION.search(sentence), f"{where}: e-notation: {sentence}"
        assert not UNSEPARATED.search(sentence), f"{where}: digits unseparated: {sentence}"
        doubled = _doubled_phrase(sentence)
        assert doubled is None, f"{where}: {doubled!r} twice in: {sentence}"


def page_texts(at: AppTest) -> list[str]:
    """Every sentence-bearing element of a page: text, captions, messages, table cells."""
    texts: list[str] = []
    for kind in ("markdown", "caption", "info", "warning", "success", "error"):
        texts += [str(element.value) for element in at.get(kind)]
    for frame in [*(t.value for t in at.table), *(d.value for d in at.dataframe)]:
        for column in frame.columns:
            texts += [v for v in frame[column].tolist() if isinstance(v, str) and " " in v]
    return texts


def test_the_walk_finds_what_the_issue_found() -> None:
    """Each check fails on the sentences that once stood on the pages."""
    broken = {
        "Each day's estimate is off by about ±0.00254.": BARE_SHARE,
        "Within ±0.95 per value.": BARE_SHARE,
        "Base's MSE is 1.2e-06 here.": E_NOTATION,
        "The n slider shows 1000000 users.": UNSEPARATED,
    }
    for sentence, pattern in broken.items():
        assert pattern.search(sentence), sentence
    assert _doubled_phrase(
        "If you need a proper distribution: Norm-Sub gives a proper distribution."
    )
    fine = "Within ±0.5 pp of the truth, 95% of the time; ×10⁻⁶ at d=1024, seed 2021."
    check_sentences([fine], "a fine sentence")


@pytest.fixture(scope="module")
def choose_page() -> AppTest:
    at = app()
    at.run()
    at.switch_page("pages/choose_epsilon.py")
    at.run()
    at.slider(key="choose-trials").set_value(5)
    at.multiselect(key="choose-protocols").set_value(["GRR", "OUE", "OLH"])
    at.run()
    assert not at.exception, at.exception
    return at


def test_every_sentence_on_choose_epsilon_reads_in_its_units(choose_page: AppTest) -> None:
    texts = page_texts(choose_page)
    assert any("ε" in t for t in texts) and len(texts) > 20
    check_sentences(texts, "Choose ε")
    words = " ".join(texts)
    # One collection, or many: never both said as if the other were not.
    if "spent once" in words:
        assert "for one report per person" not in words or "days" not in words


@pytest.mark.parametrize(
    ("page", "name", "least"),
    [("pages/rounds.py", "Collecting again", 10), ("pages/fake_users.py", "Fake users", 5)],
)
def test_every_sentence_on_a_sidebar_page_reads_in_its_units(
    page: str, name: str, least: int
) -> None:
    at = app({"n": "10000", "d": "64", "trials": "3"})
    at.run()
    at.switch_page(page)
    at.run()
    assert not at.exception, at.exception
    texts = page_texts(at)
    assert len(texts) > least
    check_sentences(texts, name)


#: The record's setting: a million users' top-10 countries, a few trials.
RECORD_SETTING = ExperimentConfig(
    dataset="countries",
    n=10**6,
    protocol="GRR",
    epsilon=1.0,
    query="topk:k=10",
    methods=("Base", "Norm-Sub", "PowerNS"),
    trials=5,
)


def test_every_sentence_in_the_record_reads_in_its_units_and_says_exact_where_true() -> None:
    config = RECORD_SETTING
    target = AccuracyTarget("each", 0.005)
    protocols = ["GRR", "OUE"]
    answers = choose_epsilon(config, target=target, protocols=protocols)
    winner = winning_answer(answers)
    assert winner.epsilon is not None
    at = round_up(winner.epsilon)
    truth = config.dataset.build(config.n).frequencies()
    cadence = CADENCES["once a day, for a year"]
    page = decision_record(
        config=config,
        query_words="the top-10 values",
        target=target,
        protocols=protocols,
        answers=answers,
        figure=None,
        risk=pd.DataFrame(privacy_risk(truth, epsilon=at, protocols=protocols)),
        risk_epsilon=at,
        context=epsilon_context(at, config.n, periods=365, period="day"),
        plans=cadence_plans(winner.protocol, at, truth, config.n, cadence),
    )
    body = re.sub(r"<script.*?</script>|<style.*?</style>|<code>.*?</code>", " ", page, flags=re.S)
    texts = [html.unescape(t) for t in re.split(r"<[^>]+>", body) if t.strip()]
    check_sentences(texts, "the record")
    said = " ".join(texts)
    if "every number below is simulated" in said.lower():
        assert "exact" not in said.lower(), "the record says simulated beside exact"


def test_a_second_target_in_pp_is_said_in_pp_everywhere(choose_page: AppTest) -> None:
    """The target's own unit (percentage points) is the unit of every margin said beside it."""
    at = choose_page
    at.number_input(key="choose-target").set_value(1.0).run()
    assert not at.exception, at.exception
    texts = page_texts(at)
    assert any("±1 pp" in t or "±1.0 pp" in t or "1 percentage point" in t for t in texts), [
        t for t in texts if "pp" in t
    ][:5]
    check_sentences(texts, "Choose ε at ±1 pp")


#: A clause about how far a search looked ("…, up to ε = 0.774)").
SEARCHED = re.compile(r"searched, up to ε = ([\d.]+)")


def test_every_clause_about_the_search_names_the_range_it_covered() -> None:
    """Words about a crossing not found name the largest ε the search evaluated, which
    the answer records; never the range's end when the search stopped before it."""
    # The record's setting, with one consistent method to offer.
    config = dataclasses.replace(RECORD_SETTING, methods=("Base", "Norm-Sub"))
    answers = choose_epsilon(config, target=AccuracyTarget("rmse", 0.005), protocols=["OLH"])
    options = [a.consistent_option for a in answers if a.consistent_option is not None]
    assert options, "no consistent option offered: nothing to read"
    read = 0
    for option in options:
        assert option.searched_to is not None
        assert option.searched_to == max(float(row["epsilon"]) for row in answers[0].curve)
        # The clause as the search left it, and as it reads when no band crossed.
        missed = dataclasses.replace(option, error_high=1.0, epsilon_low=None, epsilon_high=None)
        for forged in (option, missed, dataclasses.replace(missed, epsilon_for_target=None)):
            for found in SEARCHED.findall(option_words(forged)):
                assert found == format_epsilon(option.searched_to), option_words(forged)
                read += 1
    assert read >= 2 * len(options), "no clause about the search was read"
