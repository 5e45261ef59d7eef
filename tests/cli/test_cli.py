"""The ldpcore command, through a real subprocess: the contract and every bad input."""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from command import COMMAND, ldpcore

from ldpcore.cli import COMMANDS
from ldpcore.postprocess import get_method
from ldpcore.protocols import get_protocol


def test_simulate_json_contract() -> None:
    done = ldpcore(
        "simulate",
        "--protocol",
        "olh",
        "--epsilon",
        "1",
        "--n",
        "100000",
        "--dataset",
        "zipf:d=128,s=1.5",
        "--methods",
        "Base,Norm-Sub",
        "--trials",
        "5",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert payload["config"]["protocol"] == "OLH"
    assert [r["method"] for r in payload["results"]] == ["Base", "Norm-Sub"]
    assert payload["analytic"]["base_mse"] > payload["analytic"]["lower_bound"] > 0
    for row in payload["results"]:
        assert row["mse"] == pytest.approx(row["bias_sq"] + row["variance"], rel=1e-9)


@pytest.mark.parametrize("fmt", ["table", "csv"])
def test_simulate_other_formats(fmt: str) -> None:
    done = ldpcore(
        "simulate",
        "--protocol",
        "GRR",
        "--epsilon",
        "2",
        "--n",
        "5000",
        "--dataset",
        "uniform:d=16",
        "--query",
        "topk:k=3",
        "--trials",
        "3",
        "--format",
        fmt,
    )
    assert done.returncode == 0, done.stderr
    assert "Norm-Sub" in done.stdout


def test_help_has_worked_examples() -> None:
    for sub in ("simulate", "postprocess", "recommend", "advise-epsilon"):
        done = ldpcore(sub, "--help")
        assert done.returncode == 0 and "example" in done.stdout


def test_postprocess_estimates_and_counts(tmp_path) -> None:
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=5)
    counts = np.array([300, 250, 200, 150, 100])
    support = protocol.sample_support_counts(counts, 4)
    estimate = protocol.estimate(support, 1000)
    names = ["e", "d", "c", "b", "a"]  # the output keeps the input's order
    estimates = tmp_path / "estimates.csv"
    estimates.write_text(
        "value,estimate\n"
        + "".join(f"{v},{float(x)!r}\n" for v, x in zip(names, estimate, strict=True))
    )
    out = tmp_path / "out.csv"
    done = ldpcore(
        "postprocess",
        "--protocol",
        "OUE",
        "--epsilon",
        "1",
        "--n",
        "1000",
        "--method",
        "cls",
        "--input",
        str(estimates),
        "--output",
        str(out),
    )
    assert done.returncode == 0, done.stderr
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert [r["value"] for r in rows] == names
    expected = get_method("Norm-Sub")(estimate, protocol=protocol, n=1000)
    # Full double precision: the floats round-trip exactly.
    assert [float(r["frequency"]) for r in rows] == expected.tolist()
    counts_file = tmp_path / "counts.csv"
    counts_file.write_text(
        "value,count\n" + "".join(f"{v},{c}\n" for v, c in zip(names, support, strict=True))
    )
    done = ldpcore(
        "postprocess",
        "--protocol",
        "OUE",
        "--epsilon",
        "1",
        "--n",
        "1000",
        "--method",
        "Norm-Sub",
        "--input",
        str(counts_file),
    )
    assert done.returncode == 0, done.stderr
    via_counts = [float(r["frequency"]) for r in csv.DictReader(io.StringIO(done.stdout))]
    assert via_counts == expected.tolist()


