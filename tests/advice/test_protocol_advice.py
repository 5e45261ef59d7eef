"""Each protocol's "good for" sentence against the variances it summarises
(NDSS 2020 Eq. 5, each protocol's own p and q) on a grid of ε and d."""

from __future__ import annotations

import math

import pytest

import ldpcore.protocols
from ldpcore.errors import InputError
from ldpcore.protocols import get_protocol

EPSILONS = (0.5, 1.0, 2.0, 4.0)
DOMAINS = (4, 16, 64, 1024, 16384)


def _variances(epsilon: float, d: int) -> dict[str, float]:
    return {
        name: get_protocol(name, epsilon=epsilon, domain_size=d).approx_variance(1)
        for name in ("GRR", "OLH", "BLH", "OUE", "SUE", "THE", "SS", "HR")
    }


def test_every_shipped_protocol_says_when_to_choose_it() -> None:
    for name, cls in ldpcore.protocols.PROTOCOLS.items():
        if not cls.__module__.startswith("toy_"):
            assert cls.good_for.strip(), name


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("d", DOMAINS)
def test_the_sentences_hold_on_the_grid(epsilon: float, d: int) -> None:
    v = _variances(epsilon, d)
    crossing = 3 * math.exp(epsilon) + 2
    # GRR below OUE's and OLH's under d = 3e^ε + 2; OUE below GRR beyond it.
    if d < crossing:
        assert v["GRR"] < min(v["OUE"], v["OLH"])
    elif d > crossing:
        assert v["OUE"] < v["GRR"]
    assert v["OLH"] == pytest.approx(v["OUE"], rel=0.02)  # "about OUE's error"
    assert v["BLH"] >= v["OLH"] and v["SUE"] > v["OUE"] and v["THE"] > v["OUE"]
    assert v["SS"] <= 1.10 * min(v.values())  # "the lowest, or within 10% of it"
    if epsilon >= 1:  # HR: "less accurate than OLH or OUE as ε grows"
        assert v["HR"] > max(v["OUE"], v["OLH"])


def test_blh_falls_further_behind_olh_as_epsilon_grows() -> None:
    gaps = [_variances(e, 1024)["BLH"] / _variances(e, 1024)["OLH"] for e in EPSILONS]
    assert gaps == sorted(gaps) and gaps[-1] > 10


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("d", DOMAINS)
@pytest.mark.parametrize("factor", [1.25, 2.0, 4.0])
def test_the_memoized_chains_sentences_hold_on_the_grid(
    epsilon: float, d: int, factor: float
) -> None:
    """L-GRR below L-OSUE under d = 3e^ε₁ + 2 (whatever ε∞), L-OSUE the best unary chain."""
    v = {}
    for name in ("L-GRR", "L-OSUE", "L-SUE", "L-OUE", "L-SOUE"):
        try:
            protocol = get_protocol(
                name, epsilon=epsilon, domain_size=d, epsilon_inf=factor * epsilon
            )
        except InputError:  # an OUE-like fresh round cannot reach this ε₁ ("cannot spend")
            assert ldpcore.protocols.protocol_class(name).fresh_round.kind == "optimized"
            continue
        v[name] = protocol.approx_variance(1)
    crossing = 3 * math.exp(epsilon) + 2
    if d < crossing:
        assert v["L-GRR"] < v["L-OSUE"]
    elif d > crossing:
        assert v["L-OSUE"] < v["L-GRR"]
    assert min(v, key=lambda name: v[name] if name != "L-GRR" else math.inf) == "L-OSUE"
    # RAPPOR's chain: one report is SUE's at ε₁.
    assert v["L-SUE"] == pytest.approx(_variances(epsilon, d)["SUE"], rel=1e-9)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("d", DOMAINS)
def test_dbitflip_pm_is_a_tiny_message_at_a_higher_error(epsilon: float, d: int) -> None:
    """ "At a much higher error than the unary encodings'": above SUE's and OUE's (d' < d)."""
    flip = get_protocol("dBitFlipPM", epsilon=epsilon, domain_size=d).approx_variance(1)
    v = _variances(epsilon, d)
    assert flip > 1.5 * max(v["OUE"], v["SUE"])
