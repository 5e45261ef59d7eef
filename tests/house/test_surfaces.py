"""Every surface answers or refuses in words: a sampled sweep over the registries.

Protocol × method × query kind × data (ordered or not) × surface (each command that reads
a histogram, Your data in AppTest), drawn by hypothesis from the registries themselves,
so a protocol, method or query kind registered later is in the draw without being named
here. An answer is a result; a refusal is one line starting "error:" (a page: a message)
before any work, never a traceback. The quick tier draws a sample; the slow tier more.
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
from pathlib import Path

import pytest
from apptest import commands, frame, open_page
from command import COMMAND
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ldpcore.data.datasets import parse_histogram
from ldpcore.experiments.scope import scope_for
from ldpcore.formats import format_error
from ldpcore.postprocess import METHODS
from ldpcore.protocols import PROTOCOLS
from ldpcore.queries.specs import QUERY_KINDS, parse_query_spec

#: Two small files: values without an order, and years listed out of order.
DATA = {
    "unordered": "value,count\n" + "".join(f"{w},{c}\n" for w, c in zip(
        ("oak", "elm", "ash", "yew", "fir", "box", "bay", "fig"),
        (90, 60, 45, 30, 20, 12, 8, 5), strict=True)),
    "ordered": "year,films\n" + "".join(
        f"{y},{c}\n" for y, c in zip(range(2007, 1999, -1), (9, 14, 22, 31, 40, 35, 28, 16),
                                     strict=True)),
}  # fmt: skip
#: Each query kind with options that fit an 8-value domain.
QUERY_TEXT = {
    "topk": "topk:k=3",
    "set": "set:rho=0.5",
    "range": "range:length=3",
    "interval": "interval:samples=4",
    "quantile": "quantile",
}


def _query(kind: str) -> str:
    """A query of ``kind`` fit for 8 values: its known text, or its usage with each
    placeholder at 2 and the optional parts left out (a kind registered later)."""
    if kind in QUERY_TEXT:
        return QUERY_TEXT[kind]
    usage = re.sub(r"\[.*?\]", "", QUERY_KINDS[kind].usage)
    return re.sub(r"=[A-Z]+", "=2", usage)


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*COMMAND, *args], cwd=cwd, capture_output=True, text=True, check=False, timeout=180
    )


def _answered_or_refused(done: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in done.stderr, done.stderr
    if done.returncode == 0:
        json.loads(done.stdout)
        return
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1].startswith("error:"), done.stderr


def _sweep_point(
    where: Path, *, protocol: str, method: str, query: str, data: str, surface: str
) -> None:
    """One drawn point: the command run on the drawn data, answered or refused in words."""
    (where / "data.csv").write_text(DATA[data])
    args = [
        *SURFACES[surface], "--protocol", protocol, "--methods", f"Base,{method}",
        "--dataset", "file:data.csv", "--n", "3000", "--query", _query(query),
    ]  # fmt: skip
    _answered_or_refused(_run(args, where))


SURFACES = {
    "simulate": ["simulate", "--epsilon", "2", "--trials", "2", "--format", "json"],
    "choose-epsilon": [
        "choose-epsilon", "--target", "each:0.2", "--trials", "2", "--workers", "1",
        "--format", "json",
    ],
    "advise-epsilon": [
        "advise-epsilon", "--target-rmse", "0.2", "--trials", "2", "--format", "json",
    ],
}  # fmt: skip


#: One drawn point of the sweep, from the registries (the quick sample and the slow tier).
POINT = {
    "protocol": st.sampled_from(list(PROTOCOLS)),
    "method": st.sampled_from(list(METHODS)),
    "query": st.sampled_from(list(QUERY_KINDS)),
    "data": st.sampled_from(list(DATA)),
    "surface": st.sampled_from(list(SURFACES)),
}


@settings(
    max_examples=12,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(**POINT)
def test_every_command_answers_or_refuses_in_words(
    tmp_path: Path, *, protocol: str, method: str, query: str, data: str, surface: str
) -> None:
    _sweep_point(
        tmp_path, protocol=protocol, method=method, query=query, data=data, surface=surface
    )


@settings(
    max_examples=5,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    protocol=st.sampled_from(list(PROTOCOLS)),
    data=st.sampled_from(list(DATA)),
    query=st.sampled_from(["The most frequent values", "Every value", "Ranges of values"]),
)
def test_your_data_offers_what_applies_and_its_command_gives_its_numbers(
    tmp_path: Path, *, protocol: str, data: str, query: str
) -> None:
    at = open_page("pages/your_data.py")
    at.radio(key="yours-source").set_value("Upload a file").run()
    at.file_uploader(key="yours-upload").set_value(("data.csv", DATA[data].encode(), "text/csv"))
    at = at.run()
    offered = at.selectbox(key="yours-protocol").options
    scope = scope_for(parse_histogram(DATA[data].encode()))
    assert list(offered) == list(scope.protocols)
    if protocol not in offered:
        assert any(protocol in line.split(": ")[0].split(", ") for line in scope.left_out)
        return
    at.selectbox(key="yours-protocol").set_value(protocol)
    at.slider(key="yours-trials").set_value(5)
    at.radio(key="yours-query").set_value(query).run()
    assert not at.exception, at.exception
    if at.error:
        return  # refused in words, on the page
    command = next(c for c in commands(at) if c.startswith("ldpcore simulate"))
    (tmp_path / "data.csv").write_text(DATA[data])
    done = _run(shlex.split(command)[1:], tmp_path)
    assert done.returncode == 0, done.stderr
    printed = {r["method"]: r["mse"] for r in json.loads(done.stdout)["results"]}
    shown = frame(at, "equivalent users n'").set_index("method")["MSE"].to_dict()
    for method, cell in shown.items():
        assert cell == format_error(printed[method]), (protocol, method)


@pytest.mark.slow
@settings(max_examples=150, deadline=None)
@given(**POINT)
def test_the_wider_sweep(protocol: str, method: str, query: str, data: str, surface: str) -> None:
    import tempfile  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as folder:
        _sweep_point(
            Path(folder), protocol=protocol, method=method, query=query, data=data, surface=surface
        )


def test_the_queries_texts_parse() -> None:
    for kind in QUERY_KINDS:
        parse_query_spec(_query(kind))
