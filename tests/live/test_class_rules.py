"""A class the teacher can trust, below the browser: the store's rules for
one report per student, the teacher's controls, the handover, the addresses; who may
start polls; the form's advice against the users-needed computation; and a read-out
that never names a leader it cannot separate.
"""

from __future__ import annotations

import contextlib
import html
import math
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from ldpcore.collection.estimates import consistent_estimates_and_caveats
from ldpcore.errors import InputError
from ldpcore.live import store as store_module
from ldpcore.live.access import (
    client_address,
    is_this_machine,
    passcode_matches,
    teacher_passcode,
    trusted_proxies,
)
from ldpcore.live.lesson import class_advice, read_class, reports_to_separate
from ldpcore.live.poll import Poll
from ldpcore.live.reports import class_collected, poll_protocol
from ldpcore.live.store import OPERATOR, Held, PollError, PollStore, Refused
from ldpcore.postprocess.intervals import reports_for_half_width
from ldpcore.present.class_sentences import class_advice_sentence, class_readout

DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
EPSILONS = (0.5, 1.0, 2.0, 3.0, 4.0, 6.0)
ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")


def _poll(tmp_path: Path, **kwargs: object) -> tuple[PollStore, str, str]:
    store = PollStore(tmp_path)
    poll, key = store.create("Day?", DAYS, protocol="GRR", epsilon=1.0, **kwargs)  # type: ignore[arg-type]
    return store, poll.code, key


def test_an_address_past_its_seats_waits_for_the_teacher_and_every_refusal_has_its_reason(
    tmp_path: Path,
) -> None:
    store, code, key = _poll(tmp_path, max_reports=3)
    assert store.submit(code, "phone-aaaa", {"value": 1}, address="10.0.0.7") == 1
    # A fresh private window on the same phone: a new browser id, the same address. It
    # is stored, uncounted, until the teacher decides.
    with pytest.raises(Held, match="waits for your teacher"):
        store.submit(code, "phone-bbbb", {"value": 2}, address="10.0.0.7")
    # Sent again (a lost confirmation): the same answer, nothing new stored.
    with pytest.raises(Held):
        store.submit(code, "phone-bbbb", {"value": 2}, address="10.0.0.7")
    assert store.count(code) == 1 and store.waiting(code) == 1
    # The same browser with another report, counted or waiting.
    with pytest.raises(PollError, match="this browser has already answered"):
        store.submit(code, "phone-aaaa", {"value": 3}, address="10.0.0.9")
    with pytest.raises(PollError, match="this browser has already answered"):
        store.submit(code, "phone-bbbb", {"value": 3}, address="10.0.0.9")
    with pytest.raises(InputError, match="a GRR report is a value"):
        store.submit(code, "phone-cccc", {"value": 99}, address="10.0.0.8")
    assert store.submit(code, "phone-dddd", {"value": 0}, address="10.0.0.10") == 2
    store.set_seats(code, key, 5)  # a lab: one address, up to five students
    assert store.get(code).seats == 5  # type: ignore[union-attr]
    assert store.submit(code, "lab-00001", {"value": 0}, address="10.0.0.7") == 3
    with pytest.raises(PollError, match="is full"):
        store.submit(code, "lab-00002", {"value": 0}, address="10.0.0.7")
    store.close(code, key)
    with pytest.raises(PollError, match="is closed"):
        store.submit(code, "phone-eeee", {"value": 0}, address="10.0.0.11")
    assert store.turned_away(code) == {
        "full": 1,
        "address": 0,
        "removed": 0,
        "device": 2,
        "closed": 1,
        "invalid": 1,
    }
    assert store.refused(code) == 5
    # Addresses are stored hashed, never as typed.
    with sqlite3.connect(store.path) as connection:
        kept = connection.execute(
            "SELECT address FROM reports UNION ALL SELECT address FROM held"
        ).fetchall()
    assert all("10.0.0" not in str(a) for (a,) in kept)
    with pytest.raises(PollError, match="a whole number from 1"):
        store.set_seats(code, key, 0)


