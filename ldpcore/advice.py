"""Decisions from simulations: which method to use, and which ε (or n) is enough.

* :func:`recommend` — NDSS 2020 Section V-D, "choosing the method on a synthetic
  dataset": make a consistent stand-in for the unknown truth from the Base estimate
  (Norm-Sub or PowerNS of it), simulate the whole pipeline on it, rank the methods
  for the query that matters.
* :func:`advise_epsilon` — the smallest ε at which a method's root-mean-square error
  on the query meets a target, by a monotone search over ε (analytic for Base),
  with an interval from the simulation's standard error.
* :func:`advise_users` — the reverse: how many users at a given ε.
"""

from __future__ import annotations

import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike
from scipy import special

from ldpcore import bounds
from ldpcore.compare import (
    Comparison,
    Verdict,
    format_count,
    format_ratio,
    format_times,
    verdict,
)
from ldpcore.datasets import round_to_total
from ldpcore.errors import InputError
from ldpcore.experiment import ExperimentConfig, ExperimentResult, run
from ldpcore.metrics import analytic_base_mse
from ldpcore.postprocess import get_method, method_class, method_names, resolve_method_name
from ldpcore.protocols import FrequencyOracle, get_protocol

#: The ε range searched (the app's slider range).
EPSILON_RANGE = (0.05, 10.0)
#: The n range searched by :func:`advise_users`.
USERS_RANGE = (100, 10**9)
#: Bisection steps in log space after the bracketing grid (precision ≈ 1 %).
_REFINE_STEPS = 7
#: Standard errors on each side for the reported interval.
_SE_WIDTH = 2.0


@dataclass(frozen=True)
class Recommendation:
    """The ranking of methods for a query, and what it supports saying.

    Attributes
    ----------
    ranking : DataFrame
        One row per method, best (lowest mean MSE) first: ``rank, method, mse, mse_std,
        mse_ratio_to_best, ratio_low, ratio_high, mse_ratio_to_base, base_ratio_low,
        base_ratio_high, better_than_base, no_op``. Ratios are paired on the same trials,
        intervals simultaneous over the methods (:mod:`ldpcore.compare`).
    verdict : Verdict
        The recommended method, whether it is significantly better than Base, and a
        headline in words.
    """

    ranking: pd.DataFrame
    verdict: Verdict

    @property
    def recommended(self) -> str:
        """The method to use."""
        return self.verdict.recommended

    @property
    def significant(self) -> bool:
        """Whether the recommended method is significantly more accurate than Base."""
        return self.verdict.helps

    def to_json_dict(self, query: str) -> dict[str, object]:
        """``ldpcore recommend --format json``: the ranking with its intervals."""
        return {
            "query": query,
            "recommended": self.recommended,
            "significant": self.significant,
            "headline": self.verdict.headline,
            "ranking": [
                {key: _json_number(value) for key, value in record.items()}
                for record in self.ranking.to_dict("records")
            ],
        }


def _json_number(value: object) -> object:
    if isinstance(value, np.bool_):
        return bool(value)
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    return value


def consistent_methods(methods: Sequence[str]) -> tuple[str, ...]:
    """Of ``methods``, those the registry says always return a distribution.

    That is non-negative and summing to one (``"yes"`` for both in the metadata), in
    the order given, except that Norm-Sub (the paper's general recommendation, NDSS
    Sec. V-D) comes first when present.
    """
    proper = [
        m
        for m in methods
        if (method_class(m).nonnegative, method_class(m).sums_to_one) == ("yes", "yes")
    ]
    return tuple(sorted(proper, key=lambda m: m != "Norm-Sub"))


def no_op_methods(methods: Sequence[str], protocol: FrequencyOracle) -> tuple[str, ...]:
    """Of ``methods``, those the registry declares a no-op for ``protocol``."""
    return tuple(m for m in methods if get_method(m).is_no_op(protocol))


def rank_methods(
    result: ExperimentResult, protocol: FrequencyOracle, *, query_words: str = "the query"
) -> Recommendation:
    """Rank the methods of a run by mean MSE, with paired intervals and a verdict."""
    names = list(result.config.methods)
    if "Base" not in names:
        raise InputError("ranking methods needs Base among them (the reference)")
    errors = result.trial_errors
    no_ops = no_op_methods(names, protocol)
    found = verdict(
        errors, names, no_ops=no_ops, consistent=consistent_methods(names), query=query_words
    )
    to_base = {c.method: c for c in found.against_base}
    to_best = {c.method: c for c in found.against_best}
    rows = []
    for row in result.summary.to_dict("records"):
        name = str(row["method"])
        best = to_best.get(name)
        base = to_base.get(name)
        rows.append(
            {
                "method": name,
                "mse": row["mse"],
                "mse_std": row["mse_std"],
                "mse_ratio_to_best": 1.0 if best is None else best.ratio,
                "ratio_low": 1.0 if best is None else best.low,
                "ratio_high": 1.0 if best is None else best.high,
                "mse_ratio_to_base": 1.0 if base is None else base.ratio,
                "base_ratio_low": 1.0 if base is None else base.low,
                "base_ratio_high": 1.0 if base is None else base.high,
                "better_than_base": bool(base is not None and base.better),
                "no_op": bool(base is not None and base.no_op),
            }
        )
    ranking = pd.DataFrame(rows).sort_values("mse", kind="stable").reset_index(drop=True)
    ranking.insert(0, "rank", np.arange(1, len(ranking) + 1))
    return Recommendation(ranking, found)


