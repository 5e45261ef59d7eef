"""Fake users against every method: the targets' gain after post-processing.

One run of a configuration with an attack (:class:`ldpcore.attacks.AttackSpec`): the
same trials as :func:`ldpcore.experiments.trials.run` draws (one generator per trial),
each with the attack's fake users added (:func:`ldpcore.attacks.poison`), the Base
estimate taken over all ``n + m`` reports, and every method applied to it. Per method:

* the **gain** as Cao, Jia and Gong define it (2021, Sec. 3: the attack's goal): the
  targets' total estimated frequency *after* the attack minus the same *before* it, on
  the very same honest reports, per trial and per method (the method applied to the
  collection with the fake users and to the collection without them). Base's mean is
  the closed form (:func:`ldpcore.attacks.expected_gain`) up to Monte Carlo error;
* against Base **on the same trials**: the mean difference in gain with its 95%
  t-interval (paired: every method sees the same honest and fake reports), and whether
  the method shrinks the gain, amplifies it, or is not distinguishable from Base; "the
  same as Base" when no trial's difference exceeds the arithmetic's precision
  (:data:`SAME_AS_BASE`), as for a method that leaves these estimates unchanged;
* the method's **own bias** on the targets' total, from the honest run alone (its
  estimate without the fake users minus the truth), shown beside the gain and labelled
  as what it is: it is no reaction to the attack;
* the **collateral damage**: the mean squared error over the values that are not
  targets, where the attack's mass is taken from;
* per query (NDSS 2020, Sec. V): the **set query** over the targets (their estimated
  total, which the gain moves) and the **top-k** query (how many targets the method
  ranks among its k largest estimates, where the attack wants them seen);
* the **ranking** (as LDP³+ measures rank preservation): Kendall's τ-b between the
  method's estimates with the fake users and its estimates without them, over all
  values (1: the attack moved no pair of values past each other);
* the **honest run** beside it: the same honest reports without the fake users
  (:attr:`ldpcore.attacks.Poisoned.honest_support`).

Beside the run's methods, always, a defence: LDPRecover
(:class:`ldpcore.postprocess.LDPRecover`), told the attack's share of fake users
``η = m/n`` as its paper tells the server, and applied to the honest run with the same
``η`` (the server cannot tell whether it is attacked): its honest bias is its cost when
no one lies.

The targets are chosen once per run (:func:`pick_targets`): drawn from its seed
(uniformly, as Cao et al. choose them), the least frequent values, or named.
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
from ldpcore.attacks.gains import check_attackable, check_targets, choose_targets
from ldpcore.attacks.ranges import (
    check_range,
    expected_range_gain,
    plan_attack,
    poison_tree,
)
from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.metrics import t_interval
from ldpcore.experiments.readings import post_process, set_answer
from ldpcore.experiments.trials import trial_generator
from ldpcore.postprocess import LDPRecover, PostProcessor, get_method
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.stats.compare import judge_difference

#: The spawn key of the run's target draw: apart from every trial's generator.
_TARGETS_KEY = 1 << 30

#: A difference from Base's gain this small relative to the gains (or to 1) is rounding,
#: not an effect: float64 sums over d values carry errors near d·2⁻⁵³, far below it.
SAME_AS_BASE = 1e-12


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
        The methods, in the order of the rows below: the run's, then LDPRecover.
    gains : ndarray
        ``(methods, trials)``: the targets' estimated total with the fake users minus the
        same without them, on the same honest reports (Cao et al.'s gain).
    collateral : ndarray
        ``(methods, trials)``: the mean squared error over the other values.
    honest_bias : ndarray
        ``(methods, trials)``: the targets' estimated total without the fake users minus
        their true total (each method's own error there, not an effect of the attack).
    top_k : int
        The k of the top-k query.
    in_top_k, honest_in_top_k : ndarray
        ``(methods, trials)``: how many targets are among the method's k largest
        estimates, with and without the fake users.
    truth : float
        The targets' true total frequency (the set query's true answer).
    kendall : ndarray
        ``(methods, trials)``: Kendall's τ-b of the estimates with the fake users
        against the same method's without them.
    no_ops : tuple of str
        The methods that declare they return Base's estimate unchanged for this
        protocol (``PostProcessor.is_no_op``): "the same as Base" whatever rounding says.
    share : float
        ``β = m/(n + m)``, the fake users' share of all reports.
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
    honest_bias: NDArray[np.float64]
    top_k: int
    in_top_k: NDArray[np.int64]
    honest_in_top_k: NDArray[np.int64]
    truth: float
    kendall: NDArray[np.float64]
    no_ops: tuple[str, ...] = ()
    share: float = math.nan

    @property
    def summary(self) -> pd.DataFrame:
        """Per method: mean gain, against Base (paired, 95%), own bias, collateral, queries.

        ``gain`` is Cao et al.'s (after minus before, same honest reports);
        ``honest_bias`` the method's own error on the targets' total without the fake
        users; ``set_answer`` the targets' mean estimated total with them (truth, plus
        the bias, plus the gain); ``in_top_k`` the mean number of targets among the k
        largest estimates, and ``top_k_any`` the share of trials with at least one;
        ``honest_*`` the same without the fake users; ``influence`` the gain over
        ``β(1 − F)``, what honest users holding targets would add in their place (the
        random item attack's expected gain): how many honest users each fake one is worth.
        """
        base = self.methods.index("Base") if "Base" in self.methods else None
        rows = []
        for k, method in enumerate(self.methods):
            gain = self.gains[k]
            low, high = t_interval(gain)
            bias_low, bias_high = t_interval(self.honest_bias[k])
            row: dict[str, Any] = {
                "method": method,
                "gain": float(gain.mean()),
                "gain_low": low,
                "gain_high": high,
                "honest_bias": float(self.honest_bias[k].mean()),
                "honest_bias_low": bias_low,
                "honest_bias_high": bias_high,
                "collateral_mse": float(self.collateral[k].mean()),
                "set_answer": self.truth + float((self.honest_bias[k] + gain).mean()),
                "influence": (
                    float(gain.mean()) / (self.share * (1.0 - self.truth))
                    if self.share > 0 and self.truth < 1
                    else math.nan
                ),
                "in_top_k": float(self.in_top_k[k].mean()),
                "top_k_any": float(np.mean(self.in_top_k[k] > 0)),
                "honest_in_top_k": float(self.honest_in_top_k[k].mean()),
                "honest_top_k_any": float(np.mean(self.honest_in_top_k[k] > 0)),
                "kendall_tau": float(np.nanmean(self.kendall[k]))
                if np.any(np.isfinite(self.kendall[k]))
                else float("nan"),
            }
            if base is not None:
                difference = gain - self.gains[base]
                d_low, d_high = t_interval(difference)
                scale = max(1.0, float(np.max(np.abs(self.gains[[base, k]]))))
                row |= {
                    "vs_base": float(difference.mean()),
                    "vs_base_low": d_low,
                    "vs_base_high": d_high,
                    "effect": (
                        "the same as Base"
                        if method in self.no_ops
                        else effect(
                            difference,
                            scale,
                            is_base=method == "Base",
                            reference=float(self.gains[base].mean()),
                        )
                    ),
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


#: The one verdict rule's words (:func:`ldpcore.stats.compare.judge`) for a gain.
_GAIN_WORDS = {
    "lower": "shrinks the gain",
    "higher": "amplifies the gain",
    "about the same": "about the same",
    "no significant difference": "no significant difference",
}


def effect(
    difference: NDArray[np.float64],
    scale: float = 1.0,
    *,
    is_base: bool = False,
    reference: float = 0.0,
) -> str:
    """Whether a method shrinks the fake users' gain, amplifies it, or cannot be told apart.

    ``difference`` is the method's gain minus Base's, per trial (paired); it is "the
    same as Base" when no trial's exceeds :data:`SAME_AS_BASE` times ``scale`` (rounding
    only), else its 95% t-interval is judged on Base's gain ``reference`` by the one
    verdict rule (:func:`ldpcore.stats.compare.judge_difference`, the 5% margin every
    verdict uses): a change within 5% of Base's gain is "about the same".
    """
    if is_base:
        return "reference"
    if float(np.max(np.abs(difference))) <= SAME_AS_BASE * scale:
        return "the same as Base"
    low, high = t_interval(difference)
    return _GAIN_WORDS[judge_difference(low, high, reference)]


def pick_targets(
    attack: AttackSpec,
    truth: NDArray[np.float64],
    labels: Any,
    rng: np.random.Generator,
    *,
    contiguous: bool = False,
) -> NDArray[np.int64]:
    """The attack's targets: drawn at random, the least frequent, or named.

    Named targets are the dataset's labels, or else 0-based values; one that is neither
    is refused with the labels it could have been. ``contiguous``: the targets are one
    range of ``attack.targets`` consecutive values (an attack on a tree's ranges):
    drawn with a uniform start, the least frequent such range, or named consecutively.
    """
    d = truth.size
    if contiguous and attack.pick != "named":
        length = attack.targets
        if length > d:
            raise InputError(f"a target range of {length} values needs at least that many; d = {d}")
        if attack.pick == "rarest":
            running = np.concatenate(([0.0], np.cumsum(truth)))
            start = int(np.argmin(running[length:] - running[:-length]))
        else:
            start = int(rng.integers(0, d - length + 1))
        return np.arange(start, start + length, dtype=np.int64)
    if attack.pick == "rarest":
        if attack.targets > d:
            raise InputError(
                f"an attack on {attack.targets} targets needs at least that many values"
            )
        return np.sort(np.argsort(truth, kind="stable")[: attack.targets]).astype(np.int64)
    if attack.pick == "named":
        names = [str(label) for label in labels]
        chosen = []
        for name in attack.named:
            if name in names:
                chosen.append(names.index(name))
            elif name.isdigit() and int(name) < d:
                chosen.append(int(name))
            else:
                shown = ", ".join(names[:8]) + (", …" if d > 8 else "")
                raise InputError(
                    f"no value {name!r} to target; name one of the labels ({shown}) or a "
                    f"0-based value below {d}"
                )
        if contiguous:
            start, stop = check_range(chosen, d)
            return np.arange(start, stop, dtype=np.int64)
        return check_targets(chosen, d)
    return choose_targets(attack.targets, d, rng)


def _kendall(first: NDArray[np.float64], second: NDArray[np.float64]) -> float:
    """Kendall's τ-b of two rankings of the values (NaN where either is constant)."""
    from scipy import stats  # noqa: PLC0415 (scipy loads with the run)

    if np.ptp(first) == 0 or np.ptp(second) == 0:
        return float("nan")
    return float(stats.kendalltau(first, second).statistic)


def _in_top_k(vector: NDArray[np.float64], targets: NDArray[np.int64], k: int) -> int:
    """How many targets are among the k largest entries (ties broken by position)."""
    top = np.argpartition(-vector, k - 1)[:k] if k < vector.size else np.arange(vector.size)
    return int(np.isin(targets, top).sum())


def _methods_under_attack(
    names: tuple[str, ...], eta: float
) -> tuple[tuple[str, ...], list[PostProcessor]]:
    """The run's methods, and LDPRecover beside them told the attack's ``η = m/n``.

    LDPRecover is a defence: it is compared under every attack, given the share of fake
    users as its paper gives it to the server, on the honest run as on the poisoned one
    (the server cannot tell which it holds). Beside a tree it runs level by level, as
    every flat method does.
    """
    recover = LDPRecover(fake_share=eta)
    methods = [recover if name == LDPRecover.name else get_method(name) for name in names]
    if LDPRecover.name not in names:
        names, methods = (*names, LDPRecover.name), [*methods, recover]
    return tuple(names), methods


@dataclass(frozen=True)
class Collection:
    """A Base estimate, its number of reports and (for a tree) the tallies it came from."""

    estimate: NDArray[np.float64]
    users: int
    tallies: NDArray[np.int64] | None


def _collections(
    protocol: FrequencyOracle,
    counts: NDArray[np.int64],
    attack: AttackSpec,
    *,
    targets: NDArray[np.int64],
    rng: np.random.Generator,
    plan: Any,
) -> tuple[Collection, Collection]:
    """One trial's collection with the fake users, and the same honest one without them."""
    if protocol.composite:
        start, stop = int(targets[0]), int(targets[-1]) + 1
        tree = poison_tree(protocol, counts, attack, rng, start=start, stop=stop, plan=plan)
        return (
            Collection(
                protocol.estimate_from_tallies(tree.tallies, tree.users), tree.users, tree.tallies
            ),
            Collection(
                protocol.estimate_from_tallies(tree.honest_tallies, tree.honest),
                tree.honest,
                tree.honest_tallies,
            ),
        )
    poisoned = poison(protocol, counts, attack, rng, targets=targets)
    return (
        Collection(protocol.estimate(poisoned.support, poisoned.users), poisoned.users, None),
        Collection(
            protocol.estimate(poisoned.honest_support, poisoned.honest), poisoned.honest, None
        ),
    )


def run_attack(config: ExperimentConfig, attack: AttackSpec, *, top_k: int = 10) -> AttackResult:
    """Every trial of ``config`` with and without ``attack``'s fake users, every method.

    ``top_k``: the k of the top-k query (at most the domain size).
    """
    data, protocol, _ = config.build()
    if not protocol.composite:
        check_attackable(protocol)  # a tree's range attack is the one outside the (p, q) view
    if attack.aim != "raw" and not protocol.composite:
        raise InputError(
            f"aim={attack.aim} names a reading of a tree; {protocol.name} has one estimate: "
            "leave aim out"
        )
    top_k = max(1, min(int(top_k), protocol.domain_size))
    truth = data.frequencies()
    targets = pick_targets(
        attack,
        truth,
        data.labels,
        trial_generator(config.seed, _TARGETS_KEY),
        contiguous=protocol.composite,
    )
    others = np.setdiff1d(np.arange(protocol.domain_size), targets)
    fakes = attack.fake_users(data.n)
    names, methods = _methods_under_attack(config.methods, fakes / data.n)
    plan = None
    if protocol.composite and attack.kind == "mga":
        start, stop = int(targets[0]), int(targets[-1]) + 1
        plan = plan_attack(
            protocol, start, stop, fakes=fakes, honest=data.n, frequencies=truth, reading=attack.aim
        )
    shape = (len(methods), config.trials)
    gains, collateral, honest_bias = np.empty(shape), np.empty(shape), np.empty(shape)
    in_top_k = np.empty(shape, dtype=np.int64)
    honest_in_top_k = np.empty(shape, dtype=np.int64)
    kendall = np.empty(shape)
    true_total = float(truth[targets].sum())
    for trial in range(config.trials):
        attacked, honest = _collections(
            protocol,
            data.counts,
            attack,
            targets=targets,
            rng=trial_generator(config.seed, trial),
            plan=plan,
        )
        for row, method in enumerate(methods):
            attacked_output = post_process(
                method,
                attacked.estimate,
                protocol=protocol,
                n=attacked.users,
                tallies=attacked.tallies,
            )
            honest_output = post_process(
                method, honest.estimate, protocol=protocol, n=honest.users, tallies=honest.tallies
            )
            # The targets' total as the method answers it, as every query of a run is
            # (readings.py): a method that acts on the query's answer (Post-Pos clamps it
            # at zero) is measured on that answer, and a raw tree reads it off its nodes.
            clamp = method.answers_only
            before = set_answer(honest_output, protocol, targets, clamp=clamp)
            after = set_answer(attacked_output, protocol, targets, clamp=clamp)
            gains[row, trial] = after - before
            # Each value's own answer: the estimate (a raw tree's is its fewest nodes too).
            vector, clean = attacked_output.vector, honest_output.vector
            honest_bias[row, trial] = before - true_total
            collateral[row, trial] = (
                float(np.mean((vector[others] - truth[others]) ** 2)) if others.size else math.nan
            )
            in_top_k[row, trial] = _in_top_k(vector, targets, top_k)
            honest_in_top_k[row, trial] = _in_top_k(clean, targets, top_k)
            kendall[row, trial] = _kendall(vector, clean)
    share = fakes / (data.n + fakes)
    return AttackResult(
        config=config,
        attack=attack,
        targets=tuple(int(t) for t in targets),
        labels=tuple(str(data.labels[t]) for t in targets),
        fakes=fakes,
        expected=(
            expected_range_gain(
                protocol,
                attack.kind,
                int(targets[0]),
                int(targets[-1]) + 1,
                fakes=fakes,
                honest=data.n,
                frequencies=truth,
                plan=plan,
            )
            if protocol.composite
            else expected_gain(protocol, attack.kind, targets, truth, share)
        ),
        methods=names,
        gains=gains,
        collateral=collateral,
        honest_bias=honest_bias,
        top_k=top_k,
        in_top_k=in_top_k,
        honest_in_top_k=honest_in_top_k,
        truth=true_total,
        kendall=kendall,
        no_ops=tuple(
            name
            for name, method in zip(names, methods, strict=True)
            if name != "Base" and method.is_no_op(protocol)
        ),
        share=share,
    )


__all__ = ["SAME_AS_BASE", "AttackResult", "effect", "pick_targets", "run_attack"]
