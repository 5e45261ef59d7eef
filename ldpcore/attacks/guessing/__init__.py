"""The attacker who reads one report: how often the best guess of its value is right.

The Bayes-optimal (maximum a posteriori) attacker who knows the prior ``π`` and the
protocol guesses ``argmax_v π_v P(y | v)`` for report ``y``; it is right with probability
``Σ_y max_v π_v P(y | v)`` (Bayes decision rule; Kairouz, Oh & Viswanath, ICML 2014, for
this view of LDP channels). No attacker does better; compare with ``max_v π_v``, the rate
of guessing without the report.

Each protocol family's module (``grr``, ``olh``, ``unary``, ``subset_selection``,
``hadamard``, ``she``, ``dbitflip``, ``trees``, ``square_wave``, ``haar``)
gives the exact closed form for any d, found by the
protocol's class (nearest registered ancestor first); any other protocol's rate is the
sum over its enumerated channel (small d).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import Any, Final

import numpy as np
from numpy.typing import ArrayLike

from ldpcore.attacks.guessing import (
    dbitflip,
    grr,
    haar,
    hadamard,
    olh,
    she,
    square_wave,
    subset_selection,
    trees,
    unary,
)
from ldpcore.attacks.guessing.priors import check_prior
from ldpcore.protocols import (
    GRR,
    OLH,
    SHE,
    DBitFlipPM,
    FrequencyOracle,
    HaarHRR,
    HadamardResponse,
    Hierarchy,
    SquareWave,
    SubsetSelection,
    UnaryEncoding,
    entry_for,
)

#: Protocol class → its closed form. Keyed by class object (abstract families included).
GUESS_RATES: Final[Mapping[type, Callable[[Any, ArrayLike], float]]] = MappingProxyType(
    {
        GRR: grr.guess_rate,
        OLH: olh.guess_rate,
        UnaryEncoding: unary.guess_rate,
        SubsetSelection: subset_selection.guess_rate,
        HadamardResponse: hadamard.guess_rate,
        SHE: she.guess_rate,
        DBitFlipPM: dbitflip.guess_rate,
        SquareWave: square_wave.guess_rate,
        HaarHRR: haar.guess_rate,
        # A hierarchy's levels are read with their own oracles' closed forms.
        Hierarchy: lambda protocol, prior: trees.guess_rate(protocol, prior, level_rate=guess_rate),
    }
)


def guess_rate(protocol: FrequencyOracle, prior: ArrayLike) -> float:
    """How often the best possible attacker guesses a user's value from one report.

    Parameters
    ----------
    protocol : FrequencyOracle
        The protocol the report was made under.
    prior : array_like
        ``π``: how common each value is (non-negative, normalised here).
    """
    closed_form = entry_for(GUESS_RATES, protocol)
    if closed_form is None:
        return channel_guess_rate(protocol, prior)
    return closed_form(protocol, prior)


def channel_guess_rate(protocol: FrequencyOracle, prior: ArrayLike) -> float:
    """``Σ_y max_v π_v P(y | v)`` over the enumerated channel (small ``d`` only)."""
    pi = check_prior(prior, protocol.domain_size)
    return float(np.max(protocol.channel_matrix() * pi[None, :], axis=1).sum())


__all__ = ["GUESS_RATES", "channel_guess_rate", "guess_rate"]