@dataclass(frozen=True)
class SweepVerdict:
    """What a sweep supports saying: the best method at each point, and a headline.

    Attributes
    ----------
    table : DataFrame
        One row per swept value: the value, ``best method`` (the lowest mean MSE among
        the methods significantly more accurate than Base there, or ``none``), its
        ``MSE ÷ Base`` with the simultaneous 95% interval, and ``methods better than
        Base`` (how many of the others).
    headline : str
        One sentence for people.
    helps : bool
        Whether some method is significantly more accurate than Base at some point.
    """

    table: pd.DataFrame
    headline: str
    helps: bool = False


def sweep_verdicts(frame: pd.DataFrame, parameter: str, label: str | None = None) -> SweepVerdict:
    """Summarise a :func:`ldpcore.experiment.sweep` frame's paired comparisons with Base.

    Each point's comparisons are its own (paired on that point's trials, simultaneous
    over the methods); the headline names the best significant method over runs of
    neighbouring points and says in words where no method beats Base.

    Parameters
    ----------
    frame : DataFrame
        A sweep's frame (``parameter``, ``method``, ``mse``, ``mse_ratio_to_base``,
        ``ratio_low``, ``ratio_high``, ``mse_vs_base``).
    parameter : str
        The swept column.
    label : str, optional
        The parameter in words (``ρ``, ``k``); ``parameter`` when omitted.
    """
    label = label or parameter
    if "Base" not in set(frame["method"]):
        return SweepVerdict(pd.DataFrame(), "Add Base to the methods to compare them with it.")
    rows: list[dict[str, object]] = []
    # Per point: the best significant method, its gain (1/ratio) and the gain its
    # interval guarantees (1/high).
    best_at: list[tuple[object, str | None, tuple[float, float]]] = []
    for value, part in frame.groupby(parameter, sort=False):
        lower = part[part["mse_vs_base"] == "lower"]
        if lower.empty:
            rows.append(
                {
                    label: value,
                    "best method": "none (no method beats Base here)",
                    "MSE ÷ Base (95%)": "—",
                    "methods better than Base": 0,
                }
            )
            best_at.append((value, None, (math.nan, math.nan)))
            continue
        top = lower.loc[lower["mse"].idxmin()]
        rows.append(
            {
                label: value,
                "best method": str(top["method"]),
                "MSE ÷ Base (95%)": format_ratio(
                    top["mse_ratio_to_base"], top["ratio_low"], top["ratio_high"]
                ),
                "methods better than Base": len(lower),
            }
        )
        gains = (1.0 / float(top["mse_ratio_to_base"]), 1.0 / float(top["ratio_high"]))
        best_at.append((value, str(top["method"]), gains))
    helps = any(method is not None for _, method, _ in best_at)
    return SweepVerdict(pd.DataFrame(rows), _sweep_headline(best_at, label), helps)


def _sweep_headline(
    best_at: list[tuple[object, str | None, tuple[float, float]]], label: str
) -> str:
    """Runs of neighbouring points with the same best method, in one sentence."""
    runs: list[tuple[str | None, list[object], list[tuple[float, float]]]] = []
    for value, method, gain in best_at:
        if runs and runs[-1][0] == method:
            runs[-1][1].append(value)
            runs[-1][2].append(gain)
        else:
            runs.append((method, [value], [gain]))

    def where(values: list[object]) -> str:
        if len(values) == 1:
            return f"at {label} = {values[0]}"
        return f"for {label} from {values[0]} to {values[-1]}"

    if all(method is None for method, _, _ in runs):
        return (
            f"No post-processing method is significantly more accurate than Base at any "
            f"{label} tested."
        )
    parts = []
    for method, values, gains in runs:
        if method is None:
            parts.append(f"no method is significantly more accurate than Base {where(values)}")
        else:
            points = [g for g, _ in gains]
            span = (
                format_times(points[0])
                if len(points) == 1
                else f"{format_times(min(points))} to {format_times(max(points))}"
            )
            sure = format_times(min(g for _, g in gains))
            parts.append(
                f"{method} is the most accurate of those significantly better than "
                f"Base {where(values)} ({span} lower MSE; at least {sure} with 95% "
                "confidence)"
            )
    text = "; ".join(parts)
    return text[0].upper() + text[1:] + "."


