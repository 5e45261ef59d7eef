"""Randomness enters ldpcore through one argument, normalised here (SPEC 7)."""

from __future__ import annotations

import numpy as np

#: What a caller may pass as ``rng``: a Generator, a seed, a SeedSequence or None.
RNGLike = np.random.Generator | np.random.SeedSequence | int | None


def as_generator(rng: RNGLike) -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``rng``.

    A Generator is used as it is (the caller keeps its stream); a seed or
    ``SeedSequence`` makes a fresh PCG64 generator; ``None`` draws OS entropy.
    """
    if isinstance(rng, bool):
        raise ValueError(f"rng must be a numpy Generator, an integer seed or None, got {rng!r}")
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None or isinstance(rng, np.random.SeedSequence | int | np.integer):
        return np.random.default_rng(rng)
    raise ValueError(f"rng must be a numpy Generator, an integer seed or None, got {rng!r}")


def trial_generators(
    seed: int | np.random.SeedSequence | None, trials: int
) -> list[np.random.Generator]:
    """Return one independent generator per trial from ``SeedSequence.spawn``.

    Trial ``i`` always gets the ``i``-th child of the seed, so results do not depend
    on how trials are split across processes or machines.
    """
    sequence = seed if isinstance(seed, np.random.SeedSequence) else np.random.SeedSequence(seed)
    return [np.random.Generator(np.random.PCG64(child)) for child in sequence.spawn(trials)]