GOOD = ["--protocol", "OLH", "--epsilon", "1", "--n", "1000"]
SIM = ["simulate", *GOOD, "--dataset", "zipf:d=16"]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (
            [
                "simulate",
                "--protocol",
                "RAPPOR",
                "--epsilon",
                "1",
                "--n",
                "10",
                "--dataset",
                "zipf:d=8",
            ],
            "unknown protocol 'RAPPOR'",
        ),
        ([*SIM, "--methods", "Norm-Add"], "unknown post-processing method"),
        (["simulate", *GOOD, "--dataset", "pareto:d=8"], "unknown dataset"),
        (
            [
                "simulate",
                "--protocol",
                "OLH",
                "--epsilon",
                "0",
                "--n",
                "10",
                "--dataset",
                "zipf:d=8",
            ],
            "epsilon must be",
        ),
        (
            [
                "simulate",
                "--protocol",
                "OLH",
                "--epsilon",
                "-2",
                "--n",
                "10",
                "--dataset",
                "zipf:d=8",
            ],
            "epsilon must be",
        ),
        (
            [
                "simulate",
                "--protocol",
                "OLH",
                "--epsilon",
                "one",
                "--n",
                "10",
                "--dataset",
                "zipf:d=8",
            ],
            "--epsilon must be a number",
        ),
        (
            [
                "simulate",
                "--protocol",
                "OLH",
                "--epsilon",
                "nan",
                "--n",
                "10",
                "--dataset",
                "zipf:d=8",
            ],
            "--epsilon must be a finite number",
        ),
        (["simulate", *GOOD, "--dataset", "zipf:d=1"], "domain_size must be an integer in"),
        (
            [
                "simulate",
                "--protocol",
                "OLH",
                "--epsilon",
                "1",
                "--n",
                "0",
                "--dataset",
                "zipf:d=8",
            ],
            "--n must be a whole number >= 1",
        ),
        ([*SIM, "--query", "topk:k=x"], "k must be a number"),
        ([*SIM, "--query", "set:rho=7"], "rho"),
        ([*SIM, "--query", "median"], "unknown query"),
        ([*SIM, "--query", "groups"], "needs a dataset whose values have groups"),
        ([*SIM, "--trials", "0"], "--trials must be a whole number >= 1"),
        (["simulate", *GOOD], "required: --dataset"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_simulate_bad_input(args: list[str], message: str) -> None:
    done = ldpcore(*args)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), done.stderr
    assert message in lines[0]
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize(
    ("content", "extra", "message"),
    [
        (None, [], "does not exist"),
        ("", [], "is empty"),
        ("value,estimate\na,0.5\n", [], "at least 2 are needed"),
        ("value,note\na,x\nb,y\n", [], "has no numeric column"),
        ("value,estimate\na,0.5\na,0.5\n", [], "appear on more than one row"),
        ("value,estimate\na,half\nb,0.5\n", [], "not a number"),
        ("value,estimate\na,inf\nb,0.5\n", [], "is infinite"),
        ("value,count\na,-3\nb,5\n", [], "is negative (-3)"),
        ("value,count\na,2.5\nb,5\n", [], "not a whole number"),
        ("value,count\na,20000\nb,5\n", [], "more than the n = 1,000 users"),
        ("value,estimate\na,0.5\nb,0.5\n", ["--method", "Nope"], "unknown post-processing"),
        ("value,estimate\na,0.5\nb,0.5\n", ["--input-kind", "counts"], "not a whole number"),
    ],
)
def test_postprocess_bad_input(tmp_path, content: str | None, extra: list[str], message: str):
    path = tmp_path / "input.csv"
    if content is not None:
        path.write_bytes(content.encode())
    method = [] if "--method" in extra else ["--method", "Norm-Sub"]
    done = ldpcore("postprocess", *GOOD, *method, "--input", str(path), *extra)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error:"), done.stderr
    assert message in lines[0]


def test_postprocess_unwritable_output(tmp_path) -> None:
    path = tmp_path / "input.csv"
    path.write_text("value,estimate\na,0.5\nb,0.5\n")
    done = ldpcore(
        "postprocess",
        *GOOD,
        "--method",
        "Norm",
        "--input",
        str(path),
        "--output",
        str(tmp_path / "missing-dir" / "out.csv"),
    )
    assert done.returncode == 2 and done.stderr.startswith("error: cannot write --output")


