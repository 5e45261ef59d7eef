"""ε in context: the published deployments are complete, sourced and compared honestly."""

from __future__ import annotations

import datetime as dt
import math
import re

import pytest

from ldpcore.advice.deployments import (
    CHECKED_ON,
    DEPLOYMENTS,
    UNCHECKED,
    UNCHECKED_NOTE,
    context_sentence,
    deployment_rows,
)
from ldpcore.advice.shuffling import shuffled_epsilon


def test_every_deployment_has_a_unit_a_model_a_delta_and_a_public_source() -> None:
    assert {d.model for d in DEPLOYMENTS} >= {"local", "central"}
    for deployment in DEPLOYMENTS:
        assert math.isfinite(deployment.epsilon) and deployment.epsilon > 0
        assert deployment.delta is None or 0 < deployment.delta < 1e-3
        assert deployment.unit.startswith("per ")
        assert deployment.url.startswith("https://") and deployment.source
    # The day the figures were checked is a real date, said beside them.
    assert dt.date.fromisoformat(CHECKED_ON)
    assert CHECKED_ON in UNCHECKED_NOTE


def _first_words(rows: list[dict[str, object]]) -> list[str]:
    order = sorted(range(len(rows)), key=lambda i: float(rows[i]["ε"]))  # type: ignore[arg-type]
    return [str(rows[i]["compared with yours"]).split(" yours")[0] for i in order]


@pytest.mark.parametrize("epsilon", [0.4, 4.0, 20.0])
def test_local_rows_compare_with_the_local_epsilon_and_say_the_units(epsilon: float) -> None:
    rows = [r for r in deployment_rows(epsilon) if r["model"] == "local"]
    for row in rows:
        published = float(row["ε"])  # type: ignore[arg-type]
        words = str(row["compared with yours"])
        expected = (
            "the same as"
            if published == epsilon
            else ("larger than" if published > epsilon else "smaller than")
        )
        assert words.startswith(expected), words
        assert "per user and day" in words and "per report" in words
    assert "compared with yours" not in deployment_rows()[0]


def test_central_rows_are_never_compared_with_a_local_epsilon() -> None:
    # Without a shuffled figure, a central ε is "not comparable": no larger or smaller.
    for row in deployment_rows(0.5):
        if row["model"] != "local":
            assert str(row["compared with yours"]).startswith("not comparable")
    # With one, they are compared with it (its value, δ and n said), in both directions.
    bound = shuffled_epsilon(4.0, 100_000, 1e-6)  # central ε ≈ 0.17
    central = [r for r in deployment_rows(4.0, bound) if r["model"] != "local"]
    words = {str(r["compared with yours"]).split(" than")[0] for r in central}
    assert words == {"larger"}  # every central figure listed is above 0.17
    assert all("0.17 at δ = 10⁻⁶, 100,000 users" in str(r["compared with yours"]) for r in central)
    loose = shuffled_epsilon(8.0, 1000, 1e-6)  # few users: little amplification
    assert any(
        str(r["compared with yours"]).startswith("smaller than")
        for r in deployment_rows(8.0, loose)
        if r["model"] != "local"
    )


def test_the_sentence_places_epsilon_and_warns_that_units_differ() -> None:
    local = [d.epsilon for d in DEPLOYMENTS if d.model == "local"]
    below, inside, above = min(local) / 2, (min(local) + max(local)) / 2, max(local) * 2
    assert "smaller than every published local" in context_sentence(below)
    assert "within the published local range" in context_sentence(inside)
    assert "larger than every published local" in context_sentence(above)
    assert "spent again every day" in context_sentence(inside)
    assert "after shuffling" in context_sentence(inside)


def test_unchecked_deployments_are_named_with_why_and_without_a_figure() -> None:
    named = " ".join(who for who, _ in UNCHECKED)
    for organisation in ("Microsoft", "Google", "US Census Bureau", "Apple"):
        assert organisation in named
    for who, why in UNCHECKED:
        assert why, who
        # No number may appear for a deployment whose ε was not checked against its source.
        assert re.search(r"ε\s*[=≈<>]", who + why) is None
    assert re.search(r"ε\s*[=≈<>]", UNCHECKED_NOTE) is None
    # Nothing is both listed with a figure and named as unchecked.
    listed = {(d.organisation, d.use) for d in DEPLOYMENTS}
    assert all(use not in who for _, use in listed for who, _ in UNCHECKED)
