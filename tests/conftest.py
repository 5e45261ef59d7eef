"""Shared helpers for the statistical tests, and the toys' registration.

``exact_count_moments`` computes the mean vector and covariance matrix of the
support counts from the protocol's enumerated channel, an independent path from
both samplers.

With ``LDPCORE_TEST_TOYS=1`` (``make test-toys``, run by ``.ci/run``) the toy protocol,
method and query kind are registered in the *real* registries for the whole run: the
suite passes with them and no other edit, which proves that nothing else keeps a list.
"""

from __future__ import annotations

import math
import os
import tempfile
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np
import pytest
from hypothesis import settings
from toy_registry import register_toys, toys_wanted

from ldpcore.live.store import DATA_DIR_VARIABLE
from ldpcore.protocols import OLH, FrequencyOracle

if TYPE_CHECKING:
    from playwright.sync_api import Browser

#: A second ``sitecustomize`` (the connection recorder a server test puts on its path):
#: two modules of one name cannot both be collected for their doctests.
collect_ignore = ["connect_site/sitecustomize.py"]


def pytest_configure(config: pytest.Config) -> None:
    """Register the toys in the real registries when ``LDPCORE_TEST_TOYS=1``.

    Polls go to a fresh folder, never the person's own data directory: every server
    and command the tests start inherits it.
    """
    os.environ[DATA_DIR_VARIABLE] = tempfile.mkdtemp(prefix="ldpcore-test-data-")
    if toys_wanted():
        register_toys()


# Derandomized and without an example database: CI and every developer run the same cases.
settings.register_profile("ci", deadline=None, max_examples=60, derandomize=True, database=None)
settings.load_profile("ci")

#: Width of the statistical acceptance bands, in standard errors. Seeds are fixed,
#: so a pass is deterministic; 4.5σ keeps a correct implementation passing for
#: essentially any seed while a wrong formula (off by a few %) fails.
K_SIGMA = 4.5