def test_the_teacher_counts_or_discards_what_waits_and_a_removed_address_stays_out(
    tmp_path: Path,
) -> None:
    store, code, key = _poll(tmp_path, max_reports=4)
    for i in range(4):  # a burst of private windows from one address
        with pytest.raises(Held) if i else contextlib.nullcontext():
            store.submit(code, f"prank-{i:04d}", {"value": 6}, address="10.0.0.66")
    store.submit(code, "honest-01", {"value": 1}, address="10.0.0.2")
    activity = {a.label: a for a in store.addresses(code)}
    prank = next(label for label, a in activity.items() if a.waiting)
    assert (activity[prank].reports, activity[prank].waiting) == (1, 3)
    # Discarded: gone, and those browsers stay answered.
    assert store.discard_waiting(code, key, prank) == 3
    assert store.waiting(code) == 0 and store.count(code) == 2
    with pytest.raises(PollError, match="already answered"):
        store.submit(code, "prank-0002", {"value": 6}, address="10.0.0.66")
    # A lab the teacher did not announce: counted as far as the class size allows.
    for i in range(4):
        with pytest.raises(Held):
            store.submit(code, f"lab-{i:05d}", {"value": i}, address="10.0.0.66")
    assert store.count_waiting(code, key, prank) == (2, 2)
    assert store.count(code) == 4 and store.waiting(code) == 2
    store.resize(code, key, 10)
    assert store.count_waiting(code, key, prank) == (2, 0)
    assert store.count(code) == 6
    # Removed: every report from it goes, and it is refused from then on, in a lab too.
    store.set_seats(code, key, 30)
    assert store.remove_address(code, key, prank) == 5
    assert store.count(code) == 1
    with pytest.raises(Refused, match="your teacher removed") as refused:
        store.submit(code, "fresh-window", {"value": 6}, address="10.0.0.66")
    assert refused.value.reason == "removed" and not refused.value.may_pass
    assert next(a for a in store.addresses(code) if a.label == prank).removed
    # An address may keep at most a class size of reports waiting.
    store.resize(code, key, 3)
    store.set_seats(code, key, 1)
    store.submit(code, "other-001", {"value": 0}, address="10.0.0.3")
    for i in range(3):
        with pytest.raises(Held):
            store.submit(code, f"other-{i + 2:03d}", {"value": 0}, address="10.0.0.3")
    with pytest.raises(Refused, match="too many answers from this network address"):
        store.submit(code, "other-005", {"value": 0}, address="10.0.0.3")
    # A full poll refuses before anything waits: the teacher may make room for it.
    store.submit(code, "last-0001", {"value": 0}, address="10.0.0.4")
    with pytest.raises(Refused, match="is full: it takes 3 reports") as full:
        store.submit(code, "other-006", {"value": 0}, address="10.0.0.3")
    assert full.value.may_pass


def test_the_teacher_raises_the_size_reopens_and_removes_one_address(tmp_path: Path) -> None:
    store, code, key = _poll(tmp_path, max_reports=2, seats=2)
    store.submit(code, "lab-00001", {"value": 0}, address="10.0.0.7")
    store.submit(code, "lab-00002", {"value": 0}, address="10.0.0.7")
    with pytest.raises(PollError, match="is full"):
        store.submit(code, "late-0001", {"value": 5}, address="10.0.0.9")
    with pytest.raises(PollError, match="can go down to 2, not to 1"):
        store.resize(code, key, 1)
    store.resize(code, key, 3)
    assert store.submit(code, "late-0001", {"value": 5}, address="10.0.0.9") == 3
    store.close(code, key)
    store.reopen(code, key)
    store.resize(code, key, 4)
    assert store.submit(code, "late-0002", {"value": 6}, address="10.0.0.12") == 4
    activity = {a.label: a for a in store.addresses(code)}
    lab = next(label for label, a in activity.items() if a.reports == 2)
    kept = store.reports(code, without=lab)
    assert len(kept) == 2
    assert store.remove_address(code, key, lab) == 2
    assert store.reports(code) == kept and store.count(code) == 2
    # The browsers whose reports went cannot send again.
    with pytest.raises(PollError, match="already answered"):
        store.submit(code, "lab-00001", {"value": 1}, address="10.0.0.7")


