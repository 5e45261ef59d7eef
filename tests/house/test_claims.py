"""Every comparison the docs state is made from a benchmark's stored results.

A claim sits between ``<!-- claim: NAME -->`` and ``<!-- /claim -->`` markers; its text
is what :data:`devtools.claims.CLAIMS` makes from ``benchmarks/results/*.json``, with
the setting it was measured at and where it flips over the grid. When a benchmark is
run again or a sentence is edited by hand, this fails until
``python -m devtools.claims --write`` makes the two agree.
"""

from __future__ import annotations

import re
import sys
from typing import Any

import numpy as np
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


def _stretched(value: Any, step: np.random.Generator) -> Any:
    """Every measured number in a record made smaller, each by its own factor (a ratio of
    two must change too), and its date another, in place; the keys of
    :data:`SETTING_KEYS` stay (they name the setting a claim looks rows up by)."""
    if isinstance(value, dict):
        for key, item in value.items():
            if key == "date":
                value[key] = "the day after"
            elif key not in SETTING_KEYS:
                value[key] = _stretched(item, step)
    elif isinstance(value, list):
        value[:] = [_stretched(item, step) for item in value]
    elif isinstance(value, float):
        return value * float(step.uniform(0.8, 0.98))
    return value


#: Keys that name a setting a claim looks rows up by, left as they are.
SETTING_KEYS = {"epsilon", "level"}
STORED = sorted(path.stem for path in claims.words.RESULTS.glob("*.json"))


def _made_with(stretched: str | None) -> dict[str, str]:
    claims.results.cache_clear()
    try:
        if stretched is not None:
            _stretched(claims.results(stretched), np.random.default_rng(0))
        return {name: make() for name, make in claims.CLAIMS.items()}
    finally:
        claims.results.cache_clear()


def _files_read(make: Any, monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """The stored results a claim's function reads."""
    read: set[str] = set()

    def recording(name: str) -> dict[str, Any]:
        read.add(name)
        return claims.results(name)

    for module in CLAIM_MODULES:
        monkeypatch.setattr(module, "results", recording)
    make()
    monkeypatch.undo()
    return read


CLAIM_MODULES = [
    module
    for module in sys.modules.values()
    if getattr(module, "__name__", "").startswith("devtools.claims.") and hasattr(module, "results")
]


@pytest.mark.parametrize("name", sorted(claims.CLAIMS))
def test_each_claim_reads_stored_results_and_follows_them(
    name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Made from the results, not typed: a claim reads stored results, and its text
    changes when they do (or it is a verdict the change leaves standing, said here)."""
    read = _files_read(claims.CLAIMS[name], monkeypatch)
    assert read, f"{name} reads no stored results"
    before = _made_with(None)[name]
    changed = [stored for stored in sorted(read) if _made_with(stored)[name] != before]
    assert changed or name in VERDICTS, f"{name}: the same text whatever its results say"


#: Claims whose words are a verdict (below or not, at which lengths) that a small change
#: of every number leaves standing; they still read their results (checked above).
VERDICTS = {"range-wave.em"}


def test_every_stored_result_makes_a_claim() -> None:
    """Each file in benchmarks/results changes at least one claim when its numbers do."""
    before = _made_with(None)
    for stored in STORED:
        assert _made_with(stored) != before, f"benchmarks/results/{stored}.json makes no claim"


def test_a_table_claim_stands_apart_from_the_text_after_it() -> None:
    """A claim that is a block (a table) ends its markers with a blank line after it, or
    Markdown renders the next paragraph as part of the closing comment's HTML block."""
    for path in claims.DOCUMENTS:
        text = path.read_text(encoding="utf-8")
        for match in re.finditer(r"\n\n<!-- /claim -->(\n?)(.?)", text):
            assert match.group(2) in ("", "\n") or match.group(1) == "", (
                f"{path}: put a blank line after the table claim ending at {match.start()}"
            )


def test_the_coverage_a_page_quotes_is_the_stored_runs() -> None:
    """The note beside a prior-shaped answer quotes how often such intervals covered: the
    span over the stored run's regimes where the note shows, to two digits."""
    from ldpcore.present.run_sentences import FLAGGED_FREQUENT_COVERAGE  # noqa: PLC0415

    regimes = claims.results("learned_prior")["regimes"]
    flagged = [r["raw"][0] for r in regimes if r["flagged"] > r["collections"] / 2]
    assert (round(min(flagged), 2), round(max(flagged), 2)) == FLAGGED_FREQUENT_COVERAGE


def test_the_range_attack_a_page_quotes_is_the_stored_runs() -> None:
    """The Fake users page's words on Norm-Sub under a range attack quote the place
    table's span of Norm-Sub's change from Base, to two digits."""
    from ldpcore.present.attack_sentences import NORM_SUB_RANGE_GAIN  # noqa: PLC0415

    rows = claims.results("range_attack")["by_place"]
    changes = [r["methods"]["Norm-Sub"]["vs_base"] / r["methods"]["Base"]["gain"] for r in rows]
    assert (round(min(changes), 2), round(max(changes), 2)) == NORM_SUB_RANGE_GAIN
