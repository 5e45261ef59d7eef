"""A class server one visitor cannot stall: the cost model, the
budget, the chunked runs that leave a worker free and stop when asked.
"""

from __future__ import annotations

import threading
import time

import pytest
from conftest import ThreadWorkers, app_page

from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.costs import (
    ASK_FIRST_ABOVE,
    BUDGET_VARIABLE,
    DEFAULT_BUDGET_S,
    MEASURED,
    WHOLE_AT_ONCE_S,
    fixed_seconds,
    run_budget_s,
    run_seconds,
    sweep_seconds,
    trial_seconds,
)
from ldpcore.postprocess import default_method_names
from ldpcore.protocols import protocol_names
from ldpcore.serving.workers import Bounded

#: The toys ``make test-toys`` registers (tests/toy_registry.py): never measured.
TOYS = {"PadRR", "Shrink"}


def test_every_shipped_protocol_and_default_method_has_a_measured_cost() -> None:
    """And every registered one (a toy too) has a positive estimate without being listed."""
    for protocol in protocol_names():
        for method in default_method_names(protocol):
            assert trial_seconds(protocol, 1024, ["Base", method]) > 0
            if protocol not in TOYS and method not in TOYS | {"Base"}:
                assert (protocol, method) in MEASURED, (protocol, method)
        assert protocol in TOYS or (protocol, "trial") in MEASURED, protocol


def test_costs_grow_with_the_domain_the_trials_and_the_methods() -> None:
    for protocol in protocol_names():
        small = trial_seconds(protocol, 1024, ["Base", "Norm-Sub"])
        large = trial_seconds(protocol, 16384, ["Base", "Norm-Sub"])
        assert 0 < small <= large, protocol
        assert trial_seconds(protocol, 1024, default_method_names()) > small
    config = ExperimentConfig(dataset="zipf:d=4096,s=1.5", n=10**6, protocol="OLH", epsilon=1.0)
    twice = ExperimentConfig(
        dataset="zipf:d=4096,s=1.5", n=10**6, protocol="OLH", epsilon=1.0, trials=60
    )
    # Twice the trials: twice the trials' part; the run's own part once.
    fixed = fixed_seconds(4096, len(config.methods))
    assert 0 < fixed < run_seconds(config)
    assert run_seconds(twice) - fixed == pytest.approx(2 * (run_seconds(config) - fixed))
    assert sweep_seconds(config, "epsilon", [0.5, 1, 2]) == pytest.approx(3 * run_seconds(config))


def test_the_dearest_settings_are_above_the_default_budget_and_the_defaults_below() -> None:
    """Subset Selection at the d slider's end is the dearest setting (about 40 s of one
    core for 30 trials); HR at d = 16,384, 66 s before its row sampler, is now within the
    budget (about 3 s); the Explorer's default about 0.1 s."""
    dearest = ExperimentConfig(dataset="zipf:d=100000,s=1.5", n=10**6, protocol="SS", epsilon=1.0)
    hr = ExperimentConfig(dataset="zipf:d=16384,s=1.5", n=10**6, protocol="HR", epsilon=1.0)
    default = ExperimentConfig(dataset="zipf:d=64,s=1.5", n=10**5, protocol="OLH", epsilon=1.0)
    assert run_seconds(dearest) > 5 * DEFAULT_BUDGET_S
    assert WHOLE_AT_ONCE_S < run_seconds(hr) < DEFAULT_BUDGET_S
    assert run_seconds(default) < DEFAULT_BUDGET_S / 5


def test_an_unmeasured_protocol_costs_the_dearest_measured() -> None:
    """A protocol added later is estimated on the safe side until it is measured."""
    dearest = max(trial_seconds(p, 4096, ["Base"]) for p in protocol_names())
    assert trial_seconds("NEW", 4096, ["Base"]) == pytest.approx(dearest)


