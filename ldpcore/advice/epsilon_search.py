"""Choose ε: per protocol, the smallest ε meeting a target, with and without post-processing.

An adaptive, paired search (:func:`choose_epsilon`) that spends trials only near the
crossings of the error curves (NDSS Sec. V: they fall monotonically in ε).
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np

from ldpcore._validation import check_int
from ldpcore.advice.bisection import log_crossing, smallest_meeting, t_quantile
from ldpcore.advice.epsilon_answer import ConsistentOption, EpsilonAnswer
from ldpcore.advice.ranking import asked_factors, consistent_methods, no_op_methods
from ldpcore.advice.targets import AccuracyTarget, accuracy_target
from ldpcore.advice.twins import same_reports
from ldpcore.advice.verdicts import Verdict, verdict
from ldpcore.bounds import EPSILON_RANGE
from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.scope import searched_configs
from ldpcore.experiments.trials import run
from ldpcore.protocols import get_protocol, resolve_protocol_name
from ldpcore.queries.specs import parse_query_spec
from ldpcore.stats.compare import Comparison

#: Trials of the first, coarse pass when Base has no exact curve for the query.
_SCREEN_TRIALS = 3
#: Points of that coarse pass over the ε range.
_SCREEN_POINTS = 6
#: Largest spacing (ratio of neighbouring ε) left around a crossing that matters.
_FINE_SPACING = 1.2


#: Bisection steps on Base's exact curve: 20 halvings of a grid step (×1.94) in log
#: space, far finer than the simulated crossings' spacing.
_EXACT_STEPS = 20
#: At most this many rounds of adding points.
_MAX_ROUNDS = 6


def choose_epsilon(
    config: ExperimentConfig,
    *,
    target_rmse: float | None = None,
    protocols: Sequence[str],
    target: AccuracyTarget | None = None,
    epsilon_range: tuple[float, float] = EPSILON_RANGE,
    progress: Callable[[float, str], None] | None = None,
    executor: Executor | None = None,
    point_threads: int = 1,
    methods: Sequence[str] | None = None,
) -> list[EpsilonAnswer]:
    """Per protocol, the smallest ε meeting the target: recommended method and Base.

    The search spends trials only near the crossings (NDSS Sec. V's error curves are
    monotone in ε):

    1. Where the target will be crossed. For single-value queries (full, top-k)
       Base's exact MSE (Eq. 3) gives Base's crossing for free; otherwise a coarse pass
       with a few trials over the whole range finds it.
    2. Every method of ``config`` (Base always among them) is simulated with
       ``config.trials`` trials on the same trials (common random numbers, the same
       seed at every ε) at Base's crossing (and just below it, where that crossing is
       simulated) and around where each method's measured MSE ratio to Base predicts
       its own.
    3. Points are added until Base's and the best method's crossings (and their
       bands, mean ± t·SE) are bracketed by points at most :data:`_FINE_SPACING` apart:
       toward a crossing beyond the grid's end in growing steps (:func:`_gallop`), then
       halving the bracket.

    The target is ``target_rmse`` (an RMSE) or ``target`` (any
    :class:`~ldpcore.advice.targets.AccuracyTarget`, e.g. each value within ±x, 95% of
    the time); the crossings are those of its measure, the comparison of methods stays
    their MSE.

    The recommendation and ``post_processing_helps`` follow :func:`ldpcore.advice.verdicts.verdict`
    at the evaluated ε nearest Base's answer, and the ε intervals must separate too.
    With an ``executor`` the protocols are searched in parallel there; with
    ``point_threads`` > 1 each search simulates its new ε points on that many threads at
    once. Neither changes a number: every point is its own run with its own seeds.

    ``methods`` (default: ``config``'s) are searched on every protocol they run on
    (:func:`ldpcore.experiments.scope.scope_for`, the rule every surface asks); a named
    protocol that does not apply to the data is refused in words before any search.
    """
    wanted = accuracy_target(target_rmse, target)
    if isinstance(protocols, str) or not isinstance(protocols, Sequence):
        raise InputError(
            f"protocols must be a list of protocol names, e.g. ['GRR', 'OLH']; got {protocols!r}"
        )
    names = tuple(protocols)
    if not names:
        raise InputError("name at least one protocol to search")
    check_int(point_threads, name="point_threads", minimum=1, maximum=64)
    configs = searched_configs(config, names, methods)

    def at(protocol: str) -> ExperimentConfig:
        return configs[resolve_protocol_name(protocol)]

    twins = same_reports(at(names[0]), names)
    searched = [name for name in names if name not in twins]
    found: dict[str, EpsilonAnswer] = {}
    if executor is not None:
        futures = [
            executor.submit(_search_protocol, at(p), wanted, epsilon_range, point_threads)
            for p in searched
        ]
        for position, (name, future) in enumerate(zip(searched, futures, strict=True)):
            found[name] = future.result()
            if progress is not None:
                progress((position + 1) / len(searched), found[name].protocol)
    else:
        for position, name in enumerate(searched):
            found[name] = _search_protocol(at(name), wanted, epsilon_range, point_threads)
            if progress is not None:
                progress((position + 1) / len(searched), found[name].protocol)
    return [
        dataclasses.replace(
            found[twins[name]],
            protocol=at(name).protocol,
            same_as=found[twins[name]].protocol,
        )
        if name in twins
        else found[name]
        for name in names
    ]


@dataclass
class _Point:
    """All methods at one ε: mean MSE, its standard error, the per-trial errors.

    ``stat`` and ``stat_se`` are the target's statistic (the MSE again for an RMSE
    target; the margin for a "within" one) and its standard error.
    """

    mse: np.ndarray
    se: np.ndarray
    errors: np.ndarray
    stat: np.ndarray
    stat_se: np.ndarray
    factors: dict[str, float] | None = None


def _search_protocol(
    config: ExperimentConfig,
    target: AccuracyTarget,
    epsilon_range: tuple[float, float],
    threads: int = 1,
) -> EpsilonAnswer:
    search = _Search(config, target, epsilon_range, threads)
    # Base's exact crossing needs no simulated bracket: one point there gives the methods'
    # ratios to Base, and the refinement adds the points a method's crossing needs.
    first = [search.anchor()] if search.exact else [search.anchor() / _FINE_SPACING]
    search.evaluate([*first, search.anchor()])
    search.follow_prediction()
    search.refine()
    return search.answer()


class _Search:
    """The adaptive ε search of one protocol (see :func:`choose_epsilon`)."""

    def __init__(
        self,
        config: ExperimentConfig,
        target: AccuracyTarget,
        epsilon_range: tuple[float, float],
        threads: int = 1,
    ) -> None:
        self.names = list(config.methods)
        self.threads = threads
        self.wanted = target
        self.target = target.size
        self.low_end, self.high_end = epsilon_range
        self.quantile = t_quantile(config.trials)
        self.points: dict[float, _Point] = {}
        # Built once: the data and the query. Every evaluated ε is a replace() of this
        # config, which keeps its dataset spec, and with it the counts a file's spec
        # read once (a bundled file may have 10,000 rows).
        self.data, self.protocol, self.query = config.build()
        self.config = config
        self._anchor: float | None = None
        # Base's exact ε (NDSS Eq. 3) where the query asks single values; None elsewhere.
        self.exact = config.query.single_values
        self._exact_base: float | None = None
        #: The methods that stopped at their step cap in any trial of any point.
        self.stuck: set[str] = set()

    def key(self, epsilon: float) -> float:
        """ε clipped to the range and rounded, so that equal points are found again."""
        return float(f"{min(max(epsilon, self.low_end), self.high_end):.4g}")

    def evaluate(self, epsilons: Sequence[float]) -> None:
        """Simulate every method at each new ε (common random numbers: the same seed).

        Several new points run on up to ``threads`` threads at once: each is its own run
        with its own objects and seeds, so the numbers are those of one thread. numpy's
        samplers release the GIL for much of a trial (Subset Selection's two first points
        on words: 1.4× faster on 2 threads), and the other protocols' searches, shorter,
        have often left a core idle by then.
        """
        new = sorted({self.key(e) for e in epsilons} - set(self.points))

        def errors_at(
            key: float,
        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, set[str], dict[str, float] | None]:
            result = run(dataclasses.replace(self.config, epsilon=key))
            summary = result.summary
            stuck = set(summary.loc[summary["converged"] < 1, "method"])
            errors = result.trial_errors
            factors = asked_factors(result)
            if self.wanted.is_rmse:
                mse = errors.mean(axis=1)
                se = errors.std(axis=1, ddof=1) / math.sqrt(errors.shape[1])
                return errors, mse, se, stuck, factors
            stat, stat_se = self.wanted.statistic(result.answers, result.truth)
            return errors, stat, stat_se, stuck, factors

        if self.threads > 1 and len(new) > 1:
            with ThreadPoolExecutor(min(self.threads, len(new))) as pool:
                found = list(pool.map(errors_at, new))
        else:
            found = [errors_at(key) for key in new]
        for key, (errors, stat, stat_se, stuck, factors) in zip(new, found, strict=True):
            self.stuck |= stuck
            self.points[key] = _Point(
                errors.mean(axis=1),
                errors.std(axis=1, ddof=1) / math.sqrt(errors.shape[1]),
                errors,
                stat,
                stat_se,
                factors,
            )

    def anchor(self) -> float:
        """Where Base crosses: exact (Eq. 3) for single-value queries, else a coarse pass."""
        if self._anchor is not None:
            return self._anchor
        data, query = self.data, self.query
        if self.exact:
            index = np.concatenate(query.members)
            frequencies = data.frequencies()

            def exact(epsilon: float) -> float:
                oracle = get_protocol(
                    self.config.protocol,
                    epsilon=epsilon,
                    domain_size=data.domain_size,
                    **dict(self.config.params),
                )
                variances = oracle.variance(frequencies, data.n)[index]
                return self.wanted.scale(self.wanted.exact_base(variances))

            found, _ = smallest_meeting(
                exact,
                self.target,
                (self.low_end, self.high_end),
                integer=False,
                steps=_EXACT_STEPS,
            )
            self._exact_base = found
        else:
            trials = min(self.config.trials, _SCREEN_TRIALS)
            screen = dataclasses.replace(self.config, methods=("Base",), trials=trials)
            coarse = np.geomspace(self.low_end, self.high_end, _SCREEN_POINTS)
            rmse = [self._screen(dataclasses.replace(screen, epsilon=float(e))) for e in coarse]
            crossed = log_crossing(coarse, np.array(rmse), self.target)
            found = None if math.isinf(crossed) else crossed
        self._anchor = self.high_end if found is None else found
        return self._anchor

    def _screen(self, config: ExperimentConfig) -> float:
        """Base's measure at one point of the coarse pass, in the target's units."""
        result = run(config)
        if self.wanted.is_rmse:
            return math.sqrt(float(result.trial_errors[0].mean()))
        return self.wanted.scale(float(self.wanted.statistic(result.answers, result.truth)[0][0]))

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

    def measure(self, epsilon: float, method: int, band: float) -> float:
        """The target's measure of ``method`` at an evaluated ε, on ``mean + band·t·SE``."""
        point = self.points[epsilon]
        return self.wanted.scale(
            float(point.stat[method] + band * self.quantile * point.stat_se[method])
        )

    def crossing(self, method: int, band: float) -> tuple[float | None, int]:
        """ε where ``mean + band·t·SE`` reaches the target; state −1 below the grid, +1 above."""
        grid = sorted(self.points)
        rmse = np.array([self.measure(e, method, band) for e in grid])
        value = log_crossing(np.array(grid), rmse, self.target)
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

    def refine(self, also: Sequence[int] = ()) -> None:
        """Add points until the crossings of Base, the best method and ``also`` are bracketed.

        Every crossing that may be reported is refined to the same spacing. Base's is
        not where it is exact, nor is a method's that needs more ε than Base's lower end.
        """
        for _ in range(_MAX_ROUNDS):
            wanted: list[float] = []
            grid = sorted(self.points)
            base_low = self.interval(0)[1]
            # Base's exact crossing (Eq. 3) needs no simulated bracket: its simulated
            # curve serves only the comparison at its ε, which answer() evaluates.
            methods = {0, self.best_method(), *also} - ({0} if self.exact else set())
            for method in methods:
                mean_beyond = self.crossing(method, 0.0)[1] != 0
                for band in (-1.0, 0.0, 1.0):
                    value, state = self.crossing(method, band)
                    if band and state and mean_beyond:
                        # The mean's crossing is not bracketed yet: its gallop moves the
                        # grid's end first (a band's fine step would halve the gallop).
                        continue
                    if (
                        method
                        and state > 0
                        and base_low is not None
                        and grid[-1] >= self.key(base_low)
                    ):
                        # Not crossed by a point at or above Base's lower ε (at the search's
                        # resolution, ``key``): the method needs more ε than Base may use,
                        # so it cannot be the answer (``_helping``); points above would
                        # only draw its curve further.
                        continue
                    wanted.extend(self._wanted(grid, value, state, band=band))
            new = [e for e in wanted if self.key(e) not in self.points]
            if not new:
                return
            self.evaluate(new)

    def _wanted(
        self, grid: list[float], value: float | None, state: int, *, band: float
    ) -> list[float]:
        if state != 0:
            if state > 0 and grid[-1] >= self.high_end:
                return []
            # The mean's crossing beyond the grid gallops there; a band's end, a fine step.
            ends = grid[:2] if state < 0 else grid[-2:]
            step = _gallop(ends) if band == 0.0 else _FINE_SPACING**2
            return [grid[0] / step] if state < 0 else [grid[-1] * step]
        if value is None or band != 0.0:
            return []
        above = [e for e in grid if e >= value]
        below = [e for e in grid if e < value]
        if above and below and above[0] / below[-1] > _FINE_SPACING * 1.01:
            return [math.sqrt(above[0] * below[-1])]
        return []

    def interval(self, method: int) -> tuple[float | None, float | None, float | None]:
        """The method's smallest ε and its interval (band −1 crosses first, band +1 last).

        Base's is exact where Eq. 3 applies: no band, no simulation noise.
        """
        if method == 0 and self.exact:
            self.anchor()
            return self._exact_base, self._exact_base, self._exact_base
        value, low, high = (self.crossing(method, band)[0] for band in (0.0, -1.0, 1.0))
        return value, low, high

    def answer(self) -> EpsilonAnswer:
        """The ε to use, never above Base's, and the method (see :class:`EpsilonAnswer`)."""
        names = self.names
        base = self.interval(0)
        if base[0] is not None:
            self.evaluate([base[0]])  # the comparison is made at Base's ε itself
        grid = sorted(self.points)
        centre = base[0]
        where = grid[-1] if centre is None else min(grid, key=lambda e: abs(math.log(e / centre)))
        found = verdict(
            self.points[where].errors,
            names,
            no_ops=no_op_methods(names, self.protocol),
            consistent=consistent_methods(names),
            query=parse_query_spec(self.config.query).in_words(),
            factors=self.points[where].factors,
        )
        # A method whose answers to the values asked are off by more than the rule's
        # tolerance is never the answer, whatever its ε (the verdict names it).
        fit = [c for c in found.against_base if c.method not in found.too_biased]
        chosen = self._helping(fit, base)
        if chosen is not None and chosen[1] not in {0, self.best_method()}:
            # Its crossing was not refined with Base's and the best method's: refine it.
            self.refine(also=(chosen[1],))
            chosen = self._helping(fit, base)
        if chosen is not None:
            comparison, _, interval = chosen
            return self._answer(
                comparison.method,
                interval,
                base,
                helps=True,
                comparison=comparison,
                found=found,
                compared_at=where,
            )
        return self._answer(
            "Base",
            base,
            base,
            helps=False,
            comparison=None,
            found=found,
            compared_at=where,
            option=self._option(found, where, beyond=base[0] is None),
        )

    def _helping(
        self,
        against_base: Sequence[Comparison],
        base: tuple[float | None, float | None, float | None],
    ) -> tuple[Comparison, int, tuple[float | None, float | None, float | None]] | None:
        """The method significantly better than Base whose ε interval lies below Base's.

        Of several, the one with the smallest ε; None when none qualifies.
        """
        candidates = []
        for comparison in against_base:
            row = self.names.index(comparison.method)
            value, low, high = self.interval(row)
            apart = value is not None and high is not None and (base[1] is None or high < base[1])
            if comparison.better and apart:
                candidates.append((value or math.inf, row, comparison, (value, low, high)))
        if not candidates:
            return None
        _, row, comparison, interval = min(candidates, key=lambda c: (c[0], c[1]))
        return comparison, row, interval

    def _option(
        self, found: Verdict, where: float, *, beyond: bool = False
    ) -> ConsistentOption | None:
        """The first consistent method (not a no-op), with its RMSE and ratio at ``where``.

        The one the verdict at that ε recommends, or else finds best, comes first when it
        gives a proper distribution, so the row's option and its "why" name one method;
        otherwise Norm-Sub, the paper's general recommendation.
        """
        by_name = {c.method: c for c in found.against_base}
        proper = consistent_methods(self.names)
        named = [m for m in (found.recommended, found.best) if m in proper]
        for name in dict.fromkeys([*named, *proper]):
            comparison = by_name.get(name)
            if comparison is not None and not comparison.no_op:
                row = self.names.index(name)
                point = self.points[where]
                rmse = math.sqrt(float(point.mse[row]))
                error = self.wanted.scale(float(point.stat[row]))
                # Its band's upper end, as the main answer's method is judged.
                upper = float(point.stat[row] + self.quantile * point.stat_se[row])
                error_high = self.wanted.scale(upper)
                reach: tuple[float | None, float | None, float | None] = (None, None, None)
                if error_high > self.target:
                    value = self._reach(row)
                    reach = (value, self.crossing(row, -1.0)[0], self.crossing(row, 1.0)[0])
                return ConsistentOption(
                    name,
                    rmse,
                    comparison,
                    self.target,
                    reach[0],
                    error_at_epsilon=error,
                    kind=self.wanted.kind,
                    level=self.wanted.level,
                    error_high=error_high,
                    epsilon_low=reach[1],
                    epsilon_high=reach[2],
                    measured_at=where if beyond else None,
                    searched_to=max(self.points),
                )
        return None

    def _reach(self, row: int) -> float | None:
        """The ε from which method ``row``'s mean measure meets the target, refined.

        Points are added above the grid until it is crossed, then between the points
        around the crossing until they are :data:`_FINE_SPACING` apart (the promise
        that an option that misses the target says where it meets it). None when
        it is not met up to the range's end.
        """
        for _ in range(4 * _MAX_ROUNDS):
            grid = sorted(self.points)
            value, state = self.crossing(row, 0.0)
            if state > 0 and grid[-1] >= self.high_end:
                return None
            new = [
                e
                for e in self._wanted(grid, value, state, band=0.0)
                if self.key(e) not in self.points
            ]
            if not new:
                return value
            self.evaluate(new)
        return self.crossing(row, 0.0)[0]

    def _answer(
        self,
        method: str,
        interval: tuple[float | None, float | None, float | None],
        base: tuple[float | None, float | None, float | None],
        *,
        helps: bool,
        comparison: Comparison | None,
        found: Verdict,
        compared_at: float,
        option: ConsistentOption | None = None,
    ) -> EpsilonAnswer:
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
            comparison=comparison,
            verdict=found,
            compared_at=compared_at,
            curve=self.curve(),
            consistent_option=option,
            base_exact=self.exact,
            target=self.wanted,
            not_converged=tuple(name for name in self.names if name in self.stuck),
        )

    def curve(self) -> tuple[dict[str, float | str], ...]:
        """Every evaluated point of every method, with its band.

        ``rmse*`` is the RMSE; ``error*`` the target's measure (the same for an RMSE
        target; the margin for a "within" one), in frequency units.
        """
        rows: list[dict[str, float | str]] = []
        scale = self.wanted.scale
        for e in sorted(self.points):
            point = self.points[e]
            for i, name in enumerate(self.names):
                spread = self.quantile * float(point.se[i])
                mse = float(point.mse[i])
                stat, stat_spread = float(point.stat[i]), self.quantile * float(point.stat_se[i])
                rows.append(
                    {
                        "epsilon": e,
                        "method": name,
                        "rmse": math.sqrt(mse),
                        "rmse_low": math.sqrt(max(mse - spread, 0.0)),
                        "rmse_high": math.sqrt(mse + spread),
                        "error": scale(stat),
                        "error_low": scale(stat - stat_spread) if stat > stat_spread else 0.0,
                        "error_high": scale(stat + stat_spread),
                    }
                )
        return tuple(rows)


def _gallop(ends: list[float]) -> float:
    """The step beyond a grid's end toward a crossing it does not bracket yet.

    The square of the gap just crossed there, at least :data:`_FINE_SPACING` squared
    (1.2 → 1.44 → 2.07 → 4.3 → 18.5): a crossing far from the first points (a method that
    needs a tenth of Base's ε) is reached in a few rounds, not after the rounds run out.
    The bracket found is then halved to :data:`_FINE_SPACING`.
    """
    gap = ends[-1] / ends[0] if len(ends) == 2 else 1.0
    return max(_FINE_SPACING**2, gap**2)
