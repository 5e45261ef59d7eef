"""Every comparison the docs state is made from a benchmark's stored results.

A claim sits between ``<!-- claim: NAME -->`` and ``<!-- /claim -->`` markers; its text
is what :data:`devtools.claims.CLAIMS` makes from ``benchmarks/results/*.json``, with
the setting it was measured at and where it flips over the grid. When a benchmark is
run again or a sentence is edited by hand, this fails until
``python -m devtools.claims --write`` makes the two agree.
"""

from __future__ import annotations

import re

import pytest

from devtools import claims

STATED = claims.stated()


def test_every_claim_the_code_makes_is_stated_and_every_stated_claim_is_made() -> None:
    names = {name for _path, name, _text in STATED}
    assert names == set(claims.CLAIMS), names ^ set(claims.CLAIMS)


@pytest.mark.parametrize(
    ("path", "name", "text"), STATED, ids=[f"{p.name}:{n}" for p, n, _t in STATED]
)
def test_each_stated_claim_is_its_results_sentence(path: object, name: str, text: str) -> None:
    made = " ".join(claims.CLAIMS[name]().split())
    assert text == made, (
        f"{path}: run `python -m devtools.claims --write`\nstated: {text}\nmade:   {made}"
    )


def test_each_claim_says_its_setting() -> None:
    """A comparison carries where it was measured: d, ε and n, or the grid it spans."""
    for name, make in claims.CLAIMS.items():
        text = make()
        if text.lstrip().startswith("|"):
            continue  # a table: its columns are the setting
        assert re.search(r"d = [\d,]+", text) and "ε = " in text and "n = " in text, name


def test_a_claim_follows_its_results() -> None:
    """Made from the results, not typed: changed results change the sentence."""
    record = claims.results("ranges")
    before = claims.consistency_gain()
    for setting in record["settings"]:
        for ratio in setting["ratios"]:
            if ratio["entry"] == "TreeOUE · Consistency" and ratio["reference"] == "TreeOUE · Base":
                ratio["ratio"] /= 2
    try:
        assert claims.consistency_gain() != before
    finally:
        claims.results.cache_clear()
