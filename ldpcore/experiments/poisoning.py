"""Fake users against every method: the targets' gain after post-processing.

One run of a configuration with an attack (:class:`ldpcore.attacks.AttackSpec`): the
same trials as :func:`ldpcore.experiments.trials.run` draws (one generator per trial),
each with the attack's fake users added (:func:`ldpcore.attacks.poison`), the Base
estimate taken over all ``n + m`` reports, and every method applied to it. Per method:

* the **gain**: the targets' estimated total frequency minus their true total, per
  trial (Cao, Jia and Gong 2021, Sec. 3: the attack's goal); Base's mean is the closed
  form (:func:`ldpcore.attacks.expected_gain`) up to Monte Carlo error;
* against Base **on the same trials**: the mean difference in gain with its 95%
  t-interval (paired: every method sees the same poisoned reports), and whether the
  method shrinks the gain, amplifies it, or is not distinguishable from Base;
* the **collateral damage**: the mean squared error over the values that are not
  targets, where the attack's mass is taken from;
* per query (NDSS 2020, Sec. V): the **set query** over the targets (their estimated
  total, which the gain moves) and the **top-k** query (how many targets the method
  ranks among its k largest estimates, where the attack wants them seen);
* the **honest run** beside it: the same trials without the fake users (where the
  honest reports are drawn first, the very same honest reports; where honest and fake
  users are drawn in one call, the random-item attack and GRR's uniform reports, the
  honest run draws the honest users alone from the trial's generator).

The targets are drawn once per run from its seed (uniformly, as Cao et al. choose them).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ldpcore._json import json_value
from ldpcore.attacks import AttackSpec, expected_gain, poison
from ldpcore.attacks.gains import choose_targets
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.metrics import t_interval
from ldpcore.experiments.trials import trial_generator
from ldpcore.postprocess import get_method

#: The spawn key of the run's target draw: apart from every trial's generator.
_TARGETS_KEY = 1 << 30


@dataclass(frozen=True)
class AttackResult:
    """A run with fake users: every method's gain and collateral damage, per trial.

    Attributes
    ----------
    config : ExperimentConfig
        The honest configuration the fake users joined.
    attack : AttackSpec
        The attack.
    targets : tuple of int
        The values it pushed up.
    labels : tuple of str
        Their labels in the dataset.
    fakes : int
        How many fake users (``m``).
    expected : float
        Base's gain in closed form (:func:`ldpcore.attacks.expected_gain`).
    methods : tuple of str
        The methods, in the order of the rows below.
    gains : ndarray
        ``(methods, trials)``: the targets' estimated total minus their true total.
    collateral : ndarray
        ``(methods, trials)``: the mean squared error over the other values.
    honest_gains : ndarray
        ``(methods, trials)``: the same without the fake users (each method's own error
        on the targets' total).
    top_k : int
        The k of the top-k query.
    in_top_k, honest_in_top_k : ndarray
        ``(methods, trials)``: how many targets are among the method's k largest
        estimates, with and without the fake users.
    truth : float
        The targets' true total frequency (the set query's true answer).
    """

    config: ExperimentConfig
    attack: AttackSpec
    targets: tuple[int, ...]
    labels: tuple[str, ...]
    fakes: int
    expected: float
    methods: tuple[str, ...]
    gains: NDArray[np.float64]
    collateral: NDArray[np.float64]
    honest_gains: NDArray[np.float64]
    top_k: int
    in_top_k: NDArray[np.int64]
    honest_in_top_k: NDArray[np.int64]
    truth: float

    @property
    def summary(self) -> pd.DataFrame:
        """Per method: mean gain, against Base (paired, 95%), collateral MSE, each query.

        ``set_answer`` is the targets' mean estimated total (``truth`` plus the gain);
        ``in_top_k`` the mean number of targets among the k largest estimates, and
        ``top_k_any`` the share of trials with at least one; ``honest_*`` the same
        without the fake users.
        """
        base = self.methods.index("Base") if "Base" in self.methods else None
        rows = []
        for k, method in enumerate(self.methods):
            gain = self.gains[k]
            low, high = t_interval(gain)
            honest_low, honest_high = t_interval(self.honest_gains[k])
            row: dict[str, Any] = {
                "method": method,
                "gain": float(gain.mean()),
                "gain_low": low,
                "gain_high": high,
                "collateral_mse": float(self.collateral[k].mean()),
                "set_answer": self.truth + float(gain.mean()),
                "in_top_k": float(self.in_top_k[k].mean()),
                "top_k_any": float(np.mean(self.in_top_k[k] > 0)),
                "honest_gain": float(self.honest_gains[k].mean()),
                "honest_gain_low": honest_low,
                "honest_gain_high": honest_high,
                "honest_in_top_k": float(self.honest_in_top_k[k].mean()),
                "honest_top_k_any": float(np.mean(self.honest_in_top_k[k] > 0)),
            }
            if base is not None:
                difference = gain - self.gains[base]
                d_low, d_high = t_interval(difference)
                row |= {
                    "vs_base": float(difference.mean()),
                    "vs_base_low": d_low,
                    "vs_base_high": d_high,
                    "effect": _effect(d_low, d_high, method == "Base"),
                }
            rows.append(row)
        return pd.DataFrame(rows)

    def to_json_dict(self) -> dict[str, Any]:
        """The ``simulate --attack`` JSON: the attack, its closed form and every method."""
        return {
            "attack": str(self.attack),
            "targets": list(self.targets),
            "target_labels": list(self.labels),
            "fake_users": self.fakes,
            "expected_base_gain": self.expected,
            "targets_true_total": self.truth,
            "top_k": self.top_k,
            "methods": [
                {key: json_value(value) for key, value in row.items()}
                for row in self.summary.to_dict("records")
            ],
        }


def _effect(low: float, high: float, is_base: bool) -> str:
    """Whether a method shrinks the fake users' gain, amplifies it, or cannot be told apart."""
    if is_base:
        return "reference"
    if low == high == 0:  # every trial's difference is exactly 0: the method left the targets
        return "the same as Base"
    if high < 0:
        return "shrinks the gain"
    if low > 0:
        return "amplifies the gain"
    return "no significant difference"


