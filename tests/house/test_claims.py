"""Every comparison the docs state is made from a benchmark's stored results.

A claim sits between ``<!-- claim: NAME -->`` and ``<!-- /claim -->`` markers; its text
is what :data:`devtools.claims.CLAIMS` makes from ``benchmarks/results/*.json``, with
the setting it was measured at and where it flips over the grid. When a benchmark is
run again or a sentence is edited by hand, this fails until
``python -m devtools.claims --write`` makes the two agree.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator
from typing import Any

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
        if "\n|" in text or name in claims.SETTING_ELSEWHERE:
            continue  # a table's columns and heading, or the place named, hold the setting
        # ε is a setting, or the answer itself where the claim is about the ε needed.
        assert re.search(r"d = [\d,]+", text) and re.search("ε [=≈]", text) and "n = " in text, name


def _stretched(value: Any, step: Iterator[int]) -> Any:
    """Every measured number in a record made smaller, each by its own factor (a ratio of
    two must change too), and its date another, in place (ε stays: it names the setting a
    claim looks up)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "date":
                value[key] = "the day after"
            elif key != "epsilon":
                value[key] = _stretched(item, step)
    elif isinstance(value, list):
        value[:] = [_stretched(item, step) for item in value]
    elif isinstance(value, float):
        return value * (0.8 + 0.03 * (next(step) % 7))
    return value


STORED = sorted(path.stem for path in claims.words.RESULTS.glob("*.json"))


def _made_with(stretched: str | None) -> dict[str, str]:
    claims.results.cache_clear()
    try:
        if stretched is not None:
            _stretched(claims.results(stretched), itertools.count())
        return {name: make() for name, make in claims.CLAIMS.items()}
    finally:
        claims.results.cache_clear()


def test_every_claim_follows_its_results_and_every_stored_result_is_claimed() -> None:
    """Made from the results, not typed: each claim changes when the numbers of a file it
    reads change, and each stored file makes at least one claim."""
    before = _made_with(None)
    after = {name: _made_with(name) for name in STORED}
    for name, text in before.items():
        assert any(after[stored][name] != text for stored in STORED), f"{name} reads no results"
    for stored in STORED:
        assert after[stored] != before, f"benchmarks/results/{stored}.json makes no claim"
