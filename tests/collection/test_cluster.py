"""Real collection and Dask: randomize → aggregate → estimate, sweeps, the privacy audit.

A 2-worker LocalCluster on 127.0.0.1 runs inside the suite (closed afterwards); the
same functions run locally, and the results must be identical.
"""

from __future__ import annotations

import dataclasses
import math
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from conftest import K_SIGMA

from ldpcore.collection.audit import audit
from ldpcore.collection.clients import randomize_file
from ldpcore.collection.estimates import read_collected
from ldpcore.collection.report_files import (
    aggregate_file,
    frame_to_reports,
    iter_frames,
    report_files,
)
from ldpcore.errors import InputError
from ldpcore.experiments.cluster import aggregate_on_dask, dask_client, parse_dask
from ldpcore.experiments.sweeps import grid, run_sweep
from ldpcore.protocols import get_protocol, protocol_class, protocol_names
from ldpcore.protocols.grr import GRR
from ldpcore.protocols.unary import OUE
from ldpcore.rng import as_source

distributed = pytest.importorskip("distributed")

D = 32
TRUTH = np.arange(D, 0, -1, dtype=float) / np.arange(D, 0, -1).sum()


@pytest.fixture(scope="module")
def client() -> Iterator[object]:
    # Something else holds Dask's default HTTP port (another cluster, another test run):
    # the suite's cluster must not need it.
    import socket  # noqa: PLC0415

    blocker = socket.socket()
    try:
        blocker.bind(("127.0.0.1", 8787))
        blocker.listen()
    except OSError:
        pass  # already taken by someone else: the same situation
    try:
        with dask_client("local:2") as dask:
            yield dask
    finally:
        blocker.close()


def _values_file(folder: Path, users: int, seed: int, name: str = "values.csv") -> Path:
    values = np.random.default_rng(seed).choice(D, size=users, p=TRUTH)
    path = folder / name
    path.write_text("value\n" + "\n".join(map(str, values)) + "\n")
    return path


def _ldpcore(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ldpcore.cli", *args], capture_output=True, text=True, check=False
    )


@pytest.mark.parametrize(
    "name", [name for name in protocol_names() if protocol_class(name).support_view]
)
def test_randomize_aggregate_estimate_is_unbiased(tmp_path: Path, name: str) -> None:
    """Real client randomizer → report file → streamed aggregation → Base: k·σ of Eq. 3."""
    users = 60_000
    values = _values_file(tmp_path, users, seed=5)
    protocol = get_protocol(name, epsilon=1.5, domain_size=D)
    suffix = ".csv" if name in {"OUE", "GRR", "OLH"} else ".parquet"  # both formats
    reports = tmp_path / f"reports{suffix}"
    assert (
        randomize_file(protocol, values, reports, rng=np.random.default_rng(9), chunk_rows=7_000)
        == users
    )
    counts, n = aggregate_file(protocol, reports, chunk_rows=5_000)
    assert n == users
    observed = np.bincount(pd.read_csv(values)["value"], minlength=D) / users
    # The protocol's own estimator where the file keeps its tally columns (dBitFlipPM:
    # Ding et al.'s, from the users who sampled each value), else the support counts'.
    estimate = (
        protocol.estimate_from_tallies(counts, users)
        if protocol.tally_columns
        else protocol.estimate(counts, users)
    )
    z = (estimate - observed) / np.sqrt(protocol.variance(observed, users))
    assert np.abs(z).max() < K_SIGMA, f"{name}: max |z| = {np.abs(z).max():.2f}"


