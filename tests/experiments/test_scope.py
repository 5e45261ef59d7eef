"""What applies to which data: one rule, checked against every registered protocol,
method and query kind, and through the commands that offer "all"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldpcore.data.datasets import Dataset
from ldpcore.errors import InputError
from ldpcore.experiments.scope import scope_for, what_applies
from ldpcore.postprocess import METHODS, method_class, method_names
from ldpcore.protocols import PROTOCOLS
from ldpcore.queries.specs import QUERY_KINDS
from tests.command import ldpcore

ORDERED_PROTOCOLS = [name for name, cls in PROTOCOLS.items() if cls.ordered_values]
FLAT = [name for name, cls in PROTOCOLS.items() if not cls.composite]
LIMITED = [name for name, cls in PROTOCOLS.items() if cls.max_domain is not None]
FOR_ROUNDS = [name for name, cls in PROTOCOLS.items() if cls.one_shot is not None]


def _expected_in_all(
    name: str, *, d: int, ordered: bool, reads_order: bool, repeated: bool = False
) -> bool:
    """The rule, written from the declarations alone (the test's own reading of it)."""
    cls = PROTOCOLS[name]
    if cls.max_domain is not None and d > cls.max_domain:
        return False
    if cls.ordered_values and not (ordered or reads_order):
        return False
    return cls.one_shot is None or repeated


def _named_in(line: str) -> list[str]:
    """The protocols a left-out line names ("A, B: why")."""
    return line.split(": ", 1)[0].split(", ")


@settings(max_examples=60, deadline=None)
@given(
    d=st.sampled_from([2, 17, 2_048, 2_049, 10_000]),
    ordered=st.booleans(),
    reads_order=st.booleans(),
    repeated=st.booleans(),
)
def test_all_protocols_follow_the_declarations(
    d: int, ordered: bool, reads_order: bool, repeated: bool
) -> None:
    scope = what_applies(domain_size=d, ordered=ordered, reads_order=reads_order, repeated=repeated)
    for name in PROTOCOLS:
        wanted = _expected_in_all(
            name, d=d, ordered=ordered, reads_order=reads_order, repeated=repeated
        )
        assert (name in scope.protocols) == wanted, name
        # What is left out is said, a line naming it; what is in is not said.
        said = [line for line in scope.left_out if name in _named_in(line)]
        assert len(said) == (0 if wanted else 1), (name, scope.left_out)
    for name in scope.protocols:
        cls = PROTOCOLS[name]
        for method in scope.methods_for(name):
            assert METHODS[method].refusal(cls) is None, (name, method)
            limit = METHODS[method].max_domain
            assert limit is None or d <= limit


@pytest.mark.parametrize("protocol", list(PROTOCOLS))
def test_all_methods_per_protocol(protocol: str) -> None:
    cls = PROTOCOLS[protocol]
    methods = what_applies(domain_size=64, ordered=True, protocols=[protocol]).methods_for(protocol)
    for name, method in METHODS.items():
        assert (name in methods) == method.joins_all(cls), name
        if method.for_composite and not cls.composite:
            # A step that reconciles a tree's levels is neither in "all" nor offered.
            assert name not in methods and name not in method_names(protocol)


def test_ordered_mechanisms_join_for_ordered_data_or_an_ordered_question() -> None:
    assert ORDERED_PROTOCOLS, "no protocol declares ordered values"
    words = Dataset(name="w", labels=("a", "b", "c", "d"), counts=_counts(4))
    years = Dataset(name="y", labels=("1990", "1991", "1992", "1993"), counts=_counts(4))
    for query_kind, spec in QUERY_KINDS.items():
        query = _a_query(spec)
        if query is None:
            continue
        unordered = scope_for(words, query).protocols
        for name in ORDERED_PROTOCOLS:
            assert (name in unordered) == spec.reads_order, (query_kind, name)
            assert name in scope_for(years, query).protocols
    # Named, an ordered mechanism runs on unordered data: the person chose it.
    named = scope_for(words, None, protocols=ORDERED_PROTOCOLS)
    assert named.protocols == tuple(ORDERED_PROTOCOLS) and not named.left_out


def test_protocols_made_for_collecting_again_join_all_only_for_repeated_collection() -> None:
    assert FOR_ROUNDS, "no protocol declares a one-shot form: nothing to check"
    once = what_applies(domain_size=64, ordered=False)
    again = what_applies(domain_size=64, ordered=False, repeated=True)
    for name in FOR_ROUNDS:
        assert name not in once.protocols and name in again.protocols, name
    (line,) = [line for line in once.left_out if set(FOR_ROUNDS) & set(_named_in(line))]
    assert _named_in(line) == FOR_ROUNDS and "collecting again" in line
    # Named, a chain runs on a one-time question: the person chose it.
    named = what_applies(domain_size=64, ordered=False, protocols=FOR_ROUNDS)
    assert named.protocols == tuple(FOR_ROUNDS) and not named.left_out


@pytest.mark.parametrize("protocol", LIMITED)
def test_a_named_protocol_beyond_its_domain_is_refused_before_any_work(protocol: str) -> None:
    limit = PROTOCOLS[protocol].max_domain
    assert limit is not None
    with pytest.raises(InputError, match=f"{protocol}: at most {limit:,} values"):
        what_applies(domain_size=limit + 1, ordered=True, protocols=[protocol, "GRR"])


def test_named_methods_left_out_where_they_cannot_run_and_refused_where_none_can() -> None:
    refusing = [(p, m) for p, cls in PROTOCOLS.items() for m in METHODS if METHODS[m].refusal(cls)]
    assert refusing, "every method runs everywhere: nothing to check"
    protocol, method = refusing[0]
    scope = what_applies(
        domain_size=64, ordered=True, protocols=[protocol, "GRR"], methods=["Base", method]
    )
    assert method not in scope.methods_for(protocol) and method in scope.methods_for("GRR")
    assert any(line.startswith(f"{method} on {protocol}:") for line in scope.left_out)
    with pytest.raises(InputError, match=f"{protocol}: none of the methods"):
        what_applies(domain_size=64, ordered=True, protocols=[protocol], methods=[method])


def test_a_method_beyond_its_domain_is_left_out_in_words() -> None:
    limited = [m for m, cls in METHODS.items() if cls.max_domain is not None]
    assert limited
    for method in limited:
        limit = method_class(method).max_domain
        assert limit is not None
        scope = what_applies(
            domain_size=limit + 1, ordered=False, protocols=["OUE"], methods=["Base", method]
        )
        assert method not in scope.methods_for("OUE")
        assert any(
            line.startswith(f"{method}: at most {limit:,} values") for line in scope.left_out
        )


def test_choose_epsilon_all_leaves_out_the_ordered_mechanisms_first(tmp_path: Path) -> None:
    """On unordered values the command names what it leaves out and searches the rest."""
    path = tmp_path / "pets.csv"
    path.write_text(
        "value,count\n" + "".join(f"{w},{c}\n" for w, c in zip("abcdefgh", _counts(8), strict=True))
    )
    args = [
        "choose-epsilon", "--protocol", "all", "--dataset", f"file:{path}", "--n", "2000",
        "--query", "topk:k=3", "--target", "each:0.1", "--trials", "2", "--methods", "Base",
        "--workers", "1", "--format", "json",
    ]  # fmt: skip
    done = ldpcore(*args)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    searched = {a["protocol"] for a in answer["answers"]}
    wanted = {p for p in PROTOCOLS if _expected_in_all(p, d=8, ordered=False, reads_order=False)}
    assert searched == wanted
    named = {name for line in answer["left_out"] for name in _named_in(line)}
    assert named == set(ORDERED_PROTOCOLS) | set(FOR_ROUNDS)
    # A range question reads an order: then they are searched too (one collection still).
    ranged = ldpcore(*[("range:length=2" if a == "topk:k=3" else a) for a in args])
    assert ranged.returncode == 0, ranged.stderr
    searched = {a["protocol"] for a in json.loads(ranged.stdout)["answers"]}
    assert searched == set(PROTOCOLS) - set(FOR_ROUNDS)


def test_choose_epsilon_refuses_a_named_protocol_beyond_its_domain_in_words() -> None:
    protocol = LIMITED[0]
    limit = PROTOCOLS[protocol].max_domain
    assert limit is not None
    done = ldpcore(
        "choose-epsilon", "--protocol", f"{protocol},GRR", "--dataset", f"zipf:d={limit + 1}",
        "--n", "1000", "--target", "each:0.05", "--trials", "2",
    )  # fmt: skip
    assert done.returncode == 2
    assert done.stderr.startswith("error:") and f"at most {limit:,} values" in done.stderr


def _counts(d: int):  # type: ignore[no-untyped-def]
    import numpy as np  # noqa: PLC0415

    return np.arange(d, 0, -1, dtype=np.int64) * 10


def _a_query(spec: type) -> object | None:
    """The kind with its defaults, or None where it needs options or data it lacks."""
    from ldpcore.queries.specs import parse_query_spec  # noqa: PLC0415

    for text in (spec.kind, f"{spec.kind}:k=2", f"{spec.kind}:length=2", f"{spec.kind}:rho=0.5"):
        try:
            return parse_query_spec(text)
        except InputError:
            continue
    return None


def test_an_unbiased_method_shows_no_bias_and_the_trials_noise_beside_it() -> None:
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415
    from ldpcore.experiments.trials import run  # noqa: PLC0415
    from ldpcore.present.tables import method_table  # noqa: PLC0415

    config = ExperimentConfig(
        dataset="zipf:d=32", n=5_000, protocol="OUE", epsilon=1.0, trials=20, query="full"
    )
    result = run(config)
    rows = result.summary.set_index("method")
    for name in rows.index:
        row = rows.loc[name]
        if method_class(name).unbiased:
            assert row["bias_sq"] == 0 and row["variance"] == pytest.approx(row["mse"])
            assert row["bias_noise"] > 0  # what the trials measured: noise alone
        else:
            assert row["bias_noise"] == pytest.approx(row["variance"] / config.trials)
        assert row["bias_sq"] + row["variance"] == pytest.approx(row["mse"])
    shown = method_table(result.summary).set_index("method")
    assert shown.loc["Base", "bias²"].startswith("0 (unbiased; the trials' noise: ")


def test_a_sweep_s_all_methods_are_each_protocol_s_own() -> None:
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415
    from ldpcore.experiments.sweeps import grid, with_parameter  # noqa: PLC0415
    from ldpcore.postprocess import default_method_names  # noqa: PLC0415

    points = grid({"dataset": "ages", "protocols": list(PROTOCOLS), "ns": [1000], "methods": "all"})
    for point in points:
        assert point.methods == default_method_names(point.protocol), point.protocol
    # "Every protocol" from a run with "all" methods: each protocol's own again.
    config = ExperimentConfig(dataset="ages", n=1000, protocol="OUE", epsilon=1.0)
    for name in PROTOCOLS:
        swept = with_parameter(config, "protocol", name)
        assert swept.methods == default_method_names(name), name
