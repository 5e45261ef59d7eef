from __future__ import annotations

import math

import pytest

import ldpcore
from ldpcore.protocols import PROTOCOLS, get_protocol, protocol_names, resolve_protocol_name

ALL = protocol_names()


def test_registry_has_every_protocol_of_the_papers() -> None:
    # At least these (the registry may hold more: tests register a toy protocol).
    assert {"GRR", "OLH", "BLH", "OUE", "SUE", "SS", "HR"} <= set(ALL)


@pytest.mark.parametrize("name", ALL)
def test_names_are_case_insensitive(name: str) -> None:
    assert resolve_protocol_name(name.lower()) == name
    assert resolve_protocol_name(f"  {name.title()} ") == name
    assert get_protocol(name.lower(), epsilon=1.0, domain_size=8).name == name


def test_unknown_name_lists_the_valid_ones() -> None:
    with pytest.raises(ValueError, match="unknown protocol 'RAPPOR'") as info:
        get_protocol("RAPPOR", epsilon=1.0, domain_size=8)
    for name in ALL:
        assert name in str(info.value)


@pytest.mark.parametrize("name", ALL)
def test_metadata_present(name: str) -> None:
    cls = PROTOCOLS[name]
    assert cls.description and cls.reference and cls.communication


@pytest.mark.parametrize("name", ALL)
@pytest.mark.parametrize("epsilon", [0.05, 1.0, 5.0, 10.0])
@pytest.mark.parametrize("d", [2, 3, 1024])
def test_p_above_q_and_both_probabilities(name: str, epsilon: float, d: int) -> None:
    protocol = get_protocol(name, epsilon=epsilon, domain_size=d)
    assert 0 < protocol.q < protocol.p <= 1


def test_protocol_parameters_match_reading_notes() -> None:
    e = math.e
    grr = get_protocol("GRR", epsilon=1.0, domain_size=10)
    assert grr.p == pytest.approx(e / (e + 9)) and grr.q == pytest.approx(1 / (e + 9))
    olh = get_protocol("OLH", epsilon=1.0, domain_size=10)
    assert olh.parameters()["g"] == 4 and olh.q == 0.25
    assert olh.p == pytest.approx(e / (e + 3))
    assert get_protocol("OLH", epsilon=0.05, domain_size=10).parameters()["g"] == 2
    assert get_protocol("BLH", epsilon=3.0, domain_size=10).parameters() == {
        "epsilon": 3.0,
        "domain_size": 10,
    }
    ss = get_protocol("SS", epsilon=1.0, domain_size=1024)
    k = round(1024 / (e + 1))
    assert ss.parameters()["k"] == k
    assert ss.p == pytest.approx(k * e / (k * e + 1024 - k))
    assert ss.q == pytest.approx((k * e * (k - 1) + (1024 - k) * k) / (1023 * (k * e + 1024 - k)))
    hr = get_protocol("HR", epsilon=1.0, domain_size=1023)
    assert hr.p == pytest.approx(e / (e + 1)) and hr.q == 0.5
    assert hr.order == 1024
    assert get_protocol("HR", epsilon=1.0, domain_size=1024).order == 2048


def test_custom_parameters_are_checked() -> None:
    assert get_protocol("OLH", epsilon=1.0, domain_size=10, g=7).parameters()["g"] == 7
    assert get_protocol("SS", epsilon=1.0, domain_size=10, k=3).parameters()["k"] == 3
    with pytest.raises(ValueError, match=r"g must be an integer in \[2,"):
        get_protocol("OLH", epsilon=1.0, domain_size=10, g=1)
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 9\]"):
        get_protocol("SS", epsilon=1.0, domain_size=10, k=10)
    with pytest.raises(ValueError, match="applies to OLH only"):
        get_protocol("GRR", epsilon=1.0, domain_size=10, g=4)
    with pytest.raises(ValueError, match="applies to SS only"):
        get_protocol("OUE", epsilon=1.0, domain_size=10, k=4)
    with pytest.raises(ValueError, match="BLH always uses g=2"):
        ldpcore.BLH(epsilon=1.0, domain_size=10, g=4)


def test_public_api_exports() -> None:
    for name in ldpcore.__all__:
        assert hasattr(ldpcore, name)
