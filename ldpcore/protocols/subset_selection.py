"""Subset Selection (SS): report a random k-subset that tends to contain the value.

Ye & Barg, IEEE Trans. IT 2018; Wang et al., ISIT 2016; NDSS 2020 Section III-C.
The user's value is included with probability ``p = k e^ε/(k e^ε + d − k)``; the
rest of the subset is a uniform choice among the other values. Any output subset
``Y`` therefore has probability ``e^ε/Z`` if it contains the value and ``1/Z``
otherwise, ``Z = C(d−1, k−1) e^ε + C(d−1, k)``.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ldpcore._validation import check_int
from ldpcore.errors import InputError
from ldpcore.protocols._halving import SplitKernels, sample_support
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.parameters import ProtocolParameter
from ldpcore.rng import ClientRNG, as_source

if TYPE_CHECKING:
    pass

#: ``channel_matrix`` enumerates subsets only up to this many.
_MAX_ENUMERATED_SUBSETS = 20_000


def default_k(epsilon: float, domain_size: int) -> int:
    """The variance-optimal subset size ``k = round(d/(e^ε + 1))``, kept in ``[1, d − 1]``."""
    return min(domain_size - 1, max(1, round(domain_size / (math.exp(epsilon) + 1))))


#: Largest subset written as one column per value (``item_0`` …); above, one bit column.
ITEM_COLUMNS_MAX = 16


@dataclass(frozen=True, kw_only=True)
class SubsetSelection(FrequencyOracle):
    """Subset Selection with subset size ``k``.

    ``p = k e^ε/(k e^ε + d − k)`` and
    ``q = [k e^ε (k−1) + (d−k) k] / [(d−1)(k e^ε + d − k)]`` (reading notes, item 2).

    Reports are an int64 array of shape ``(n_users, k)``: each row the chosen subset.

    Examples
    --------
    >>> SubsetSelection(epsilon=1.0, domain_size=1024).k
    275
    """

    vector_reports: ClassVar[bool] = True
    name: ClassVar[str] = "SS"
    estimates_sum_to_one: ClassVar[bool] = True
    description: ClassVar[str] = (
        "Subset selection: report k values, the true one more likely among them"
    )
    reference: ClassVar[str] = "Ye & Barg 2018; Wang et al. 2016; NDSS 2020, Sec. III-C"
    good_for: ClassVar[str] = (
        "Most settings: the lowest error of these protocols, or within 10% of it, with k "
        "values per report"
    )
    communication: ClassVar[str] = "k values (k log2 d bits)"
    extra_parameters: ClassVar[tuple[ProtocolParameter, ...]] = (
        ProtocolParameter(
            "k",
            "SS's subset size, 1 <= k < d (default round(d/(e^ε + 1)))",
            1,
            default=default_k,
            examples=((1.0, 16), (1.0, 1024), (2.0, 1024)),
        ),
    )
    k: int | None = None
    # Per-protocol cache of the fast sampler's split kernels: trials reuse them.
    split_kernels: SplitKernels = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        k = default_k(self.epsilon, self.domain_size) if self.k is None else self.k
        object.__setattr__(
            self, "k", check_int(k, name="k", minimum=1, maximum=self.domain_size - 1)
        )
        object.__setattr__(self, "split_kernels", SplitKernels(self.domain_size))

    @property
    def subset_size(self) -> int:
        """``k`` as a plain int (always set after construction)."""
        assert self.k is not None  # set in __post_init__
        return self.k

    def parameters(self) -> dict[str, object]:
        """Constructor arguments, including ``k``."""
        return {**super().parameters(), "k": self.subset_size}

    @property
    def p(self) -> float:
        """``k e^ε / (k e^ε + d − k)``."""
        k, d, e = self.subset_size, self.domain_size, math.exp(self.epsilon)
        return k * e / (k * e + d - k)

    @property
    def q(self) -> float:
        """``[k e^ε (k−1) + (d−k) k] / [(d−1)(k e^ε + d − k)]``."""
        k, d, e = self.subset_size, self.domain_size, math.exp(self.epsilon)
        return (k * e * (k - 1) + (d - k) * k) / ((d - 1) * (k * e + d - k))

    @property
    def mixture_weight(self) -> float:
        """``β = k(e^ε − 1)/(k(e^ε − 1) + d)``: SS as a mixture (see ``_sample_fast``)."""
        k, d, e = self.subset_size, self.domain_size, math.exp(self.epsilon)
        return k * (e - 1) / (k * (e - 1) + d)

    def randomize(self, values: ArrayLike, rng: ClientRNG = None) -> NDArray[np.int64]:
        """Include each user's value with probability ``p``; fill up uniformly from the others."""
        v = self._values(values)
        generator = as_source(rng)
        k = self.subset_size
        include = generator.random(v.size) < self.p
        # The k smallest of i.i.d. uniform keys are a uniform k-subset; pinning the
        # own value's key below (or above) every other forces it in (or out).
        keys = generator.random((v.size, self.domain_size))
        keys[np.arange(v.size), v] = np.where(include, -1.0, 2.0)
        return np.argpartition(keys, k - 1, axis=1)[:, :k].astype(np.int64)

    def aggregate(self, reports: ArrayLike) -> NDArray[np.int64]:
        """Count how many reported subsets contain each value."""
        subsets = np.asarray(reports)
        k = self.subset_size
        if (
            subsets.ndim != 2
            or subsets.shape[1] != k
            or not np.issubdtype(subsets.dtype, np.integer)
        ):
            raise InputError(
                f"SS reports must be an integer array of shape (n_users, {k}), "
                f"got {subsets.dtype} array of shape {subsets.shape}"
            )
        flat = self._values(subsets.ravel())
        ordered = np.sort(subsets, axis=1)
        if k > 1 and np.any(ordered[:, 1:] == ordered[:, :-1]):
            raise InputError("SS reports must list k distinct values per user")
        return np.bincount(flat, minlength=self.domain_size).astype(np.int64)

    def _sample_fast(
        self, true_counts: NDArray[np.int64], rng: np.random.Generator
    ) -> NDArray[np.int64]:
        """Exact support counts in O(log d) vectorised steps (``ldpcore.protocols._halving``).

        SS is the mixture ``β · U(k-subsets containing v) + (1−β) · U(all k-subsets)``
        (β from ``mixture_weight``; check: subsets with ``v`` get ``β/C(d−1,k−1) +
        (1−β)/C(d,k)``, the others ``(1−β)/C(d,k)``, ratio ``e^ε``). The sum of the
        users' subsets is drawn by splitting the domain in halves recursively.
        """
        return sample_support(
            true_counts, self.subset_size, self.mixture_weight, rng, self.split_kernels
        )

    def worst_case_ratio(self) -> float:
        """Exact worst-case ratio: ``[p/C(d−1,k−1)] / [(1−p)/C(d−1,k)] = p(d−k)/((1−p)k)``.

        Output probabilities take two values, for subsets with and without the
        user's value; the ratio is largest between an input inside ``Y`` and one
        outside it (possible because ``1 ≤ k ≤ d − 1``).
        """
        k, d, p = self.subset_size, self.domain_size, self.p
        return p * (d - k) / ((1 - p) * k)

    def channel_matrix(self) -> NDArray[np.float64]:
        """``Q[Y, v]`` over all k-subsets ``Y`` in lexicographic order."""
        d, k = self.domain_size, self.subset_size
        if math.comb(d, k) > _MAX_ENUMERATED_SUBSETS:
            raise InputError(
                f"channel_matrix enumerates C(d, k) = {math.comb(d, k):,} subsets; "
                f"at most {_MAX_ENUMERATED_SUBSETS:,} are allowed"
            )
        subsets = np.array(list(itertools.combinations(range(d), k)))
        member = np.zeros((subsets.shape[0], d), dtype=bool)
        np.put_along_axis(member, subsets, True, axis=1)
        inside = self.p / math.comb(d - 1, k - 1)
        outside = (1 - self.p) / math.comb(d - 1, k)
        return np.where(member, inside, outside)

    def support_matrix(self) -> NDArray[np.float64]:
        """Row ``Y`` of ``channel_matrix`` (subsets in lexicographic order) supports ``Y``."""
        subsets = np.array(list(itertools.combinations(range(self.domain_size), self.subset_size)))
        member = np.zeros((subsets.shape[0], self.domain_size))
        np.put_along_axis(member, subsets, 1.0, axis=1)
        return member

    def distinguishing_event(self, reports: Any, v: int, w: int) -> NDArray[np.bool_]:
        """``v`` in the subset and ``w`` not (ratio ``e^ε`` exactly)."""
        subsets = np.asarray(reports)
        return np.any(subsets == v, axis=1) & ~np.any(subsets == w, axis=1)