@pytest.mark.parametrize("name", ["TreeOUE", "TreeOLH", "SW", "HaarHRR"])
def test_a_report_file_outside_the_pq_view_round_trips_and_its_counts_file_is_refused(
    tmp_path: Path, name: str
) -> None:
    """Reports → file → reports again, estimated unbiasedly; no counts file yet, in words."""
    users = 20_000
    values = _values_file(tmp_path, users, seed=5)
    protocol = get_protocol(name, epsilon=1.5, domain_size=D)
    reports = tmp_path / "reports.csv"
    randomize_file(protocol, values, reports, rng=np.random.default_rng(9), chunk_rows=7_000)
    tallies = sum(
        protocol.aggregate(frame_to_reports(protocol, frame, source="reports.csv"))
        for frame in iter_frames(reports, chunk_rows=5_000, protocol=protocol)
    )
    # A hierarchy's tallies begin with the users of each level; SW's are positions;
    # HaarHRR's each level's rows' reports, then their +1s.
    if name.startswith("Tree"):
        reported = tallies[: protocol.height]  # type: ignore[attr-defined]
    elif name == "SW":
        reported = tallies
    else:
        reported = [tallies[2 * (w - 1) : 2 * (w - 1) + w] for w in (1, 2, 4, 8, 16)]
        reported = np.concatenate(reported)
    assert int(np.sum(reported)) == users
    observed = np.bincount(pd.read_csv(values)["value"], minlength=D) / users
    estimate = protocol.estimate_from_tallies(tallies, users)
    z = (estimate - observed) / np.sqrt(protocol.variance(observed, users))
    assert np.abs(z).max() < K_SIGMA, f"{name}: max |z| = {np.abs(z).max():.2f}"
    for refused in (
        lambda: aggregate_file(protocol, reports),
        lambda: read_collected(b"value,count\na,5\nb,6\n", protocol=name, epsilon=1.5, n=11),
    ):
        with pytest.raises(InputError, match="not built yet"):
            refused()


@pytest.mark.parametrize("name", ["OLH", "OUE", "SS", "HR"])
def test_aggregation_is_identical_locally_and_on_the_cluster(
    client: object, tmp_path: Path, name: str
) -> None:
    protocol = get_protocol(name, epsilon=1.0, domain_size=D)
    parts = tmp_path / "parts"
    parts.mkdir()
    for i in range(3):
        values = _values_file(tmp_path, 20_000, seed=i, name=f"v{i}.csv")
        randomize_file(protocol, values, parts / f"p{i}.parquet", rng=np.random.default_rng(i))
    files = report_files(parts)
    local = sum(aggregate_file(protocol, f)[0] for f in files)
    remote, users = aggregate_on_dask(client, protocol, files, chunk_rows=4_096)
    assert users == 60_000 and np.array_equal(local, remote)


def test_sweep_is_bit_identical_on_the_cluster(client: object) -> None:
    points = grid(
        {
            "dataset": "zipf:d=64,s=1.5",
            "protocols": ["OLH", "HR"],
            "epsilons": [0.5, 2.0],
            "ns": [10_000],
            "methods": ["Base", "Norm-Sub"],
            "queries": ["full", "topk:k=4"],
            "trials": 6,
            "seed": 3,
        }
    )
    assert len(points) == 8
    local = run_sweep(points)
    remote = run_sweep(points, executor=client.get_executor())  # type: ignore[attr-defined]
    pd.testing.assert_frame_equal(local, remote, check_exact=True)


def test_cli_aggregate_local_and_dask_agree(tmp_path: Path) -> None:
    values = _values_file(tmp_path, 30_000, seed=1)
    common = ("--protocol", "OUE", "--epsilon", "1", "--domain-size", str(D))
    done = _ldpcore(
        "randomize", *common, "--input", str(values), "--output", str(tmp_path / "r.parquet")
    )
    assert done.returncode == 0 and "OS secure generator" in done.stderr
    local = _ldpcore("aggregate", *common, "--input", str(tmp_path / "r.parquet"))
    remote = _ldpcore(
        "aggregate", *common, "--input", str(tmp_path / "r.parquet"), "--dask", "local:2"
    )
    assert local.returncode == 0 and remote.returncode == 0, remote.stderr
    assert local.stdout == remote.stdout and local.stdout.startswith("value,count\n0,")
    assert "with 2 worker(s)" in remote.stderr