def test_a_burst_from_one_address_is_flagged_and_a_trickle_is_not(tmp_path: Path) -> None:
    store, code, _ = _poll(tmp_path, seats=30)
    for i in range(10):
        store.submit(code, f"lab-{i:05d}", {"value": i % 7}, address="10.0.0.7")
    store.submit(code, "phone-aaaa", {"value": 1}, address="10.0.0.8")
    flagged = {a.reports: a.burst for a in store.addresses(code)}
    assert flagged == {10: True, 1: False}
    # Reports a minute and more apart are no burst, however many.
    with sqlite3.connect(store.path) as connection:
        rows = connection.execute("SELECT id FROM reports ORDER BY id").fetchall()
        for i, (row_id,) in enumerate(rows):
            connection.execute("UPDATE reports SET received = ? WHERE id = ?", (i * 61.0, row_id))
    assert not any(a.burst for a in store.addresses(code))


def test_only_a_key_that_runs_the_poll_acts_and_a_handover_works_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store, code, key = _poll(tmp_path)
    stranger = "s" * 32
    for act in (store.close, store.reopen, store.delete, store.handover):
        with pytest.raises(PollError, match="does not open poll"):
            act(code, stranger)
    with pytest.raises(PollError, match="does not open poll"):
        store.resize(code, stranger, 10)
    with pytest.raises(PollError, match="does not open poll"):
        store.remove_address(code, stranger, "abcdef")
    tablet = "t" * 32
    handover = store.handover(code, key)
    assert len(handover) == 8 and handover not in key
    assert store.redeem(handover.lower(), tablet) == code
    assert store.check_key(code, tablet) and store.owned(tablet)[0].code == code
    # The poll moved: the browser that handed it over runs it no longer.
    assert not store.check_key(code, key) and not store.owned(key)
    with pytest.raises(PollError, match="does not open poll"):
        store.close(code, key)
    with pytest.raises(PollError, match="opens no poll"):
        store.redeem(handover, stranger)  # used once
    late = store.handover(code, tablet)
    later = time.time() + 601
    monkeypatch.setattr(store_module.time, "time", lambda: later)
    with pytest.raises(PollError, match="older than ten minutes"):
        store.redeem(late, stranger)
    monkeypatch.undo()
    # The operator (the command line on the server) acts on any poll.
    store.close(code, OPERATOR)
    assert store.get(code).closed  # type: ignore[union-attr]
    assert not store.check_key(code, "")
    store.delete(code, tablet)
    assert store.get(code) is None and store.owned(key) == []


def test_a_database_from_before_reasons_keeps_its_refusals(tmp_path: Path) -> None:
    with sqlite3.connect(tmp_path / "polls.sqlite3") as connection:
        connection.executescript(
            """
            CREATE TABLE polls (code TEXT PRIMARY KEY, question TEXT NOT NULL,
                options TEXT NOT NULL, protocol TEXT NOT NULL, epsilon REAL NOT NULL,
                key_salt BLOB NOT NULL, key_hash BLOB NOT NULL, created REAL NOT NULL,
                closed INTEGER NOT NULL DEFAULT 0, max_reports INTEGER NOT NULL DEFAULT 200);
            CREATE TABLE reports (id INTEGER PRIMARY KEY, code TEXT NOT NULL,
                client TEXT NOT NULL, report TEXT NOT NULL, received REAL NOT NULL,
                UNIQUE (code, client));
            CREATE TABLE refusals (code TEXT NOT NULL, client TEXT NOT NULL,
                UNIQUE (code, client));
            INSERT INTO polls VALUES ('ABCDEF', 'Day?', '["a", "b"]', 'GRR', 1.0, x'00',
                x'00', 0.0, 0, 1);
            INSERT INTO reports VALUES (1, 'ABCDEF', 'browser-0001', '{"value": 1}', 0.0);
            INSERT INTO refusals VALUES ('ABCDEF', 'browser-0002');
            """
        )
    store = PollStore(tmp_path)
    assert store.turned_away("ABCDEF")["full"] == 1 and store.count("ABCDEF") == 1
    assert store.get("ABCDEF").seats == 1  # type: ignore[union-attr]


def test_a_poll_that_shared_addresses_before_seats_keeps_a_seat_per_student(
    tmp_path: Path,
) -> None:
    store, code, _ = _poll(tmp_path, max_reports=25)
    with sqlite3.connect(store.path) as connection:
        # The table as it was: a shared-addresses switch and no seats.
        connection.execute("ALTER TABLE polls DROP COLUMN seats")
        connection.execute("UPDATE polls SET shared_addresses = 1")
    assert PollStore(tmp_path).get(code).seats == 25  # type: ignore[union-attr]


