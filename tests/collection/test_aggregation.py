"""Server-side aggregation against slow, explicit reference computations."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ldpcore.protocols import OLH, HadamardResponse, fwht, get_protocol
from ldpcore.protocols.olh import HashedReports, hash_values


def _sylvester(order: int) -> np.ndarray:
    rows = np.arange(order)[:, None]
    return np.where(np.bitwise_count(rows & rows.T) & 1, -1, 1)


@given(st.integers(min_value=0, max_value=8), st.data())
def test_fwht_equals_matrix_product(log_order: int, data: st.DataObject) -> None:
    order = 1 << log_order
    x = np.array(data.draw(st.lists(st.integers(-1000, 1000), min_size=order, max_size=order)))
    np.testing.assert_array_equal(fwht(x), _sylvester(order) @ x)


def test_fwht_rejects_bad_lengths() -> None:
    with pytest.raises(ValueError, match="power of two"):
        fwht([1, 2, 3])


@pytest.mark.parametrize("d", [2, 7, 8, 100])
def test_hr_aggregate_equals_explicit_count(d: int) -> None:
    protocol = HadamardResponse(epsilon=1.0, domain_size=d)
    rng = np.random.default_rng(0)
    values = rng.integers(0, d, size=3000)
    rows = protocol.randomize(values, rng)
    h = _sylvester(protocol.order)
    explicit = (h[rows][:, 1 : d + 1] == 1).sum(axis=0)
    np.testing.assert_array_equal(protocol.aggregate(rows), explicit)


@pytest.mark.parametrize("g", [2, 3, 4, 7, 55])
def test_olh_range_check_aggregation_equals_hashing(g: int) -> None:
    d = 50
    protocol = OLH(epsilon=1.0, domain_size=d, g=g)
    rng = np.random.default_rng(g)
    values = rng.integers(0, d, size=70_000)  # more than one aggregation block
    reports = protocol.randomize(values, rng)
    explicit = np.zeros(d, dtype=np.int64)
    for v in range(d):
        hashed = hash_values(
            reports.multiplier, reports.offset, np.full(values.size, v, dtype=np.int64), g
        )
        explicit[v] = np.count_nonzero(hashed == reports.bucket)
    np.testing.assert_array_equal(protocol.aggregate(reports), explicit)


def test_olh_hash_covers_the_last_bucket_edge() -> None:
    # Multiplier 0 and offset 2^64 - 1 put the mixed value at the very top: last bucket.
    a = np.zeros(1, dtype=np.uint64)
    b = np.full(1, np.iinfo(np.uint64).max, dtype=np.uint64)
    for g in (2, 3, 7):
        assert hash_values(a, b, np.zeros(1, dtype=np.int64), g)[0] == g - 1
        protocol = OLH(epsilon=1.0, domain_size=2, g=g)
        reports = HashedReports(a, b, np.array([g - 1]))
        np.testing.assert_array_equal(protocol.aggregate(reports), [1, 1])


@pytest.mark.parametrize(
    ("name", "bad", "message"),
    [
        ("GRR", np.array([0, 9]), r"values must be integer indices in \[0, 3\]"),
        ("OUE", np.zeros((2, 3), dtype=bool), r"boolean array of shape \(n_users, 4\)"),
        ("SS", np.array([[0, 0], [1, 2]]), "k distinct values"),
        ("SS", np.array([[0], [1]]), r"shape \(n_users, 2\)"),
        ("HR", np.array([0, 8]), r"row indices in \[0, 7\]"),
        ("OLH", np.array([1, 2]), "HashedReports"),
    ],
)
def test_malformed_reports_are_rejected(name: str, bad: object, message: str) -> None:
    kwargs = {"k": 2} if name == "SS" else {}
    protocol = get_protocol(name, epsilon=1.0, domain_size=4, **kwargs)
    with pytest.raises(ValueError, match=message):
        protocol.aggregate(bad)
