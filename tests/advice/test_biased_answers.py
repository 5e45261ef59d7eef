"""A method whose answers to the values asked are far off in total is not recommended on
its MSE alone: checked for every method of the registry, and for every query kind whether
its answers' totals are judged (a question about every value at once is not)."""

from __future__ import annotations

import numpy as np
import pytest

from ldpcore.advice.ranking import asked_factors
from ldpcore.advice.verdicts import BIAS_TOLERANCE, verdict
from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.trials import run
from ldpcore.postprocess import method_names
from ldpcore.present.sentences import verdict_headline
from ldpcore.queries.specs import QUERY_KINDS, parse_query_spec

CANDIDATES = [m for m in method_names() if m != "Base"]


def _errors(trials: int = 30) -> np.ndarray:
    """Base's per-trial errors, and the candidate's at about 0.4 of them (clearly better)."""
    rng = np.random.default_rng(5)
    base = rng.gamma(20.0, 1.0 / 20.0, trials)
    return np.vstack([base, 0.4 * base * rng.gamma(50.0, 1.0 / 50.0, trials)])


@pytest.mark.parametrize("method", CANDIDATES)
def test_a_method_far_off_in_total_is_refused_and_said(method: str) -> None:
    errors = _errors()
    names = ["Base", method]
    fair = verdict(errors, names, factors={method: 1 - BIAS_TOLERANCE / 2}, query="the top-10")
    assert fair.recommended == method and not fair.too_biased  # the control: it would win
    for factor in (1 - 1.5 * BIAS_TOLERANCE, 1 + 1.5 * BIAS_TOLERANCE):
        found = verdict(errors, names, factors={method: factor}, query="the top-10")
        assert found.recommended != method
        assert found.too_biased == {method: factor}
        said = verdict_headline(found)
        assert f"{method}'s MSE is lower than Base's" in said and "not recommended" in said


def _query(kind: type) -> object | None:
    for text in (kind.kind, f"{kind.kind}:k=3", f"{kind.kind}:length=4", f"{kind.kind}:rho=0.5"):
        try:
            return parse_query_spec(text)
        except InputError:
            continue
    return None


@pytest.mark.parametrize("kind", list(QUERY_KINDS))
def test_every_query_kind_judges_the_totals_of_what_it_asks(kind: str) -> None:
    query = _query(QUERY_KINDS[kind])
    if query is None:
        pytest.skip(f"{kind} needs options no default gives")
    # Zipf values have an order; the bundled countries have groups.
    for dataset in ("zipf:d=16", "countries"):
        config = ExperimentConfig(
            dataset=dataset,
            n=2_000,
            protocol="OUE",
            epsilon=1.0,
            query=query,
            methods=("Base", "Norm-Mul"),
            trials=4,
        )
        try:
            result = run(config)
            break
        except InputError:
            continue
    else:
        pytest.fail(f"{kind} runs on neither dataset")
    found = asked_factors(result)
    if config.query.whole_domain:
        assert found is None  # every value at once: the MSE alone answers
        return
    assert found is not None
    # The same total from the per-answer table, an independent path through the run.
    table = result.per_item
    for method in config.methods:
        rows = table[table["method"] == method]
        expected = rows["mean"].sum() / rows["truth"].sum()
        assert found[method] == pytest.approx(expected, rel=1e-9), method