def test_the_address_counted_and_who_may_start_polls() -> None:
    proxies = trusted_proxies({"LDPCORE_TRUSTED_PROXIES": "127.0.0.1, ::1"})
    assert proxies == {"127.0.0.1", "::1"}
    # Behind the named proxy: the address it appended, not what a client wrote before.
    assert client_address(None, {"X-Forwarded-For": "1.1.1.1, 10.0.0.9"}, proxies) == "10.0.0.9"
    # Not behind it: the header is anyone's to write, and is ignored.
    assert client_address("10.0.0.5", {"X-Forwarded-For": "127.0.0.1"}, proxies) == "10.0.0.5"
    with pytest.raises(ValueError, match="'school' is not an IP address"):
        trusted_proxies({"LDPCORE_TRUSTED_PROXIES": "school"})
    assert is_this_machine("::1", ()) and not is_this_machine("127.0.0.9", ("10.0.0.2",))
    assert teacher_passcode({}) is None
    with pytest.raises(ValueError, match="at least 8"):
        teacher_passcode({"LDPCORE_TEACHER_PASSCODE": "1234"})
    code = teacher_passcode({"LDPCORE_TEACHER_PASSCODE": " maple-syrup "})
    assert passcode_matches("maple-syrup", code) and not passcode_matches("maple", code)
    assert not passcode_matches("anything", None)


@pytest.mark.parametrize("size", [5, 20, 60])
@pytest.mark.parametrize(("protocol", "options"), [("GRR", 7), ("GRR", 3), ("OUE", 4)])
def test_the_forms_advice_agrees_with_the_users_needed_computation(
    size: int, protocol: str, options: int
) -> None:
    for epsilon in EPSILONS:
        advice = class_advice(protocol, epsilon, options, size, epsilons=EPSILONS)
        oracle = poll_protocol(protocol, epsilon, options)
        needed = reports_for_half_width(oracle, 0.10, share=0.5, simultaneous=True)
        assert advice.needed == math.ceil(needed)
        assert advice.separates == (size >= needed)
        # The half-width said is the one that many reports give, by the same formula.
        assert advice.half_width == pytest.approx(0.10 * math.sqrt(math.ceil(needed) / size))
        enough = [e for e in EPSILONS if reports_to_separate(protocol, e, options) <= size]
        assert advice.smallest_epsilon == (min(enough) if enough else None)
        sentence = class_advice_sentence(advice)
        if advice.separates:
            assert "will stand apart" in sentence
        elif advice.smallest_epsilon is not None:
            assert f"At ε = {advice.smallest_epsilon:g}, {size} students separate" in sentence
        else:
            assert "No ε offered here" in sentence


