"""LDPRecover: the honest users' frequencies recovered from a poisoned estimate.

Sun, Ye, Hu, Duan, Wo, Xu and Yang, "LDPRecover: Recovering Frequencies from Poisoning
Attacks against Local Differential Privacy", ICDE 2024 (arXiv 2403.09351). Three steps:

1. **The genuine estimator** (their Sec. IV). The Base estimate of a collection with
   ``n`` honest and ``m`` fake reports is the mixture
   ``f̃_Z = (n f̃_X + m f̃_Y)/(n + m)`` of the honest users' estimate ``f̃_X`` and the
   fake users' ``f̃_Y`` (Base is linear in the support counts), so with ``η = m/n``:
   ``f̃_X = (1 + η) f̃_Z − η f̃_Y``. The server is given ``η``, as in the paper.
2. **The fake users' frequencies, learned** (their Sec. V). The server cannot see
   ``f̃_Y``; it learns two things of it. Its *total*: an honest collection's Base
   estimates sum to one in expectation (exactly, for GRR and Subset Selection), so the
   sums give ``Σ f̃_Y = ((1 + η) Σ f̃_Z − 1)/η`` whatever the fake reports were. Its
   *place*: the fake users raise the values they promote, so their mass is put on the
   values whose poisoned estimate is positive, evenly, and none on the others.
3. **Constrained inference** (their Sec. VI): the non-negative vector summing to one
   nearest to ``f̃_X`` in squared error, whose KKT solution is Norm-Sub's projection
   (NDSS 2020, Appendix A).

Where this differs from the paper, and why: the paper learns the fake users' total
from the adaptive attack's reports; here it is read from the collection's own sums,
which is unbiased whatever the attack and needs no model of the fake reports. With
``η = 0`` (no fake users assumed) LDPRecover is Norm-Sub exactly.

What that leaves, said as it is: without the attack's targets, the fake users' learned
mass is one constant on every value estimated above zero, and the projection subtracts
a constant from those values anyway. So the output is Norm-Sub of ``(1 + η) f̃_Z``
exactly whenever the projection keeps only values estimated above zero; it differs only
where the simplex needs mass on a value estimated at or below zero (positive estimates
summing to less than one). It rescales, and cannot tell which values the fake users
promoted: here it is not a defence against a targeted attack
(``tests/postprocess/test_recover.py`` checks the equality and
when it breaks).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ldpcore.errors import InputError
from ldpcore.postprocess.base import Context, Rows, RowWise
from ldpcore.postprocess.normalization import project_to_simplex

#: The share of fake users assumed when none is given: the 5% of Cao, Jia and Gong's
#: default setting (β = 0.05), which LDPRecover's evaluation also uses.
ASSUMED_FAKE_SHARE = 0.05
#: The most fake users per honest user accepted: 99% of the reports fake.
MAX_FAKE_SHARE = 99.0


def malicious_frequencies(poisoned: Rows, eta: float) -> Rows:
    """The fake users' frequencies as LDPRecover learns them (step 2 above).

    Their total ``((1 + η) Σ f̃_Z − 1)/η``, spread evenly over the values whose poisoned
    estimate is positive (over every value where none is). ``poisoned`` is a stack of
    estimates, one per row.
    """
    rows = np.atleast_2d(poisoned)
    total = ((1.0 + eta) * rows.sum(axis=-1) - 1.0) / eta
    raised = rows > 0
    raised[~raised.any(axis=-1)] = True
    share = total / raised.sum(axis=-1)
    return np.where(raised, share[:, np.newaxis], 0.0).reshape(np.shape(poisoned))


def genuine_estimate(poisoned: Rows, eta: float) -> Rows:
    """``(1 + η) f̃_Z − η f̃_Y``: the honest users' estimate before constrained inference.

    It sums to one exactly (the learned total is chosen so), which step 3 keeps.
    """
    if eta == 0.0:
        return np.array(poisoned, dtype=np.float64)
    return (1.0 + eta) * poisoned - eta * malicious_frequencies(poisoned, eta)


@dataclass(frozen=True, kw_only=True)
class LDPRecover(RowWise):
    """LDPRecover (Sun et al., ICDE 2024): remove an assumed share of fake users' mass.

    Parameters
    ----------
    fake_share : float
        ``η = m/n``, the fake users per honest user the server assumes (the paper gives
        it to the server). The Fake users page passes the attack's own; elsewhere it
        is :data:`ASSUMED_FAKE_SHARE`, and on honest data the method then removes mass
        that no fake user added: its cost when there is no attack.
    """

    fake_share: float = ASSUMED_FAKE_SHARE

    name: ClassVar[str] = "LDPRecover"
    reads: ClassVar = "support"
    description: ClassVar[str] = (
        "Remove an assumed share of fake users' mass, then project onto the simplex"
    )
    nonnegative: ClassVar = "yes"
    sums_to_one: ClassVar = "yes"
    complexity: ClassVar[str] = "O(d log d)"
    reference: ClassVar[str] = "Sun et al., ICDE 2024 (LDPRecover), Sec. IV–VI"
    bias: ClassVar[str] = (
        "Stretches the estimate by 1 + η and takes the fake users' assumed mass evenly "
        "from the values estimated above zero"
    )
    formula: ClassVar[str] = (
        r"f' = \Pi_{\Delta}\big((1+\eta)\tilde f_Z - \eta \tilde f_Y\big),\quad "
        r"\textstyle\sum_v \tilde f_Y(v) = \big((1+\eta)\sum_v \tilde f_Z(v) - 1\big)/\eta"
    )
    explanation: ClassVar[str] = (
        "Sun et al.'s recovery from fake users, without the attack's targets. Told what share "
        "η of the reports are fake, it undoes the mixing (the honest estimate is (1 + η) times "
        "the poisoned one minus η times the fake users'), learns the fake users' total mass "
        "from the estimates' sum and places it evenly on the values estimated above zero, "
        "then finds the nearest consistent vector, as Norm-Sub does. Said as it is: that "
        "even mass is one constant the projection removes anyway, so the answer is Norm-Sub "
        "of the estimate stretched by 1 + η whenever Norm-Sub keeps only values estimated "
        "above zero. It cannot tell which values the fake users promoted, so it does not "
        "undo a targeted attack."
    )
    caveat: ClassVar[str] = (
        f"LDPRecover assumes a share of fake users ({ASSUMED_FAKE_SHARE:.0%} unless told); on "
        "honest data it removes mass no fake user added."
    )
    # A defence: it joins a run when named, and beside every method under attack.
    by_default: ClassVar[bool] = False

    def __post_init__(self) -> None:
        share = self.fake_share
        if (
            isinstance(share, bool)
            or not isinstance(share, (int, float))
            or not 0.0 <= share <= MAX_FAKE_SHARE
        ):
            raise InputError(
                f"LDPRecover's fake users per honest user (η = m/n) is a number from 0 to "
                f"{MAX_FAKE_SHARE:g}, got {share!r}"
            )

    def _apply_rows(self, estimates: Rows, context: Context) -> Rows:
        return project_to_simplex(genuine_estimate(estimates, float(self.fake_share)))


__all__ = [
    "ASSUMED_FAKE_SHARE",
    "MAX_FAKE_SHARE",
    "LDPRecover",
    "genuine_estimate",
    "malicious_frequencies",
]