def test_postprocess_unreadable_file(tmp_path) -> None:
    path = tmp_path / "latin1.csv"
    path.write_bytes("value,estimate\ncaf\xe9,0.5\nb,0.5\n".encode("latin-1"))
    done = ldpcore("postprocess", *GOOD, "--method", "Norm", "--input", str(path))
    assert (
        done.returncode == 2
        and "is not UTF-8 text" in done.stderr
        and done.stderr.startswith("error: ")
    )


def test_a_progress_line_counts_down_and_ends_its_line(capsys: pytest.CaptureFixture[str]) -> None:
    """long runs say how far they are (on stderr), and quick ones stay quiet."""
    from ldpcore.cli._args import ProgressLine  # noqa: PLC0415

    with ProgressLine("simulating trials", quiet_seconds=0.0) as line:
        line(3, 30)
        line(30, 30)
    err = capsys.readouterr().err
    assert "simulating trials: 3 of 30 (10%), about" in err and "s left" in err
    assert "30 of 30 (100%)" in err and err.endswith("\n")
    with ProgressLine("quick") as line:  # finishes before the first redraw is due
        line(1, 1)
    assert capsys.readouterr().err == ""


def test_progress_does_not_change_the_numbers() -> None:
    """Asking for progress splits the trials into chunks; each trial keeps its seed."""
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415
    from ldpcore.experiments.trials import run  # noqa: PLC0415

    config = ExperimentConfig(
        dataset="zipf:d=32,s=1.2", n=10_000, protocol="OLH", epsilon=1.0, trials=7
    )
    steps: list[tuple[int, int]] = []
    watched = run(config, progress=lambda done, total: steps.append((done, total)))
    assert len(steps) == 7 and steps[-1] == (7, 7)
    assert np.array_equal(watched.answers, run(config).answers)


HELP_AND_USAGE_ERRORS = [
    ["--help"],
    # Every command, from the registry: a new one cannot be left out.
    *([command, "--help"] for command in COMMANDS),
    ["simulate", "--bogus"],
    ["postprocess"],
]


