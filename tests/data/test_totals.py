"""A spreadsheet's total row, on every path that reads a file: said first, dropped or kept.

The core reader, every command that reads a file, and each page's upload (Your data's
histogram and collected output, Choose ε, Bayes's prior) ask the same question, in the
same words, before any other check can blame n.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import numpy as np
import pytest
from apptest import app
from streamlit.testing.v1 import AppTest

from ldpcore.cli import main
from ldpcore.collection.estimates import read_collected
from ldpcore.data.datasets import bundled_names, load_bundled, parse_histogram
from ldpcore.data.tables import TableError, TotalRowError, read_numbers
from ldpcore.data.totals import total_message, total_row
from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.present.commands import simulate_command
from ldpcore.protocols import get_protocol

COUNTS = {"JFK": 5200, "LAX": 3000, "ORD": 1500, "SFO": 500}
#: Names a spreadsheet gives its total row, and where it puts it.
NAMES = ("Total", "Sum", "All flights")
POSITIONS = ("first", "middle", "last")


def table(*, name: str = "Total", position: str = "last", delimiter: str = ",") -> bytes:
    """A histogram with a total row (``name``, at ``position``)."""
    rows = [(k, str(v)) for k, v in COUNTS.items()]
    total = (name, str(sum(COUNTS.values())))
    at = {"first": 0, "middle": 2, "last": len(rows)}[position]
    rows.insert(at, total)
    lines = ["value" + delimiter + "count", *(delimiter.join(r) for r in rows)]
    return ("\n".join(lines) + "\n").encode()


CLEAN = table().replace(b"Total,10200\n", b"")


def test_the_clean_fixture_has_no_total() -> None:
    assert b"Total" not in CLEAN and parse_histogram(CLEAN).n == 10_200


def test_total_row_is_found_at_any_position_and_only_there() -> None:
    for at in range(4):
        numbers = np.array([1.0, 2.0, 4.0], dtype=float)
        numbers = np.insert(numbers, at, 7.0)
        assert total_row(numbers) == at
    assert total_row(np.array([3.0, 5.0, 9.0])) is None
    assert total_row(np.array([4.0, 4.0])) is None  # two equal rows: neither is a total
    assert total_row(np.array([0.0, 0.0, 0.0])) is None
    # One other row above 0: the two are equal values, not a value and its total.
    assert total_row(np.array([1.0, 0.0, 0.0, 1.0])) is None
    assert total_row(np.array([0.0, 5.0, 0.0, 5.0, 0.0])) is None
    # Base estimates that sum to 1 with a total of 1: a float sum, not bit-exact.
    estimates = np.array([0.1, 0.2, 0.3, 0.4])
    assert total_row(np.append(estimates, estimates.sum() + 1e-12)) == 4


@pytest.mark.parametrize("delimiter", [",", ";", "\t"])
@pytest.mark.parametrize("position", POSITIONS)
@pytest.mark.parametrize("name", NAMES)
def test_every_name_position_and_delimiter_is_asked_about(
    name: str, position: str, delimiter: str
) -> None:
    data = table(name=name, position=position, delimiter=delimiter)
    with pytest.raises(TotalRowError) as refused:
        parse_histogram(data, source="flights.csv")
    message = str(refused.value)
    assert refused.value.label == name and refused.value.number == 10_200
    assert f"the row {name!r} holds 10,200, the sum of all the other rows" in message
    assert "--drop-total" in message and "--keep-total" in message
    dropped = parse_histogram(data, total="drop")
    assert dict(zip(dropped.labels, dropped.counts.tolist(), strict=True)) == COUNTS
    assert dropped.total == "drop" and dropped.n == 10_200
    kept = parse_histogram(data, total="keep")
    assert kept.n == 20_400 and name in kept.labels and kept.total == "keep"


def test_a_file_without_a_total_says_nothing_of_one() -> None:
    for choice in ("ask", "drop", "keep"):
        assert parse_histogram(CLEAN, total=choice).total is None
    with pytest.raises(InputError, match="total must be one of ask, drop, keep"):
        read_numbers(CLEAN, total="maybe")


def test_every_bundled_dataset_reads_without_a_question() -> None:
    for name in bundled_names():
        assert load_bundled(name).n > 0


def test_the_total_is_asked_before_the_count_above_n_blames_n() -> None:
    """OLH support counts with a total row: the total exceeds n, but the total is said."""
    oracle = get_protocol("OLH", epsilon=1.0, domain_size=8)
    support = oracle.sample_support_counts(np.array([400, 300, 100, 100, 50, 30, 10, 10]), 3)
    rows = "".join(f"v{i},{c}\n" for i, c in enumerate(support.tolist()))
    data = f"value,count\n{rows}Total,{int(support.sum())}\n".encode()
    settings = {"protocol": "OLH", "epsilon": 1.0, "n": 1000}
    with pytest.raises(TotalRowError, match="'Total'"):
        read_collected(data, **settings)  # type: ignore[arg-type]
    dropped = read_collected(data, total="drop", **settings)  # type: ignore[arg-type]
    clean = read_collected(f"value,count\n{rows}".encode(), **settings)  # type: ignore[arg-type]
    np.testing.assert_array_equal(dropped.estimate, clean.estimate)
    with pytest.raises(TableError, match="more than the n = 1,000 users"):
        read_collected(data, total="keep", **settings)  # type: ignore[arg-type]


def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


SMALL = ("--trials", "5", "--methods", "Base,Norm-Sub", "--n", "10000")
#: Every command that reads a histogram file, with what it needs besides the file.
HISTOGRAM_COMMANDS = {
    "simulate": ["--protocol", "GRR", "--epsilon", "1", *SMALL, "--format", "json"],
    "choose-epsilon": ["--protocol", "GRR", "--target", "each:0.05", *SMALL, "--format", "json"],
    "advise-epsilon": ["--protocol", "GRR", "--target-rmse", "0.05", *SMALL, "--format", "json"],
}


@pytest.mark.parametrize("command", sorted(HISTOGRAM_COMMANDS))
def test_every_command_that_reads_a_histogram_asks_then_drops_or_keeps(
    command: str, tmp_path: Path
) -> None:
    with_total, clean = tmp_path / "flights.csv", tmp_path / "clean.csv"
    with_total.write_bytes(table(name="Sum", position="first", delimiter=";"))
    clean.write_bytes(CLEAN)
    extra = HISTOGRAM_COMMANDS[command]
    code, out, err = _cli(command, "--dataset", f"file:{with_total}", *extra)
    assert code == 2 and out == ""
    assert "the row 'Sum' holds 10,200" in err and "--drop-total" in err, err
    code, dropped, err = _cli(command, "--dataset", f"file:{with_total}", "--drop-total", *extra)
    assert code == 0, err
    code, reference, err = _cli(command, "--dataset", f"file:{clean}", *extra)
    assert code == 0, err
    # The same answer as the file without the row (the file's name aside).
    assert dropped.replace(str(with_total), "F") == reference.replace(str(clean), "F")
    code, kept, err = _cli(command, "--dataset", f"file:{with_total}", "--keep-total", *extra)
    assert code == 0 and kept.replace(str(with_total), "F") != dropped.replace(
        str(with_total), "F"
    ), err
    code, _, err = _cli(
        command, "--dataset", f"file:{with_total}", "--drop-total", "--keep-total", *extra
    )
    assert code == 2 and "not allowed with argument" in err


@pytest.mark.parametrize("command", ["postprocess", "recommend"])
def test_every_command_that_reads_collected_output_asks_first(command: str, tmp_path: Path) -> None:
    path = tmp_path / "collected.csv"
    path.write_bytes(b"value,estimate\na,0.5\nb,0.3\nc,0.2\nTotal,1.0\n")
    base = [command, "--protocol", "OUE", "--epsilon", "1", "--n", "1000", "--input", str(path)]
    if command == "postprocess":
        base += ["--method", "Norm-Sub", "--output", str(tmp_path / "out.csv")]
    else:
        base += ["--trials", "5", "--methods", "Base,Norm-Sub"]
    code, _, err = _cli(*base)
    assert code == 2 and "the row 'Total' holds 1" in err and "--keep-total" in err, err
    code, _, err = _cli(*base, "--drop-total")
    assert code == 0, err
    if command == "postprocess":
        assert "Total" not in (tmp_path / "out.csv").read_text()


def test_a_prior_file_with_a_total_row_is_asked_about_too(tmp_path: Path) -> None:
    collected, prior = tmp_path / "c.csv", tmp_path / "prior.csv"
    collected.write_bytes(b"value,estimate\nJFK,0.45\nLAX,0.3\nORD,0.15\nSFO,0.1\n")
    prior.write_bytes(table())
    base = ["postprocess", "--protocol", "GRR", "--epsilon", "1", "--n", "10000"]
    base += ["--input", str(collected), "--method", "Bayes", "--prior", str(prior)]
    base += ["--output", str(tmp_path / "out.csv")]
    code, _, err = _cli(*base)
    assert code == 2 and "the row 'Total'" in err, err


def test_the_command_of_an_upload_reads_the_file_as_the_page_did(tmp_path: Path) -> None:
    dataset = parse_histogram(table(position="middle"), source="flights.csv", total="drop")
    config = ExperimentConfig.from_dataset(
        dataset, n=10_000, protocol="GRR", epsilon=1.0, trials=5, methods=("Base", "Norm-Sub")
    )
    command = simulate_command(config)
    assert "--dataset file:flights.csv --drop-total" in command
    (tmp_path / "flights.csv").write_bytes(table(position="middle"))
    argv = command.split()[1:]
    argv[argv.index("file:flights.csv")] = f"file:{tmp_path / 'flights.csv'}"
    code, out, err = _cli(*argv)
    assert code == 0, err
    from ldpcore.experiments.trials import run  # noqa: PLC0415

    shown = run(config).to_json_dict()["results"]
    assert json.loads(out)["results"] == shown
    kept = parse_histogram(table(), total="keep")
    assert "--keep-total" in simulate_command(ExperimentConfig.from_dataset(
        kept, n=10_000, protocol="GRR", epsilon=1.0
    ))  # fmt: skip


def _open(page: str) -> AppTest:
    at = app()
    at.run()
    at.switch_page(page)
    return at.run()


def _said(at: AppTest) -> str:
    return " | ".join(e.value for e in [*at.error, *at.warning, *at.info, *at.caption])


@pytest.mark.parametrize(
    ("page", "key"), [("pages/your_data.py", "yours"), ("pages/choose_epsilon.py", "choose")]
)
def test_each_histogram_upload_asks_and_runs_only_once_answered(page: str, key: str) -> None:
    at = _open(page)
    at.radio(key=f"{key}-source").set_value("Upload a file").run()
    at.file_uploader(key=f"{key}-upload").set_value(("flights.csv", table(), "text/csv"))
    at.run()
    assert not at.exception, at.exception
    assert "the row 'Total' holds 10,200" in _said(at)
    assert not at.metric and not at.get("plotly_chart")  # nothing computed from the file
    (question,) = [r for r in at.radio if r.key.startswith(f"{key}-total-")]
    question.set_value("drop").run()
    assert not at.exception, at.exception
    assert "The row 'Total' (10,200, the sum of the others) is dropped." in _said(at)
    if key == "yours":
        assert [m.value for m in at.metric][:2] == ["4", "10,200"]


def test_collected_counts_with_a_total_are_asked_about_not_blamed_on_n() -> None:
    oracle = get_protocol("OLH", epsilon=1.0, domain_size=8)
    support = oracle.sample_support_counts(
        np.array([4000, 3000, 1000, 1000, 500, 300, 100, 100]), 5
    )
    rows = "".join(f"v{i},{c}\n" for i, c in enumerate(support.tolist()))
    data = f"value,count\n{rows}Total,{int(support.sum())}\n".encode()
    at = _open("pages/your_data.py")
    at.file_uploader(key="collected-upload").set_value(("olh.csv", data, "text/csv")).run()
    assert not at.exception, at.exception
    said = _said(at)
    assert "the row 'Total'" in said and "more than the n" not in said, said
    (question,) = [r for r in at.radio if r.key.startswith("collected-total-")]
    question.set_value("drop").run()
    assert not at.exception, at.exception
    table_shown = next(d.value for d in at.dataframe if "estimate" in d.value.columns)
    assert list(table_shown["value"]) == [f"v{i}" for i in range(8)]


def test_frequencies_are_a_total_only_near_one() -> None:
    """Base estimates: a value holding half (0.5 = the rest) is not a total; 1.0 is."""
    half = b"value,estimate\na,0.5\nb,0.3\nc,0.2\n"
    assert read_numbers(half, numbers="estimates").total is None
    with pytest.raises(TotalRowError):
        read_numbers(half + b"all,1.0\n", numbers="estimates")
    # As counts, a value of exactly half is asked about: one click keeps it.
    with pytest.raises(TotalRowError):
        read_numbers(b"value,count\nyes,50\nno,30\nmaybe,20\n")
    kept = read_numbers(b"value,count\nyes,50\nno,30\nmaybe,20\n", total="keep")
    assert kept.numbers.tolist() == [50, 30, 20] and kept.total == "keep"


def test_a_sweep_over_a_file_with_a_total_asks_too(tmp_path: Path) -> None:
    data, sweep, out = tmp_path / "flights.csv", tmp_path / "sweep.toml", tmp_path / "out.csv"
    data.write_bytes(table(position="first"))
    sweep.write_text(
        f'dataset = "file:{data}"\nprotocols = ["GRR"]\nepsilons = [1.0]\nns = [10000]\n'
        'methods = ["Base"]\ntrials = 3\n'
    )
    code, _, err = _cli("sweep", "--config", str(sweep), "--out", str(out))
    assert code == 2 and "the row 'Total' holds 10,200" in err, err
    code, _, err = _cli("sweep", "--config", str(sweep), "--out", str(out), "--drop-total")
    assert code == 0, err
    assert out.exists()


#: Base estimates (negative ones among them) and a spreadsheet's total of them, printed
#: rounded as a spreadsheet shows it, while the rows keep their digits.
ESTIMATES = {"CHN": 0.06621, "DEU": 0.31234, "FRA": -0.0121, "ITA": 0.51127}


def estimates_table(*, name: str, position: str, delimiter: str, digits: int) -> bytes:
    """Base estimates with a total row printed to ``digits`` decimals."""
    rows = [(k, repr(v)) for k, v in ESTIMATES.items()]
    rows.insert(
        {"first": 0, "middle": 2, "last": len(rows)}[position],
        (name, f"{sum(ESTIMATES.values()):.{digits}f}"),
    )
    lines = ["value" + delimiter + "estimate", *(delimiter.join(r) for r in rows)]
    return ("\n".join(lines) + "\n").encode()


@pytest.mark.parametrize("digits", [2, 4, 12])
@pytest.mark.parametrize("delimiter", [",", ";"])
@pytest.mark.parametrize("position", ["first", "last"])
@pytest.mark.parametrize("name", ["Sum", "Total"])
def test_a_rounded_total_of_estimates_is_asked_about(
    name: str, position: str, delimiter: str, digits: int
) -> None:
    data = estimates_table(name=name, position=position, delimiter=delimiter, digits=digits)
    with pytest.raises(TotalRowError, match=f"the row '{name}'"):
        read_numbers(data, numbers="estimates")
    dropped = read_numbers(data, numbers="estimates", total="drop")
    assert list(dropped.labels) == list(ESTIMATES) and dropped.total == "drop"


@pytest.mark.parametrize("command", ["postprocess", "recommend"])
@pytest.mark.parametrize("position", ["first", "last"])
def test_commands_ask_about_a_rounded_total_of_estimates_then_drop_it(
    command: str, position: str, tmp_path: Path
) -> None:
    path = tmp_path / "estimates.csv"
    path.write_bytes(estimates_table(name="Sum", position=position, delimiter=";", digits=4))
    base = [command, "--protocol", "OUE", "--epsilon", "1", "--n", "10000", "--input", str(path)]
    if command == "postprocess":
        base += ["--method", "Norm-Sub", "--output", str(tmp_path / "out.csv")]
    else:
        base += ["--trials", "5", "--methods", "Base,Norm-Sub"]
    code, _, err = _cli(*base)
    assert code == 2 and "the row 'Sum'" in err and "--drop-total" in err, err
    code, _, err = _cli(*base, "--drop-total")
    assert code == 0, err
    if command == "postprocess":
        assert "Sum" not in (tmp_path / "out.csv").read_text()


def test_the_page_asks_about_a_rounded_total_of_estimates() -> None:
    data = estimates_table(name="Sum", position="first", delimiter=";", digits=4)
    at = _open("pages/your_data.py")
    at.file_uploader(key="collected-upload").set_value(("eu.csv", data, "text/csv")).run()
    assert not at.exception, at.exception
    assert at.radio(key="collected-kind").value == "estimates"
    assert "the row 'Sum'" in _said(at)
    (question,) = [r for r in at.radio if r.key.startswith("collected-total-")]
    question.set_value("drop").run()
    assert not at.exception, at.exception
    shown = next(d.value for d in at.dataframe if "estimate" in d.value.columns)
    assert list(shown["value"]) == list(ESTIMATES)


@pytest.mark.parametrize("command", sorted(HISTOGRAM_COMMANDS))
def test_a_total_flag_that_finds_no_total_says_so(command: str, tmp_path: Path) -> None:
    """Never ignored: a --drop-total that finds nothing to drop is said, and the run goes on."""
    clean = tmp_path / "flights.csv"
    clean.write_bytes(CLEAN)
    extra = HISTOGRAM_COMMANDS[command]
    code, _, err = _cli(command, "--dataset", f"file:{clean}", "--drop-total", *extra)
    assert code == 0, err
    assert "has no row that sums the others; --drop-total changed nothing" in err


def test_postprocess_says_a_total_flag_found_nothing(tmp_path: Path) -> None:
    path = tmp_path / "collected.csv"
    path.write_bytes(b"value,estimate\na,0.5\nb,0.3\nc,0.2\n")
    code, _, err = _cli(
        "postprocess", "--protocol", "OUE", "--epsilon", "1", "--n", "1000", "--input",
        str(path), "--method", "Norm-Sub", "--output", str(tmp_path / "o.csv"), "--keep-total",
    )  # fmt: skip
    assert code == 0, err
    assert "--keep-total changed nothing" in err


@pytest.mark.parametrize(
    ("number", "written"),
    [(22_299_600.0, "22,299,600"), (10_200.0, "10,200"), (1.0, "1"), (0.99996, "0.99996")],
)
def test_a_total_row_is_named_with_its_number_as_written_never_in_e_notation(
    number: float, written: str
) -> None:
    said = total_message("the file", "Total", number)
    assert f"holds {written}, the sum" in said and "e+" not in said
