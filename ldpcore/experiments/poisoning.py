"""Fake users against every method: the targets' gain after post-processing (issue 56).

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
  targets, where the attack's mass is taken from.

The targets are drawn once per run from its seed (uniformly, as Cao et al. choose them).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ldpcore._json import json_value
from ldpcore.attacks import AttackSpec, expected_gain, poison
from ldpcore.attacks.gains import choose_targets
from ldpcore.experiments.config import ExperimentConfig
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

    @property
    def summary(self) -> pd.DataFrame:
        """Per method: mean gain, against Base (paired, 95%), collateral MSE."""
        base = self.methods.index("Base") if "Base" in self.methods else None
        rows = []
        for k, method in enumerate(self.methods):
            gain = self.gains[k]
            low, high = _t_interval(gain)
            row: dict[str, Any] = {
                "method": method,
                "gain": float(gain.mean()),
                "gain_low": low,
                "gain_high": high,
                "collateral_mse": float(self.collateral[k].mean()),
            }
            if base is not None:
                difference = gain - self.gains[base]
                d_low, d_high = _t_interval(difference)
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
            "methods": [
                {key: json_value(value) for key, value in row.items()}
                for row in self.summary.to_dict("records")
            ],
        }


def _t_interval(values: NDArray[np.float64], level: float = 0.95) -> tuple[float, float]:
    """The mean's Student-t interval (nan for fewer than two values)."""
    from scipy import stats  # noqa: PLC0415 (scipy loads where it is used)

    count = values.size
    if count < 2:
        return math.nan, math.nan
    mean = float(values.mean())
    half = float(stats.t.ppf(0.5 + level / 2, count - 1) * values.std(ddof=1) / math.sqrt(count))
    return mean - half, mean + half


def _effect(low: float, high: float, is_base: bool) -> str:
    """Whether a method shrinks the fake users' gain, amplifies it, or cannot be told apart."""
    if is_base:
        return "reference"
    if high < 0:
        return "shrinks the gain"
    if low > 0:
        return "amplifies the gain"
    return "no significant difference"


def run_attack(config: ExperimentConfig, attack: AttackSpec) -> AttackResult:
    """Every trial of ``config`` with ``attack``'s fake users, every method on it."""
    data, protocol, _ = config.build()
    truth = data.frequencies()
    targets = choose_targets(
        attack.targets, protocol.domain_size, trial_generator(config.seed, _TARGETS_KEY)
    )
    others = np.setdiff1d(np.arange(protocol.domain_size), targets)
    methods = [get_method(name) for name in config.methods]
    gains = np.empty((len(methods), config.trials))
    collateral = np.empty((len(methods), config.trials))
    fakes = attack.fake_users(data.n)
    for trial in range(config.trials):
        poisoned = poison(
            protocol, data.counts, attack, trial_generator(config.seed, trial), targets=targets
        )
        estimate = protocol.estimate(poisoned.support, poisoned.users)
        for row, method in enumerate(methods):
            vector = method(estimate, protocol=protocol, n=poisoned.users)
            gains[row, trial] = float(vector[targets].sum() - truth[targets].sum())
            collateral[row, trial] = float(np.mean((vector[others] - truth[others]) ** 2))
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
    )


__all__ = ["AttackResult", "run_attack"]
