"""Words checked against the numbers they stand for.

Each test holds one kind of mistake a reader found: a doubled word in a comparison, a
method table that called every method non-negative, an unbounded interval printed as
"∞", a cost said to be above a budget it equals when rounded, a chart promising more
values than it draws.
"""

from __future__ import annotations

import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from ldpcore.advice.deployments import DEPLOYMENTS, deployment_rows
from ldpcore.advice.shuffling import shuffled_epsilon
from ldpcore.advice.verdicts import verdict
from ldpcore.formats import format_ratio, ratio_range
from ldpcore.postprocess import get_method, method_class, method_names
from ldpcore.present.sentences import ranking_note
from ldpcore.present.tables import ENFORCEMENT_WORDS, method_table
from ldpcore.protocols import get_protocol

DOUBLED = re.compile(r"\b(\w+) \1\b")
ROOT = Path(__file__).resolve().parents[2]


@given(epsilon=st.floats(0.05, 10.0), n=st.integers(1_000, 10_000_000))
def test_every_deployment_comparison_reads_once_and_agrees_with_its_numbers(
    epsilon: float, n: int
) -> None:
    shuffled = shuffled_epsilon(min(epsilon, 5.0), n)
    for row, deployment in zip(deployment_rows(epsilon, shuffled), DEPLOYMENTS, strict=True):
        said = str(row["compared with yours"])
        assert not DOUBLED.search(said), said
        theirs = deployment.epsilon
        yours = epsilon if deployment.model == "local" else shuffled.epsilon
        if deployment.model != "local" and not math.isfinite(yours):
            continue
        if said.startswith("larger than"):
            assert theirs > yours
        elif said.startswith("smaller than"):
            assert theirs < yours
        elif said.startswith("the same as"):
            assert math.isclose(theirs, yours, rel_tol=1e-9, abs_tol=1e-9)


def _summary() -> pd.DataFrame:
    names = method_names()
    return pd.DataFrame(
        {
            "method": names,
            "mse_ratio_to_base": 1.0,
            "ratio_low": 0.9,
            "ratio_high": 1.1,
            "mse_vs_base": "",
            "mse": 1e-4,
            "equivalent_users": 1000.0,
            "bias_sq": 1e-5,
            "bias_noise": 1e-6,
            "variance": 9e-5,
        }
    )


#: Base estimates that break each property a method may leave alone: negative entries,
#: and totals above and below one (GRR, ε = 1, d = 8, n = 500).
WITNESSES = (
    np.array([0.45, 0.30, -0.08, 0.12, 0.05, -0.02, 0.10, 0.08]),
    np.array([0.50, 0.40, 0.20, -0.05, 0.10, 0.02, 0.03, 0.01]),
    np.array([0.20, 0.10, -0.10, 0.05, 0.05, -0.04, 0.06, 0.02]),
)


@pytest.mark.parametrize("name", method_names())
def test_the_method_table_says_what_each_method_enforces(name: str) -> None:
    """The table's words are the registry's, and a "no" is a real "no": some estimate
    makes the method's output negative (or not sum to one)."""
    row = method_table(_summary()).set_index("method").loc[name]
    meta = method_class(name)
    assert row["non-negative"] == ENFORCEMENT_WORDS[meta.nonnegative]
    assert row["sums to one"] == ENFORCEMENT_WORDS[meta.sums_to_one]
    if meta.stochastic:
        return  # a Monte Carlo method: its invariants are tested in test_bayes.py
    protocol = get_protocol("GRR", epsilon=1.0, domain_size=8)
    method = get_method(name)
    outputs = [method(estimate, protocol=protocol, n=500) for estimate in WITNESSES]
    negative = any(out.min() < -1e-12 for out in outputs)
    off_one = any(abs(out.sum() - 1) > 1e-9 for out in outputs)
    assert negative == (meta.nonnegative == "no"), [out.min() for out in outputs]
    if meta.sums_to_one == "yes":
        assert not off_one
    elif meta.sums_to_one == "no":
        assert off_one, [out.sum() for out in outputs]


