"""Samples of support counts held against exact moments, with k·σ bands."""

from __future__ import annotations

import numpy as np
from conftest import K_SIGMA

from ldpcore import trial_generators
from ldpcore.protocols import FrequencyOracle


def draw_counts(
    protocol: FrequencyOracle, counts: np.ndarray, trials: int, seed: int, sampler: str
):
    return np.array(
        [
            protocol.sample_support_counts(counts, rng, sampler=sampler)  # type: ignore[arg-type]
            for rng in trial_generators(seed, trials)
        ]
    )


def draw_tallies(
    protocol: FrequencyOracle, counts: np.ndarray, trials: int, seed: int, sampler: str = "fast"
):
    """``trials`` draws of the protocol's tallies (what the Base estimate is made from)."""
    return [
        protocol.sample_tallies(counts, rng, sampler=sampler)  # type: ignore[arg-type]
        for rng in trial_generators(seed, trials)
    ]


def variance_se(samples: np.ndarray) -> np.ndarray:
    """Standard error of the sample variance, from the empirical fourth moment."""
    t = samples.shape[0]
    centred = samples - samples.mean(axis=0)
    m2 = (centred**2).mean(axis=0)
    m4 = (centred**4).mean(axis=0)
    return np.sqrt(np.maximum(m4 - m2**2 * (t - 3) / (t - 1), 0) / t)


def assert_moments(samples: np.ndarray, mean: np.ndarray, cov: np.ndarray, label: str) -> None:
    """Means, variances and every covariance of ``samples`` within k·σ of the exact ones."""
    t = samples.shape[0]
    var = np.diag(cov)
    z_mean = (samples.mean(axis=0) - mean) / np.sqrt(var / t)
    assert np.abs(z_mean).max() < K_SIGMA, f"{label}: mean off by {np.abs(z_mean).max():.1f}σ"
    emp_cov = np.cov(samples, rowvar=False, ddof=1)
    se_var = variance_se(samples)
    z_var = (np.diag(emp_cov) - var) / se_var
    assert np.abs(z_var).max() < K_SIGMA, f"{label}: variance off by {np.abs(z_var).max():.1f}σ"
    # Covariances (what drives Var Σ f̃): SE of a sample covariance under near-normality.
    se_cov = np.sqrt((np.outer(var, var) + cov**2) / t)
    off = ~np.eye(len(mean), dtype=bool)
    z_cov = np.abs(emp_cov - cov)[off] / se_cov[off]
    assert z_cov.max() < K_SIGMA, f"{label}: a covariance off by {z_cov.max():.1f}σ"