def in_users(n: int, comparison: Comparison) -> str:
    """A significant gain at ``n`` users said in users, with the paired interval.

    Base's MSE falls as 1/n (NDSS Eq. 3), so MSE ratio R to Base is Base's accuracy
    with n / R users (NDSS Sec. V-C's equivalent users).

    Examples
    --------
    >>> from ldpcore.compare import Comparison
    >>> in_users(10_000, Comparison("PowerNS", "Base", 0.25, 0.2, 0.3, True, False, False, 5))
    'As accurate as Base would be with about 40,000 users (33,300 to 50,000).'
    """
    most = format_count(n / comparison.low) if comparison.low > 0 else "unboundedly many"
    fewest = format_count(n / comparison.high) if math.isfinite(comparison.high) else "0"
    return (
        f"As accurate as Base would be with about {format_count(n / comparison.ratio)} "
        f"users ({fewest} to {most})."
    )


def users_saved_sentence(frame: pd.DataFrame, n: int) -> str:
    """What the best method is worth in users at ``n``, from an ``n`` sweep, with its interval.

    Base's MSE falls as 1/n (NDSS Eq. 3), so a method with MSE ratio R to Base on the same
    trials is as accurate as Base with about n/R users (NDSS Sec. V-C's equivalent users);
    the interval is the paired ratio's, inverted.
    """
    point = frame[frame["n"] == n]
    others = point[point["method"] != "Base"]
    if others.empty or "Base" not in set(point["method"]):
        return "Add Base and another method to see what post-processing is worth in users."
    lower = others[others["mse_vs_base"] == "lower"]
    if lower.empty:
        return (
            f"At n = {n:,}, no method is significantly more accurate than Base, so "
            "post-processing saves no users measurably here."
        )
    top = lower.loc[lower["mse"].idxmin()]
    gain = 1.0 / float(top["mse_ratio_to_base"])
    most = format_times(1.0 / float(top["ratio_low"])) if top["ratio_low"] > 0 else "∞×"
    return (
        f"At n = {n:,}, {top['method']} is as accurate as Base would be with about "
        f"{format_times(gain)} as many users (≈ {format_count(gain * n)}; "
        f"{format_times(1.0 / float(top['ratio_high']))}–{most}, paired 95% interval)."
    )


def query_in_words(query: str) -> str:
    """``topk:k=10`` → "the top-10 values", for headlines."""
    kind, _, rest = query.partition(":")
    if kind == "topk":
        return f"the top-{rest.partition('=')[2]} values"
    return {
        "full": "every value's frequency",
        "set": "sets of values",
        "groups": "group totals",
        "prefix": "prefixes",
        "interval": "intervals",
    }.get(kind, f"the query {query}")


def recommend(
    estimate: ArrayLike,
    *,
    protocol: FrequencyOracle,
    n: int,
    query: str = "full",
    methods: Sequence[str] | None = None,
    trials: int = 20,
    seed: int = 0,
    truth_from: str = "Norm-Sub",
    groups: Sequence[str] | None = None,
) -> Recommendation:
    """Rank post-processing methods for data like this estimate (NDSS Sec. V-D).

    Every method is simulated on the same trials (common random numbers) on a
    consistent stand-in for the truth, and compared with Base and with the best method
    by paired ratios of mean squared error with simultaneous intervals
    (:mod:`ldpcore.compare`). Base is always simulated, as the reference.

    Parameters
    ----------
    estimate : array_like
        The Base estimate that was collected.
    protocol : FrequencyOracle
        The protocol that produced it.
    n : int
        Number of users.
    query : str
        The query that matters (see :func:`ldpcore.queries.parse_query`).
    methods : sequence of str, optional
        Candidates (default: all).
    trials, seed : int
        Simulation size and seed.
    truth_from : {"Norm-Sub", "PowerNS"}
        How the consistent stand-in for the truth is made.
    groups : sequence of str, optional
        The group of each value, for the ``groups`` query.

    Returns
    -------
    Recommendation
        The ranking (best first, with intervals) and the verdict.
    """
    if truth_from not in {"Norm-Sub", "PowerNS"}:
        raise InputError(f"truth_from must be 'Norm-Sub' or 'PowerNS', got {truth_from!r}")
    stand_in = get_method(truth_from)(estimate, protocol=protocol, n=n)
    counts = round_to_total(stand_in, n)
    extras = protocol.parameters()
    wanted = method_names() if methods is None else tuple(methods)
    config = ExperimentConfig(
        dataset=f"synthetic truth ({truth_from} of the estimate)",
        n=n,
        protocol=protocol.name,
        epsilon=protocol.epsilon,
        methods=("Base", *wanted),
        query=query,
        trials=trials,
        seed=seed,
        params={
            key: value for key, value in extras.items() if key not in {"epsilon", "domain_size"}
        },
        true_counts=tuple(int(c) for c in counts),
        groups=None if groups is None else tuple(groups),
    )
    result = run(config)
    found = rank_methods(result, protocol, query_words=query_in_words(query))
    if "Base" not in {resolve_method_name(m) for m in wanted}:  # the reference, not a candidate
        ranking = found.ranking[found.ranking["method"] != "Base"].reset_index(drop=True)
        ranking["rank"] = np.arange(1, len(ranking) + 1)
        found = Recommendation(ranking, found.verdict)
    return found


