"""Constrained inference on a tree: the least-squares consistent tree (Hay et al. 2010).

The step the ``Consistency`` method (:mod:`ldpcore.postprocess.consistency`) asks a
hierarchy for; it lives with the trees because it needs only their shape.

A hierarchy's raw levels disagree: a parent's estimate is not the sum of its
children's. Hay, Rastogi, Miklau and Suciu (*Boosting the Accuracy of Differentially
Private Histograms Through Consistency*, VLDB 2010, Sec. 4) find the consistent tree
closest to the noisy one in least squares, in two passes; Kulkarni, Cormode and
Srivastava (VLDB 2019, Sec. 4.4) apply it to the local model's hierarchies.

Hay et al. weight every node equally, which is right when every node's noise has the
same variance. Here each node is weighted by its own variance (its level's, NDSS Eq. 5
at the users who reported that level), so a level that fewer users reported, or that an
oracle reports more noisily, counts for less; with equal variances the two passes are
Hay et al.'s exactly. The passes are exact generalised least squares for independent
node errors on a tree:

* **up** (leaves first): ``z_v`` is the best estimate of node ``v`` from its subtree
  alone, the inverse-variance mean of its own estimate ``y_v`` (variance ``s_v``) and its
  children's sum ``Σ z_c`` (variance ``Σ V_c``); ``V_v = 1/(1/s_v + 1/Σ V_c)``;
* **down** (root first): the root is the whole domain, one; each child takes its share
  of its parent's remaining gap in proportion to its variance,
  ``x_c = z_c + (V_c/Σ_siblings V)(x_v − Σ_siblings z)``.

Nodes wholly past the domain are known to be empty (variance 0); a level no user
reported has infinite variance and is inferred from the others.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore.errors import InputError
from ldpcore.protocols.trees import TreeLayout


def consistent_levels(
    layout: TreeLayout,
    levels: Sequence[ArrayLike],
    variances: ArrayLike,
    *,
    total: float = 1.0,
) -> list[NDArray[np.float64]]:
    """The least-squares consistent tree closest to noisy ``levels``.

    Parameters
    ----------
    layout : TreeLayout
        The tree.
    levels : sequence of array_like
        Level ``ℓ``'s noisy node values at position ``ℓ − 1``, each ``(..., B^ℓ)``
        (a leading axis holds independent trees, one per trial).
    variances : array_like
        Each level's per-node noise variance, shape ``(h,)`` or ``(..., h)``; ``inf``
        for a level that holds no information.
    total : float
        The root's known value (one, for frequencies).

    Returns
    -------
    list of ndarray
        The consistent levels: every parent the sum of its children, the root ``total``.
    """
    observed = layout.check_levels(levels)
    variance = np.asarray(variances, dtype=np.float64)
    if variance.shape[-1:] != (layout.height,) or not np.all(variance >= 0):
        raise InputError(f"variances must be {layout.height} non-negative numbers, one per level")
    finite = np.isfinite(variance)
    width = layout.branching
    up: list[NDArray[np.float64]] = [np.empty(0)] * layout.height
    spread: list[NDArray[np.float64]] = [np.empty(0)] * layout.height
    for level in range(layout.height, 0, -1):
        own = observed[level - 1]
        own_variance = np.broadcast_to(variance[..., level - 1 : level], own.shape)
        own_finite = np.broadcast_to(finite[..., level - 1 : level], own.shape)
        empty = layout.empty_nodes(level)
        if level == layout.height:
            z = np.where(own_finite, own, 0.0)
            v = np.where(own_finite, own_variance, np.inf)
        else:
            children = up[level].reshape(*up[level].shape[:-1], -1, width)
            children_variance = spread[level].reshape(*spread[level].shape[:-1], -1, width)
            below = children.sum(-1)
            below_variance = children_variance.sum(-1)
            z, v = _combine(own, own_variance, own_finite, below, below_variance)
        up[level - 1] = np.where(empty, 0.0, z)
        spread[level - 1] = np.where(empty, 0.0, v)
    if np.any(np.isinf(spread[0])):
        raise InputError("every level of the tree is empty: no user reported")
    result: list[NDArray[np.float64]] = []
    parent = np.full((*observed[0].shape[:-1], 1), float(total))
    for level in range(1, layout.height + 1):
        z = up[level - 1].reshape(*up[level - 1].shape[:-1], -1, width)
        v = spread[level - 1].reshape(*spread[level - 1].shape[:-1], -1, width)
        gap = parent[..., np.newaxis] - z.sum(-1, keepdims=True)
        node = (z + _gap_shares(v) * gap).reshape(*z.shape[:-2], -1)
        result.append(node)
        parent = node
    return result


def range_weights(
    layout: TreeLayout, start: int, stop: int, variances: ArrayLike
) -> list[NDArray[np.float64]]:
    """Each noisy node's weight in the consistent tree's answer for the range ``[start, stop)``.

    The consistent tree is affine in the noisy levels, ``x = c + M y``, so the range's
    answer ``r·x`` (``r`` one on the range's leaves) is ``r·c + (Mᵀ r)·y``. ``Mᵀ r`` is
    the two passes of :func:`consistent_levels` run backwards (their adjoint), with the
    coefficients the forward passes use, in O(nodes): what a unit change of each noisy
    node does to the range's answer.

    Parameters
    ----------
    layout : TreeLayout
        The tree.
    start, stop : int
        The range of values, ``0 ≤ start < stop ≤ d``.
    variances : array_like
        Each level's per-node noise variance, shape ``(h,)``, as for
        :func:`consistent_levels`.

    Returns
    -------
    list of ndarray
        Level ``ℓ``'s weights at position ``ℓ − 1``, one per node.
    """
    variance = np.asarray(variances, dtype=np.float64)
    if variance.shape != (layout.height,) or not np.all(variance >= 0):
        raise InputError(f"variances must be {layout.height} non-negative numbers, one per level")
    if not 0 <= start < stop <= layout.domain_size:
        raise InputError(f"a range must satisfy 0 ≤ start < stop ≤ {layout.domain_size}")
    width, height = layout.branching, layout.height
    own_weight: list[NDArray[np.float64]] = [np.empty(0)] * height
    below_weight: list[NDArray[np.float64]] = [np.empty(0)] * height
    spread: list[NDArray[np.float64]] = [np.empty(0)] * height
    for level in range(height, 0, -1):
        size = layout.level_size(level)
        own_variance = np.full(size, variance[level - 1])
        own_finite = np.isfinite(own_variance)
        empty = layout.empty_nodes(level)
        if level == height:
            own, below, v = (
                own_finite * 1.0,
                np.zeros(size),
                np.where(own_finite, own_variance, np.inf),
            )
        else:
            below_variance = spread[level].reshape(-1, width).sum(-1)
            # The forward pass's own combination read at unit inputs gives its coefficients.
            own, _ = _combine(
                np.ones(size), own_variance, own_finite, np.zeros(size), below_variance
            )
            below, v = _combine(
                np.zeros(size), own_variance, own_finite, np.ones(size), below_variance
            )
        own_weight[level - 1] = np.where(empty, 0.0, own)
        below_weight[level - 1] = np.where(empty, 0.0, below)
        spread[level - 1] = np.where(empty, 0.0, v)
    # Backwards through the down pass, x_c = z_c + s_c (x_parent − Σ_siblings z).
    adjoint = np.zeros(layout.padded)
    adjoint[start:stop] = 1.0
    direct: list[NDArray[np.float64]] = [np.empty(0)] * height
    for level in range(height, 0, -1):
        children = adjoint.reshape(-1, width)
        passed = (_gap_shares(spread[level - 1].reshape(-1, width)) * children).sum(-1)
        direct[level - 1] = (children - passed[:, np.newaxis]).ravel()
        adjoint = passed  # the parent's; the root's is a known constant
    # Backwards through the up pass, z_v = a_v y_v + b_v Σ_children z, root side first.
    weights = []
    carried = np.zeros(layout.level_size(1))
    for level in range(1, height + 1):
        total = direct[level - 1] + carried
        weights.append(own_weight[level - 1] * total)
        carried = np.repeat(below_weight[level - 1] * total, width)
    return weights


def _gap_shares(spread: NDArray[np.float64]) -> NDArray[np.float64]:
    """How siblings (last axis) share their parent's gap: in proportion to their variance.

    Children no level informs (infinite variance) share it equally and known ones take
    none; siblings all known exactly share it equally.
    """
    width = spread.shape[-1]
    total = spread.sum(-1, keepdims=True)
    infinite = np.isinf(spread)
    unknown = infinite.sum(-1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(
            unknown > 0,
            infinite / np.maximum(unknown, 1),
            np.where(total > 0, spread / total, 1.0 / width),
        )


def _combine(
    own: NDArray[np.float64],
    own_variance: NDArray[np.float64],
    own_finite: NDArray[np.bool_],
    below: NDArray[np.float64],
    below_variance: NDArray[np.float64],
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The inverse-variance mean of a node's own estimate and its children's sum."""
    with np.errstate(invalid="ignore", divide="ignore"):
        weight = own_variance / (own_variance + below_variance)  # the children's weight
        mean = own + weight * (below - own)
        variance = own_variance * below_variance / (own_variance + below_variance)
    below_only = ~own_finite | (below_variance == 0)
    own_only = own_finite & ((own_variance == 0) | np.isinf(below_variance)) & ~below_only
    mean = np.where(below_only, below, np.where(own_only, own, mean))
    variance = np.where(below_only, below_variance, np.where(own_only, own_variance, variance))
    return mean, variance


__all__ = ["consistent_levels", "range_weights"]
