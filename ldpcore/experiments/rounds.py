"""A collection repeated over T rounds, simulated: each round's error and the average's.

The same users report ``T`` times with their values fixed; a memoizing protocol keeps
each user's permanent answer across the rounds
(:func:`ldpcore.protocols.repeated.sample_rounds`, exact, O(d) a round). Every method
post-processes each round's Base estimate (a round is one snapshot of the generalized
view, NDSS 2020 Sec. III), and the average of a method's ``T`` estimates is scored too.
Errors are over every value (the full domain); each trial is drawn from its own
generator, so a trial's numbers never depend on the trials beside it. The exact figures
for Base (:mod:`ldpcore.advice.longitudinal`) stand beside the simulated ones.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ldpcore import bounds
from ldpcore._validation import check_int
from ldpcore.experiments.metrics import t_interval
from ldpcore.experiments.trials import trial_generator
from ldpcore.postprocess import get_method
from ldpcore.protocols.repeated import average_variance, sample_rounds
from ldpcore.stats.compare import compare

if TYPE_CHECKING:
    import pandas as pd

    from ldpcore.experiments.config import ExperimentConfig


@dataclass(frozen=True)
class RoundsRun:
    """Every method's error per round and of the average over ``rounds`` rounds.

    Attributes
    ----------
    config : ExperimentConfig
        The settings (its query is not used: the errors are over every value).
    rounds : int
        ``T``.
    methods : tuple of str
        The methods, in the config's order.
    round_mse : ndarray, shape (methods, trials)
        Each trial's mean over the rounds of one round's MSE over the values.
    average_mse : ndarray, shape (methods, trials)
        Each trial's MSE of the method's estimates averaged over the rounds.
    pooled_mse : ndarray, shape (methods, trials)
        Each trial's MSE of the method applied once, to the average of the rounds' Base
        estimates: for a one-shot protocol the rounds' counts pooled are one collection
        from ``n·T`` reports, exactly (independent rounds), so the method is told
        ``n·T``; a memoized chain's rounds are not independent, and the method is told
        ``n`` (its likelihood, where it has one, is then one round's: an approximation).
    exact_round, exact_average : float
        Base's exact MSE of one round and of the average (mean over values).
    """

    config: ExperimentConfig
    rounds: int
    methods: tuple[str, ...]
    round_mse: NDArray[np.float64]
    average_mse: NDArray[np.float64]
    pooled_mse: NDArray[np.float64]
    exact_round: float
    exact_average: float

    @property
    def summary(self) -> pd.DataFrame:
        """One row per method: the mean MSEs with their 95% t-intervals over the trials."""
        import pandas as pd  # noqa: PLC0415

        base = self.methods.index("Base")
        versus = {
            label: {
                c.method: c
                for c in compare(
                    np.vstack([self.average_mse[base], errors]),
                    ["Base", *(f"{m} " for m in self.methods)],  # each row its own name
                    reference="Base",
                )
            }
            for label, errors in (("average", self.average_mse), ("pooled", self.pooled_mse))
        }
        rows: list[dict[str, Any]] = []
        for index, method in enumerate(self.methods):
            row: dict[str, Any] = {"method": method}
            for label, values in (
                ("round", self.round_mse[index]),
                ("average", self.average_mse[index]),
                ("pooled", self.pooled_mse[index]),
            ):
                row[f"{label}_mse"] = float(np.mean(values))
                row[f"{label}_low"], row[f"{label}_high"] = t_interval(values)
                if label in versus:  # against averaging Base, on the same trials
                    comparison = versus[label][f"{method} "]
                    row[f"{label}_vs_base"] = comparison.outcome
                    row[f"{label}_ratio"] = comparison.ratio
                    row[f"{label}_ratio_low"] = comparison.low
                    row[f"{label}_ratio_high"] = comparison.high
            rows.append(row)
        return pd.DataFrame(rows)

    def to_json_dict(self) -> dict[str, Any]:
        """The run as plain JSON values."""
        from ldpcore._json import json_value  # noqa: PLC0415

        return {
            "config": self.config.to_dict(),
            "rounds": self.rounds,
            "exact_base": {"round_mse": self.exact_round, "average_mse": self.exact_average},
            "summary": [
                {key: json_value(value) for key, value in record.items()}
                for record in self.summary.to_dict("records")
            ],
        }


def run_rounds(config: ExperimentConfig, rounds: int) -> RoundsRun:
    """Simulate ``config.trials`` collections of ``rounds`` rounds each."""
    rounds = check_int(rounds, name="rounds", minimum=bounds.ROUNDS_MIN, maximum=bounds.ROUNDS_MAX)
    if "Base" not in config.methods:  # every comparison is with averaging Base
        config = dataclasses.replace(config, methods=("Base", *config.methods))
    data, protocol = config.dataset.build(config.n), config.oracle()  # no query needed
    truth = data.frequencies()
    n = data.n
    methods = [get_method(name) for name in config.methods]
    round_mse = np.empty((len(methods), config.trials))
    average_mse = np.empty((len(methods), config.trials))
    pooled_mse = np.empty((len(methods), config.trials))
    chain = protocol.rounds_chain()
    pooled_n = n if chain is not None and chain.memoized else n * rounds
    for trial in range(config.trials):
        rng = trial_generator(config.seed, trial)
        counts = sample_rounds(protocol, data.counts, rounds, rng, sampler=config.sampler)  # type: ignore[arg-type]
        estimates = np.stack([protocol.estimate_from_tallies(c, n) for c in counts])
        for row, method in enumerate(methods):
            if method.rows_at_once:
                vectors = method.apply_rows(estimates, protocol=protocol, n=n)
            else:
                vectors = np.stack([method(e, protocol=protocol, n=n) for e in estimates])
            round_mse[row, trial] = float(np.mean((vectors - truth) ** 2))
            average_mse[row, trial] = float(np.mean((vectors.mean(axis=0) - truth) ** 2))
            pooled = method(estimates.mean(axis=0), protocol=protocol, n=pooled_n)
            pooled_mse[row, trial] = float(np.mean((pooled - truth) ** 2))
    return RoundsRun(
        config=config,
        rounds=rounds,
        methods=tuple(config.methods),
        round_mse=round_mse,
        average_mse=average_mse,
        pooled_mse=pooled_mse,
        exact_round=float(np.mean(protocol.variance(truth, n))),
        exact_average=float(np.mean(average_variance(protocol, truth, n, rounds))),
    )


__all__ = ["RoundsRun", "run_rounds"]