@dataclass(frozen=True)
class Advice:
    """The smallest value of a parameter (ε or n) that meets an accuracy target.

    Attributes
    ----------
    protocol, method : str
    value : float or None
        The smallest value meeting the target (None if none in range does).
    low, high : float or None
        The range of values for which the simulation cannot tell whether the target
        is met (the curve ± 2 standard errors crosses the target there).
    rmse_at_value : float or None
        The measured RMSE at ``value``.
    """

    protocol: str
    method: str
    value: float | None
    low: float | None
    high: float | None
    rmse_at_value: float | None


def advise_epsilon(
    config: ExperimentConfig,
    *,
    target_rmse: float,
    epsilon_range: tuple[float, float] = EPSILON_RANGE,
) -> list[Advice]:
    """Smallest ε meeting ``target_rmse`` for every method of ``config``.

    The RMSE is ``√MSE`` of the query's answers (frequency units). Base is solved on
    its analytic curve (Eq. 3) for single-value queries; everything else by
    simulation with common random numbers (the same seed at every ε).
    """
    _check_target(target_rmse)
    return [
        _advise(config, method, "epsilon", target_rmse, epsilon_range) for method in config.methods
    ]


def advise_users(
    config: ExperimentConfig,
    *,
    target_rmse: float,
    users_range: tuple[int, int] = USERS_RANGE,
) -> list[Advice]:
    """Smallest number of users meeting ``target_rmse`` at ``config.epsilon``."""
    _check_target(target_rmse)
    return [
        _advise(config, method, "n", target_rmse, (float(users_range[0]), float(users_range[1])))
        for method in config.methods
    ]


def _check_target(target: float) -> None:
    if not (isinstance(target, int | float) and math.isfinite(target) and 0 < target < 1):
        raise InputError(
            f"target_rmse must be in (0, 1) (frequency units; 0.005 = 0.5 percentage points), "
            f"got {target!r}"
        )


def _advise(
    config: ExperimentConfig,
    method: str,
    parameter: str,
    target: float,
    bounds_: tuple[float, float],
) -> Advice:
    single = dataclasses.replace(config, methods=(method,))
    seen: dict[float, tuple[float, float]] = {}  # the three searches share grid points

    def at(value: float) -> tuple[float, float]:
        if value not in seen:
            seen[value] = measure(value)
        return seen[value]

    def measure(value: float) -> tuple[float, float]:
        point = (
            dataclasses.replace(single, n=round(value))
            if parameter == "n"
            else dataclasses.replace(single, epsilon=value)
        )
        result = run(point)
        if method == "Base" and result.analytic["base_mse"] is not None:
            return math.sqrt(float(result.analytic["base_mse"])), 0.0  # exact, no noise
        row = result.summary.iloc[0]
        mse, se = float(row["mse"]), float(row["mse_std"]) / math.sqrt(point.trials)
        return math.sqrt(mse), se / (2 * math.sqrt(mse)) if mse > 0 else 0.0

    value, rmse = _smallest_meeting(lambda v: at(v)[0], target, bounds_, integer=parameter == "n")
    low, _ = _smallest_meeting(
        lambda v: _shift(at(v), -_SE_WIDTH), target, bounds_, integer=parameter == "n"
    )
    high, _ = _smallest_meeting(
        lambda v: _shift(at(v), _SE_WIDTH), target, bounds_, integer=parameter == "n"
    )
    return Advice(single.protocol, method, value, low, high, rmse)


@dataclass(frozen=True)
class EpsilonAnswer:
    """For one protocol: the recommended method's smallest ε and Base's, with intervals.

    Both come from the same simulated trials (common random numbers), so they are
    compared like with like. ``epsilon_low``/``epsilon_high`` bound where the RMSE
    curve's 95% band crosses the target; None where the target is not met for any ε
    up to :data:`EPSILON_RANGE`'s end.

    Attributes
    ----------
    protocol, method : str
        The protocol and the recommended method.
    epsilon, epsilon_low, epsilon_high : float or None
        The recommended method's smallest ε and its interval.
    base_epsilon, base_epsilon_low, base_epsilon_high : float or None
        The same for Base (no post-processing).
    post_processing_helps : bool
        True only when the method is significantly more accurate than Base at Base's
        ε (paired, simultaneous over the candidates) *and* its ε interval lies wholly
        below Base's.
    comparison : Comparison or None
        The method against Base at the evaluated ε nearest Base's answer.
    reason : str
        Why this method, in words.
    curve : tuple of dict
        Every evaluated point: ``epsilon, method, rmse, rmse_low, rmse_high``.
    """

    protocol: str
    method: str
    epsilon: float | None
    epsilon_low: float | None
    epsilon_high: float | None
    base_epsilon: float | None
    base_epsilon_low: float | None
    base_epsilon_high: float | None
    post_processing_helps: bool
    comparison: Comparison | None
    reason: str
    curve: tuple[dict[str, float | str], ...] = ()

    def to_json_dict(self) -> dict[str, object]:
        """The ``choose-epsilon --format json`` record."""
        keys = (
            "protocol",
            "method",
            "epsilon",
            "epsilon_low",
            "epsilon_high",
            "base_epsilon",
            "base_epsilon_low",
            "base_epsilon_high",
            "post_processing_helps",
        )
        record: dict[str, object] = {key: getattr(self, key) for key in keys}
        comparison = self.comparison
        record["mse_ratio_to_base"] = None if comparison is None else _json_number(comparison.ratio)
        record["ratio_low"] = None if comparison is None else _json_number(comparison.low)
        record["ratio_high"] = None if comparison is None else _json_number(comparison.high)
        return record


