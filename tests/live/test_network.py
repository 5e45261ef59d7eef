"""Which address the join link uses, in every case the page can meet.

The browser test (tests/live/test_class_network.py) serves the app on every interface and
reads the links; these cover the cases a test machine cannot produce (a proxy's base
path, a machine without a network, IPv6, a malformed ``LDPCORE_PUBLIC_URL``).
"""

from __future__ import annotations

import pytest

from ldpcore.live.network import (
    CLASS_COMMAND,
    check_public_url,
    is_loopback_name,
    join_origin,
    listens_on_loopback_only,
    network_addresses,
    reachable_addresses,
)


def test_public_url_wins_over_everything() -> None:
    found = join_origin(
        "http://localhost:8501/class",
        public_url="https://class.example.org/ldp",
        server_address="localhost",
        addresses=("10.0.0.5",),
    )
    assert (found.origin, found.source, found.warning) == (
        "https://class.example.org/ldp",
        "public",
        "",
    )


def test_a_browser_address_students_can_open_is_used_as_is_with_its_base_path() -> None:
    found = join_origin(
        "https://proxy.school.example:8443/ldp/class?poll=X",
        public_url=None,
        server_address="127.0.0.1",
        addresses=(),
        base_path="/ldp",
    )
    assert (found.origin, found.source, found.warning) == (
        "https://proxy.school.example:8443/ldp",
        "browser",
        "",
    )


@pytest.mark.parametrize("opened", ["localhost", "127.0.0.1", "[::1]"])
def test_a_loopback_page_gets_the_network_address_and_the_words(opened: str) -> None:
    found = join_origin(
        f"http://{opened}:8501/class",
        public_url=None,
        server_address="0.0.0.0",
        addresses=("192.168.1.20", "fd00::2"),
    )
    assert found.origin == "http://192.168.1.20:8501"
    assert found.source == "network"
    assert "phones cannot open" in found.warning
    assert "192.168.1.20" in found.warning
    assert CLASS_COMMAND not in found.warning  # it listens on every interface already
    assert found.others == ("http://[fd00::2]:8501",)


def test_a_loopback_server_is_told_what_to_restart_with() -> None:
    found = join_origin(
        "http://localhost:8501/class",
        public_url=None,
        server_address="localhost",
        addresses=("10.0.0.5",),
    )
    assert CLASS_COMMAND in found.warning
    assert "python -m pages.app_layer.serving.launch --server.address 0.0.0.0" in found.warning


def test_no_network_address_is_said_and_the_link_is_not_presented_as_working() -> None:
    found = join_origin(
        "http://localhost:8501/", public_url=None, server_address=None, addresses=()
    )
    assert found.source == "loopback"
    assert "no network address" in found.warning
    assert "phones cannot reach it" in found.warning


@pytest.mark.parametrize(
    "bad", ["class.example.org", "ftp://x.org", "https://", "https://x.org/?a=1", "  "]
)
def test_a_malformed_public_url_is_refused_with_what_to_set(bad: str) -> None:
    with pytest.raises(ValueError, match=r"LDPCORE_PUBLIC_URL is .*http:// or https://"):
        check_public_url(bad)


def test_loopback_names_and_bind_addresses() -> None:
    assert all(is_loopback_name(n) for n in ("localhost", "LOCALHOST", "127.0.0.1", "[::1]"))
    # 127.0.0.2 stands in for a classroom address in the tests; no browser shows it.
    assert not is_loopback_name("127.0.0.2")
    assert all(listens_on_loopback_only(a) for a in ("localhost", "127.0.0.1", "::1"))
    assert not any(listens_on_loopback_only(a) for a in ("0.0.0.0", "::", "", None))


def test_reachable_addresses_drop_loopback_link_local_and_duplicates() -> None:
    found = reachable_addresses(
        ["::1", "fe80::1%eth0", "10.0.0.5", "not an address", "0.0.0.0", "10.0.0.5", "fd00::9"]
    )
    assert found == ("10.0.0.5", "fd00::9")


def test_this_machines_addresses_are_real_and_never_loopback() -> None:
    for address in network_addresses():
        assert reachable_addresses([address]) == (address,)