def exact_count_moments(
    protocol: FrequencyOracle, true_counts: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Mean and covariance of the support-count vector ``c`` (SHE: of its sums).

    Users are independent, so ``Cov(c) = Σ_v n_v Cov_{y ~ Q[:, v]}(M[y, :])`` with ``Q``
    and ``M`` the protocol's own ``channel_matrix`` and ``support_matrix``. OLH is taken
    under the ideal hash the paper assumes (indicators independent across values), not
    its 32 enumerated hash functions.
    """
    d = protocol.domain_size
    n = int(true_counts.sum())
    if protocol.real_valued_reports:  # SHE: n_v plus n discrete Laplace draws on a 1/64 grid
        from scipy import stats  # noqa: PLC0415

        noise = stats.dlaplace(protocol.epsilon / 128).var() / 64**2  # ≈ 2b² = 8/ε²
        return true_counts.astype(float), np.eye(d) * n * noise
    if isinstance(protocol, OLH):
        p, q = protocol.p, protocol.q
        mean = true_counts * p + (n - true_counts) * q
        var = true_counts * p * (1 - p) + (n - true_counts) * q * (1 - q)
        return mean, np.diag(var)
    channel = protocol.channel_matrix()
    support = protocol.support_matrix()
    mean = np.zeros(d)
    cov = np.zeros((d, d))
    for v in range(d):
        weights = channel[:, v]
        first = weights @ support
        second = support.T @ (weights[:, None] * support)
        mean += true_counts[v] * first
        cov += true_counts[v] * (second - np.outer(first, first))
    return mean, cov


def zipf_counts(d: int, n: int, s: float = 1.5) -> np.ndarray:
    """Largest-remainder rounding of ``n · f`` with ``f_i ∝ i^{-s}``."""
    f = np.arange(1, d + 1, dtype=float) ** -s
    f /= f.sum()
    raw = n * f
    counts = np.floor(raw).astype(np.int64)
    short = n - int(counts.sum())
    counts[np.argsort(-(raw - counts), kind="stable")[:short]] += 1
    return counts


@pytest.fixture
def e() -> float:
    return math.e


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the slow tier unless asked for (``pytest -m slow``): `make test` stays quick."""
    if "slow" in (config.getoption("markexpr") or ""):
        return
    skip = pytest.mark.skip(reason="slow tier: run with `pytest -m slow`")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Keep each phase's report on its test (``rep_call``), for fixtures that look back."""
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Debian's chromium driven by Playwright, one per test module (browser tests)."""
    from playwright.sync_api import sync_playwright  # noqa: PLC0415 (browser tests only)
    from served import CHROMIUM  # noqa: PLC0415

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(
            executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu", "--disable-quic"]
        )
        yield launched
        launched.close()


@pytest.fixture(autouse=True)
def alone_on_the_server() -> Iterator[None]:
    """Every test's pages are alone on the server, as one visitor's would be.

    The server's crowd (``staging.server_crowd``) is one per process, and each AppTest
    is its own session: without this, one test's runs would make the next test's page a
    crowded one for three seconds. A test that wants a crowd builds one (``test_crowd``).
    """
    from pages.app_layer.serving import staging  # noqa: PLC0415 (streamlit, once per process)

    crowd = staging.server_crowd()
    crowd.clear()
    window = crowd.window_s
    crowd.window_s = 0.0
    try:
        yield
    finally:
        crowd.clear()
        crowd.window_s = window


def app_page(
    monkeypatch: pytest.MonkeyPatch,
    page: str,
    params: dict[str, str],
    *,
    budget: str | None = None,
    timeout: float = 120,
) -> Any:
    """An AppTest of ``page`` (e.g. ``"pages/explorer.py"``) opened with query ``params``.

    In-thread simulations (no worker processes); ``budget`` sets ``LDPCORE_RUN_BUDGET_S``.
    Not yet run: the caller runs it.
    """
    from pathlib import Path  # noqa: PLC0415

    from streamlit.testing.v1 import AppTest  # noqa: PLC0415 (app tests only)

    monkeypatch.setenv("LDPCORE_APP_WORKERS", "0")
    if budget is not None:
        monkeypatch.setenv("LDPCORE_RUN_BUDGET_S", budget)
    at = AppTest.from_file(
        str(Path(__file__).resolve().parents[1] / "app.py"), default_timeout=timeout
    )
    at.switch_page(page)
    at.query_params.update(params)
    return at


class ThreadWorkers:
    """Stands in for the app's worker processes (``executors.Workers``): the same
    ``submit``, on threads."""

    def __init__(self, count: int) -> None:
        from concurrent.futures import ThreadPoolExecutor  # noqa: PLC0415

        self.pool = ThreadPoolExecutor(count)

    def submit(self, function: Any, *args: Any) -> Any:
        """Run ``function(*args)`` on a thread; its future."""
        return self.pool.submit(function, *args)


@pytest.fixture(autouse=True, scope="session")
def installed_components_scanned_once() -> Iterator[None]:
    """Each AppTest scans every installed package's metadata for Streamlit components
    (0.4–0.8 s an AppTest here, most of a page test's time); the installed packages do
    not change during a run, so the scan runs once per test process."""
    import functools  # noqa: PLC0415

    from streamlit.components.v2 import manifest_scanner  # noqa: PLC0415

    scan = manifest_scanner.scan_component_manifests
    manifest_scanner.scan_component_manifests = functools.cache(scan)
    try:
        yield
    finally:
        manifest_scanner.scan_component_manifests = scan


@pytest.fixture(autouse=True)
def a_browser_that_has_drawn_its_first_screen(monkeypatch: pytest.MonkeyPatch) -> None:
    """An AppTest session starts as a browser's does once it has drawn its first screen.

    A page's first run in a browser draws the first screen alone and is run again when
    the browser signals it has drawn it (``pages/app_layer/views/first_paint.py``); no
    AppTest ever signals, so each starts past that point and sees the page whole. A test
    of the first screen itself takes the flag away (``test_first_screen``); the browser
    tier covers the signal.
    """
    from streamlit.testing.v1 import AppTest  # noqa: PLC0415 (app tests only)

    from pages.app_layer.views.first_paint import PAINTED  # noqa: PLC0415

    made = AppTest.from_file.__func__  # type: ignore[attr-defined]

    def from_file(cls: type[AppTest], *args: Any, **kwargs: Any) -> AppTest:
        at = made(cls, *args, **kwargs)
        at.session_state[PAINTED] = True
        return at

    monkeypatch.setattr(AppTest, "from_file", classmethod(from_file))