def epsilon_interval(value: float | None, low: float | None, high: float | None) -> str:
    """An ε with its interval in words: ``ε ≈ 0.41 (0.34–0.49)``.

    Examples
    --------
    >>> epsilon_interval(0.412, 0.34, None)
    'ε ≈ 0.412 (0.34–above 10)'
    """
    if value is None:
        return f"not reachable for ε ≤ {EPSILON_RANGE[1]:g}"
    upper = f"above {EPSILON_RANGE[1]:g}" if high is None else f"{high:.3g}"
    lower = f"below {EPSILON_RANGE[0]:g}" if low is None else f"{low:.3g}"
    return f"ε ≈ {value:.3g} ({lower}–{upper})"


def epsilon_sentence(answer: EpsilonAnswer, n_users: int) -> str:
    """The Choose ε answer in one sentence, with its intervals (the page and the record).

    It follows from ``post_processing_helps``: the gain over Base is claimed only when
    the paired comparison and the two ε intervals both say so.
    """
    if answer.epsilon is None:
        return (
            f"With {n_users:,} users no protocol meets the target for ε up to "
            f"{EPSILON_RANGE[1]:g}; relax the target or collect from more users."
        )
    reach = epsilon_interval(answer.epsilon, answer.epsilon_low, answer.epsilon_high)
    head = (
        f"With {n_users:,} users, {answer.protocol} + {answer.method} meets your target "
        f"from {reach}"
    )
    if answer.post_processing_helps and answer.comparison is not None:
        base = epsilon_interval(
            answer.base_epsilon, answer.base_epsilon_low, answer.base_epsilon_high
        )
        return (
            head + f"; without post-processing you would need {base} "
            f"({answer.method}: {answer.comparison.describe()})."
        )
    return (
        head
        + ". Post-processing does not measurably lower the ε needed for this query: "
        + answer.reason
    )


def answers_table(answers: Sequence[EpsilonAnswer]) -> pd.DataFrame:
    """One row per protocol: the smallest ε with and without post-processing, in words."""
    return pd.DataFrame(
        {
            "protocol": [a.protocol for a in answers],
            "recommended method": [a.method for a in answers],
            "smallest ε": [
                epsilon_interval(a.epsilon, a.epsilon_low, a.epsilon_high) for a in answers
            ],
            "without post-processing (Base)": [
                epsilon_interval(a.base_epsilon, a.base_epsilon_low, a.base_epsilon_high)
                for a in answers
            ],
            "post-processing helps": ["yes" if a.post_processing_helps else "no" for a in answers],
            "why": [a.reason for a in answers],
        }
    )


def winning_answer(answers: Sequence[EpsilonAnswer]) -> EpsilonAnswer:
    """The answer with the smallest reachable ε (the first when none is reachable)."""
    reachable = [a for a in answers if a.epsilon is not None]
    return min(reachable, key=lambda a: a.epsilon or math.inf) if reachable else answers[0]


#: Trials of the first, coarse pass when Base has no exact curve for the query.
_SCREEN_TRIALS = 3
#: Points of that coarse pass over the ε range.
_SCREEN_POINTS = 6
#: Largest spacing (ratio of neighbouring ε) left around a crossing that matters.
_FINE_SPACING = 1.2
#: At most this many rounds of adding points.
_MAX_ROUNDS = 6


