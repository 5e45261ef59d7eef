"""The consistency step for hierarchies, with and without Norm-Sub after it.

A hierarchy's raw levels disagree: a parent's estimate is not the sum of its children's,
and a range read from one level differs from the same range read from another. Hay et
al.'s constrained inference (VLDB 2010, Sec. 4), applied to the local model's
hierarchies by Kulkarni, Cormode and Srivastava (VLDB 2019, Sec. 4.4), replaces them by
the consistent tree closest in least squares: a linear map of unbiased levels, so still
unbiased, and with a lower variance on every range
(:mod:`ldpcore.protocols.tree_least_squares`). A flat protocol has nothing to make
consistent: the step returns its Base estimate.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ldpcore.errors import InputError
from ldpcore.postprocess.base import Context, Enforcement, PostProcessor, Vector
from ldpcore.postprocess.normalization import project_to_simplex
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.composite import as_composite


@dataclass(frozen=True, kw_only=True)
class Consistency(PostProcessor):
    """The least-squares consistent tree (Hay et al.), each level weighted by its variance."""

    name: ClassVar[str] = "Consistency"
    aliases: ClassVar[tuple[str, ...]] = ("CI", "Cons")
    description: ClassVar[str] = (
        "A hierarchy's levels made to agree by least squares: every parent the sum of its children"
    )
    nonnegative: ClassVar[Enforcement] = "no"
    sums_to_one: ClassVar[Enforcement] = "no"
    complexity: ClassVar[str] = "O(nodes of the tree)"
    reference: ClassVar[str] = "Hay et al., VLDB 2010, Sec. 4; Kulkarni et al., VLDB 2019, Sec. 4.4"
    bias: ClassVar[str] = "none: a linear map of unbiased levels; every range's variance falls"
    unbiased: ClassVar[bool] = True
    formula: ClassVar[str] = (
        r"\min_x \sum_v (x_v - \tilde x_v)^2/\sigma^2_{\ell(v)}"
        r"\ \text{s.t.}\ x_v = \textstyle\sum_{c \in \mathrm{children}(v)} x_c,"
        r"\ x_{\mathrm{root}} = 1"
    )
    explanation: ClassVar[str] = (
        "A hierarchy estimates every level of a tree of intervals from different users, so "
        "a parent and the sum of its children disagree. The consistency step finds the tree "
        "closest to all the levels at once in which they agree (each level counted by how "
        "noisy it is), and reads every range from it. It stays unbiased and every range "
        "gets less noisy, most of all long ones. On a flat protocol it changes nothing."
    )

    #: A flat protocol has no levels to reconcile.
    for_composite: ClassVar[bool] = True

    def is_no_op(self, protocol: FrequencyOracle) -> bool:
        """A flat protocol has no levels to reconcile."""
        return not protocol.composite

    def _apply(self, estimate: Vector, context: Context) -> Vector:
        return estimate

    def _apply_parts(self, estimate: Vector, context: Context) -> Vector:
        if context.tallies is None:
            raise InputError(
                f"{context.protocol.name}'s consistency step reads its levels: pass its tallies"
            )
        whole = as_composite(context.protocol)
        parts = whole.parts(context.tallies)
        return self._finish(
            whole.assemble(parts, [part.estimate for part in parts], consistent=True)
        )

    def _finish(self, leaves: Vector) -> Vector:
        return leaves


@dataclass(frozen=True, kw_only=True)
class ConsistencyNormSub(Consistency):
    """The consistent tree's leaves, then Norm-Sub: non-negative and summing to one."""

    name: ClassVar[str] = "Cons-NS"
    aliases: ClassVar[tuple[str, ...]] = ("Consistency-Norm-Sub",)
    description: ClassVar[str] = (
        "The consistent tree's leaves made non-negative by Norm-Sub (a tree of their sums "
        "stays consistent)"
    )
    nonnegative: ClassVar[Enforcement] = "yes"
    sums_to_one: ClassVar[Enforcement] = "yes"
    complexity: ClassVar[str] = "O(nodes of the tree + d log d)"
    reference: ClassVar[str] = "Hay et al., VLDB 2010, Sec. 4, then NDSS 2020, Sec. IV-B (Norm-Sub)"
    bias: ClassVar[str] = (
        "Norm-Sub's: every kept leaf lowered by one shift, which adds up along a long range"
    )
    formula: ClassVar[str] = r"f'_v = \max(x_v - \delta, 0),\ \sum_v f'_v = 1"
    explanation: ClassVar[str] = (
        "The consistency step, then Norm-Sub on the leaves: no negative frequency and a "
        "total of one. The shift that removes the negatives lowers every kept leaf, and a "
        "long range sums many of them, so its bias grows with the range's length."
    )

    #: On a flat protocol it is Norm-Sub itself; chosen by name.
    by_default: ClassVar[bool] = False

    def is_no_op(self, protocol: FrequencyOracle) -> bool:
        """Never: on a flat protocol it is Norm-Sub."""
        return False

    def _apply(self, estimate: Vector, context: Context) -> Vector:
        return self._finish(estimate)

    def _finish(self, leaves: Vector) -> Vector:
        return project_to_simplex(leaves)


__all__ = ["Consistency", "ConsistencyNormSub"]
