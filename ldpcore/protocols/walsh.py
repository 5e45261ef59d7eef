"""The Walsh–Hadamard maths Hadamard Response and its likelihood share.

The Sylvester Hadamard matrix ``H`` of order ``K`` (a power of two),
``H[r, c] = (−1)^{popcount(r & c)}``, its fast transform in O(K log K), a batched
transform for many rows at once, and the sign columns the values use. A leaf of
:mod:`ldpcore.protocols`: the protocol (:mod:`~ldpcore.protocols.hadamard`) and the
row likelihood (:mod:`~ldpcore.protocols.likelihoods`) both import it, and it imports
neither, so the two never import each other.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.errors import InputError


def fwht(x: ArrayLike) -> NDArray[Any]:
    """Fast Walsh–Hadamard transform ``H x`` for the Sylvester ``H``, in O(K log K).

    Integers stay exact (int64); floats are transformed in float64.

    Parameters
    ----------
    x : array_like
        Length ``K``, a power of two.

    Examples
    --------
    >>> fwht([1, 0, 0, 0]).tolist()
    [1, 1, 1, 1]
    >>> fwht([0, 1, 0, 0]).tolist()
    [1, -1, 1, -1]
    """
    a = np.array(x)
    a = a.astype(np.float64 if np.issubdtype(a.dtype, np.floating) else np.int64)
    size = a.shape[0]
    if a.ndim != 1 or size == 0 or size & (size - 1):
        raise InputError(f"fwht needs a 1-D array whose length is a power of two, got {a.shape}")
    half = 1
    while half < size:
        blocks = a.reshape(-1, 2, half)
        a = np.stack((blocks[:, 0] + blocks[:, 1], blocks[:, 0] - blocks[:, 1]), axis=1).ravel()
        half *= 2
    return a


def sylvester_factors(order: int) -> tuple[NDArray[np.float64], ...]:
    """Small Sylvester matrices whose Kronecker product is ``H`` of size ``order``.

    The entries of ``H`` are ``(−1)^popcount(i & j)``, which factors over groups of
    index bits: ``H_{AB} = H_A ⊗ H_B``. The groups are as equal as they can be, of at
    most six bits up to ``K = 2^11`` and five above: measured for one row and for
    eight, ``2^15`` takes 0.21 ms as 5+5+5 against 0.32 ms as 6+6+3 and
    0.71 ms as 8+7 (wider factors cost more multiplications than the passes they save).
    """
    bits = order.bit_length() - 1
    widest = 6 if bits <= 11 else 5
    count = max(1, -(-bits // widest))
    groups = [bits // count + 1] * (bits % count) + [bits // count] * (count - bits % count)
    butterfly = np.array([[1.0, 1.0], [1.0, -1.0]])
    factors: list[NDArray[np.float64]] = []
    for group in groups:
        signs = np.ones((1, 1))
        for _ in range(group):
            signs = np.kron(signs, butterfly)
        factors.append(signs)
    return tuple(factors)


def fwht_rows(
    x: NDArray[np.float64], factors: tuple[NDArray[np.float64], ...]
) -> NDArray[np.float64]:
    """:func:`fwht` of every row of a float array ``(rows, K)`` at once (no checks).

    ``factors`` is :func:`sylvester_factors` of ``K``. The posterior sampler transforms
    one row per chain at every leapfrog step, where the butterfly's ``log₂ K`` numpy
    passes cost more than the rest of the step; a matrix product with each factor, on
    the rows reshaped so that its group of index bits is one axis, takes two passes for
    ``K = 2048``.
    """
    rows, size = x.shape
    a: NDArray[np.float64] = np.asarray(x, dtype=np.float64)
    before = rows
    for signs in factors:
        width = len(signs)
        after = size * rows // (before * width)
        # (width × width) @ (before, width, after): the factor on this group of bits.
        a = np.matmul(signs, a.reshape(before, width, after), dtype=np.float64)
        before *= width
    return a.reshape(rows, size)


def hadamard_order(domain_size: int) -> int:
    """``K``: the smallest power of two strictly greater than ``d`` (column 0 is all +1)."""
    return 1 << domain_size.bit_length()


def hadamard_signs(order: int, domain_size: int) -> NDArray[np.float64]:
    """``H[r, v + 1]`` for every row ``r < order`` and value ``v``: ±1, ``(order, d)``.

    The columns the values use (column 0, all +1, is left out): the channel, the
    support matrix and the row likelihood's Newton step all read them from here.
    """
    rows = np.arange(order)[:, None]
    columns = np.arange(1, domain_size + 1)[None, :]
    return 1.0 - 2.0 * (np.bitwise_count(rows & columns) & 1)


__all__ = ["fwht", "fwht_rows", "hadamard_order", "hadamard_signs", "sylvester_factors"]