def choose_epsilon(
    config: ExperimentConfig,
    *,
    target_rmse: float,
    protocols: Sequence[str],
    epsilon_range: tuple[float, float] = EPSILON_RANGE,
    progress: Callable[[float, str], None] | None = None,
    executor: Executor | None = None,
) -> list[EpsilonAnswer]:
    """Per protocol, the smallest ε meeting the target: recommended method and Base.

    The search spends trials only near the crossings (NDSS Sec. V's error curves are
    monotone in ε):

    1. Where the target will be crossed. For single-value queries (full, top-k)
       Base's exact MSE (Eq. 3) gives Base's crossing for free; otherwise a coarse pass
       with a few trials over the whole range finds it.
    2. Every method of ``config`` (Base always among them) is simulated with
       ``config.trials`` trials on the same trials (common random numbers, the same
       seed at every ε) at points around Base's crossing and around where each
       method's measured MSE ratio to Base predicts its own.
    3. Points are added until Base's and the best method's crossings (and their
       bands, mean ± t·SE) are bracketed by points at most :data:`_FINE_SPACING` apart.

    The recommendation and ``post_processing_helps`` follow :func:`ldpcore.compare.verdict`
    at the evaluated ε nearest Base's answer, and the ε intervals must separate too.
    With an ``executor`` the protocols are searched in parallel there.
    """
    _check_target(target_rmse)
    names = tuple(protocols)
    if not names:
        raise InputError("name at least one protocol to search")
    point = dataclasses.replace(config, methods=tuple(dict.fromkeys(("Base", *config.methods))))
    answers: list[EpsilonAnswer] = []
    if executor is not None:
        futures = [
            executor.submit(
                _search_protocol, dataclasses.replace(point, protocol=p), target_rmse, epsilon_range
            )
            for p in names
        ]
        for position, future in enumerate(futures):
            answers.append(future.result())
            if progress is not None:
                progress((position + 1) / len(names), answers[-1].protocol)
        return answers
    for position, name in enumerate(names):
        answers.append(
            _search_protocol(dataclasses.replace(point, protocol=name), target_rmse, epsilon_range)
        )
        if progress is not None:
            progress((position + 1) / len(names), answers[-1].protocol)
    return answers


@dataclass
class _Point:
    """All methods at one ε: mean MSE, its standard error, the per-trial errors."""

    mse: np.ndarray
    se: np.ndarray
    errors: np.ndarray


def _search_protocol(
    config: ExperimentConfig, target: float, epsilon_range: tuple[float, float]
) -> EpsilonAnswer:
    search = _Search(config, target, epsilon_range)
    search.evaluate([search.anchor() / _FINE_SPACING, search.anchor()])
    search.follow_prediction()
    search.refine()
    return search.answer()