def test_unbounded_intervals_are_said_in_words() -> None:
    for low in (0.0, 0.5, 0.97):
        assert "∞" not in format_ratio(0.963, low, math.inf)
        assert "∞" not in ratio_range(low, math.inf, "Base's")
    assert format_ratio(0.963, 0.0, math.inf) == "0.963 (not yet bounded)"
    assert ratio_range(0.0, math.inf, "Base's") == "not yet bounded against Base's (too few trials)"
    assert ratio_range(0.97, 1.33, "Base's") == "between 0.97× and 1.33× Base's"


@given(seed=st.integers(0, 10_000), trials=st.integers(5, 40))
@example(seed=29, trials=30)  # Base named, not first: both consistent methods worse
def test_the_ranking_note_agrees_with_the_verdict_it_explains(seed: int, trials: int) -> None:
    """Whatever the errors, the note exists exactly when the named method is not first,
    and what it says of the methods above it is true of their comparisons with Base."""
    rng = np.random.default_rng(seed)
    names = ["Base", "Norm", "Norm-Mul", "Norm-Sub", "Base-Pos"]
    scale = rng.uniform(0.6, 1.4, size=len(names))
    errors = rng.gamma(4.0, 1.0, size=(len(names), trials)) * scale[:, None]
    found = verdict(errors, names, consistent=("Norm-Sub", "Norm-Mul"), query="q")
    order = np.argsort(errors.mean(axis=1), kind="stable")
    ranks = {names[i]: r + 1 for r, i in enumerate(order)}
    note = ranking_note(found, ranks)
    assert bool(note) == (ranks[found.recommended] != 1)
    assert not DOUBLED.search(note)
    if note and found.helps:
        by_name = {c.method: c for c in found.against_base}
        above = [m for m, r in ranks.items() if r < ranks[found.recommended]]
        assert all(not by_name[m].better for m in above if m != "Base")
        assert all(m in note for m in above)
    elif note:
        # No method is a winner: none better than Base beyond the practical margin.
        assert "no method is more accurate than Base by more than 5%" in note
        assert not any(c.better and c.ratio < 1 / 1.05 for c in found.against_base)
        # Base gives no proper distribution: named, it is named as the raw estimates, and
        # every method that does give one was worse than it or off its total.
        named_base = found.recommended == "Base"
        assert ("gives a proper distribution without" in note) != named_base
        if named_base:
            assert "the raw estimates, is named" in note
            by_name = {c.method: c for c in found.against_base}
            assert all(by_name[m].worse or m in found.too_biased for m in ("Norm-Sub", "Norm-Mul"))


def test_a_sweep_over_protocols_names_no_one_protocol() -> None:
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415
    from ldpcore.present.run_sentences import run_in_words  # noqa: PLC0415

    config = ExperimentConfig(
        dataset="zipf:d=64,s=1.5", n=10_000, protocol="OLH", epsilon=1.0, trials=30
    )
    said = run_in_words(config, "protocol", ("GRR", "OLH", "SS"), 64)
    assert "of OLH" not in said and "GRR, OLH, SS" in said and "30 trials" in said
    said = run_in_words(config, "epsilon", (0.5, 1.0), 64)
    assert "30 trials of OLH at d = 64" in said
    assert run_in_words(config, None, (), 64).startswith("This run (30 trials of OLH")


def test_a_cost_is_never_said_above_a_budget_it_prints_equal_to() -> None:
    from ldpcore.formats import format_durations_apart  # noqa: PLC0415

    for seconds, budget in ((5.04, 5.0), (5.0004, 5.0), (66.4, 66.0), (0.41, 0.4)):
        estimate, limit = format_durations_apart(seconds, budget)
        assert estimate != limit, (seconds, budget)


def test_charts_say_how_many_values_they_draw_and_tick_whole_ranks() -> None:
    from ldpcore.present.figures import rank_axis, top_values  # noqa: PLC0415

    few = top_values(["a", "b", "c", "d", "e"], [5, 4, 3, 2, 1])
    assert few.layout.title.text == "All 5 values, most frequent first"
    many = top_values([str(i) for i in range(60)], list(range(60)))
    assert many.layout.title.text == "The 50 most frequent values"
    assert len(many.data[0].x) == 50
    assert rank_axis(np.arange(1, 6)) == {"tick0": 1, "dtick": 1}