def test_dbitflip_report_files_give_ding_s_estimate_on_every_path(tmp_path: Path) -> None:
    """Report file → ``ldpcore aggregate`` (here and on Dask) → a counts file with the
    users who sampled each value → ``read_collected``: Ding et al.'s estimate of those
    very reports; without the column, the generalized form and a note saying so."""
    values = _values_file(tmp_path, 20_000, seed=4)
    common = ("--protocol", "dBitFlipPM", "--epsilon", "1", "--domain-size", str(D))
    reports = tmp_path / "r.parquet"
    done = _ldpcore("randomize", *common, "--d-bits", "2", "--input", str(values),
                    "--output", str(reports))  # fmt: skip
    assert done.returncode == 0, done.stderr
    local = _ldpcore("aggregate", *common, "--d-bits", "2", "--input", str(reports))
    remote = _ldpcore("aggregate", *common, "--d-bits", "2", "--input",
                      str(reports), "--dask", "local:2")  # fmt: skip
    assert local.returncode == 0 and remote.returncode == 0, remote.stderr
    assert local.stdout == remote.stdout and local.stdout.startswith("value,count,sampled\n")
    protocol = get_protocol("dBitFlipPM", epsilon=1.0, domain_size=D, d_bits=2)
    frame = next(iter_frames(reports, protocol=protocol))
    tallies = protocol.tally(frame_to_reports(protocol, frame, source="r.parquet"))
    collected = read_collected(
        local.stdout.encode(), protocol="dBitFlipPM", epsilon=1.0, n=20_000,
        params={"d_bits": 2},
    )  # fmt: skip
    np.testing.assert_allclose(
        collected.estimate, protocol.estimate_from_tallies(tallies, 20_000), atol=1e-12
    )
    assert not any("generalized form" in note for note in collected.notes)
    bare = "\n".join(",".join(line.split(",")[:2]) for line in local.stdout.splitlines())
    generalized = read_collected(
        bare.encode(), protocol="dBitFlipPM", epsilon=1.0, n=20_000,
        params={"d_bits": 2},
    )  # fmt: skip
    np.testing.assert_allclose(
        generalized.estimate, protocol.estimate(tallies[:D], 20_000), atol=1e-12
    )
    assert any("no sampled column" in note for note in generalized.notes)


MEMORY_BOUND_MB = 200


@pytest.mark.slow  # a full-size run: ten million reports through the streamed reader
def test_ten_million_reports_aggregate_in_bounded_memory(tmp_path: Path) -> None:
    """10 million OLH reports (d = 1024, a 300 MB Parquet file when decoded) are
    aggregated chunk by chunk with peak memory growing by less than 200 MB."""
    import pyarrow.parquet as pq  # noqa: PLC0415

    from ldpcore.collection.report_files import protocol_metadata, reports_to_frame  # noqa: PLC0415

    protocol = get_protocol("OLH", epsilon=1.0, domain_size=1024)
    path = tmp_path / "ten-million.parquet"
    generator = np.random.default_rng(0)
    writer = None
    for _ in range(10):
        values = generator.integers(0, 1024, size=1_000_000)
        frame = reports_to_frame(protocol, protocol.randomize(values, generator), text=False)
        table = __import__("pyarrow").Table.from_pandas(frame, preserve_index=False)
        if writer is None:
            meta = {k.encode(): v.encode() for k, v in protocol_metadata(protocol).items()}
            writer = pq.ParquetWriter(path, table.schema.with_metadata(meta))
        writer.write_table(table.replace_schema_metadata(writer.schema.metadata))
    assert writer is not None
    writer.close()
    script = f"""
import resource
from pathlib import Path
import numpy as np
from ldpcore.protocols import get_protocol
from ldpcore.collection.report_files import aggregate_file, iter_frames
protocol = get_protocol("OLH", epsilon=1.0, domain_size=1024)
next(iter_frames(Path({str(path)!r}), chunk_rows=1000))  # load pyarrow before the baseline
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
counts, users = aggregate_file(protocol, Path({str(path)!r}))
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(users, int(counts.sum()), (after - before) / 1024)
"""
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    users, total, growth_mb = done.stdout.split()
    assert int(users) == 10_000_000
    # Each report supports about n/g + (d−1)·n/g values: a sanity check on the sum.
    assert int(total) == pytest.approx(10_000_000 * (1 + 1023 / protocol.hash_range), rel=0.01)
    assert float(growth_mb) < MEMORY_BOUND_MB, f"peak memory grew by {growth_mb} MB"