class _Search:
    """The adaptive ε search of one protocol (see :func:`choose_epsilon`)."""

    def __init__(
        self, config: ExperimentConfig, target: float, epsilon_range: tuple[float, float]
    ) -> None:
        self.names = list(config.methods)
        self.target = target
        self.low_end, self.high_end = epsilon_range
        self.quantile = _t_quantile(config.trials)
        self.points: dict[float, _Point] = {}
        # Built once: the data (a bundled file may have 10,000 rows) and the query.
        self.data, self.protocol, self.query = config.build()
        if config.true_counts is None:
            # Every evaluated ε then reuses these counts instead of re-reading the file.
            config = dataclasses.replace(
                config,
                true_counts=tuple(int(c) for c in self.data.counts),
                labels=self.data.labels,
                groups=self.data.groups,
            )
        self.config = config
        self._anchor: float | None = None

    def key(self, epsilon: float) -> float:
        """ε clipped to the range and rounded, so that equal points are found again."""
        return float(f"{min(max(epsilon, self.low_end), self.high_end):.4g}")

    def evaluate(self, epsilons: Sequence[float]) -> None:
        """Simulate every method at each new ε (common random numbers: the same seed)."""
        for key in {self.key(e) for e in epsilons} - set(self.points):
            errors = run(dataclasses.replace(self.config, epsilon=key)).trial_errors
            self.points[key] = _Point(
                errors.mean(axis=1), errors.std(axis=1, ddof=1) / math.sqrt(errors.shape[1]), errors
            )

    def anchor(self) -> float:
        """Where Base crosses: exact (Eq. 3) for single-value queries, else a coarse pass."""
        if self._anchor is not None:
            return self._anchor
        data, query = self.data, self.query
        if query.kind in {"full", "topk"}:
            index = np.concatenate(query.members)
            frequencies = data.frequencies()

            def exact(epsilon: float) -> float:
                oracle = get_protocol(
                    self.config.protocol,
                    epsilon=epsilon,
                    domain_size=data.domain_size,
                    **dict(self.config.params),
                )
                return math.sqrt(analytic_base_mse(oracle, frequencies, data.n, values=index))

            found, _ = _smallest_meeting(
                exact, self.target, (self.low_end, self.high_end), integer=False
            )
        else:
            trials = min(self.config.trials, _SCREEN_TRIALS)
            screen = dataclasses.replace(self.config, methods=("Base",), trials=trials)
            coarse = np.geomspace(self.low_end, self.high_end, _SCREEN_POINTS)
            rmse = [
                math.sqrt(
                    float(run(dataclasses.replace(screen, epsilon=float(e))).trial_errors[0].mean())
                )
                for e in coarse
            ]
            crossed = _crossing(coarse, np.array(rmse), self.target)
            found = None if math.isinf(crossed) else crossed
        self._anchor = self.high_end if found is None else found
        return self._anchor

    def follow_prediction(self) -> None:
        """Evaluate where the best method's MSE ratio to Base predicts its crossing."""
        anchor = self.anchor()
        near = self.points[min(self.points, key=lambda e: abs(math.log(e / anchor)))]
        ratios = near.mse / max(float(near.mse[0]), 1e-300)
        best_ratio = float(np.min(ratios[1:])) if len(self.names) > 1 else 1.0
        if best_ratio < 0.9:
            # Base's RMSE falls roughly like 1/ε at small ε and faster at large ε, so
            # RMSE × √ratio is reached by at most about ε × √ratio: a cautious guess.
            guess = anchor * math.sqrt(best_ratio)
            self.evaluate([guess, guess * _FINE_SPACING])

    def crossing(self, method: int, band: float) -> tuple[float | None, int]:
        """ε where ``mean + band·t·SE`` reaches the target; state −1 below the grid, +1 above."""
        grid = sorted(self.points)
        rmse = np.array(
            [
                math.sqrt(
                    max(
                        float(
                            self.points[e].mse[method]
                            + band * self.quantile * self.points[e].se[method]
                        ),
                        1e-300,
                    )
                )
                for e in grid
            ]
        )
        value = _crossing(np.array(grid), rmse, self.target)
        if math.isinf(value):
            return None, 1
        if rmse[0] <= self.target and grid[0] > self.low_end:
            return value, -1
        return value, 0

    def best_method(self) -> int:
        """The row of the method (not Base) whose mean curve crosses first."""
        if len(self.names) == 1:
            return 0
        values = [(self.crossing(i, 0.0)[0] or math.inf, i) for i in range(1, len(self.names))]
        return min(values)[1]

    def refine(self) -> None:
        """Add points until Base's and the best method's crossings are bracketed finely."""
        for _ in range(_MAX_ROUNDS):
            wanted: list[float] = []
            grid = sorted(self.points)
            for method in {0, self.best_method()}:
                for band in (-1.0, 0.0, 1.0):
                    wanted.extend(self._wanted(grid, *self.crossing(method, band), band=band))
            new = [e for e in wanted if self.key(e) not in self.points]
            if not new:
                return
            self.evaluate(new)

    def _wanted(
        self, grid: list[float], value: float | None, state: int, *, band: float
    ) -> list[float]:
        if state < 0:
            return [grid[0] / _FINE_SPACING**2]
        if state > 0:
            return [grid[-1] * _FINE_SPACING**2] if grid[-1] < self.high_end else []
        if value is None or band != 0.0:
            return []
        above = [e for e in grid if e >= value]
        below = [e for e in grid if e < value]
        if above and below and above[0] / below[-1] > _FINE_SPACING * 1.01:
            return [math.sqrt(above[0] * below[-1])]
        return []

    def interval(self, method: int) -> tuple[float | None, float | None, float | None]:
        """The method's smallest ε and its interval (band −1 crosses first, band +1 last)."""
        value, low, high = (self.crossing(method, band)[0] for band in (0.0, -1.0, 1.0))
        return value, low, high

    def answer(self) -> EpsilonAnswer:
        """The recommendation and both ε with their intervals (see :class:`EpsilonAnswer`)."""
        names = self.names
        base = self.interval(0)
        grid = sorted(self.points)
        # The paired comparison at the evaluated ε nearest Base's answer (or the largest).
        centre = base[0]
        where = grid[-1] if centre is None else min(grid, key=lambda e: abs(math.log(e / centre)))
        found = verdict(
            self.points[where].errors,
            names,
            no_ops=no_op_methods(names, self.protocol),
            consistent=consistent_methods(names),
            query=query_in_words(self.config.query),
        )
        candidates = []
        for comparison in found.against_base:
            value, low, high = self.interval(names.index(comparison.method))
            apart = value is not None and high is not None and (base[1] is None or high < base[1])
            if comparison.better and apart:
                candidates.append((value or math.inf, comparison, (value, low, high)))
        chosen: Comparison | None
        if candidates:
            _, chosen, interval = min(candidates, key=lambda c: c[0])
            method, helps = chosen.method, True
            reason = (
                f"{method} has {chosen.describe()} at ε = {where:.3g}, and needs a "
                "smaller ε than Base with both intervals apart."
            )
        else:
            method, helps, reason = found.recommended, False, found.headline
            interval = self.interval(names.index(method))
            chosen = next((c for c in found.against_base if c.method == method), None)
        return EpsilonAnswer(
            protocol=self.config.protocol,
            method=method,
            epsilon=interval[0],
            epsilon_low=interval[1],
            epsilon_high=interval[2],
            base_epsilon=base[0],
            base_epsilon_low=base[1],
            base_epsilon_high=base[2],
            post_processing_helps=helps,
            comparison=chosen,
            reason=reason,
            curve=self.curve(),
        )

    def curve(self) -> tuple[dict[str, float | str], ...]:
        """Every evaluated point of every method, with its band."""
        rows: list[dict[str, float | str]] = []
        for e in sorted(self.points):
            point = self.points[e]
            for i, name in enumerate(self.names):
                spread = self.quantile * float(point.se[i])
                mse = float(point.mse[i])
                rows.append(
                    {
                        "epsilon": e,
                        "method": name,
                        "rmse": math.sqrt(mse),
                        "rmse_low": math.sqrt(max(mse - spread, 0.0)),
                        "rmse_high": math.sqrt(mse + spread),
                    }
                )
        return tuple(rows)


