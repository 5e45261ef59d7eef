"""ε in context: the published deployments are complete, sourced and compared honestly."""

from __future__ import annotations

import math
import re

import pytest

from ldpcore.advice.deployments import DEPLOYMENTS, UNCHECKED, context_sentence, deployment_rows


def test_every_deployment_has_a_unit_a_model_and_a_public_source() -> None:
    assert {d.model for d in DEPLOYMENTS} == {"local", "central"}
    for deployment in DEPLOYMENTS:
        assert math.isfinite(deployment.epsilon) and deployment.epsilon > 0
        assert deployment.unit.startswith("per ")
        assert deployment.url.startswith("https://") and deployment.source


@pytest.mark.parametrize(
    ("epsilon", "expected"),
    [
        (0.4, ["larger"] * 7),
        (4.0, ["smaller", "the same"] + ["larger"] * 5),
        (20.0, ["smaller"] * 7),
    ],
)
def test_each_row_says_how_the_published_value_compares(
    epsilon: float, expected: list[str]
) -> None:
    rows = deployment_rows(epsilon)
    # Compared by value, whichever order the table is in.
    order = sorted(range(len(rows)), key=lambda i: float(rows[i]["ε"]))  # type: ignore[arg-type]
    assert [rows[i]["compared with yours"] for i in order] == expected
    assert "compared with yours" not in deployment_rows()[0]


def test_the_sentence_places_epsilon_and_warns_that_units_differ() -> None:
    local = [d.epsilon for d in DEPLOYMENTS if d.model == "local"]
    below, inside, above = min(local) / 2, (min(local) + max(local)) / 2, max(local) * 2
    assert "smaller than every published local" in context_sentence(below)
    assert "within the published local range" in context_sentence(inside)
    assert "larger than every published local" in context_sentence(above)
    assert "spent again every day" in context_sentence(inside)


def test_unlisted_deployments_are_named_without_a_figure() -> None:
    # No number may appear for a deployment whose ε was not checked against its source.
    assert "Google" in UNCHECKED and "Microsoft" in UNCHECKED
    assert re.search(r"ε\s*[=≈<>]", UNCHECKED) is None
