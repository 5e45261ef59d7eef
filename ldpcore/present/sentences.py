"""Every sentence and number format a person reads, in one place.

Pages, the Choose ε record, notebooks and the command line say the same thing the
same way because they all call these: numbers (:func:`format_number`,
:func:`format_count`, :func:`format_error`, :func:`format_times`,
:func:`format_ratio`) and the sentences of the advice (gains in users, sweep
headlines, ε with its interval, the Choose ε answer). Nothing here computes a
statistic: each function words what it is given.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from ldpcore.bounds import EPSILON_RANGE
from ldpcore.queries.specs import QuerySpec, parse_query_spec

if TYPE_CHECKING:  # types only: the modules that compute these import this one
    import pandas as pd

    from ldpcore.advice.epsilon_answer import ConsistentOption, EpsilonAnswer
    from ldpcore.experiments.trials import ExperimentConfig
    from ldpcore.stats.compare import Comparison


def format_number(value: float) -> str:
    """Three significant digits, or more when needed to tell ``value`` from 1.

    A significant 0.1% gain must not read "1× lower", nor a bound just below 1 read "1".

    Examples
    --------
    >>> format_number(0.3432), format_number(0.99996), format_number(1.0), format_number(0)
    ('0.343', '0.99996', '1', '0')
    """
    digits = 3
    text = f"{value:.{digits}g}"
    while text == "1" and value != 1 and digits < 12:
        digits += 1
        text = f"{value:.{digits}g}"
    return text


def format_count(value: float) -> str:
    """A count to three significant digits, written out: ``10,900,000``, not ``1.09e+07``.

    Examples
    --------
    >>> format_count(10_912_345.6), format_count(987.4)
    ('10,900,000', '987')
    """
    return f"{float(f'{value:.3g}'):,.0f}"


def format_error(value: float) -> str:
    """An error (MSE, bias², variance) to three significant digits, ×10 with superscripts.

    ``3.69×10⁻⁶`` rather than ``3.69e-6``: it reads as a number to people who do not write
    code, and it holds no break opportunity, so a narrow table cell never splits it into
    "3.69e-" and "6" (issue 25). :func:`read_error` reads it back.

    Examples
    --------
    >>> format_error(3.6912e-6), format_error(0.012345), format_error(0.0), format_error(2.5e-12)
    ('3.69×10⁻⁶', '0.0123', '0', '2.5×10⁻¹²')
    >>> format_error(1.5e20), format_error(math.nan)
    ('1.5×10²⁰', '—')
    """
    if not math.isfinite(value):
        return "—"
    mantissa, _, exponent = f"{value:.3g}".partition("e")
    if not exponent:
        return mantissa
    return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"


_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_PLAIN = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def read_error(text: str) -> float:
    """The number :func:`format_error` wrote ("—" reads as NaN).

    Examples
    --------
    >>> read_error("3.69×10⁻⁶"), read_error("0.0123"), read_error("—")
    (3.69e-06, 0.0123, nan)
    """
    if text == "—":
        return math.nan
    mantissa, _, exponent = text.partition("×10")
    return float(mantissa) * 10.0 ** int(exponent.translate(_PLAIN)) if exponent else float(text)


def format_times(value: float) -> str:
    """A ratio as people read it: ``1.23×``, ``12.3×``, ``123×`` (``1.001×``, never ``1×``).

    Examples
    --------
    >>> format_times(12.34), format_times(1.0009), format_times(math.inf)
    ('12.3×', '1.001×', '∞×')
    """
    if not math.isfinite(value):
        return "∞×"
    return f"{format_number(value)}×"


def format_ratio(ratio: float, low: float, high: float) -> str:
    """A ratio with its interval for tables: ``0.343 (0.301–0.392)``; ``—`` when undefined.

    Examples
    --------
    >>> format_ratio(0.3432, 0.3011, 0.3921)
    '0.343 (0.301–0.392)'
    >>> format_ratio(1.02, 0.0, math.inf)
    '1.02 (0–∞)'
    """
    if not all(map(math.isfinite, (ratio, low))) or math.isnan(high):
        return "—"
    upper = "∞" if math.isinf(high) else format_number(high)
    return f"{format_number(ratio)} ({format_number(low)}–{upper})"


def sweep_headline(
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
    >>> from ldpcore.stats.compare import Comparison
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


def query_in_words(query: str | QuerySpec) -> str:
    """``topk:k=10`` → "the top-10 values", for headlines (the kind's own words)."""
    return parse_query_spec(query).in_words()


def epsilon_interval(
    value: float | None, low: float | None, high: float | None, *, exact: bool = False
) -> str:
    """An ε with its interval in words: ``ε ≈ 0.41 (0.34–0.49)``; ``exact``: no interval.

    Examples
    --------
    >>> epsilon_interval(0.412, 0.34, None)
    'ε ≈ 0.412 (0.34–above 10)'
    >>> epsilon_interval(0.4051, 0.4051, 0.4051, exact=True)
    'ε = 0.405 (exact, NDSS Eq. 3)'
    """
    if value is None:
        return f"not reachable for ε ≤ {EPSILON_RANGE[1]:g}"
    if exact:
        return f"ε = {value:.3g} (exact, NDSS Eq. 3)"
    upper = f"above {EPSILON_RANGE[1]:g}" if high is None else f"{high:.3g}"
    lower = f"below {EPSILON_RANGE[0]:g}" if low is None else f"{low:.3g}"
    return f"ε ≈ {value:.3g} ({lower}–{upper})"


def ratio_range(low: float, high: float) -> str:
    """A ratio's interval as a phrase: ``between 0.97× and 1.33×`` (``∞×`` unbounded).

    Examples
    --------
    >>> ratio_range(0.971, math.inf)
    'between 0.971× and ∞×'
    """
    upper = "∞" if not math.isfinite(high) else format_number(high)
    return f"between {format_number(low)}× and {upper}×"


def option_words(option: ConsistentOption) -> str:
    """A consistent method offered at Base's ε, with what its paired interval allows.

    Examples
    --------
    >>> from ldpcore.advice.epsilon_answer import ConsistentOption
    >>> from ldpcore.stats.compare import Comparison
    >>> c = Comparison("Norm-Sub", "Base", 1.12, 0.97, 1.33, False, False, False, 10)
    >>> option_words(ConsistentOption("Norm-Sub", 0.0049, c))
    "Norm-Sub gives a proper distribution; at this ε its MSE is between 0.97× and 1.33× Base's (RMSE 0.0049; paired 95% interval)"
    """  # noqa: E501
    c = option.comparison
    text = (
        f"{option.method} gives a proper distribution; at this ε its MSE is "
        f"{ratio_range(c.low, c.high)} Base's (RMSE {option.rmse_at_epsilon:.2g}; "
        "paired 95% interval)"
    )
    if c.worse:
        text += ", significantly more than Base's"
    return text


def epsilon_sentence(answer: EpsilonAnswer, n_users: int) -> str:
    """The Choose ε answer in one sentence, with its intervals (the page and the record).

    It follows from ``post_processing_helps``: the gain over Base is claimed only when
    the paired comparison and the two ε intervals both say so; otherwise the ε is
    Base's and a consistent method is offered at it with its cost.
    """
    if answer.epsilon is None:
        return (
            f"With {n_users:,} users no protocol meets the target for ε up to "
            f"{EPSILON_RANGE[1]:g}; relax the target or collect from more users."
        )
    if answer.post_processing_helps and answer.comparison is not None:
        reach = epsilon_interval(answer.epsilon, answer.epsilon_low, answer.epsilon_high)
        base = epsilon_interval(
            answer.base_epsilon,
            answer.base_epsilon_low,
            answer.base_epsilon_high,
            exact=answer.base_exact,
        )
        return (
            f"With {n_users:,} users, {answer.protocol} + {answer.method} meets your target "
            f"from {reach}; without post-processing you would need {base} "
            f"({answer.method}: {answer.comparison.describe()})."
        )
    reach = epsilon_interval(
        answer.epsilon, answer.epsilon_low, answer.epsilon_high, exact=answer.base_exact
    )
    text = (
        f"With {n_users:,} users, {answer.protocol} without post-processing (Base) meets "
        f"your target from {reach}; no post-processing method measurably lowers the ε "
        "needed for this query."
    )
    if answer.consistent_option is not None:
        text += f" If you need a proper distribution: {option_words(answer.consistent_option)}."
    return text


#: How the per-value intervals are made, for captions and the CLI (ldpcore.postprocess.intervals).
INTERVAL_NOTE = (
    "Intervals: 95% for each true frequency, from the Base estimate's exact variance "
    "(NDSS Eq. 3; a score interval), widened to hold the method's estimate, so they are "
    "valid whatever the method; measured to cover 93.5–98% for frequent and rare "
    "values alike (benchmarks/README.md, Coverage). They describe the collection's "
    "noise, not errors in the settings above."
)

#: How Bayes's intervals are made (ldpcore.postprocess.intervals.estimates_with_intervals).
CREDIBLE_NOTE = (
    "Intervals: 95% equal-tailed posterior (credible) intervals under the chosen prior: "
    "given the reports and the prior, each true frequency lies inside with probability "
    "95%. Measured with Jeffreys' prior where the reports decide (no warning shown): they "
    "held the true frequency 92–97% of the time for frequent values and 93–100% for rare "
    "ones (benchmarks/README.md, Coverage). A wrong prior makes them miss more."
)

#: Why an estimate outside [0, 1] is not inside its interval.
BASE_OUTSIDE_NOTE = (
    "Some estimates lie outside [0, 1] (this method is unbiased, not consistent): "
    "their intervals stop at 0 or 1, since no frequency lies beyond, and so do not "
    "contain those estimates."
)


def settings_line(config: ExperimentConfig) -> str:
    """What was simulated, in one line: the CLI's header and the Explorer's caption.

    Examples
    --------
    >>> from ldpcore.experiments.trials import ExperimentConfig
    >>> settings_line(ExperimentConfig(dataset="zipf:d=8", n=1000, protocol="olh", epsilon=1))
    'OLH, ε = 1, n = 1,000, zipf:d=8,s=1.5, query full, 30 trials, seed 0'
    """
    return (
        f"{config.protocol}, ε = {config.epsilon:g}, n = {config.n:,}, {config.dataset}, "
        f"query {config.query}, {config.trials} trials, seed {config.seed}"
    )


def not_converged_sentence(method: str, share_stuck: float) -> str:
    """An iterative method that stopped at its cap in some trials (never a silent cap).

    Examples
    --------
    >>> not_converged_sentence("IBU", 0.1)
    'IBU stopped at its iteration cap without converging in 10% of the trials; its numbers are those of its last iterate, not of the method.'
    """  # noqa: E501
    return (
        f"{method} stopped at its iteration cap without converging in {share_stuck:.0%} of "
        "the trials; its numbers are those of its last iterate, not of the method."
    )


def users_needed_sentence(protocol: str, method: str, epsilon: float, users: float | None) -> str:
    """The reverse search's answer: users needed at a fixed ε (markdown, bold count).

    Examples
    --------
    >>> users_needed_sentence("OLH", "Norm-Sub", 1.0, 12_345.2)
    'OLH + Norm-Sub at ε = 1: **12,346 users**.'
    """
    needed = "more than 10⁹" if users is None else f"{math.ceil(users):,}"
    return f"{protocol} + {method} at ε = {epsilon:g}: **{needed} users**."


def odds_sentence(epsilon: float) -> str:
    """What ε-LDP means for one person, in odds and in certainty (markdown).

    Posterior odds are at most ``e^ε`` times the prior odds, so a belief ``b`` becomes at
    most ``e^ε b / (1 − b + e^ε b)`` (issue 25: "is 0.4 a lot?" answered in certainty).

    Examples
    --------
    >>> odds_sentence(1.0).split(". ")[1]
    'An observer who thought it 50% likely that the person holds a given value can be at most **73% sure** after one report; one who thought it 10% likely, at most 23%.'
    """  # noqa: E501
    factor = math.exp(epsilon)

    def at_most(belief: float) -> float:
        return factor * belief / (1.0 - belief + factor * belief)

    return (
        "Whatever anyone knew before, one person's report can change their odds about "
        f"that person's value by at most a factor **e^ε = {factor:,.2f}** "
        "(the definition of ε-LDP). An observer who thought it 50% likely that the person "
        f"holds a given value can be at most **{at_most(0.5):.0%} sure** after one report; "
        f"one who thought it 10% likely, at most {at_most(0.1):.0%}."
    )


#: How the paired comparisons with Base are made, for captions under every method table.
PAIRED_NOTE = (
    "Every method is compared with Base on the same trials (paired). Intervals are 95% "
    "intervals for the MSE ratio (a studentized bootstrap over the trials), simultaneous "
    "over the methods, and their coverage is measured (benchmarks/README.md, Coverage). "
    "A method is called better only when its whole interval lies below 1 and beyond a 5% "
    "margin (a real but smaller difference reads 'about the same'); a method that "
    "returns Base's answers unchanged is never credited."
)