def privacy_risk(
    prior: ArrayLike, *, epsilon: float, protocols: Sequence[str]
) -> list[dict[str, object]]:
    """What one report tells the best attacker, per protocol (Bayes-optimal guess rate).

    Parameters
    ----------
    prior : array_like
        The attacker's prior: the distribution of values (e.g. the dataset's frequencies).
    epsilon : float
        The privacy budget.
    protocols : sequence of str
        Protocol names.

    Returns
    -------
    list of dict
        ``protocol, attacker guesses right, guessing without the report`` per protocol.
    """
    prior = np.asarray(prior, dtype=np.float64)
    rows: list[dict[str, object]] = []
    for name in protocols:
        oracle = get_protocol(name, epsilon=epsilon, domain_size=prior.size)
        rows.append(
            {
                "protocol": oracle.name,
                "attacker guesses right": oracle.bayes_guess_rate(prior),
                "guessing without the report": float(prior.max()),
            }
        )
    return rows


def _t_quantile(trials: int) -> float:
    return float(special.stdtrit(max(1, trials - 1), 0.975))


def estimate_choose_epsilon_seconds(
    config: ExperimentConfig, protocols: Sequence[str]
) -> dict[str, float]:
    """Seconds :func:`choose_epsilon` will take per protocol, from one timed 1-trial run each.

    A measurement, so only a guide; it lets an interface warn before a long search.
    The adaptive search evaluates about :data:`RUNS_PER_PROTOCOL` points.
    """
    estimates = {}
    for protocol in protocols:
        probe = dataclasses.replace(config, protocol=protocol, trials=1)
        start = time.perf_counter()
        run(probe)
        estimates[probe.protocol] = (
            (time.perf_counter() - start) * config.trials * RUNS_PER_PROTOCOL
        )
    return estimates


def parallel_seconds(estimates: dict[str, float], workers: int) -> float:
    """Wall time of searches taking ``estimates`` seconds each, on ``workers`` in parallel.

    Longest first, each to the least loaded worker (Graham's LPT rule; within 4/3 of
    the best schedule), which is about what a shared pool taking them in turn achieves.

    Examples
    --------
    >>> parallel_seconds({"GRR": 1.0, "OLH": 1.0, "SS": 6.0}, 2)
    6.0
    >>> parallel_seconds({"GRR": 1.0, "OLH": 1.0}, 1)
    2.0
    """
    loads = [0.0] * max(1, workers)
    for seconds in sorted(estimates.values(), reverse=True):
        loads[loads.index(min(loads))] += seconds
    return max(loads)


#: Points one :func:`choose_epsilon` protocol evaluates, typically (measured: 4 to 7).
RUNS_PER_PROTOCOL = 6


def _crossing(epsilons: np.ndarray, rmse: np.ndarray, target: float) -> float:
    """First ε where a decreasing RMSE curve reaches ``target`` (inf if it never does)."""
    meeting = np.flatnonzero(rmse <= target)
    if meeting.size == 0:
        return math.inf
    i = int(meeting[0])
    if i == 0:
        return float(epsilons[0])
    x0, x1 = math.log(epsilons[i - 1]), math.log(epsilons[i])
    y0, y1 = math.log(rmse[i - 1]), math.log(max(rmse[i], 1e-300))
    t = (math.log(target) - y0) / (y1 - y0) if y1 != y0 else 1.0
    return math.exp(x0 + min(max(t, 0.0), 1.0) * (x1 - x0))


def _shift(pair: tuple[float, float], width: float) -> float:
    return pair[0] + width * pair[1]


def _smallest_meeting(
    rmse: Callable[[float], float],
    target: float,
    bounds_: tuple[float, float],
    *,
    integer: bool,
) -> tuple[float | None, float | None]:
    """Smallest value in ``bounds_`` with ``rmse(value) ≤ target`` (rmse falls with value)."""
    low, high = bounds_
    grid = np.geomspace(low, high, 9)
    values = [rmse(float(v)) for v in grid]
    meeting = [i for i, r in enumerate(values) if r <= target]
    if not meeting:
        return None, None
    first = meeting[0]
    if first == 0:
        return float(grid[0]), values[0]
    lo, hi, hi_rmse = float(grid[first - 1]), float(grid[first]), values[first]
    for _ in range(_REFINE_STEPS):
        mid = math.sqrt(lo * hi)
        if integer:
            mid = float(round(mid))
            if mid in {lo, hi}:
                break
        mid_rmse = rmse(mid)
        if mid_rmse <= target:
            hi, hi_rmse = mid, mid_rmse
        else:
            lo = mid
    return (float(math.ceil(hi)) if integer else hi), hi_rmse


assert EPSILON_RANGE[0] >= bounds.EPSILON_MIN
