"""The live class's store: validation, the key, concurrent writers, durability, export."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pytest

from ldpcore.errors import InputError
from ldpcore.live.reports import (
    browser_parameters,
    check_report,
    class_collected,
    export_reports,
    poll_protocol,
)
from ldpcore.live.store import PollError, PollStore, normalize_code

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
ROOT = Path(__file__).resolve().parents[2]


def _report(protocol: str, rng: np.random.Generator) -> dict[str, object]:
    """A report in the report space, drawn by the Python protocol (not the browser)."""
    chosen = poll_protocol(protocol, 1.0, len(DAYS))
    from ldpcore.collection.report_files import reports_to_frame  # noqa: PLC0415

    reports = chosen.randomize(np.array([int(rng.integers(len(DAYS)))]), rng=rng)
    frame = reports_to_frame(chosen, reports, text=True)
    # Column by column: a row of mixed columns would pass through float64.
    row = {c: frame[c].iloc[0] for c in frame.columns}
    return {
        k: str(v) if k.startswith("seed") else getattr(v, "item", lambda v=v: v)()
        for k, v in row.items()
    }


@pytest.mark.parametrize(
    ("question", "options", "protocol", "epsilon", "says"),
    [
        ("", DAYS, "GRR", 1.0, "the question is empty"),
        ("Day?", ("only one",), "GRR", 1.0, "needs 2 to 50 options; got 1"),
        ("Day?", tuple(str(i) for i in range(51)), "GRR", 1.0, "got 51"),
        ("Day?", ("a", "b", "a"), "GRR", 1.0, "repeated: a"),
        ("Day?", DAYS, "SS", 1.0, "runs GRR, OLH, OUE in the browser"),
        ("Day?", DAYS, "GRR", -1.0, "epsilon"),
        ("x" * 301, DAYS, "GRR", 1.0, "keep it to 300"),
    ],
)
def test_a_poll_that_cannot_run_is_refused_with_what_to_change(  # noqa: PLR0917
    tmp_path: Path,
    question: str,
    options: tuple[str, ...],
    protocol: str,
    epsilon: float,
    says: str,
) -> None:
    with pytest.raises(InputError, match=says):
        PollStore(tmp_path).create(question, options, protocol=protocol, epsilon=epsilon)
    assert PollStore(tmp_path).polls() == []


def test_the_key_opens_only_its_poll_and_is_stored_hashed(tmp_path: Path) -> None:
    store = PollStore(tmp_path)
    poll, key = store.create("Day?", DAYS, protocol="grr", epsilon=1.0)
    other, other_key = store.create("Day?", DAYS, protocol="OLH", epsilon=2.0)
    assert poll.protocol == "GRR" and len(poll.code) == 6 and poll.code != other.code
    assert store.check_key(poll.code, key) and store.check_key(poll.code.lower(), key)
    assert not store.check_key(poll.code, other_key) and not store.check_key("NOPE12", key)
    with pytest.raises(PollError, match="does not open"):
        store.delete(poll.code, other_key)
    raw = b"".join(path.read_bytes() for path in tmp_path.iterdir())
    assert key.encode() not in raw and other_key.encode() not in raw
    # A restart (a new store on the same folder) brings the poll back, key and all.
    again = PollStore(tmp_path)
    assert again.get(poll.code) == poll and again.check_key(poll.code, key)


def test_reports_are_checked_refused_twice_and_after_closing(tmp_path: Path) -> None:
    store = PollStore(tmp_path)
    poll, key = store.create("Day?", DAYS, protocol="GRR", epsilon=1.0)
    assert store.submit(poll.code, "browser-0001", {"value": 6}) == 1
    with pytest.raises(PollError, match="already answered"):
        store.submit(poll.code, "browser-0001", {"value": 2})
    for bad in ({"value": 7}, {"value": -1}, {"value": 1.5}, {"value": True}, {"bits": "00"}, {}):
        with pytest.raises(InputError, match="GRR report"):
            store.submit(poll.code, "browser-0002", bad)
    with pytest.raises(PollError, match="no poll with the code 'ZZZZZZ'"):
        store.submit("zzz zzz", "browser-0002", {"value": 1})
    store.close(poll.code, key)
    with pytest.raises(PollError, match="closed"):
        store.submit(poll.code, "browser-0003", {"value": 1})
    assert store.count(poll.code) == 1 and store.reports(poll.code) == [{"value": 6}]
    store.delete(poll.code, key)
    assert store.get(poll.code) is None and store.count(poll.code) == 0


@pytest.mark.parametrize("protocol", ["GRR", "OUE", "OLH"])
def test_the_report_space_is_exactly_what_the_protocol_reads(protocol: str) -> None:
    chosen = poll_protocol(protocol, 1.0, len(DAYS))
    rng = np.random.default_rng(24)
    for _ in range(50):
        report = _report(protocol, rng)
        assert check_report(chosen, report) == report
    refused = {
        # In range but not in the declared type: text for a number, a boolean.
        "GRR": [
            {"value": "7"},
            {"value": "x"},
            {"value": 3, "extra": 1},
            {"value": "3"},
            {"value": True},
            {"value": 3.0},
        ],
        "OUE": [{"bits": "80"}, {"bits": "0"}, {"bits": "zz"}, {"bits": 5}],
        "OLH": [
            {"seed_a": str(2**64), "seed_b": "1", "bucket": 0},
            {"seed_a": "-1", "seed_b": "1", "bucket": 0},
            {"seed_a": 1.0, "seed_b": "1", "bucket": 0},
            {"seed_a": 1, "seed_b": "1", "bucket": 0},
            {"seed_a": "1", "seed_b": "1", "bucket": "0"},
            {"seed_a": "1", "seed_b": "1", "bucket": browser_parameters(chosen).get("g", 0)},
        ],
    }[protocol]
    for report in refused:
        with pytest.raises(InputError):
            check_report(chosen, report)


def _submit_many(args: tuple[str, str, int, int]) -> list[int]:
    directory, code, worker, count = args
    store = PollStore(directory)
    return [
        store.submit(code, f"w{worker:03d}-client-{i:04d}", {"value": i % 7}) for i in range(count)
    ]


def test_a_class_submitting_at_once_loses_no_report(tmp_path: Path) -> None:
    """Processes and threads write at the same moment: every confirmed report is stored."""
    store = PollStore(tmp_path)
    poll, _ = store.create("Day?", DAYS, protocol="GRR", epsilon=1.0)
    with ProcessPoolExecutor(4) as pool:
        counts = list(pool.map(_submit_many, [(str(tmp_path), poll.code, w, 25) for w in range(4)]))
    errors: list[BaseException] = []

    def threaded(worker: int) -> None:
        try:
            _submit_many((str(tmp_path), poll.code, 100 + worker, 10))
        except BaseException as exc:  # collected: a thread's exception is otherwise lost
            errors.append(exc)

    threads = [threading.Thread(target=threaded, args=(w,)) for w in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert store.count(poll.code) == 4 * 25 + 8 * 10
    # Each confirmation carried the count just after its own commit: all distinct.
    flat = [c for part in counts for c in part]
    assert len(set(flat)) == len(flat)
    with sqlite3.connect(tmp_path / "polls.sqlite3") as connection:
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_a_server_killed_mid_stream_keeps_every_confirmed_report(tmp_path: Path) -> None:
    """A writer is SIGKILLed while submitting; every report it printed as confirmed is there."""
    store = PollStore(tmp_path)
    poll, _ = store.create("Day?", DAYS, protocol="GRR", epsilon=1.0)
    script = textwrap.dedent(
        f"""
        import sys
        from ldpcore.live.store import PollStore
        store = PollStore({str(tmp_path)!r})
        for i in range(100000):
            store.submit({poll.code!r}, f"killed-client-{{i:06d}}", {{"value": i % 7}})
            print(i, flush=True)
        """
    )
    process = subprocess.Popen(
        [sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, cwd=ROOT
    )
    assert process.stdout is not None
    confirmed = [int(process.stdout.readline()) for _ in range(200)]
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    rest = process.stdout.read().split()
    process.stdout.close()
    confirmed += [int(line) for line in rest if line.isdigit()]
    stored = PollStore(tmp_path).count(poll.code)
    assert stored >= len(confirmed) == max(confirmed) + 1


@pytest.mark.parametrize("protocol", ["GRR", "OUE", "OLH"])
def test_an_export_is_a_report_file_aggregate_reads(tmp_path: Path, protocol: str) -> None:
    store = PollStore(tmp_path / "data")
    poll, _ = store.create("Day?", DAYS, protocol=protocol, epsilon=1.0)
    rng = np.random.default_rng(7)
    for i in range(40):
        store.submit(poll.code, f"client-{i:05d}", _report(protocol, rng))
    output = tmp_path / "class.csv"
    done = subprocess.run(
        [sys.executable, "-m", "ldpcore.cli", "poll", "export", "--code", poll.code.lower(),
         "--output", str(output), "--data-dir", str(tmp_path / "data")],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert f"wrote 40 reports of poll {poll.code}" in done.stdout
    assert output.read_text().startswith(f"# ldpcore protocol={protocol} epsilon=1.0")
    # Which option each value is: the question and the options' text, as # lines.
    assert "\n# question: Day?\n" in output.read_text()
    assert f"\n# option 6: {DAYS[6]}\n" in output.read_text()
    command = [sys.executable, "-m", "ldpcore.cli", "aggregate", "--input", str(output),
               "--protocol", protocol, "--epsilon", "1", "--domain-size", "7"]  # fmt: skip
    aggregated = subprocess.run(command, capture_output=True, text=True, check=False, cwd=ROOT)
    assert aggregated.returncode == 0, aggregated.stderr
    lines = aggregated.stdout.strip().splitlines()
    assert lines[0] == "value,count" and len(lines) == 8
    counts = np.array([int(line.split(",")[1]) for line in lines[1:]], dtype=float)
    # The same numbers as the Class page's Base estimate, from the same stored reports.
    collected = class_collected(poll, store.reports(poll.code))
    chosen = poll_protocol(protocol, 1.0, len(DAYS))
    np.testing.assert_allclose(chosen.estimate(counts, 40), collected.estimate, rtol=1e-12)
    assert collected.n == 40
    listed = subprocess.run(
        [sys.executable, "-m", "ldpcore.cli", "poll", "list", "--data-dir", str(tmp_path / "data")],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert poll.code in listed.stdout and " 40 " in listed.stdout


def test_exporting_an_unknown_poll_says_how_to_find_one(tmp_path: Path) -> None:
    PollStore(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "ldpcore.cli", "poll", "export", "--code", "AB", "--output",
         str(tmp_path / "x.csv"), "--data-dir", str(tmp_path)],
        capture_output=True, text=True, check=False, cwd=ROOT,
    )  # fmt: skip
    assert done.returncode == 2 and "see 'ldpcore poll list'" in done.stderr
    assert not (tmp_path / "x.csv").exists()
    with pytest.raises(InputError, match="cannot write --output"):
        export_reports(*_one_poll(tmp_path), tmp_path / "missing" / "x.csv")


def _one_poll(directory: Path) -> tuple[object, list[dict[str, object]]]:
    store = PollStore(directory)
    poll, _ = store.create("Day?", DAYS, protocol="GRR", epsilon=1.0)
    store.submit(poll.code, "client-00001", {"value": 1})
    return poll, store.reports(poll.code)


def test_an_unwritable_data_directory_is_explained(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(PollError, match="set LDPCORE_DATA_DIR to a folder"):
        PollStore(blocker / "sub")


def test_codes_read_as_typed() -> None:
    assert normalize_code(" abc-123 ") == "ABC123"


def _submit_counting_refusals(args: tuple[str, str, int, int]) -> tuple[int, int]:
    directory, code, worker, count = args
    store = PollStore(directory)
    taken = refused = 0
    for i in range(count):
        try:
            store.submit(code, f"w{worker:03d}-client-{i:04d}", {"value": i % 7})
            taken += 1
        except PollError as exc:
            assert "is full" in str(exc)
            refused += 1
    return taken, refused


def test_a_poll_takes_its_class_size_and_counts_who_it_turned_away(tmp_path: Path) -> None:
    store = PollStore(tmp_path)
    poll, key = store.create("Day?", DAYS, protocol="GRR", epsilon=1.0, max_reports=3)
    assert store.get(poll.code).max_reports == 3  # type: ignore[union-attr]
    for i in range(3):
        store.submit(poll.code, f"browser-{i:04d}", {"value": i})
    for client in ("browser-late-1", "browser-late-2", "browser-late-1"):
        with pytest.raises(PollError, match=r"is full: it takes 3 reports \(the class size"):
            store.submit(poll.code, client, {"value": 4})
    # Two browsers turned away (one of them twice), none of their reports stored.
    assert store.refused(poll.code) == 2 and store.count(poll.code) == 3
    # A stored report sent again is still confirmed, full or not.
    assert store.submit(poll.code, "browser-0001", {"value": 1}) == 3
    store.delete(poll.code, key)
    assert store.refused(poll.code) == 0


def test_the_same_report_again_is_stored_once_and_confirmed(tmp_path: Path) -> None:
    """A student whose confirmation was lost sends the same report: one row, "sent"."""
    store = PollStore(tmp_path)
    poll, key = store.create("Day?", DAYS, protocol="OUE", epsilon=1.0)
    report = _report("OUE", np.random.default_rng(3))
    assert store.submit(poll.code, "browser-0001", report) == 1
    assert store.submit(poll.code, "browser-0001", dict(report)) == 1
    assert store.count(poll.code) == 1
    store.close(poll.code, key)
    assert store.submit(poll.code, "browser-0001", report) == 1  # confirmed even closed


@pytest.mark.parametrize("size", [0, -5, 2001, 1.5, True, "200", None])
def test_a_class_size_that_cannot_be_is_refused_with_the_range(
    tmp_path: Path, size: object
) -> None:
    with pytest.raises(PollError, match="a whole number from 1 to 2,000"):
        PollStore(tmp_path).create("Day?", DAYS, protocol="GRR", epsilon=1.0, max_reports=size)  # type: ignore[arg-type]


def test_a_class_at_once_never_gets_past_its_class_size(tmp_path: Path) -> None:
    """Four processes send 25 reports each to a poll of 50: exactly 50 are stored."""
    store = PollStore(tmp_path)
    poll, _ = store.create("Day?", DAYS, protocol="GRR", epsilon=1.0, max_reports=50)
    with ProcessPoolExecutor(4) as pool:
        found = list(
            pool.map(
                _submit_counting_refusals, [(str(tmp_path), poll.code, w, 25) for w in range(4)]
            )
        )
    assert sum(t for t, _ in found) == store.count(poll.code) == 50
    assert sum(r for _, r in found) == store.refused(poll.code) == 50


def test_a_database_from_before_class_sizes_opens_with_the_default(tmp_path: Path) -> None:
    """The first schema (no max_reports, no refusals): its polls take 200 reports."""
    with sqlite3.connect(tmp_path / "polls.sqlite3") as connection:
        connection.executescript(
            """
            CREATE TABLE polls (code TEXT PRIMARY KEY, question TEXT NOT NULL,
                options TEXT NOT NULL, protocol TEXT NOT NULL, epsilon REAL NOT NULL,
                key_salt BLOB NOT NULL, key_hash BLOB NOT NULL, created REAL NOT NULL,
                closed INTEGER NOT NULL DEFAULT 0);
            CREATE TABLE reports (id INTEGER PRIMARY KEY, code TEXT NOT NULL,
                client TEXT NOT NULL, report TEXT NOT NULL, received REAL NOT NULL,
                UNIQUE (code, client));
            INSERT INTO polls VALUES ('ABCDEF', 'Day?', '["a", "b"]', 'GRR', 1.0, x'00',
                x'00', 0.0, 0);
            """
        )
    store = PollStore(tmp_path)
    assert store.get("ABCDEF").max_reports == 200  # type: ignore[union-attr]
    assert store.submit("ABCDEF", "browser-0001", {"value": 1}) == 1
    assert store.refused("ABCDEF") == 0


def test_the_operator_s_log_holds_every_decision_and_every_teacher_change(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    """Counted, held, refused and removed, each with the address's digest (never the
    address), and the teacher's changes: what an operator reads after a lesson."""
    import logging  # noqa: PLC0415

    from ldpcore.live.store import Held, Refused  # noqa: PLC0415

    store = PollStore(tmp_path)
    poll, key = store.create("Day?", DAYS, protocol="GRR", epsilon=1.0)
    with caplog.at_level(logging.INFO, logger="ldpcore.live"):
        store.submit(poll.code, "client-0001", {"value": 1}, address="127.0.0.5")
        with pytest.raises(Held):  # a second browser behind the same address: held
            store.submit(poll.code, "client-0002", {"value": 2}, address="127.0.0.5")
        with pytest.raises(InputError):  # not in its declared type
            store.submit(poll.code, "client-0003", {"value": "3"}, address="127.0.0.6")
        label = store.addresses(poll.code)[0].label
        store.set_seats(poll.code, key, 2)
        store.show(poll.code, key, 1, "Norm-Sub")
        store.resize(poll.code, key, 30)
        store.remove_address(poll.code, key, label)
        with pytest.raises(Refused):
            store.submit(poll.code, "client-0004", {"value": 1}, address="127.0.0.5")
    said = "\n".join(record.getMessage() for record in caplog.records)
    for words in (
        "a report counted",
        "a report held for the teacher",
        "a report refused (invalid)",
        "a report refused (removed)",
        "the teacher set 2 seats per address",
        "the teacher showed step 2 (Norm-Sub)",
        "the teacher set the class size to 30",
        "the teacher removed 2 reports and refused the address",
    ):
        assert words in said, (words, said)
    assert f"address {label}" in said
    assert "127.0.0" not in said  # the digest, never the address
