"""Faults lose nothing: a run killed midway leaves the old file or none, never half a file.

Every file the command line writes goes through ``ldpcore._files.replacing`` (a
temporary name in the same folder, renamed into place when complete). These tests kill
real ``ldpcore`` processes while they write and look at what is left.
"""

from __future__ import annotations

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

COMMAND = [sys.executable, "-m", "ldpcore.cli"]


def _kill_while_writing(args: list[str], folder: Path, target: str, timeout: float = 60) -> None:
    """Start ``ldpcore args``; SIGKILL it once its temporary output file exists."""
    process = subprocess.Popen(
        [*COMMAND, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            partial = [p for p in folder.glob(f".{target}.*.part") if p.stat().st_size > 0]
            if partial:
                break
            if process.poll() is not None:
                pytest.fail("the run ended before it could be interrupted; make it longer")
            time.sleep(0.01)
        else:
            pytest.fail("no temporary output appeared")
        os.kill(process.pid, signal.SIGKILL)
    finally:
        process.wait(timeout=30)


@pytest.mark.parametrize("suffix", ["csv", "parquet"])
def test_randomize_killed_midway_keeps_the_old_reports(tmp_path: Path, suffix: str) -> None:
    values = tmp_path / "values.csv"
    # Enough users that writing takes a while (chunks of 2^18 rows are appended).
    pd.DataFrame({"value": np.arange(3_000_000) % 64}).to_csv(values, index=False)
    reports = tmp_path / f"reports.{suffix}"
    common = [
        "randomize",
        "--protocol",
        "GRR",
        "--epsilon",
        "1",
        "--domain-size",
        "64",
        "--input",
        str(values),
        "--output",
        str(reports),
        "--seed",
        "1",
    ]
    # A first, complete collection from 5 users.
    small = tmp_path / "small.csv"
    pd.DataFrame({"value": [0, 1, 2, 3, 4]}).to_csv(small, index=False)
    first = [*common[:7], "--input", str(small), "--output", str(reports), "--seed", "1"]
    done = subprocess.run([*COMMAND, *first], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    before = reports.read_bytes()
    _kill_while_writing(common, tmp_path, reports.name)
    # The old file, whole: the killed run's rows never reached it.
    assert reports.read_bytes() == before
    # The killed run's temporary file is left (SIGKILL cannot be caught); the next run
    # to the same output removes it, since its writer is gone.
    assert list(tmp_path.glob(f".{reports.name}.*.part"))
    done = subprocess.run([*COMMAND, *first], check=False, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert not list(tmp_path.glob(f".{reports.name}.*.part"))


def test_audit_at_a_huge_epsilon_says_why_it_cannot_measure() -> None:
    """At ε = 20 the event is never seen for the other input in a few thousand runs:
    the report says so instead of "measured inf"."""
    from ldpcore.collection.audit import audit  # noqa: PLC0415
    from ldpcore.protocols import get_protocol  # noqa: PLC0415

    result = audit(get_protocol("GRR", epsilon=20, domain_size=4), runs=5000, rng=1)
    assert result.passed
    assert "inf" not in result.verdict and "not measurable with 5,000 runs" in result.verdict


def test_hr_likelihood_methods_converge_at_a_tiny_epsilon() -> None:
    """HR at ε = 0.001, n = 10^12, d = 2: EM stopped at its 100,000-step cap with an MSE
    10,000× Base's (173 s); with Newton steps it converges at once."""
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415
    from ldpcore.experiments.trials import run  # noqa: PLC0415

    config = ExperimentConfig(
        dataset="zipf:d=2,s=1.5",
        n=10**12,
        protocol="HR",
        epsilon=0.001,
        methods=("Base", "MLE", "IBU"),
        trials=4,
    )
    summary = run(config).summary.set_index("method")
    assert (summary["converged"] == 1).all()
    # The exact MLE is at least as accurate as Base here, up to trial noise.
    assert summary.loc["MLE", "mse"] < 3 * summary.loc["Base", "mse"]


def test_a_capped_em_is_reported_never_silent(monkeypatch: pytest.MonkeyPatch) -> None:
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415
    from ldpcore.experiments.trials import run  # noqa: PLC0415
    from ldpcore.postprocess import ibu  # noqa: PLC0415

    original = ibu.run_em

    def capped(model: object, **options: object) -> object:
        # From uniform (a warm start at GRR's exact maximum would converge in one step).
        capped_options = {**options, "max_iterations": 2, "start": None}
        return original(model, **capped_options)  # type: ignore[arg-type]

    monkeypatch.setattr(ibu, "run_em", capped)
    config = ExperimentConfig(
        dataset="zipf:d=64,s=1.5",
        n=10_000,
        protocol="GRR",
        epsilon=1.0,
        methods=("Base", "IBU"),
        trials=3,
    )
    result = run(config)
    converged = result.summary.set_index("method")["converged"]
    assert converged["Base"] == 1 and converged["IBU"] == 0
    assert {r["method"]: r["converged"] for r in result.to_json_dict()["results"]}["IBU"] == 0


@pytest.mark.parametrize(
    "spec",
    ["prefix", "interval:samples=50", "set:rho=0.3,samples=20", "groups", "full", "topk:k=5"],
)
def test_query_answers_equal_the_dense_matrix_product(spec: str) -> None:
    """Answers without a questions × d matrix agree with it (the independent, slow path)."""
    from ldpcore.queries.specs import parse_query  # noqa: PLC0415

    d = 40
    generator = np.random.default_rng(7)
    truth = generator.dirichlet(np.ones(d))
    groups = tuple("abcd"[i % 4] for i in range(d))
    query = parse_query(spec, true_frequencies=truth, group_of_value=groups)
    stack = generator.normal(0.02, 0.05, size=(3, d))
    dense = stack @ query.matrix(d).T
    np.testing.assert_allclose(query.answer(stack), dense, atol=1e-12)
    np.testing.assert_allclose(query.answer(stack[0]), dense[0], atol=1e-12)
    np.testing.assert_allclose(query.answer(stack, clamp=True), np.maximum(dense, 0), atol=1e-12)


def test_large_domain_queries_stay_in_bounded_memory() -> None:
    """d = 30,000: prefixes held d²/2 indices (7 GB peak in a simulate run); now O(d)."""
    import tracemalloc  # noqa: PLC0415

    from ldpcore.queries.query import SET_MEMBERS_MAX  # noqa: PLC0415
    from ldpcore.queries.specs import parse_query  # noqa: PLC0415

    d = 30_000
    truth = np.full(d, 1 / d)
    tracemalloc.start()
    for spec in ("prefix", "interval:samples=10000"):
        query = parse_query(spec, true_frequencies=truth)
        answers = query.answer(np.tile(truth, (2, 1)))
        assert answers.shape == (2, len(query.labels))
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 200 * 2**20, f"peak {peak / 2**20:.0f} MiB"
    with pytest.raises(ValueError, match=f"at most {SET_MEMBERS_MAX:,} are allowed"):
        parse_query("set:rho=1,samples=10000", true_frequencies=truth)


def test_audit_at_a_large_domain_works_in_bounded_memory() -> None:
    """OUE at d = 10,000: chunks of 65,536 reports were 5 GB and a MemoryError."""
    import tracemalloc  # noqa: PLC0415

    from ldpcore.collection.audit import audit  # noqa: PLC0415
    from ldpcore.protocols import get_protocol  # noqa: PLC0415

    tracemalloc.start()
    result = audit(get_protocol("OUE", epsilon=1.0, domain_size=10_000), runs=2000, rng=3)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert result.passed and peak < 300 * 2**20, f"peak {peak / 2**20:.0f} MiB"


@pytest.mark.parametrize(
    ("made", "asked", "message"),
    [
        (
            ("OUE", "--domain-size", "16"),
            ("OUE", "--domain-size", "9"),
            "written for domain_size = 16, but aggregation was asked for domain_size = 9",
        ),
        (
            ("OLH", "--domain-size", "30", "--g", "4"),
            ("OLH", "--domain-size", "30", "--g", "5"),
            "written for g = 4, but aggregation was asked for g = 5",
        ),
    ],
)
def test_csv_reports_carry_their_parameters(
    tmp_path: Path, made: tuple[str, ...], asked: tuple[str, ...], message: str
) -> None:
    """CSV reports made with other parameters were aggregated without complaint."""
    values = tmp_path / "values.csv"
    pd.DataFrame({"value": [0, 1, 2, 3, 4, 5, 6, 7, 8]}).to_csv(values, index=False)
    reports = tmp_path / "reports.csv"
    common = ["--epsilon", "1", "--output"]
    done = subprocess.run(
        [
            *COMMAND,
            "randomize",
            "--protocol",
            *made,
            "--input",
            str(values),
            *common,
            str(reports),
            "--seed",
            "2",
        ],
        check=False,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert reports.read_text().startswith("# ldpcore protocol=")
    wrong = subprocess.run(
        [*COMMAND, "aggregate", "--protocol", *asked, "--epsilon", "1", "--input", str(reports)],
        check=False,
        capture_output=True,
        text=True,
    )
    assert wrong.returncode == 2 and message in wrong.stderr
    right = subprocess.run(
        [*COMMAND, "aggregate", "--protocol", *made, "--epsilon", "1", "--input", str(reports)],
        check=False,
        capture_output=True,
        text=True,
    )
    assert right.returncode == 0, right.stderr
    assert right.stdout.splitlines()[0] == "value,count"


def test_an_output_link_stays_a_link_and_its_file_is_replaced(tmp_path: Path) -> None:
    """--output through a symbolic link replaced the link by a file."""
    from ldpcore._files import replacing  # noqa: PLC0415

    real = tmp_path / "data" / "out.csv"
    real.parent.mkdir()
    real.write_text("old\n")
    link = tmp_path / "out.csv"
    link.symlink_to(real)
    with replacing(link) as temporary:
        temporary.write_text("new\n")
    assert link.is_symlink() and real.read_text() == "new\n"
    assert not list(real.parent.glob("*.part")) and not list(tmp_path.glob("*.part"))


def test_an_output_pipe_is_written_into_not_replaced(tmp_path: Path) -> None:
    """a named pipe (or /dev/stdout) was renamed over, not written into."""
    import threading  # noqa: PLC0415

    from ldpcore._files import replacing  # noqa: PLC0415

    pipe = tmp_path / "pipe"
    os.mkfifo(pipe)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(pipe.read_bytes()))
    reader.start()
    with replacing(pipe) as temporary:
        temporary.write_text("value,frequency\na,0.5\n")
    reader.join(timeout=30)
    assert received == [b"value,frequency\na,0.5\n"]
    assert stat.S_ISFIFO(os.stat(pipe).st_mode)


def test_the_command_line_writes_to_dev_stdout(tmp_path: Path) -> None:
    """``--output /dev/stdout`` (a common idiom) writes to standard output."""
    estimates = tmp_path / "estimates.csv"
    estimates.write_text("value,estimate\na,0.6\nb,0.5\nc,-0.1\n")
    args = "postprocess --protocol GRR --epsilon 1 --n 1000 --method Norm-Sub"
    out = subprocess.run(
        [*COMMAND, *args.split(), "--input", str(estimates), "--output", "/dev/stdout"],
        check=False,
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.splitlines()[0] == "value,frequency" and len(out.stdout.splitlines()) == 4


def test_reproduce_stopped_before_any_recipe_leaves_no_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`reproduce` killed early left an empty folder behind."""
    import ldpcore.reproduce as reproducing  # noqa: PLC0415

    def stopped(*_args: object, **_kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(reproducing, "run_recipe", stopped)
    out = tmp_path / "out"
    with pytest.raises(KeyboardInterrupt):
        reproducing.reproduce([reproducing.recipe_ids()[0]], "quick", out, png=False)
    assert not out.exists()