# --- the audit ---------------------------------------------------------------------------


@pytest.mark.parametrize("name", protocol_names())
@pytest.mark.parametrize("epsilon", [0.5, 2.0])
def test_audit_passes_every_shipped_protocol(name: str, epsilon: float) -> None:
    protocol = get_protocol(name, epsilon=epsilon, domain_size=16)
    result = audit(protocol, runs=60_000, rng=4)
    assert result.passed, result.verdict
    # The event is built to have the channel's worst ratio: e^ε, or the smaller ε a
    # protocol's reports spend (THE thresholds an ε-LDP vector). The estimate is near it.
    spent = protocol.spent_epsilon()
    assert spent == epsilon or not protocol.spends_whole_budget
    assert result.empirical_ratio == pytest.approx(math.exp(spent), rel=0.25)


def test_audit_reports_progress_and_the_same_verdict() -> None:
    """the audit tells a callback how many reports it has randomized."""
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=2000)
    seen: list[tuple[int, int]] = []
    watched = audit(protocol, runs=3000, rng=2, progress=lambda *step: seen.append(step))
    assert seen[-1] == (12_000, 12_000) and len(seen) >= 4
    assert [done for done, _ in seen] == sorted(done for done, _ in seen)
    assert watched == audit(protocol, runs=3000, rng=2)


@dataclass(frozen=True, kw_only=True)
class LeakyOUE(OUE):
    """OUE whose code keeps the user's own bit set 90% of the time (p says 50%)."""

    name: ClassVar[str] = "LeakyOUE"  # its own name: nothing dispatches on names

    def randomize(self, values, rng=None):  # type: ignore[no-untyped-def]
        bits = super().randomize(values, rng)
        source = as_source(rng)
        rows = np.arange(len(values))
        bits[rows, np.asarray(values)] = source.random(len(values)) < 0.9
        return bits


@dataclass(frozen=True, kw_only=True)
class LeakyGRR(GRR):
    """GRR with its keep probability computed for twice the budget."""

    name: ClassVar[str] = "LeakyGRR"

    @property
    def p(self) -> float:
        e = math.exp(2 * self.epsilon)
        return e / (e + self.domain_size - 1)


def test_audit_catches_a_randomizer_that_leaks_in_its_code() -> None:
    result = audit(LeakyOUE(epsilon=1.0, domain_size=16), runs=60_000, rng=4)
    assert result.exact_ratio == pytest.approx(math.e)  # the formulas are right...
    assert (
        not result.passed and "randomizer's measured ratio" in result.verdict
    )  # ...the code is not


def test_audit_catches_a_wrong_channel() -> None:
    result = audit(LeakyGRR(epsilon=1.0, domain_size=16), runs=60_000, rng=4)
    assert not result.passed and "exceeds e^ε" in result.verdict


def test_cli_audit_exit_codes() -> None:
    done = _ldpcore(
        "audit",
        "--protocol",
        "HR",
        "--epsilon",
        "1",
        "--domain-size",
        "16",
        "--runs",
        "20000",
        "--seed",
        "1",
    )
    assert done.returncode == 0 and "consistent with ε-LDP" in done.stdout


# --- every bad input: one error line, exit code 2 -----------------------------------------