@pytest.mark.parametrize("protocol", ["GRR", "OLH"])
def test_the_epsilon_printed_meets_the_target_it_answers(protocol: str) -> None:
    """Rounded up, the ε a person copies from the answer meets the target (Base's exact
    RMSE by NDSS Eq. 3, the top-10 of countries being single values); the ε shown is
    the one every place prints."""
    from ldpcore.advice import choose_epsilon  # noqa: PLC0415
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415
    from ldpcore.experiments.metrics import analytic_base_mse  # noqa: PLC0415
    from ldpcore.formats import epsilon_interval, format_epsilon  # noqa: PLC0415

    config = ExperimentConfig(
        dataset="countries", n=100_000, protocol=protocol, epsilon=1.0,
        methods=("Base",), trials=5, query="topk:k=10",
    )  # fmt: skip
    target = 0.005
    (answer,) = choose_epsilon(config, target_rmse=target, protocols=[protocol])
    assert answer.base_exact and answer.epsilon is not None
    shown = float(format_epsilon(answer.epsilon))
    assert shown >= answer.epsilon
    data, _, query = config.build()
    index = np.concatenate(query.members)
    oracle = get_protocol(protocol, epsilon=shown, domain_size=data.domain_size)
    rmse = math.sqrt(analytic_base_mse(oracle, data.frequencies(), data.n, values=index))
    assert rmse <= target
    said = epsilon_interval(answer.epsilon, None, None, exact=True, source=answer.variance_source)
    assert f"ε = {format_epsilon(answer.epsilon)} " in said


#: A histogram of true values (one count per user, 1,000 users) and the same with a
#: spreadsheet's total row: neither is what OUE's support counts could be.
TRUE_HISTOGRAM = b"value,count\n" + b"".join(
    f"v{i},{c}\n".encode() for i, c in enumerate([300, 200, 150, 100, 80, 60, 40, 30, 20, 20])
)
WITH_TOTAL = b"value,estimate\na,0.5\nb,0.3\nc,0.2\nTotal,1.0\n"


def test_a_true_histogram_or_a_total_row_as_collected_output_is_said_on_the_page() -> None:
    from streamlit.testing.v1 import AppTest  # noqa: PLC0415

    from ldpcore.collection.estimates import read_collected  # noqa: PLC0415

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.run()
    at.switch_page("pages/your_data.py")
    at.run()
    at.file_uploader(key="collected-upload").set_value(("h.csv", TRUE_HISTOGRAM, "text/csv"))
    at.run()
    at.selectbox(key="collected-protocol").set_value("OUE")
    at.number_input(key="collected-n").set_value(1000)
    at.run()
    assert not at.exception, at.exception
    said = " ".join(w.value for w in at.warning)
    assert "this looks like a histogram of true values" in said, said
    at.file_uploader(key="collected-upload").set_value(("t.csv", WITH_TOTAL, "text/csv"))
    at.run()
    at.radio(key="collected-kind").set_value("estimates").run()
    said = " ".join(w.value for w in at.warning)
    assert "the row 'Total' holds 1, the sum of all the other rows" in said, said
    (question,) = [r for r in at.radio if r.key.startswith("collected-total-")]
    question.set_value("drop").run()
    assert not at.exception, at.exception
    assert not any("looks like a total" in w.value for w in at.warning)
    table = next(d.value for d in at.dataframe if "estimate" in d.value.columns)
    assert "Total" not in list(table["value"])
    # Honest files say nothing: seeded collections of every protocol, counts and estimates.
    from ldpcore.data.datasets import load_bundled  # noqa: PLC0415
    from ldpcore.protocols import protocol_class, protocol_names  # noqa: PLC0415

    data = load_bundled("countries", top_d=20, n=10_000)
    flat = [name for name in protocol_names() if protocol_class(name).support_view]
    for seed, name in enumerate(flat):
        oracle = get_protocol(name, epsilon=1.0, domain_size=data.domain_size)
        support = oracle.sample_support_counts(data.counts, seed)
        rows = "".join(f"v{i},{c}\n" for i, c in enumerate(support.tolist()))
        counts = read_collected(
            f"value,count\n{rows}".encode(), protocol=name, epsilon=1.0, n=10_000
        )
        # A protocol whose own estimator reads more than support counts says it is not
        # used (dBitFlipPM without the users who sampled each value); nothing else.
        said = tuple(note for note in counts.notes if "column: " not in note)
        assert said == (), (name, counts.notes)
        assert len(counts.notes) == len(oracle.tally_columns) > 0 or not counts.notes
        rows = "".join(f"v{i},{e!r}\n" for i, e in enumerate(counts.estimate.tolist()))
        estimates = read_collected(
            f"value,estimate\n{rows}".encode(), protocol=name, epsilon=1.0, n=10_000
        )
        assert estimates.notes == (), (name, estimates.notes)


