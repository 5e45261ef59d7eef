"""The Learn page's fake users: real reports, their effect, the words' claim."""

from __future__ import annotations

import numpy as np
import pytest

from ldpcore.learn.lying import lying_class
from ldpcore.learn.walkthrough import teachable_protocols, walkthrough
from ldpcore.postprocess import get_method

LABELS = ("A", "B", "C", "D", "E", "F")
VALUES = np.array([0] * 8 + [1] * 5 + [2] * 3 + [3] * 2 + [4, 5])


@pytest.mark.parametrize("protocol", teachable_protocols())
def test_fake_reports_support_the_target_and_smaller_epsilon_pushes_further(
    protocol: str,
) -> None:
    steps = walkthrough(protocol=protocol, epsilon=1.0, values=VALUES, labels=LABELS, seed=3)
    lying = lying_class(
        steps.protocol, steps.support_counts, VALUES, LABELS, target=5, fakes=3, seed=3
    )
    assert len(lying.reports) == 3
    # The honest column is the walkthrough's Base; the fake reports only add support.
    np.testing.assert_allclose(lying.estimates["Base, honest"], steps.base)
    rise = lying.by_epsilon.iloc[:, 1].to_numpy()
    if lying.kind == "mga":
        assert all("F" in supports.split(", ") for supports in lying.reports["supports"])
        # The words on the page: "the smaller ε is, the further each fake report pushes".
        assert np.all(np.diff(rise) < 0) and rise[-1] > 0, rise
    else:  # a protocol without a maximal-gain report: "the same at every ε"
        assert lying.kind == "ria" and np.allclose(rise, rise[0]) and rise[0] > 0


def test_the_fake_users_move_the_target_by_what_they_support() -> None:
    """GRR: each fake report says F, so F's support rises by exactly the fakes."""
    steps = walkthrough(protocol="GRR", epsilon=1.0, values=VALUES, labels=LABELS, seed=0)
    oracle = steps.protocol
    lying = lying_class(oracle, steps.support_counts, VALUES, LABELS, target=5, fakes=4)
    support = steps.support_counts + np.eye(6, dtype=np.int64)[5] * 4
    np.testing.assert_allclose(lying.estimates["Base, 4 fake"], oracle.estimate(support, 24))
    none = lying_class(oracle, steps.support_counts, VALUES, LABELS, target=5, fakes=0)
    assert none.reports.empty
    np.testing.assert_allclose(none.estimates["Base, 0 fake"], steps.base)
    with pytest.raises(ValueError, match="between 0 and 100"):
        lying_class(oracle, steps.support_counts, VALUES, LABELS, target=5, fakes=101)


def test_each_method_s_gain_is_its_estimate_with_the_fakes_minus_without() -> None:
    """Cao, Jia and Gong's gain on the page: Norm-Sub's and Norm-Mul's computed here from
    the walkthrough's honest Base and the poisoned one; no fake users, no gain."""
    steps = walkthrough(protocol="OUE", epsilon=1.0, values=VALUES, labels=LABELS, seed=4)
    oracle = steps.protocol
    lying = lying_class(oracle, steps.support_counts, VALUES, LABELS, target=5, fakes=3)
    gains = lying.gains.set_index("method")
    poisoned = lying.estimates["Base, 3 fake"].to_numpy()
    for name in ("Base", "Norm-Sub", "Norm-Mul"):
        method = get_method(name)
        before = method(steps.base, protocol=oracle, n=20)[5]
        after = method(poisoned, protocol=oracle, n=23)[5]
        assert gains.loc[name, "gain (with − without)"] == pytest.approx(after - before)
        assert gains.loc[name, "F, without the fakes"] == pytest.approx(before)
    none = lying_class(oracle, steps.support_counts, VALUES, LABELS, target=5, fakes=0)
    assert np.all(none.gains["gain (with − without)"] == 0.0)