def _in_top_k(vector: NDArray[np.float64], targets: NDArray[np.int64], k: int) -> int:
    """How many targets are among the k largest entries (ties broken by position)."""
    top = np.argpartition(-vector, k - 1)[:k] if k < vector.size else np.arange(vector.size)
    return int(np.isin(targets, top).sum())


def run_attack(config: ExperimentConfig, attack: AttackSpec, *, top_k: int = 10) -> AttackResult:
    """Every trial of ``config`` with and without ``attack``'s fake users, every method.

    ``top_k``: the k of the top-k query (at most the domain size).
    """
    data, protocol, _ = config.build()
    top_k = max(1, min(int(top_k), protocol.domain_size))
    truth = data.frequencies()
    targets = choose_targets(
        attack.targets, protocol.domain_size, trial_generator(config.seed, _TARGETS_KEY)
    )
    others = np.setdiff1d(np.arange(protocol.domain_size), targets)
    methods = [get_method(name) for name in config.methods]
    shape = (len(methods), config.trials)
    gains, collateral, honest_gains = np.empty(shape), np.empty(shape), np.empty(shape)
    in_top_k = np.empty(shape, dtype=np.int64)
    honest_in_top_k = np.empty(shape, dtype=np.int64)
    fakes = attack.fake_users(data.n)
    true_total = float(truth[targets].sum())
    for trial in range(config.trials):
        poisoned = poison(
            protocol, data.counts, attack, trial_generator(config.seed, trial), targets=targets
        )
        # The honest reports poison drew first, from the same generator.
        honest_support = protocol.sample_support_counts(
            data.counts, trial_generator(config.seed, trial)
        )
        estimate = protocol.estimate(poisoned.support, poisoned.users)
        honest = protocol.estimate(honest_support, data.n)
        for row, method in enumerate(methods):
            vector = method(estimate, protocol=protocol, n=poisoned.users)
            gains[row, trial] = float(vector[targets].sum()) - true_total
            collateral[row, trial] = float(np.mean((vector[others] - truth[others]) ** 2))
            in_top_k[row, trial] = _in_top_k(vector, targets, top_k)
            clean = method(honest, protocol=protocol, n=data.n)
            honest_gains[row, trial] = float(clean[targets].sum()) - true_total
            honest_in_top_k[row, trial] = _in_top_k(clean, targets, top_k)
    share = fakes / (data.n + fakes)
    return AttackResult(
        config=config,
        attack=attack,
        targets=tuple(int(t) for t in targets),
        labels=tuple(str(data.labels[t]) for t in targets),
        fakes=fakes,
        expected=expected_gain(protocol, attack.kind, targets, truth, share),
        methods=tuple(config.methods),
        gains=gains,
        collateral=collateral,
        honest_gains=honest_gains,
        top_k=top_k,
        in_top_k=in_top_k,
        honest_in_top_k=honest_in_top_k,
        truth=true_total,
    )


__all__ = ["AttackResult", "run_attack"]