@pytest.mark.parametrize("arguments", HELP_AND_USAGE_ERRORS, ids=" ".join)
def test_help_and_usage_errors_load_neither_pandas_nor_scipy(arguments: list[str]) -> None:
    """the command line answers --help and a usage error at once; pandas and
    scipy (about a second between them) load only when a command runs.

    Measured against a bare interpreter's start: the toy run (``make test-toys``) loads
    its registrations from sitecustomize before any command, and those do not count.
    """
    heavy = "sorted(m for m in ('pandas', 'scipy', 'plotly', 'streamlit') if m in sys.modules)"
    code = (
        "import sys\n"
        "from ldpcore.cli import main\n"
        "try:\n"
        f"    main({arguments!r})\n"
        "except SystemExit:\n"
        "    pass\n"
        f"print({heavy})\n"
    )
    bare = subprocess.run(
        [sys.executable, "-c", f"import sys; print({heavy})"],
        capture_output=True,
        text=True,
        check=True,
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    loaded = done.stdout.strip().splitlines()[-1]
    assert loaded == bare.stdout.strip().splitlines()[-1], done.stdout


#: A small ε search both searching commands run.
SMALL_SEARCH = [
    "--protocol",
    "GRR",
    "--dataset",
    "zipf:d=8",
    "--n",
    "10000",
    "--target-rmse",
    "0.05",
]
SMALL_SEARCH += ["--methods", "Base,Norm-Sub", "--trials", "2"]

PROGRESS_CASES = {
    "simulating trials": [
        "simulate",
        "--protocol",
        "OLH",
        "--epsilon",
        "1",
        "--n",
        "1000",
        "--dataset",
        "zipf:d=8",
        "--trials",
        "5",
        "--format",
        "json",
    ],
    "searching ε (protocols × methods)": ["advise-epsilon", *SMALL_SEARCH],
    "searching ε (protocols)": ["choose-epsilon", *SMALL_SEARCH, "--workers", "1"],
    "randomizing reports": [
        "audit",
        "--protocol",
        "GRR",
        "--epsilon",
        "1",
        "--domain-size",
        "4",
        "--runs",
        "2000",
    ],
}


@pytest.mark.parametrize("label", list(PROGRESS_CASES))
def test_every_long_command_draws_a_progress_line(label: str) -> None:
    """with the quiet second set to 0, each command's progress line shows on a
    small case, on stderr, and ends its line before anything else is printed."""
    import os  # noqa: PLC0415

    done = subprocess.run(
        [sys.executable, "-m", "ldpcore.cli", *PROGRESS_CASES[label]],
        capture_output=True,  # bytes: text mode would turn the line's \r into \n
        env={**os.environ, "LDPCORE_PROGRESS_AFTER": "0"},
        check=False,
    )
    stderr, stdout = done.stderr.decode(), done.stdout.decode()
    assert done.returncode in (0, 1), stderr  # audit: 1 only on a violation
    assert f"\r{label}: " in stderr and "(100%)" in stderr, stderr
    assert label not in stdout


def test_sweep_and_reproduce_draw_the_same_progress_line(tmp_path: Path) -> None:
    """one progress printer (``_args.ProgressLine``) for every command; the
    sweep's and the reproduction's lines read like the others and end before the
    summary is printed."""
    import os  # noqa: PLC0415

    config = tmp_path / "sweep.toml"
    config.write_text(
        "dataset = 'zipf:d=16'\nprotocols = ['GRR']\nepsilons = [1.0, 2.0]\n"
        "ns = [1000]\nmethods = ['Base']\ntrials = 2\n"
    )
    env = {**os.environ, "LDPCORE_PROGRESS_AFTER": "0"}
    for arguments, label in (
        (["sweep", "--config", str(config), "--out", str(tmp_path / "r.csv")], "grid points"),
        (
            ["reproduce", "mle-fig3", "--quick", "--no-png", "--out", str(tmp_path / "out")],
            "reproducing (per cent of the work)",
        ),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "ldpcore.cli", *arguments],
            capture_output=True,
            env=env,
            check=False,
        )
        stderr = done.stderr.decode()
        assert done.returncode == 0, stderr
        assert f"\r{label}: " in stderr and "(100%)" in stderr and stderr.endswith("\n"), stderr


def test_postprocess_reads_a_large_input_with_a_progress_line(tmp_path) -> None:  # type: ignore[no-untyped-def]
    import os  # noqa: PLC0415

    source = tmp_path / "counts.csv"
    source.write_text("value,count\n" + "".join(f"v{i},{i % 50}\n" for i in range(70_000)))
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ldpcore.cli",
            "postprocess",
            "--protocol",
            "OLH",
            "--epsilon",
            "1",
            "--n",
            "100000",
            "--method",
            "Norm-Sub",
            "--input",
            str(source),
        ],
        capture_output=True,  # bytes: text mode would turn the line's \r into \n
        env={**os.environ, "LDPCORE_PROGRESS_AFTER": "0"},
        check=False,
    )
    stderr, stdout = done.stderr.decode(), done.stdout.decode()
    assert done.returncode == 0, stderr
    assert "\rreading the input (characters): " in stderr and "(100%)" in stderr
    assert stdout.startswith("value,frequency\n")


