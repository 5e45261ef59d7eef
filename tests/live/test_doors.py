"""Doors that hold: wrong tries at the teacher passcode and handover codes, per address,
slowed, then locked until the operator lifts them; logged; kept across a restart.

The rules run on a clock the test moves (no waiting); the Class page and the command
line are driven as a person would.
"""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from apptest import app

from ldpcore.cli import main
from ldpcore.live.doors import (
    FREE_FAILURES,
    LOCKOUT_FAILURES,
    Doors,
    backoff_s,
)
from ldpcore.live.store import PollStore


def _class_page():
    """The Class page, opened as a browser opens it."""
    at = app()
    at.run()
    at.switch_page("pages/class.py")
    at.run()
    return at


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_wrong_tries_are_free_then_slowed_twice_as_long_each_then_locked(tmp_path: Path) -> None:
    clock = Clock()
    doors = Doors(tmp_path / "polls.sqlite3", clock=clock)
    for _ in range(FREE_FAILURES):
        assert doors.attempt("passcode", "10.0.0.7").allowed
        doors.failed("passcode", "10.0.0.7")
    assert doors.attempt("passcode", "10.0.0.7").allowed  # a mistyping teacher: no wait
    waits = []
    for failures in range(FREE_FAILURES + 1, LOCKOUT_FAILURES):
        state = doors.failed("passcode", "10.0.0.7")
        assert state.failures == failures and not state.allowed
        waits.append(state.wait_s)
        clock.now += state.wait_s - 0.01
        assert not doors.attempt("passcode", "10.0.0.7").allowed  # a hundredth too soon
        clock.now += 0.01
        assert doors.attempt("passcode", "10.0.0.7").allowed
    assert waits[:4] == [1.0, 2.0, 4.0, 8.0] and max(waits) == 300.0
    assert waits == sorted(waits)
    # Another address, and the other door, are untouched.
    assert doors.attempt("passcode", "10.0.0.8").allowed
    assert doors.attempt("handover", "10.0.0.7").allowed
    locked = doors.failed("passcode", "10.0.0.7")
    assert locked.locked and not locked.allowed
    clock.now += 10 * 3600  # a lock-out does not wear off
    assert doors.attempt("passcode", "10.0.0.7").locked
    # Kept across a restart: a new Doors on the same file.
    assert Doors(tmp_path / "polls.sqlite3", clock=clock).state("passcode", "10.0.0.7").locked
    assert doors.locked() == [("passcode", "10.0.0.7", LOCKOUT_FAILURES)]
    assert doors.unlock("10.0.0.7") == 1
    assert doors.attempt("passcode", "10.0.0.7").allowed and doors.locked() == []


def test_a_right_try_clears_the_count_and_every_wrong_one_is_logged(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    clock = Clock()
    doors = Doors(tmp_path / "polls.sqlite3", clock=clock)
    with caplog.at_level(logging.WARNING, logger="ldpcore.live.doors"):
        for _ in range(FREE_FAILURES + 1):
            doors.failed("handover", "192.0.2.4")
        doors.attempt("handover", "192.0.2.4")  # too soon: refused, and logged
    said = [r.getMessage() for r in caplog.records]
    assert sum("a wrong handover from 192.0.2.4" in s for s in said) == FREE_FAILURES + 1
    assert any("refused a try at the handover from 192.0.2.4" in s for s in said)
    clock.now += backoff_s(FREE_FAILURES + 1)
    doors.succeeded("handover", "192.0.2.4")
    assert doors.state("handover", "192.0.2.4").failures == 0


def test_the_class_page_slows_a_guessed_passcode_and_refuses_even_the_right_one_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A browser that is not on the server's machine, guessing: three wrong tries are
    answered as wrong; the fourth makes it wait, and the right passcode sent at once is
    refused unchecked. Once the operator lifts the count, the right one admits it."""
    monkeypatch.setenv("LDPCORE_DATA_DIR", str(tmp_path))
    monkeypatch.setenv("LDPCORE_TEACHER_PASSCODE", "right-passcode")
    monkeypatch.setattr(
        "pages.app_layer.classroom.teacher.on_this_machine", lambda: False, raising=True
    )
    at = _class_page()
    for guess in ("guess-0001", "guess-0002", "guess-0003", "guess-0004"):
        at.text_input(key="class-passcode").set_value(guess)
        at.button(key="class-passcode-go").click().run()
        assert not at.exception, at.exception
        assert "That passcode is not this server's" in at.error[0].value
    at.text_input(key="class-passcode").set_value("right-passcode")
    at.button(key="class-passcode-go").click().run()
    assert "Too many wrong passcodes from this address: wait" in at.error[0].value
    assert "class-start" not in [b.key for b in at.button]  # not admitted
    Doors(PollStore(tmp_path).path).unlock(_only_address(tmp_path))
    at.button(key="class-passcode-go").click().run()
    assert not at.error and "class-start" in [b.key for b in at.button]


def _only_address(directory: Path) -> str:
    import sqlite3  # noqa: PLC0415

    with sqlite3.connect(PollStore(directory).path) as connection:
        (address,) = connection.execute("SELECT DISTINCT address FROM door_failures").fetchone()
    return str(address)


def test_the_operator_lists_and_lifts_a_lock_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    doors = Doors(PollStore(tmp_path).path)
    for _ in range(LOCKOUT_FAILURES):
        doors.failed("passcode", "198.51.100.9")
    assert main(["poll", "locked", "--data-dir", str(tmp_path)]) == 0
    assert (
        "198.51.100.9  locked out of the passcode after 20 wrong tries" in capsys.readouterr().out
    )
    assert main(["poll", "unlock", "--address", "198.51.100.9", "--data-dir", str(tmp_path)]) == 0
    assert "198.51.100.9 may try again (1 count lifted)" in capsys.readouterr().out
    assert main(["poll", "locked", "--data-dir", str(tmp_path)]) == 0
    assert "no address is locked out" in capsys.readouterr().out


def test_the_class_page_slows_guessed_handover_codes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The same door on the handover code: a real code typed after four wrong ones at
    once is refused unchecked (and stays unused: it works after the wait)."""
    monkeypatch.setenv("LDPCORE_DATA_DIR", str(tmp_path))
    store = PollStore(tmp_path)
    poll, key = store.create("Q?", ["A", "B"], protocol="GRR", epsilon=1.0)
    real = store.handover(poll.code, key)
    at = _class_page()
    for guess in ("AAAA2222", "BBBB3333", "CCCC4444", "DDDD5555"):
        at.text_input(key="class-redeem-code").set_value(guess)
        at.button(key="class-redeem").click().run()
        assert "that handover code opens no poll" in at.error[0].value
    at.text_input(key="class-redeem-code").set_value(real)
    at.button(key="class-redeem").click().run()
    assert "Too many wrong handover codes from this address: wait" in at.error[0].value
    Doors(store.path).unlock(_only_address(tmp_path))
    at.button(key="class-redeem").click().run()
    assert not at.exception and at.query_params.get("poll") == poll.code
