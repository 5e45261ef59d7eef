"""A computed default is said as it is used: the help's numbers are the built protocol's."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ldpcore.protocols import PROTOCOLS, get_protocol

DECLARED = [
    (name, parameter)
    for name, cls in PROTOCOLS.items()
    for parameter in cls.extra_parameters
    if parameter.default is not None
]


def test_every_computed_default_is_declared_with_examples() -> None:
    assert DECLARED, "no protocol declares a computed default"
    for name, parameter in DECLARED:
        assert parameter.examples, (name, parameter.name)
        said = parameter.described()
        for epsilon, d in parameter.examples:
            assert f"{parameter.default(epsilon, d):.3g} at ε = {epsilon:g}, d = {d:,}" in said


@pytest.mark.parametrize(("name", "parameter"), DECLARED, ids=lambda x: getattr(x, "name", x))
def test_the_examples_are_what_the_protocol_builds(name: str, parameter: object) -> None:
    for epsilon, d in parameter.examples:  # type: ignore[attr-defined]
        built = get_protocol(name, epsilon=epsilon, domain_size=d).parameters()
        assert built[parameter.name] == pytest.approx(parameter.default(epsilon, d))  # type: ignore[attr-defined]


@settings(max_examples=40, deadline=None)
@given(
    which=st.integers(0, 10_000),
    epsilon=st.sampled_from([0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 5.0]),
    d=st.integers(2, 2048),
)
def test_the_rule_is_the_constructor_s_anywhere(which: int, epsilon: float, d: int) -> None:
    name, parameter = DECLARED[which % len(DECLARED)]
    built = get_protocol(name, epsilon=epsilon, domain_size=d).parameters()
    assert built[parameter.name] == pytest.approx(parameter.default(epsilon, d))