@pytest.mark.parametrize(
    ("value", "expected"), [("", DEFAULT_BUDGET_S), ("2.5", 2.5), ("0", 0.0), ("inf", float("inf"))]
)
def test_the_budget_is_read_from_the_environment(
    monkeypatch: pytest.MonkeyPatch, value: str, expected: float
) -> None:
    monkeypatch.setenv(BUDGET_VARIABLE, value)
    assert run_budget_s() == expected


@pytest.mark.parametrize("value", ["five", "-1", "nan"])
def test_a_bad_budget_says_what_to_set(monkeypatch: pytest.MonkeyPatch, value: str) -> None:
    monkeypatch.setenv(BUDGET_VARIABLE, value)
    with pytest.raises(InputError, match=r"LDPCORE_RUN_BUDGET_S=.*e.g. 5; inf for no limit"):
        run_budget_s()


def test_a_run_keeps_at_most_its_width_of_chunks_in_the_workers() -> None:
    lock = threading.Lock()
    running = [0]
    most = [0]

    def chunk(i: int) -> int:
        with lock:
            running[0] += 1
            most[0] = max(most[0], running[0])
        time.sleep(0.02)
        with lock:
            running[0] -= 1
        return i * i

    workers = ThreadWorkers(4)
    assert list(Bounded(workers, 1).map(chunk, range(8))) == [i * i for i in range(8)]  # type: ignore[arg-type]
    assert most[0] == 1
    most[0] = 0
    assert list(Bounded(workers, 3).map(chunk, range(12))) == [i * i for i in range(12)]  # type: ignore[arg-type]
    assert most[0] == 3


def test_a_stopped_run_sends_no_further_chunk() -> None:
    started: list[int] = []

    def chunk(i: int) -> int:
        started.append(i)
        time.sleep(0.01)
        return i

    results = Bounded(ThreadWorkers(2), 1).map(chunk, range(10))  # type: ignore[arg-type]
    assert next(results) == 0 and next(results) == 1
    results.close()  # what an interrupted page does to the generator it was reading
    time.sleep(0.1)
    # The chunk sent ahead either ran or was cancelled; none after it ever started.
    assert started in ([0, 1], [0, 1, 2])


def test_the_explorer_asks_before_a_run_above_the_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """The dearest setting, Subset Selection at d = 100,000 (about 1.4 s a trial): not
    even two trials fit in a first chart's second, so the page shows the estimate and
    runs nothing until asked."""
    at = app_page(monkeypatch, "pages/explorer.py", {"protocol": "SS", "d": "100000"})
    at.run()
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "is estimated at about" in warning and "SS at d = 100,000" in warning
    assert any(b.label.startswith("Run it (about") for b in at.button)
    assert "Nothing to show yet" in " ".join(i.value for i in at.info)
    assert not at.get("plotly_chart")  # nothing was simulated


def test_a_cheap_protocol_at_the_slider_s_end_asks_too(monkeypatch: pytest.MonkeyPatch) -> None:
    """OUE at d = 100,000 is within the budget, but its first chart took 2.4 s after the
    slider moved (3.2 s at 65,536; measured, ``ASK_FIRST_ABOVE``): the page asks first,
    says why, and draws every trial once asked."""
    at = app_page(
        monkeypatch, "pages/explorer.py", {"protocol": "OUE", "d": "100000", "trials": "3"}
    )
    at.run()
    assert not at.exception
    warning = " ".join(w.value for w in at.warning)
    assert "within this server's budget" in warning and "OUE at d = 100,000" in warning
    assert f"more than {ASK_FIRST_ABOVE:,} values" in warning
    assert not at.get("plotly_chart")
    next(b for b in at.button if b.label.startswith("Run it (about")).click()
    at.run()
    assert not at.exception
    assert at.get("plotly_chart")
    # Below the threshold the same protocol draws at once, with no question.
    at = app_page(
        monkeypatch, "pages/explorer.py", {"protocol": "OUE", "d": "32768", "trials": "3"}
    )
    at.run()
    assert not at.exception and at.get("plotly_chart") and not at.warning
