"""A toy post-processing method in one file: shrink toward uniform, then project ("Shrink").

It exists to prove the recipe in ARCHITECTURE.md ("add a method"): its metadata sits
next to its code, and tests/house/test_extending.py registers it in a temporary registry
and runs the invariant checks, an experiment, the comparisons and the figures on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from ldpcore.postprocess.base import Context, PostProcessor, Vector
from ldpcore.postprocess.normalization import project_to_simplex


@dataclass(frozen=True, kw_only=True)
class Shrink(PostProcessor):
    """Average the estimate with the uniform distribution, then project on the simplex."""

    name: ClassVar[str] = "Shrink"
    description: ClassVar[str] = "Halfway to uniform, then the closest distribution"
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "yes"
    complexity: ClassVar[str] = "O(d log d)"
    reference: ClassVar[str] = "tests/toy_method.py"
    bias: ClassVar[str] = "Towards uniform: large values down, small ones up"
    formula: ClassVar[str] = r"f' = \Pi_\Delta\big(\tfrac12 \tilde f + \tfrac1{2d}\big)"
    explanation: ClassVar[str] = "A shrinkage toy: it trades bias for less variance."

    def _apply(self, estimate: Vector, context: Context) -> Vector:
        return project_to_simplex(0.5 * estimate + 0.5 / estimate.size)