def test_the_read_out_never_names_a_leader_whose_interval_overlaps_the_next() -> None:
    rng = np.random.default_rng(53)
    named = unnamed = 0
    for trial in range(60):
        protocol = ("GRR", "OUE", "OLH")[trial % 3]
        epsilon = (1.0, 3.0, 6.0)[trial // 3 % 3]
        size = int(rng.choice([1, 5, 20, 60]))
        options = 3 if trial % 2 else 5
        store_poll = _FakePoll(protocol, epsilon, options)
        oracle = poll_protocol(protocol, epsilon, options)
        truth = rng.choice(options, size=size, p=_skewed(options))
        reports = oracle.randomize(truth, rng=rng)
        from ldpcore.collection.report_files import reports_to_frame  # noqa: PLC0415

        frame = reports_to_frame(oracle, reports, text=True)
        rows = [
            {
                c: (str(v) if c.startswith("seed") else getattr(v, "item", lambda v=v: v)())
                for c, v in zip(frame.columns, values, strict=True)
            }
            for values in frame.itertuples(index=False)
        ]
        collected = class_collected(store_poll, rows)  # type: ignore[arg-type]
        table = consistent_estimates_and_caveats(collected, "Norm-Sub", simultaneous=True)[0]
        reading = read_class(table, poll=store_poll, method="Norm-Sub", reports=size)  # type: ignore[arg-type]
        sentence = class_readout(reading)
        top = int(np.argmax(table["estimate"]))
        others = np.delete(table["high"].to_numpy(), top)
        if " first, at about " in sentence:
            named += 1
            assert table["low"].iloc[top] > others.max(), sentence
        else:
            unnamed += 1
            assert "cannot tell yet" in sentence
            assert table["low"].iloc[top] <= others.max()
    assert named and unnamed  # both cases were met


class _FakePoll:
    """What the read-out needs of a poll (no store)."""

    def __init__(self, protocol: str, epsilon: float, options: int) -> None:
        self.protocol, self.epsilon = protocol, epsilon
        self.options = tuple(f"option {i}" for i in range(options))
        self.code = "TESTPL"


def _skewed(options: int) -> np.ndarray:
    weights = np.array([6.0] + [1.0] * (options - 1))
    return weights / weights.sum()


def test_the_teachers_words_are_plain_text_on_the_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LDPCORE_DATA_DIR", str(tmp_path))
    question = "Fair? **bold** $x^2$ :red[now] <b>tag</b>"
    options = ("**A**", "$B$", "<i>C</i>")
    store = PollStore(tmp_path)
    poll, key = store.create(question, options, protocol="GRR", epsilon=6.0)
    for i in range(3):
        store.submit(poll.code, f"student-{i:04d}", {"value": 0})
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/class.py")
    at.query_params.update({"poll": poll.code, "key": key})
    at.run()
    at.get("button_group")[0].set_value("3 · Post-processed: the fix").run()  # type: ignore[attr-defined]
    assert not at.exception
    heading = next(h.proto.body for h in at.get("html") if "ldp-question" in h.proto.body)
    assert "<b>" not in heading and "**" not in heading
    assert html.unescape(heading.split(">", 1)[1].rsplit("<", 1)[0]) == question
    sentence = next(m.value for m in at.markdown if "randomized reports" in m.value)
    inner = sentence.removeprefix("**").removesuffix("**")
    # No markup character of the teacher's survives unescaped; read, it is as typed.
    assert not any(ch in inner for ch in "*$<>[]")
    assert "**A**" in html.unescape(inner) or "$B$" in html.unescape(inner)
    assert list(at.dataframe[-1].value["option"]) == list(options)


def test_the_operator_runs_any_poll_from_the_command_line(tmp_path: Path) -> None:
    store, code, _ = _poll(tmp_path, max_reports=2)
    store.submit(code, "phone-aaaa", {"value": 1}, address="10.0.0.7")

    def poll(*words: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "ldpcore.cli", "poll", *words, "--data-dir", str(tmp_path)],
            capture_output=True, text=True, check=False, cwd=ROOT,
        )  # fmt: skip

    assert poll("close", "--code", code.lower()).returncode == 0
    assert store.get(code).closed  # type: ignore[union-attr]
    assert poll("reopen", "--code", code).returncode == 0
    assert not store.get(code).closed  # type: ignore[union-attr]
    assert poll("set-size", "--code", code, "--size", "40").returncode == 0
    assert store.get(code).max_reports == 40  # type: ignore[union-attr]
    assert poll("set-seats", "--code", code, "--seats", "12").returncode == 0
    assert store.get(code).seats == 12  # type: ignore[union-attr]
    refused = poll("set-seats", "--code", code, "--seats", "0")
    assert refused.returncode == 2 and "seats per network address" in refused.stderr
    refused = poll("set-size", "--code", code, "--size", "0")
    assert refused.returncode == 2 and "a whole number from 1" in refused.stderr
    handed = poll("handover", "--code", code)
    assert handed.returncode == 0
    assert store.redeem(handed.stdout.split(":")[0], "t" * 32) == code
    assert poll("delete", "--code", code).returncode == 0 and store.get(code) is None
    unknown = poll("close", "--code", "ZZZZZZ")
    assert unknown.returncode == 2 and "see 'ldpcore poll list'" in unknown.stderr


