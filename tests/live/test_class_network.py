"""A live class served on the network, as the README's class command serves it.

The server listens on every interface (``make run HOST=0.0.0.0``). The teacher opens the
Class page through ``127.0.0.2``, a loopback address standing in for the laptop's
classroom address (tests send nothing beyond 127.0.0.0/8), and the join link and the QR
code (decoded from a screenshot) must carry that address; students in their own browser
contexts join through it. The same server opened as ``localhost`` must say that phones
cannot open that address and use the machine's network address instead; and
``LDPCORE_PUBLIC_URL`` overrides both. Nothing is ever sent to those other addresses:
the test only reads the links the page shows.
"""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from playwright.sync_api import Browser, Page
from served import ARTIFACTS, ROOT

from devtools.serving import streamlit_server
from ldpcore.live.network import network_addresses
from ldpcore.live.store import PollStore

pytestmark = pytest.mark.browser
zxingcpp = pytest.importorskip("zxingcpp")
Image = pytest.importorskip("PIL.Image")


def _join_link(page: Page) -> str:
    """The link the page tells students to open (the bold text after "Students open")."""
    paragraph = page.get_by_text("Students open").first
    paragraph.wait_for(timeout=60_000)
    found = re.search(r"(https?://\S+/join\?code=[A-Z0-9]+)", paragraph.inner_text())
    assert found, paragraph.inner_text()
    return found.group(1)


def _qr_text(page: Page) -> str:
    """The QR code's content, decoded from a screenshot of the image the page shows."""
    image = page.get_by_role("img", name=re.compile("QR code of the join link"))
    image.wait_for(timeout=30_000)
    picture = Image.open(io.BytesIO(image.screenshot()))
    decoded = zxingcpp.read_barcodes(picture)
    assert decoded, "no QR code found in the screenshot"
    return str(decoded[0].text)


def _answer(page: Page, link: str, option: str) -> None:
    page.goto(link)
    page.get_by_label(option).check(timeout=60_000)
    page.get_by_role("button", name="Send my answer").click()
    page.get_by_text(re.compile(r"Your report was sent and stored")).wait_for(timeout=30_000)


def test_a_class_joins_through_the_address_the_teacher_used(
    browser: Browser, tmp_path: Path
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    env = {"LDPCORE_DATA_DIR": str(tmp_path), "LDPCORE_PUBLIC_URL": ""}
    with streamlit_server(
        ROOT / "app.py", ARTIFACTS / "streamlit-network.log", address="0.0.0.0", env=env
    ) as (url, _process):
        classroom = url.replace("127.0.0.1", "127.0.0.2")
        teacher = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
        teacher.goto(f"{classroom}/class")
        # Both students' browsers are on this machine: one address, two seats.
        seats = teacher.get_by_label("Reports counted per network address", exact=True)
        seats.fill("2", timeout=60_000)
        seats.press("Enter")
        teacher.get_by_role("button", name="Start the poll").click(timeout=60_000)
        link = _join_link(teacher)
        assert link.startswith(f"{classroom}/join?code=")
        assert _qr_text(teacher) == link
        assert teacher.get_by_text("phones cannot open").count() == 0
        teacher.screenshot(path=str(ARTIFACTS / "class-network.png"), full_page=True)
        code = link.rsplit("=", 1)[1]
        for option in ("Walk", "Car"):
            _answer(browser.new_context().new_page(), link, option)
        assert PollStore(tmp_path).count(code) == 2
        # The laptop's own browser, on the Class page as localhost, starts a poll.
        laptop = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
        laptop.goto(url.replace("127.0.0.1", "localhost") + "/class")
        laptop.get_by_role("button", name="Start the poll").click(timeout=60_000)
        laptop.get_by_text("which phones cannot open").wait_for(timeout=60_000)
        code = re.search(r"poll=([A-Z0-9]+)", laptop.url).group(1)  # type: ignore[union-attr]
        addresses = network_addresses()
        port = url.rsplit(":", 1)[1]
        if addresses:
            host = f"[{addresses[0]}]" if ":" in addresses[0] else addresses[0]
            expected = f"http://{host}:{port}/join?code={code}"
            assert _join_link(laptop) == expected
            assert _qr_text(laptop) == expected
        else:  # a machine without a network: the words say so
            laptop.get_by_text("has no network address").wait_for(timeout=10_000)
        # Bound on every interface: no word about restarting.
        assert laptop.get_by_text("listens on this computer only").count() == 0
        laptop.screenshot(path=str(ARTIFACTS / "class-localhost.png"), full_page=True)


def test_public_url_overrides_and_a_loopback_server_says_how_to_restart(
    browser: Browser, tmp_path: Path
) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    public = "https://class.example.org/ldp"
    env = {"LDPCORE_DATA_DIR": str(tmp_path), "LDPCORE_PUBLIC_URL": public + "/"}
    with streamlit_server(ROOT / "app.py", ARTIFACTS / "streamlit-public.log", env=env) as (
        url,
        _process,
    ):
        teacher = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
        teacher.goto(f"{url}/class")
        teacher.get_by_role("button", name="Start the poll").click(timeout=60_000)
        link = _join_link(teacher)
        assert link.startswith(f"{public}/join?code=")
        assert _qr_text(teacher) == link
    env["LDPCORE_PUBLIC_URL"] = ""
    with streamlit_server(ROOT / "app.py", ARTIFACTS / "streamlit-loopback.log", env=env) as (
        url,
        _process,
    ):
        # Served as plain `make run` serves it (loopback only), opened as localhost.
        laptop = browser.new_context(viewport={"width": 1300, "height": 1000}).new_page()
        laptop.goto(url.replace("127.0.0.1", "localhost") + "/class")
        laptop.get_by_role("button", name="Start the poll").click(timeout=60_000)
        if network_addresses():
            laptop.get_by_text("listens on this computer only").wait_for(timeout=60_000)
            laptop.get_by_text("make run HOST=0.0.0.0").first.wait_for(timeout=10_000)
        else:
            laptop.get_by_text("has no network address").wait_for(timeout=60_000)
