"""Protocols made of flat collections: a hierarchy's levels, each its own oracle.

A :class:`Composite` protocol (``FrequencyOracle.composite``) collects several flat
collections at once (each user reports one of them) and assembles its estimate from
theirs. Post-processing then means a flat method applied to each part with the part's
own oracle, users and Base estimate, the outputs assembled the same way
(:meth:`ldpcore.postprocess.base.PostProcessor.__call__`); a method that reads the whole
structure asks for a consistent assembly (the hierarchy's consistency step).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import cast

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.errors import InputError
from ldpcore.protocols.base import FrequencyOracle


@dataclass(frozen=True)
class Part:
    """One flat collection inside a composite protocol.

    Attributes
    ----------
    index : int
        Its place among the protocol's parts (a hierarchy's level minus one).
    oracle : FrequencyOracle
        The flat oracle its users reported through.
    n : int
        How many users reported it.
    estimate : ndarray
        Its Base estimate, over the oracle's domain.
    """

    index: int
    oracle: FrequencyOracle
    n: int
    estimate: NDArray[np.float64]


class Composite(ABC):
    """What a composite protocol adds to the oracle contract: its parts, and their assembly."""

    @abstractmethod
    def parts(self, tallies: ArrayLike) -> tuple[Part, ...]:
        """The flat collections the tallies hold (a part nobody reported is left out)."""

    @abstractmethod
    def assemble(
        self, parts: Sequence[Part], outputs: Sequence[ArrayLike], *, consistent: bool = False
    ) -> NDArray[np.float64]:
        """The protocol's estimate from one output per part, in order.

        ``consistent``: first make the parts agree where they overlap (a hierarchy's
        parents and children), by least squares.
        """

    def read_ranges(
        self,
        parts: Sequence[Part],
        outputs: Sequence[ArrayLike],
        starts: ArrayLike,
        stops: ArrayLike,
    ) -> NDArray[np.float64] | None:
        """Each range ``[start, stop)`` read off the parts as the protocol's paper reads it.

        None (the default) where the assembled estimate's sums are that reading; one
        output per part, as :meth:`assemble` takes them.
        """
        return None


def as_composite(protocol: FrequencyOracle) -> Composite:
    """``protocol`` as a composite one, or an InputError if it is one flat collection."""
    if not protocol.composite:
        raise InputError(f"{protocol.name} is one flat collection, not made of parts")
    return cast(Composite, protocol)


__all__ = ["Composite", "Part", "as_composite"]
