"""The paper's headline behaviour, measured: Zipf s=1.5, d=1024, n=1e6, ε=1, OLH, 30 trials."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import zipf_counts

from ldpcore import trial_generators
from ldpcore.postprocess import get_method
from ldpcore.protocols import get_protocol

D, N, TRIALS = 1024, 10**6, 30
METHODS = ("Base", "Base-Pos", "Norm", "Norm-Mul", "Norm-Sub", "MLE-Apx")


@pytest.fixture(scope="module")
def errors() -> dict[str, np.ndarray]:
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=D)
    counts = zipf_counts(D, N)
    truth = counts / N
    out: dict[str, list[np.ndarray]] = {name: [] for name in METHODS}
    for rng in trial_generators(20261122, TRIALS):
        estimate = protocol.estimate(protocol.sample_support_counts(counts, rng), N)
        for name in METHODS:
            out[name].append(get_method(name)(estimate, protocol=protocol, n=N) - truth)
    return {name: np.array(rows) for name, rows in out.items()} | {
        "_truth": truth[None, :],
        "_analytic": protocol.variance(truth, N)[None, :],
    }


def _mse(errors: dict[str, np.ndarray], name: str) -> float:
    return float((errors[name] ** 2).mean())


def test_base_mse_matches_eq3(errors: dict[str, np.ndarray]) -> None:
    analytic = float(errors["_analytic"].mean())
    assert abs(_mse(errors, "Base") / analytic - 1) < 0.10


def test_norm_is_within_5_percent_of_base(errors: dict[str, np.ndarray]) -> None:
    assert abs(_mse(errors, "Norm") / _mse(errors, "Base") - 1) < 0.05


def test_base_pos_roughly_halves_base(errors: dict[str, np.ndarray]) -> None:
    # Half the noise on the ~zero-frequency tail is negative and gets clipped.
    assert 0.4 < _mse(errors, "Base-Pos") / _mse(errors, "Base") < 0.6


def test_mle_apx_close_to_norm_sub(errors: dict[str, np.ndarray]) -> None:
    assert abs(_mse(errors, "MLE-Apx") / _mse(errors, "Norm-Sub") - 1) < 0.05


def test_norm_sub_at_least_5x_better_than_base(errors: dict[str, np.ndarray]) -> None:
    assert _mse(errors, "Base") / _mse(errors, "Norm-Sub") >= 5.0


def test_norm_mul_much_worse_on_the_top_values(errors: dict[str, np.ndarray]) -> None:
    top = np.argsort(-errors["_truth"][0], kind="stable")[:10]
    base = float((errors["Base"][:, top] ** 2).mean())
    norm_mul = float((errors["Norm-Mul"][:, top] ** 2).mean())
    assert norm_mul >= 10 * base