def test_bad_inputs(tmp_path: Path) -> None:
    values = _values_file(tmp_path, 1_000, seed=2)
    common = ("--epsilon", "1", "--domain-size", str(D))
    good = tmp_path / "good.parquet"
    assert (
        _ldpcore(
            "randomize",
            "--protocol",
            "OLH",
            *common,
            "--input",
            str(values),
            "--output",
            str(good),
            "--seed",
            "1",
        ).returncode
        == 0
    )
    truncated = tmp_path / "truncated.parquet"
    truncated.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    wrong = tmp_path / "wrong.csv"
    wrong.write_text("value\n3\n4\n")
    out_of_range = tmp_path / "values-big.csv"
    out_of_range.write_text("value\n3\n99\n")
    cases = [
        (
            (
                "randomize",
                "--protocol",
                "XYZ",
                *common,
                "--input",
                str(values),
                "--output",
                str(tmp_path / "x.parquet"),
            ),
            "unknown protocol",
        ),
        (
            (
                "randomize",
                "--protocol",
                "GRR",
                *common,
                "--input",
                str(out_of_range),
                "--output",
                str(tmp_path / "x.csv"),
            ),
            "line 3: value '99' is not a whole number in [0, 32)",
        ),
        (
            (
                "randomize",
                "--protocol",
                "GRR",
                *common,
                "--input",
                str(values),
                "--output",
                str(tmp_path / "x.txt"),
            ),
            "must end in .parquet or .csv",
        ),
        (("aggregate", "--protocol", "OLH", *common, "--input", str(wrong)), "wrong report format"),
        (("aggregate", "--protocol", "OLH", *common, "--input", str(truncated)), "cannot read"),
        (
            (
                "aggregate",
                "--protocol",
                "OLH",
                "--epsilon",
                "1",
                "--domain-size",
                "64",
                "--input",
                str(good),
            ),
            "was written for domain_size = 32",
        ),
        (
            ("aggregate", "--protocol", "OLH", *common, "--input", str(tmp_path / "none.parquet")),
            "does not exist",
        ),
        (
            (
                "aggregate",
                "--protocol",
                "OLH",
                *common,
                "--input",
                str(good),
                "--dask",
                "tcp://127.0.0.1:9",
                "--connect-timeout",
                "1",
            ),
            "cannot reach the Dask scheduler",
        ),
        (
            ("aggregate", "--protocol", "OLH", *common, "--input", str(good), "--dask", "lots"),
            "--dask must be local:N or tcp://HOST:PORT",
        ),
        (
            ("sweep", "--config", str(tmp_path / "none.toml"), "--out", "x.parquet"),
            "does not exist",
        ),
        (("audit", "--protocol", "GRR", *common, "--runs", "10"), "runs must be"),
    ]
    for args, message in cases:
        done = _ldpcore(*args)
        lines = done.stderr.strip().splitlines()
        assert done.returncode == 2, (args, done.stderr)
        assert len(lines) == 1 and lines[0].startswith("error:"), (args, done.stderr)
        assert message in lines[0], (args, lines[0])


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("protocols = ['OLH']\n", "'dataset' is required"),
        ("dataset = 'zipf:d=64'\ncolour = 'red'\n", "unknown key(s) colour"),
        ("dataset = 'zipf:d=64'\nepsilons = []\n", "'epsilons' must be a non-empty list"),
        ("dataset = 'zipf:d=64'\nprotocols = ['XYZ']\n", "unknown protocol"),
        ("dataset = [1\n", "is not valid TOML"),
    ],
)
def test_bad_sweep_files(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "sweep.toml"
    path.write_text(text)
    done = _ldpcore("sweep", "--config", str(path), "--out", str(tmp_path / "r.parquet"))
    assert done.returncode == 2 and message in done.stderr, done.stderr


def test_parse_dask() -> None:
    assert parse_dask("tcp://10.0.0.5:8786") == ("tcp", "tcp://10.0.0.5:8786")
    with pytest.raises(ValueError, match="1 <= N <= 256"):
        parse_dask("local:0")


def test_paper_recipes_give_the_same_numbers_on_the_cluster(client: object) -> None:
    from ldpcore.reproduce import Context, run_recipe  # noqa: PLC0415

    remote_context = Context("quick", executor=client.get_executor(), workers=2)  # type: ignore[attr-defined]
    for recipe_id in ("ndss-fig5", "ibu-table1"):
        local = run_recipe(recipe_id, "quick")
        remote = run_recipe(recipe_id, "quick", context=remote_context)
        pd.testing.assert_frame_equal(local.data, remote.data, check_exact=True)
        assert [c.holds for c in local.claims] == [c.holds for c in remote.claims]


# --- Faults: a worker killed mid-run ------------------------------------------------


def _kill_a_busy_worker(client: object, started: threading.Event) -> None:
    """SIGKILL the process of a worker once it runs a task (the nanny starts a new one)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        busy = [address for address, keys in client.processing().items() if keys]  # type: ignore[attr-defined]
        if busy:
            pids = client.run(os.getpid, workers=[busy[0]])  # type: ignore[attr-defined]
            os.kill(pids[busy[0]], signal.SIGKILL)
            started.set()
            return
        time.sleep(0.02)
    raise AssertionError("no task ever started")


def test_a_worker_killed_during_a_sweep_is_retried_to_the_same_table(client: object) -> None:
    points = grid(
        {
            "dataset": "zipf:d=512,s=1.2",
            "ns": [10**6],
            "protocols": ["OLH", "OUE"],
            "epsilons": [0.5, 1.0, 2.0, 3.0, 4.0, 5.0],
            "trials": 20,
        }
    )
    local = run_sweep(points)
    killed = threading.Event()
    killer = threading.Thread(target=_kill_a_busy_worker, args=(client, killed))
    killer.start()
    try:
        remote = run_sweep(points, executor=client.get_executor())  # type: ignore[attr-defined]
    finally:
        killer.join()
        client.wait_for_workers(2, timeout=60)  # type: ignore[attr-defined]
    assert killed.is_set()
    pd.testing.assert_frame_equal(remote, local)  # complete and bit-identical


def test_a_worker_killed_during_aggregate_dask_is_retried_to_the_same_counts(
    client: object, tmp_path: Path
) -> None:
    protocol = get_protocol("OUE", epsilon=1.0, domain_size=D)
    folder = tmp_path / "parts"
    folder.mkdir()
    for part in range(6):
        values = _values_file(tmp_path, 40_000, seed=part, name=f"values{part}.csv")
        randomize_file(
            protocol, values, folder / f"part{part}.csv", rng=np.random.default_rng(part)
        )
    files = report_files(folder)
    local = [aggregate_file(protocol, f, chunk_rows=2_000) for f in files]
    killed = threading.Event()
    killer = threading.Thread(target=_kill_a_busy_worker, args=(client, killed))
    killer.start()
    try:
        counts, users = aggregate_on_dask(client, protocol, files, chunk_rows=2_000)
    finally:
        killer.join()
        client.wait_for_workers(2, timeout=60)  # type: ignore[attr-defined]
    assert killed.is_set()
    assert users == sum(rows for _, rows in local) == 240_000
    np.testing.assert_array_equal(counts, sum(part for part, _ in local))


def _die() -> None:
    os._exit(1)


def test_a_task_that_kills_every_worker_ends_in_one_clear_error() -> None:
    import dask  # noqa: PLC0415

    # No retries, so one death is final (the default retries 3 times on other workers).
    with (
        dask.config.set({"distributed.scheduler.allowed-failures": 0}),
        pytest.raises(InputError, match=r"died running it.*nothing was written"),
        dask_client("local:1") as one,
    ):
        one.submit(_die, pure=False).result()


def test_the_default_audit_is_bounded_at_large_d_and_says_so() -> None:
    """at d = 20,000 a SUE report is 20,000 cells; the default runs shrink to
    the cell budget (the randomizer still runs whole), and the verdict says so. Asking
    for runs is honoured; a small protocol keeps the full default."""
    from ldpcore.collection.audit import (  # noqa: PLC0415
        CELLS_MAX,
        DEFAULT_RUNS,
        RUNS_MIN_CAPPED,
        default_runs,
    )

    sue = get_protocol("SUE", epsilon=1.0, domain_size=20_000)
    runs = default_runs(sue)  # the cell budget, but never below the floor that keeps power
    assert runs == max(RUNS_MIN_CAPPED, CELLS_MAX // (4 * 20_000)) < DEFAULT_RUNS
    assert default_runs(get_protocol("GRR", epsilon=1.0, domain_size=20_000)) == DEFAULT_RUNS
    result = audit(sue, runs=2000, rng=5)  # the suite's small run at d = 20,000
    assert result.passed and result.runs == 2000 and result.capped_from is None
    assert "instead of" not in result.verdict
    capped = dataclasses.replace(result, runs=runs, capped_from=DEFAULT_RUNS)
    assert f"{runs:,} runs per input instead of 200,000" in capped.verdict
