"""A toy protocol in one file: randomized response with decoy outputs ("PadRR").

It exists to prove the recipe in ARCHITECTURE.md ("add a protocol"): everything
specific to it is declared here, and tests/house/test_extending.py registers it in a
temporary registry and runs every part of ldpcore on it with no other change.

A user reports one of ``d + pad`` outputs: its own value with probability
``p = e^ε / (e^ε + d + pad − 1)``, any other output (another value or one of the
``pad`` decoys) with ``q = 1 / (e^ε + d + pad − 1)``. A report supports the value it
names; a decoy supports nothing. ``p/q = e^ε`` exactly, so it is ε-LDP. With
``pad = 0`` it is GRR.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_int
from ldpcore.attacks.guessing.priors import check_prior
from ldpcore.collection.formats.base import ReportFormat
from ldpcore.collection.formats.checks import integer_columns
from ldpcore.protocols.base import (
    FrequencyOracle,
    ProtocolParameter,
    ratio_from_matrix,
)
from ldpcore.rng import ClientRNG, as_source


@dataclass(frozen=True, kw_only=True)
class PadRR(FrequencyOracle):
    """Randomized response over the values plus ``pad`` decoy outputs."""

    name: ClassVar[str] = "PadRR"
    description: ClassVar[str] = "Randomized response with decoy outputs (a test toy)"
    reference: ClassVar[str] = "tests/toy_protocol.py"
    communication: ClassVar[str] = "one output (log2(d + pad) bits)"
    extra_parameters: ClassVar[tuple[ProtocolParameter, ...]] = (
        ProtocolParameter("pad", "PadRR's number of decoy outputs (default 1)", 0),
    )

    pad: int = 1

    def __post_init__(self) -> None:
        super().__post_init__()
        object.__setattr__(self, "pad", check_int(self.pad, name="pad", minimum=0, maximum=10**6))

    @property
    def outputs(self) -> int:
        """``d + pad``."""
        return self.domain_size + self.pad

    @property
    def p(self) -> float:
        """``e^ε / (e^ε + d + pad − 1)``."""
        return math.exp(self.epsilon) / (math.exp(self.epsilon) + self.outputs - 1)

    @property
    def q(self) -> float:
        """``1 / (e^ε + d + pad − 1)``."""
        return 1.0 / (math.exp(self.epsilon) + self.outputs - 1)

    def parameters(self) -> dict[str, Any]:
        """Constructor arguments, including ``pad``."""
        return {**super().parameters(), "pad": self.pad}

    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> NDArray[np.int64]:
        """Keep the value with probability ``p``, else a uniform other output."""
        v = self._values(values)
        generator = as_source(rng)
        keep = generator.random(v.size) < self.p
        other = (v + 1 + generator.integers(0, self.outputs - 1, size=v.size)) % self.outputs
        return np.where(keep, v, other).astype(np.int64)

    def aggregate(self, reports: Any) -> NDArray[np.int64]:
        """How many reports name each value (decoys are dropped)."""
        outputs = np.asarray(reports, dtype=np.int64)
        return np.bincount(outputs[outputs < self.domain_size], minlength=self.domain_size)

    def _sample_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        # Mixture: with α = p − q keep the value, else a uniform output of all d + pad
        # (which gives q to every output); exact, as for GRR.
        kept = rng.binomial(true_counts, self.p - self.q)
        spread = rng.multinomial(
            int(true_counts.sum() - kept.sum()), np.full(self.outputs, 1.0 / self.outputs)
        )
        return (kept + spread[: self.domain_size]).astype(np.int64)

    def channel_matrix(self) -> NDArray[np.float64]:
        """``Q[y, v] = p`` if ``y == v`` else ``q``, over the ``d + pad`` outputs."""
        channel = np.full((self.outputs, self.domain_size), self.q)
        channel[np.arange(self.domain_size), np.arange(self.domain_size)] = self.p
        return channel

    def worst_case_ratio(self) -> float:
        """From the channel (two probabilities per output: ``p`` and ``q``)."""
        return ratio_from_matrix(self.channel_matrix())

    def support_matrix(self) -> NDArray[np.float64]:
        """Output ``y < d`` supports value ``y``; a decoy supports nothing."""
        return np.eye(self.outputs, self.domain_size)

    def distinguishing_event(self, reports: Any, v: int, w: int) -> NDArray[np.bool_]:
        """The report names ``v``."""
        return np.asarray(reports) == v


def _columns(protocol: PadRR) -> tuple[str, ...]:
    """``output``: the reported output in ``[0, d + pad)``."""
    return ("output",)


def _to_frame(protocol: PadRR, reports: Any, *, text: bool) -> pd.DataFrame:
    """One row per report."""
    return pd.DataFrame({"output": np.asarray(reports, dtype=np.int64)})


def _from_frame(protocol: PadRR, frame: pd.DataFrame, *, source: str) -> NDArray[np.int64]:
    """Outputs in ``[0, d + pad)``."""
    return integer_columns(frame, ("output",), protocol.outputs, source)[:, 0]


def _describe(protocol: PadRR, reports: Any, index: int) -> tuple[str, Any]:
    """The output, or that it is a decoy."""
    array = np.asarray(reports)
    value = int(array[index])
    text = f"{value}" if value < protocol.domain_size else f"decoy {value - protocol.domain_size}"
    return text, array[index : index + 1]


#: PadRR's report files, registered in ``ldpcore.collection.formats.REPORT_FORMATS``.
PAD_RR_FORMAT = ReportFormat(
    columns=_columns, to_frame=_to_frame, from_frame=_from_frame, describe=_describe
)


def pad_rr_guess_rate(protocol: PadRR, prior: ArrayLike) -> float:
    """Closed form, any ``d``: a report naming a value is guessed as that value when
    ``p π_y ≥ q max_v π_v``, else as the most common value; a decoy as the most common.

    Registered for PadRR in ``ldpcore.attacks.guessing.GUESS_RATES`` (the guess rate is
    the attacker's feature, not the oracle's)."""
    pi = check_prior(prior, protocol.domain_size)
    top = float(pi.max())
    return float(
        np.maximum(protocol.p * pi, protocol.q * top).sum() + protocol.pad * protocol.q * top
    )
