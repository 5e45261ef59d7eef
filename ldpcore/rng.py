"""Randomness enters ldpcore through one argument, normalised here (SPEC 7)."""

from __future__ import annotations

import os
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from ldpcore.errors import InputError

#: What a caller may pass as ``rng``: a Generator, a seed, a SeedSequence or None.
RNGLike = np.random.Generator | np.random.SeedSequence | int | None


def as_generator(rng: RNGLike) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``rng``.

    A Generator is used as it is (the caller keeps its stream); a seed or
    ``SeedSequence`` makes a fresh PCG64 generator; ``None`` draws OS entropy.
    """
    if isinstance(rng, bool):
        raise InputError(f"rng must be a numpy Generator, an integer seed or None, got {rng!r}")
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, np.random.SeedSequence | int | np.integer):
        return np.random.default_rng(rng)
    raise InputError(f"rng must be a numpy Generator, an integer seed or None, got {rng!r}")


def trial_generators(
    seed: int | np.random.SeedSequence | None, trials: int
) -> list[np.random.Generator]:
    """Return one independent generator per trial from ``SeedSequence.spawn``.

    Trial ``i`` always gets the ``i``-th child of the seed, so results do not depend
    on how trials are split across processes or machines.
    """
    sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return [np.random.Generator(np.random.PCG64(child)) for child in sequence.spawn(trials)]


class RandomSource(Protocol):
    """What the client randomizers draw from: a numpy Generator or :class:`SecureRandom`."""

    def random(self, size: Any = None) -> Any:
        """Uniform floats in [0, 1)."""

    def integers(
        self, low: int, high: int, size: Any = None, dtype: Any = np.int64, endpoint: bool = False
    ) -> Any:
        """Uniform integers in [low, high) (or [low, high] with ``endpoint``)."""


class SecureRandom:
    """Uniform draws from the operating system's secure generator (``os.urandom``).

    The real client randomizer uses this by default (``ldpcore randomize``): a numpy
    Generator is fast and reproducible, which is right for simulation, but its state
    can be recovered from its output, which is wrong for protecting real people's
    values. Only the two draws the randomizers make are provided. It holds no state.

    Examples
    --------
    >>> values = SecureRandom().integers(0, 6, size=1000)
    >>> bool(values.min() >= 0 and values.max() <= 5)
    True
    """

    def random(self, size: Any = None) -> Any:
        """Uniform floats in [0, 1) with 53 random bits each."""
        count = int(np.prod(size)) if size is not None else 1
        words = np.frombuffer(os.urandom(8 * count), dtype=np.uint64)
        floats = (words >> np.uint64(11)).astype(np.float64) * 2.0**-53
        return floats.reshape(size) if size is not None else float(floats[0])

    def integers(
        self, low: int, high: int, size: Any = None, dtype: Any = np.int64, endpoint: bool = False
    ) -> Any:
        """Uniform integers in ``[low, high)`` (``[low, high]`` with ``endpoint``), unbiased.

        Rejection sampling: a 64-bit word is kept only below the largest multiple of the
        range, so every residue is equally likely.
        """
        span = int(high) - int(low) + (1 if endpoint else 0)
        count = int(np.prod(size)) if size is not None else 1
        if span == 2**64 and int(low) == 0:  # every 64-bit word: OLH's hash seeds
            out = np.frombuffer(os.urandom(8 * count), dtype=np.uint64).astype(dtype)
        elif 0 < span < 2**63:
            out = (_below(span, count).astype(np.int64) + int(low)).astype(dtype)
        else:
            raise InputError(f"integer range [{low}, {high}] is empty or wider than supported")
        return out.reshape(size) if size is not None else out[0].item()


def _below(span: int, count: int) -> NDArray[np.uint64]:
    """``count`` uniform integers in ``[0, span)`` from OS randomness, by rejection."""
    limit = (2**64 // span) * span  # words below an exact multiple of span are unbiased
    result = np.empty(count, dtype=np.uint64)
    filled = 0
    while filled < count:
        need = count - filled
        # At least half the words are kept, so 2·need + 8 words almost always suffice.
        words = np.frombuffer(os.urandom(8 * (2 * need + 8)), dtype=np.uint64)
        if limit < 2**64:
            words = words[words < np.uint64(limit)]
        kept = words[:need]
        result[filled : filled + kept.size] = kept % np.uint64(span)
        filled += kept.size
    return result


#: What a client randomizer accepts: anything :data:`RNGLike`, or :class:`SecureRandom`.
ClientRNG = RNGLike | SecureRandom


def as_source(rng: ClientRNG) -> RandomSource:
    """A client randomizer's source of randomness.

    ``None`` (the default of every ``randomize``) means the OS's secure generator: a
    real client protects a real person. A Generator or a seed gives a reproducible
    simulation instead.
    """
    if rng is None:
        return SecureRandom()
    if isinstance(rng, SecureRandom):
        return rng
    return as_generator(rng)
