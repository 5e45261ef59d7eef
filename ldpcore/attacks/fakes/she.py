"""SHE's fake users: what a fake report is, and its support drawn exactly.

Cao, Jia and Gong (USENIX Security 2021) for the attacks; :mod:`ldpcore.attacks.fakes`
registers these functions for the protocol.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ldpcore.attacks.fakes.base import FakeUsers, not_described
from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.she import GRID_STEPS, SHE

#: The attacks besides the random item attack, which needs nothing of the protocol.
ATTACKS = frozenset({"rpa"})


def refused(protocol: FrequencyOracle, kind: str) -> InputError:
    """The error for an attack SHE does not describe: why there is no maximal gain."""
    if kind != "mga":
        return not_described(protocol, kind, ATTACKS)
    return InputError(
        "SHE's reports are real numbers, so a maximal-gain fake user can send any number "
        "and its gain has no bound (a report of M on the target moves its estimate by "
        "M/n). Clip reports on the server before trusting SHE against fake users; "
        "it takes ria and rpa here"
    )


def support_rate(protocol: SHE, kind: str, targets: NDArray[np.int64]) -> NDArray[np.float64]:
    """``q`` everywhere for ``rpa``: a noise-only report adds nothing on average.

    The rate is in the equivalent binomial's terms (module docstring): the fake
    report's expected pseudo-support ``q + s·E[y_v]`` with ``E[y_v] = 0``.
    """
    if kind != "rpa":
        raise refused(protocol, kind)
    return np.full(protocol.domain_size, protocol.q)


def support(
    protocol: SHE, kind: str, targets: NDArray[np.int64], fakes: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """The sums of ``fakes`` noise-only reports: a difference of two NB(fakes) draws."""
    if kind != "rpa":
        raise refused(protocol, kind)
    return protocol.noise_sums(fakes, rng)


def reports(
    protocol: SHE, kind: str, targets: NDArray[np.int64], fakes: int, rng: np.random.Generator
) -> NDArray[np.float64]:
    """Noise-only reports (``rpa``): the noise on every coordinate, no one-hot."""
    if kind != "rpa":
        raise refused(protocol, kind)
    shape = (fakes, protocol.domain_size)
    return protocol.noise_steps(rng, shape) / GRID_STEPS


FAKES = FakeUsers(attacks=ATTACKS, support_rate=support_rate, support=support, reports=reports)
