"""What the operator and the teacher can account for: the log (every line with its time,
level and logger; the doors at WARNING with the address; a file and a level from the
environment), and every refused send counted under "turned away"."""

from __future__ import annotations

import logging
import re
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest
from command import COMMAND

from ldpcore.errors import InputError
from ldpcore.live.doors import Doors
from ldpcore.live.store import PollStore
from ldpcore.serving.logs import APP_LOGGERS, configure_logging, log_settings

#: ``2026-11-28T20:05:43.123 WARNING ldpcore.live.doors: a wrong passcode from …``
LINE = re.compile(
    r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3} (DEBUG|INFO|WARNING|ERROR) [a-z_.]+: .+$"
)


@pytest.fixture
def log_file(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "operator.log"
    handlers = configure_logging(logging.INFO, path)
    yield path
    for name in APP_LOGGERS:  # leave the loggers as the other tests found them
        logger = logging.getLogger(name)
        for handler in handlers:
            logger.removeHandler(handler)
            handler.close()
        logger.propagate = True
        logger.setLevel(logging.NOTSET)


def test_every_line_has_its_time_level_and_logger(log_file: Path, tmp_path: Path) -> None:
    doors = Doors(tmp_path / "doors.sqlite")
    doors.failed("passcode", "127.0.0.55")
    store = PollStore(tmp_path / "polls.sqlite")
    poll, key = store.create("Pets?", ["cat", "dog"], protocol="GRR", epsilon=1.0)
    store.close(poll.code, key)
    store.delete(poll.code, key)
    lines = log_file.read_text(encoding="utf-8").splitlines()
    assert lines, "nothing was logged"
    for line in lines:
        assert LINE.match(line), line
    wrong = [line for line in lines if "wrong passcode" in line]
    assert wrong and " WARNING ldpcore.live.doors: " in wrong[0] and "127.0.0.55" in wrong[0]
    said = "\n".join(lines)
    assert f"INFO ldpcore.live.store: poll {poll.code} started" in said
    assert f"poll {poll.code} closed" in said and f"poll {poll.code} deleted" in said
    # Configured again (a restarted launcher in one process): still one line each.
    configure_logging(logging.INFO, log_file)
    doors.failed("passcode", "127.0.0.56")
    again = [x for x in log_file.read_text(encoding="utf-8").splitlines() if "127.0.0.56" in x]
    assert len(again) == 1


def test_the_level_and_file_come_from_the_environment(tmp_path: Path) -> None:
    level, path = log_settings(
        {"LDPCORE_LOG_LEVEL": "warning", "LDPCORE_LOG_FILE": str(tmp_path / "a.log")}
    )
    assert level == logging.WARNING and path == tmp_path / "a.log"
    with pytest.raises(InputError, match="LDPCORE_LOG_LEVEL='LOUD': use one of DEBUG"):
        log_settings({"LDPCORE_LOG_LEVEL": "loud"})
    with pytest.raises(InputError, match="does not exist"):
        log_settings({"LDPCORE_LOG_FILE": str(tmp_path / "missing" / "a.log")})


def test_every_refused_send_is_counted_under_turned_away(tmp_path: Path) -> None:
    """Malformed browser identifiers and messages that are no report: each refused send is
    counted as "invalid", once per distinct send, and only a short digest is stored."""
    import sqlite3  # noqa: PLC0415

    from ldpcore.live.database import DATABASE_NAME  # noqa: PLC0415
    from ldpcore.live.poll import PollError  # noqa: PLC0415

    store = PollStore(tmp_path)
    path = tmp_path / DATABASE_NAME
    poll, _ = store.create("Pets?", ["cat", "dog"], protocol="GRR", epsilon=1.0)
    report = {"value": 0}
    for client in ("ab", "x" * 500, "ünïcödé-client"):
        with pytest.raises(PollError, match="identifier is malformed"):
            store.submit(poll.code, client, report, address="127.0.0.9")
    store.refuse_unreadable(poll.code, ["not", "a", "report"], address="127.0.0.9")
    store.refuse_unreadable(poll.code, ["not", "a", "report"], address="127.0.0.9")  # again
    assert store.turned_away(poll.code)["invalid"] == 4
    with sqlite3.connect(path) as connection:
        clients = [c for (c,) in connection.execute("SELECT client FROM refusals")]
    assert clients and max(map(len, clients)) <= 20


def _aggregate(*args: str) -> subprocess.CompletedProcess[str]:
    """``ldpcore aggregate ARGS``, never raising."""
    return subprocess.run(
        [*COMMAND, "aggregate", *args], capture_output=True, text=True, check=False, timeout=120
    )


def test_aggregate_reads_a_class_export_alone_and_keeps_the_option_names(tmp_path: Path) -> None:
    """The export records its protocol, ε and d and names each option: ``aggregate`` needs
    none of them named, and its counts carry the names (commas, quotes, an emoji, a
    formula kept as typed); its counts equal the reports'."""
    import csv  # noqa: PLC0415

    import numpy as np  # noqa: PLC0415

    from ldpcore.live.poll import Poll  # noqa: PLC0415
    from ldpcore.live.reports import poll_export_text, poll_protocol  # noqa: PLC0415

    options = ("Car", "Bus, or tram", 'Say "hi"', "🚲 Bicycle", "=1+1")
    poll = Poll("ABCDEF", "How do you come?", options, "GRR", 1.0, 0.0, False)
    protocol = poll_protocol("GRR", 1.0, len(options))
    rng = np.random.default_rng(0)
    sent = protocol.randomize(rng.integers(0, len(options), 40), rng)
    export = tmp_path / "poll-ABCDEF.csv"
    export.write_text(poll_export_text(poll, [{"value": int(v)} for v in sent]), "utf-8")
    done = _aggregate("--input", str(export))
    assert done.returncode == 0, done.stderr
    table = list(csv.reader(done.stdout.splitlines()))
    assert table[0] == ["value", "count"]
    assert [row[0] for row in table[1:]] == list(options)
    assert [int(row[1]) for row in table[1:]] == np.bincount(sent, minlength=5).tolist()
    # A flag that contradicts the record is refused in words; a file that records
    # nothing asks for the flag by name.
    wrong = _aggregate("--input", str(export), "--epsilon", "2")
    assert wrong.returncode == 2 and "written for epsilon = 1.0" in wrong.stderr
    bare = tmp_path / "bare.csv"
    bare.write_text("value\n1\n0\n")
    none = _aggregate("--input", str(bare))
    assert none.returncode == 2 and "records no protocol: name it (--protocol)" in none.stderr