def test_the_command_line_says_the_same_and_drops_a_total_when_asked(tmp_path: Path) -> None:
    histogram, total = tmp_path / "h.csv", tmp_path / "t.csv"
    histogram.write_bytes(TRUE_HISTOGRAM)
    total.write_bytes(WITH_TOTAL)

    def postprocess(path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "ldpcore.cli", "postprocess", "--protocol", "OUE",
             "--epsilon", "1", "--n", "1000", "--method", "Norm-Sub", "--input", str(path),
             "--output", str(tmp_path / "out.csv"), *extra],
            capture_output=True, text=True, check=False, cwd=ROOT,
        )  # fmt: skip

    done = postprocess(histogram)
    assert done.returncode == 0 and "this looks like a histogram of true values" in done.stderr
    done = postprocess(total)  # refused until told what the row is
    assert done.returncode == 2 and "looks like a total" in done.stderr
    done = postprocess(total, "--drop-total")
    assert done.returncode == 0 and "looks like a total" not in done.stderr
    assert "Total" not in (tmp_path / "out.csv").read_text()


def test_a_method_with_a_caveat_is_never_recommended_without_it(tmp_path: Path) -> None:
    """Norm-Mul's caveat (its measured MSE can hide the frequent values' shrinking)
    travels with every recommendation of it: the command's table and JSON."""
    from ldpcore.collection.estimates import example_collected  # noqa: PLC0415
    from ldpcore.present.sentences import method_caveat  # noqa: PLC0415

    with_caveat = [m for m in method_names() if method_class(m).caveat]
    assert "Norm-Mul" in with_caveat
    for name in method_names():
        assert bool(method_caveat(name)) == (name in with_caveat)
    source = tmp_path / "collected.csv"
    source.write_bytes(example_collected())
    for output in ("table", "json"):
        done = subprocess.run(
            [sys.executable, "-m", "ldpcore.cli", "recommend", "--protocol", "OLH",
             "--epsilon", "1", "--n", "10000", "--input", str(source), "--methods",
             "Base,Norm-Mul", "--trials", "5", "--format", output],
            capture_output=True, text=True, check=False, cwd=ROOT,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        if "Norm-Mul" in done.stdout.splitlines()[0] or '"recommended": "Norm-Mul"' in done.stdout:
            assert "Caveat: Norm-Mul shrinks every value" in done.stdout


def test_the_fake_user_words_claim_a_direction_only_where_the_counts_have_one() -> None:
    from ldpcore.present.run_sentences import fake_users_to_top_k_words  # noqa: PLC0415

    rising = fake_users_to_top_k_words(
        "kale", 10, protocol="SS", epsilon=1.0, n=10_000,
        by_epsilon=[(0.5, 120), (1.0, 250), (4.0, 2_100)],
    )  # fmt: skip
    assert "fewer at a smaller ε" in rising and "easier to push" in rising
    mixed = fake_users_to_top_k_words(
        "kale", 10, protocol="SS", epsilon=1.0, n=10_000,
        by_epsilon=[(0.25, 2_400), (0.5, 2_300), (1.0, 3_000), (4.0, 6_000)],
    )  # fmt: skip
    assert "fewer at a smaller ε" not in mixed and "not at the smallest ε" in mixed
    assert "2,400 at ε = 0.25" in mixed and "at least half the time" in mixed