def test_simulated_lying_students_are_said_and_never_stored(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Step 4 adds simulated lying students to every method's answer: the words' numbers
    are the table's, the teacher's options stay plain text, and the store keeps only the
    class's own reports."""
    monkeypatch.setenv("LDPCORE_DATA_DIR", str(tmp_path))
    options = ("**A**", "$B$", "<i>C</i>")
    store = PollStore(tmp_path)
    poll, key = store.create("Which?", options, protocol="GRR", epsilon=2.0)
    for i in range(12):
        store.submit(poll.code, f"student-{i:04d}", {"value": i % 2})
    at = AppTest.from_file(APP, default_timeout=60)
    at.switch_page("pages/class.py")
    at.query_params.update({"poll": poll.code, "key": key})
    at.run()
    at.get("button_group")[0].set_value("4 · If some lied (simulated)").run()  # type: ignore[attr-defined]
    assert not at.exception, at.exception
    at.number_input(key="class-liars").set_value(6).run()
    assert not at.exception, at.exception
    warning = next(w.value for w in at.warning if "Simulated" in w.value)
    said = html.unescape(warning)
    assert not any(ch in warning for ch in "*$<>")
    assert said.startswith("Simulated, not in the poll: 6 lying students")
    assert "<i>C</i> most" in said and "6 fake reports beside 12 real ones" in said
    table = at.dataframe[-1].value.set_index("option")
    lied = table.loc["<i>C</i>", "Base"].split(" ")[0]  # "estimate (low–high)"
    assert f"to {round(float(lied.rstrip('%')))}%" in said  # the words round the table's cell
    assert store.count(poll.code) == 12


def test_the_larger_class_is_read_from_the_settings_and_names_only_what_it_should() -> None:
    """The panel's numbers come from the poll's settings alone (no class's estimate), its
    half-width is NDSS Eq. 3's at 1,000 students, a true leader far ahead is named in
    nearly every class, and an even class almost never has a leader named (the
    intervals hold for all options at once, at 95%)."""
    from ldpcore.live.outlook import LARGER_CLASS, larger_class_outlook  # noqa: PLC0415
    from ldpcore.present.class_sentences import larger_class_words  # noqa: PLC0415

    larger = larger_class_outlook("GRR", 2.0, 5, leads=(0.0, 0.3), classes=300, seed=4)
    grr = poll_protocol("GRR", 2.0, 5)
    # Bonferroni over 5 options at 95%: z for 99% two-sided, Eq. 3 at an even share.
    from scipy import special  # noqa: PLC0415

    z = float(special.ndtri(1 - 0.05 / 10))
    sigma = float(np.sqrt(grr.variance(np.full(5, 0.2), LARGER_CLASS)[0]))
    assert larger.half_width == pytest.approx(z * sigma, rel=1e-9)
    even_right, far_right = larger.named_right
    even_wrong, far_wrong = larger.named_wrong
    # An even class: any option named is named wrongly; at most 5% (+4σ of 300 draws).
    assert even_right + even_wrong <= 0.05 + 4 * np.sqrt(0.05 * 0.95 / 300)
    assert far_right >= 0.95 and far_wrong == 0.0
    # The words name no option (there is none to name) and say where they come from.
    said = larger_class_words(larger, 24)
    assert "not from this class's answers" in said
    assert not any(f" {option} " in said for option in ("A", "B", "C", "D", "E"))


def test_every_refusal_reason_has_the_teacher_s_words() -> None:
    from ldpcore.live.admission import REFUSAL_REASONS  # noqa: PLC0415
    from ldpcore.present.class_sentences import REFUSAL_WORDS  # noqa: PLC0415

    assert tuple(REFUSAL_WORDS) == REFUSAL_REASONS


@pytest.mark.parametrize("protocol", ["GRR", "OLH", "OUE"])
def test_the_lesson_offers_only_methods_that_change_base(protocol: str) -> None:
    from ldpcore.live.lesson import lesson_methods  # noqa: PLC0415
    from ldpcore.postprocess import default_method_names, get_method  # noqa: PLC0415

    poll = Poll("CODE01", "Day?", tuple("ABCDE"), protocol, 1.0, 0.0, False)
    offered = lesson_methods(poll)
    oracle = poll_protocol(protocol, 1.0, 5)
    assert offered[0] == "Base" and "Norm-Sub" in offered
    assert "Consistency" not in offered  # a no-op on a flat protocol: no fix to show
    assert set(offered) == {
        m for m in default_method_names() if m == "Base" or not get_method(m).is_no_op(oracle)
    }