@pytest.mark.parametrize(
    ("label", "extra"),
    [
        ("simulating trials", ["recommend", "--trials", "3", "--methods", "Base,Norm-Sub"]),
        ("sampling the posterior", ["postprocess", "--method", "Bayes"]),
        ("sampling the posterior", ["postprocess", "--method", "Bayes", "--prior", "learned"]),
    ],
)
def test_recommend_and_bayes_draw_progress_lines(tmp_path, label: str, extra: list[str]) -> None:  # type: ignore[no-untyped-def]
    """The commands that read collected output: recommend's trials, Bayes's sampler."""
    import os  # noqa: PLC0415

    source = tmp_path / "estimates.csv"
    source.write_text("value,estimate\na,0.5\nb,0.3\nc,0.25\nd,-0.05\n")
    common = ["--protocol", "GRR", "--epsilon", "1", "--n", "5000", "--input", str(source)]
    done = subprocess.run(
        [*COMMAND, extra[0], *common, *extra[1:]],
        capture_output=True,
        env={**os.environ, "LDPCORE_PROGRESS_AFTER": "0"},
        check=False,
    )
    stderr = done.stderr.decode()
    assert done.returncode == 0, stderr
    assert f"\r{label}: " in stderr and "(100%)" in stderr, stderr


def test_choose_epsilon_uses_the_cores_by_default_with_the_same_answers() -> None:
    """the command searches protocols in parallel as the page does; the
    answers are those of one process (each protocol's search is seeded on its own)."""
    search = [*SMALL_SEARCH, "--format", "json"]
    search[search.index("GRR")] = "GRR,OUE"
    parallel = ldpcore("choose-epsilon", *search)
    single = ldpcore("choose-epsilon", *search, "--workers", "1")
    assert parallel.returncode == 0 == single.returncode, parallel.stderr + single.stderr
    assert json.loads(parallel.stdout) == json.loads(single.stdout)
    # each answer carries the measured caveat on its ε interval ("" where the
    # interval was measured to cover: single-value queries and Base).
    for answer in json.loads(single.stdout)["answers"]:
        assert answer["interval_note"] == ""
    bad = ldpcore("choose-epsilon", *search, "--workers", "many")
    assert bad.returncode == 2 and "workers" in bad.stderr


def test_a_reader_that_stops_reading_is_not_reported_as_a_bug() -> None:
    """``ldpcore … | head``: the reader closes the pipe before the table is written. The
    command stops quietly with the shell's SIGPIPE status, not an "internal error"."""
    process = subprocess.Popen(
        [
            *(sys.executable, "-m", "ldpcore.cli", "simulate", "--protocol", "OLH"),
            *("--epsilon", "1", "--n", "10000", "--dataset", "zipf:d=64,s=1.5"),
            *("--trials", "2", "--format", "csv"),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    with process, process.stderr:
        process.stdout.close()  # before the command has written anything: its write fails
        error = process.stderr.read().decode()
        assert process.wait(timeout=120) == 141
    assert error == "", error


def test_epsilon_context_json_contract() -> None:
    done = ldpcore(
        "epsilon-context",
        "--epsilon",
        "4",
        "--n",
        "100000",
        "--delta",
        "1e-6",
        "--reports-per-period",
        "1",
        "--periods",
        "365",
        "--format",
        "json",
    )
    assert done.returncode == 0, done.stderr
    payload = json.loads(done.stdout)
    assert (payload["epsilon"], payload["n"], payload["delta"]) == (4.0, 100000, 1e-6)
    shuffled = payload["shuffled"]
    # FMT's published example, through the command.
    assert 0.1675 <= shuffled["numerical"] <= 0.1728 and shuffled["closed_form"] <= 0.538
    assert shuffled["central_epsilon"] == shuffled["numerical"]
    assert shuffled["users_computed"] == 100000
    assert "trusted shuffler" in shuffled["requires"] and "FOCS 2021" in shuffled["source"]
    repeated = payload["repeated"]
    assert repeated["reports"] == 365 and repeated["fresh"]["basic"] == 4 * 365
    assert repeated["fresh"]["quoted"] == 1460 and repeated["fresh"]["quoted_delta"] is None
    assert repeated["memoized"]["epsilon"] == 4 and len(repeated["memoized"]["exposes"]) == 2
    deployments = payload["deployments"]
    assert deployments["rows"] and deployments["unchecked"]
    assert all(row["link"].startswith("https://") for row in deployments["rows"])
    for key in ("shuffled", "repeated", "deployments"):
        assert payload[key]["sentence"]


def test_epsilon_context_table_says_each_figure() -> None:
    done = ldpcore("epsilon-context", "--epsilon", "1", "--n", "1000000", "--periods", "52",
                   "--period", "week")  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "central ε =" in done.stdout and "per week for 52 weeks" in done.stdout
    assert "Not listed (figure not checked)" in done.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--epsilon", "0", "--n", "1000"], "epsilon must be a finite number > 0"),
        (["--epsilon", "-2", "--n", "1000"], "epsilon must be a finite number > 0"),
        (["--epsilon", "50", "--n", "1000"], "epsilon must be in [0.001, 20.0]"),
        (["--epsilon", "1", "--n", "1"], "--n must be a whole number >= 2"),
        (["--epsilon", "1", "--n", "1000", "--delta", "0"], "delta must lie strictly"),
        (["--epsilon", "1", "--n", "1000", "--delta", "1.5"], "delta must lie strictly"),
        (["--epsilon", "1", "--n", "1000", "--periods", "2.5"], "--periods must be a whole"),
        (
            ["--epsilon", "1", "--n", "1000", "--reports-per-period", "0.5"],
            "--reports-per-period must be a whole",
        ),
        (["--epsilon", "1", "--n", "1000", "--period", "1;rm"], "--period must be a word"),
    ],
)
def test_epsilon_context_bad_input(args: list[str], message: str) -> None:
    done = ldpcore("epsilon-context", *args)
    assert done.returncode == 2
    assert done.stderr.startswith("error:") and message in done.stderr
    assert "Traceback" not in done.stderr


