"""A property-based fuzz of the command line's arguments.

Every command is run in this process with arguments drawn from valid values, edge
values and garbage. Whatever comes in, the outcome is a result (exit 0) or one
``error:`` line saying what to change (exit 2): never a bug (exit 1), a traceback, a
NaN in JSON or a hang. Sizes are kept small so that every case runs in well under a
second; the values that matter are the hostile ones.
"""

from __future__ import annotations

import io
import json
import math
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ldpcore.cli import main


def mostly(valid: list[str], hostile: list[str]) -> st.SearchStrategy[str]:
    """A valid value about 85% of the time, so that whole valid commands run too."""
    weight = max(1, round(5.7 * len(hostile) / len(valid)))
    return st.sampled_from(valid * weight + hostile)


PROTOCOLS = mostly(
    ["GRR", "olh", "OUE", "SUE", "SS", "HR", "BLH", "GRR,OUE"], ["", ",", "XYZ", "all"]
)
NUMBERS = mostly(["1", "0.5", "3", "20", "1e-3"], ["0", "-1", "nan", "inf", "1e309", "abc", ""])
USERS = mostly(["100", "1000", "1e3"], ["0", "-5", "x", "", "2.5", "1e13"])
DATASETS = mostly(
    ["zipf:d=8,s=1", "uniform:d=6", "countries"],
    [
        "uniform:d=0",
        "zipf:d=8,s=x",
        "nonsense",
        "zipf:d=8",
        "file:/nonexistent.csv",
        "zipf:d=8,s=1,q=2",
        "",
    ],
)
QUERIES = mostly(
    ["full", "topk:k=3", "set:rho=0.5", "prefix", "interval:samples=3"],
    ["topk:k=0", "topk:k=99", "set:rho=2", "groups", "bogus", ""],
)
METHODS = mostly(["Base,Norm-Sub", "all", "CLS", "MLE,IBU"], ["Nope", "", ","])
TRIALS = mostly(["2", "3"], ["0", "-1", "x"])

FUZZ = settings(
    max_examples=80, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)


def _run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


def _check(code: int, out: str, err: str, *, json_out: bool = False) -> None:
    assert code in (0, 2), f"exit {code}: {err}"
    assert "Traceback" not in err and "internal error" not in err, err
    if code == 2:
        lines = [line for line in err.splitlines() if line.startswith("error:")]
        assert len(lines) == 1 and err.strip().splitlines()[-1].startswith("error:"), err
    elif json_out:
        payload = json.loads(out)  # strict JSON: NaN or Infinity would fail below

        def finite(value: object) -> None:
            if isinstance(value, float):
                assert math.isfinite(value), out
            elif isinstance(value, dict):
                for item in value.values():
                    finite(item)
            elif isinstance(value, list):
                for item in value:
                    finite(item)

        finite(payload)


@FUZZ
@given(
    protocol=PROTOCOLS,
    epsilon=NUMBERS,
    n=USERS,
    dataset=DATASETS,
    query=QUERIES,
    methods=METHODS,
    trials=TRIALS,
    fmt=st.sampled_from(["json", "table", "csv"]),
)
def test_simulate(
    *,
    protocol: str,
    epsilon: str,
    n: str,
    dataset: str,
    query: str,
    methods: str,
    trials: str,
    fmt: str,
) -> None:
    code, out, err = _run(
        "simulate",
        "--protocol",
        protocol,
        "--epsilon",
        epsilon,
        "--n",
        n,
        "--dataset",
        dataset,
        "--query",
        query,
        "--methods",
        methods,
        "--trials",
        trials,
        "--format",
        fmt,
    )
    _check(code, out, err, json_out=fmt == "json")


@FUZZ
@given(protocol=PROTOCOLS, n=USERS, dataset=DATASETS, query=QUERIES, target=NUMBERS, trials=TRIALS)
def test_advise_epsilon(
    *, protocol: str, n: str, dataset: str, query: str, target: str, trials: str
) -> None:
    code, out, err = _run(
        "advise-epsilon",
        "--protocol",
        protocol,
        "--n",
        n,
        "--dataset",
        dataset,
        "--query",
        query,
        "--target-rmse",
        target,
        "--methods",
        "Base,Norm-Sub",
        "--trials",
        trials,
        "--format",
        "json",
    )
    _check(code, out, err, json_out=True)


@FUZZ
@given(
    protocol=PROTOCOLS,
    epsilon=NUMBERS,
    d=st.sampled_from(["2", "16", "0", "1", "x", ""]),
    runs=st.sampled_from(["1000", "999", "0", "x", "2000"]),
    confidence=st.sampled_from(["0.99", "1", "0.4", "x"]),
)
def test_audit(*, protocol: str, epsilon: str, d: str, runs: str, confidence: str) -> None:
    code, _, err = _run(
        "audit",
        "--protocol",
        protocol,
        "--epsilon",
        epsilon,
        "--domain-size",
        d,
        "--runs",
        runs,
        "--confidence",
        confidence,
        "--seed",
        "1",
    )
    assert code in (0, 2), err  # 1 is reserved for a violation here, and none is expected
    assert "Traceback" not in err and "internal error" not in err, err


@FUZZ
@given(
    protocol=PROTOCOLS,
    epsilon=NUMBERS,
    n=USERS,
    method=st.sampled_from(["Norm-Sub", "MLE", "IBU", "Power", "cls", "nope", ""]),
    content=st.sampled_from(
        [
            "value,estimate\na,0.5\nb,0.7\nc,-0.2\n",
            "value,count\na,60\nb,40\n",
            "value,count\na,-1\nb,3\n",
            "",
            "value\na\n",
            "value,estimate\na,nan\nb,0.5\n",
            "value,estimate\na,1e309\nb,0\n",
            "x,y\n1,2\n",
        ]
    ),
)
def test_postprocess(
    tmp_path_factory: pytest.TempPathFactory,
    *,
    protocol: str,
    epsilon: str,
    n: str,
    method: str,
    content: str,
) -> None:
    path = Path(tmp_path_factory.mktemp("fuzz")) / "input.csv"
    path.write_text(content, encoding="utf-8")
    code, out, err = _run(
        "postprocess",
        "--protocol",
        protocol,
        "--epsilon",
        epsilon,
        "--n",
        n,
        "--method",
        method,
        "--input",
        str(path),
    )
    _check(code, out, err)
    if code == 0:
        assert "nan" not in out.lower() and "inf" not in out.lower(), out