@pytest.mark.parametrize("interval", [[], ["--interval", "0.9"]])
def test_an_unsettled_sampler_is_one_warning_line_after_the_progress_line(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    interval: list[str],
) -> None:
    """Bayes's "had not settled" is said once, on its own line after the progress line
    (not in the middle of it), with or without intervals; the output is still written."""
    from ldpcore.cli import main  # noqa: PLC0415
    from ldpcore.cli import postprocess as command  # noqa: PLC0415
    from ldpcore.postprocess import Bayes  # noqa: PLC0415

    short = Bayes(draws=20, warmup=20, min_ess=10_000)
    monkeypatch.setattr(command, "get_method", lambda name: short)
    monkeypatch.setenv("LDPCORE_PROGRESS_AFTER", "0")
    source, target = tmp_path / "estimates.csv", tmp_path / "out.csv"
    source.write_text("value,estimate\na,0.5\nb,0.3\nc,0.25\nd,-0.05\n")
    argv = ["postprocess", "--protocol", "GRR", "--epsilon", "1", "--n", "5000"]
    argv += ["--method", "Bayes", "--input", str(source), "--output", str(target), *interval]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert err.count("had not settled") == 1, err
    assert "\nwarning: Bayes's sampler had not settled" in err, err
    assert target.read_text().startswith("value,frequency")


@pytest.mark.parametrize("suffix", [".parquet", ".csv"])
def test_a_sweep_writes_its_specs_as_their_text_in_either_format(
    tmp_path: Path, suffix: str
) -> None:
    # Typed specs in the table once made Parquet fail ("Conversion failed for column
    # dataset"); CSV wrote their text. Both now hold the canonical text.
    import pandas as pd  # noqa: PLC0415

    config = tmp_path / "sweep.toml"
    config.write_text(
        'dataset = "zipf:d=64,s=1.5"\nprotocols = ["OLH"]\nepsilons = [1.0]\n'
        'ns = [10000]\nqueries = ["topk:k=5"]\ntrials = 3\n'
    )
    out = tmp_path / f"results{suffix}"
    done = ldpcore("sweep", "--config", str(config), "--out", str(out))
    assert done.returncode == 0, done.stderr
    table = pd.read_parquet(out) if suffix == ".parquet" else pd.read_csv(out)
    assert set(table["dataset"]) == {"zipf:d=64,s=1.5"}
    assert set(table["query"]) == {"topk:k=5"}
