"""Number formats: how every number a person reads is written, in one place.

A leaf any layer may use (the paired comparisons' tables, the advice's tables, the
figures, the pages, the command line): numbers to three significant digits that never
read "1×" for a real difference, counts written out, errors with ×10 and superscripts,
ratios with their intervals, and an ε with its interval. Sentences, which describe a
result and so sit above it, are in :mod:`ldpcore.present.sentences`.
"""

from __future__ import annotations

import html
import math
from statistics import NormalDist

from ldpcore.bounds import EPSILON_RANGE

_SUPERSCRIPT = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")
_PLAIN = str.maketrans("⁻⁰¹²³⁴⁵⁶⁷⁸⁹", "-0123456789")


def format_number(value: float) -> str:
    """Three significant digits, or more when needed to tell ``value`` from 1.

    A significant 0.1% gain must not read "1× lower", nor a bound just below 1 read "1".

    Very small and very large values are written as :func:`format_error` writes them
    (``-9.09×10⁻⁵``), never in e-notation: one number, one way, on every page.

    Examples
    --------
    >>> format_number(0.3432), format_number(0.99996), format_number(1.0), format_number(0)
    ('0.343', '0.99996', '1', '0')
    >>> format_number(-9.0912e-5), format_number(2.5e7)
    ('-9.09×10⁻⁵', '2.5×10⁷')
    """
    digits = 3
    text = f"{value:.{digits}g}"
    while text == "1" and value != 1 and digits < 12:
        digits += 1
        text = f"{value:.{digits}g}"
    mantissa, _, exponent = text.partition("e")
    if exponent:
        return f"{mantissa}×10{str(int(exponent)).translate(_SUPERSCRIPT)}"
    return text


def format_count(value: float) -> str:
    """A count to three significant digits, written out: ``10,900,000``, not ``1.09e+07``.

    Examples
    --------
    >>> format_count(10_912_345.6), format_count(987.4)
    ('10,900,000', '987')
    """
    return f"{float(f'{value:.3g}'):,.0f}"


def format_as_written(value: float) -> str:
    """A number read from a file, as a person wrote it: never in e-notation.

    A whole one in full with its thousands (``22,299,600``), any other through
    :func:`format_number`.

    Examples
    --------
    >>> format_as_written(22_299_600.0), format_as_written(0.99996), format_as_written(1.0)
    ('22,299,600', '0.99996', '1')
    """
    return f"{value:,.0f}" if float(value).is_integer() else format_number(value)


def format_delta(delta: float) -> str:
    """A δ as people read it: ``10⁻⁶`` for a power of ten, else ``2.5 × 10⁻⁷``.

    Examples
    --------
    >>> format_delta(1e-6), format_delta(2.5e-7), format_delta(0.01)
    ('10⁻⁶', '2.5 × 10⁻⁷', '10⁻²')
    """
    exponent = math.floor(math.log10(delta))
    mantissa = delta / 10.0**exponent
    if mantissa >= 10.0 - 1e-9:  # 10^k computed a hair below a power of ten
        exponent, mantissa = exponent + 1, mantissa / 10.0
    power = "10" + str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    if abs(mantissa - 1.0) < 1e-9:
        return power
    return f"{mantissa:.2g} × {power}"


def format_budget(value: float) -> str:
    """A privacy budget: three significant digits, large ones written out (``1,460``).

    Examples
    --------
    >>> format_budget(0.1698), format_budget(1460.0), format_budget(78655.0)
    ('0.17', '1,460', '78,700')
    """
    return format_count(value) if value >= 1000 else format_number(value)


def format_error(value: float) -> str:
    """An error (MSE, bias², variance) to three significant digits, ×10 with superscripts.

    ``3.69×10⁻⁶`` rather than ``3.69e-6``: it reads as a number to people who do not write
    code, and it holds no break opportunity, so a narrow table cell never splits it into
    "3.69e-" and "6". :func:`read_error` reads it back.

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


def format_share(share: float) -> str:
    """A share as a percentage to three significant digits: ``5.45%``, ``0.0123%``.

    The one way a share is written on the pages and in the decision record.

    Examples
    --------
    >>> format_share(0.05449), format_share(0.000123), format_share(1.0)
    ('5.45%', '0.0123%', '100%')
    """
    return f"{format_number(100 * share)}%"


def format_margin(sd: float, level: float = 0.95) -> str:
    """A frequency's standard deviation as a ± margin in percentage points.

    The margin the estimate stays within ``level`` of the time: ``±z·sd`` (normal
    approximation, as the accuracy targets are stated), to three significant digits.

    The unit of an accuracy target ("within ±0.5 pp, 95% of the time"), so an error said
    beside a target reads in the target's terms, not as a share's standard deviation.

    Examples
    --------
    >>> format_margin(0.00254), format_margin(0.00254, level=0.68), format_margin(1e-7)
    ('±0.498 pp', '±0.253 pp', '±1.96×10⁻⁵ pp')
    >>> format_margin(0.485), format_margin(0.95)
    ('±95.1 pp', 'over ±100 pp')

    A share is never off by more than 100 points from a value it could be, so a wider
    margin is said as "over ±100 pp": the estimate says nothing, and no bound is printed
    that a share cannot reach.
    """
    if not math.isfinite(sd):
        return "—"
    z = NormalDist().inv_cdf(0.5 + level / 2)
    if 100 * z * sd > 100:
        return "over ±100 pp"
    return f"±{format_error(100 * z * sd)} pp"


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


def format_duration(seconds: float) -> str:
    """A duration a person reads at a glance: seconds, minutes or hours.

    Examples
    --------
    >>> format_duration(0.42), format_duration(66), format_duration(600), format_duration(9000)
    ('0.4 s', '66 s', '10 min', '2.5 h')
    """
    if seconds < 10:
        return f"{seconds:.1f} s"
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def format_durations_apart(seconds: float, other: float) -> tuple[str, str]:
    """Two durations written so that unequal ones never read the same.

    "About 5.0 s, above the budget of 5.0 s" contradicts itself; more digits, only
    where the two would otherwise print alike, keep the comparison visible.

    Examples
    --------
    >>> format_durations_apart(5.04, 5.0), format_durations_apart(7.0, 5.0)
    (('5.04 s', '5.00 s'), ('7.0 s', '5.0 s'))
    """
    first, second = format_duration(seconds), format_duration(other)
    if first != second or seconds == other:
        return first, second
    for digits in (2, 3, 4):
        first, second = f"{seconds:.{digits}f} s", f"{other:.{digits}f} s"
        if first != second:
            break
    return first, second


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

    An interval with no upper end (too few trials to bound it) is said in words, never
    as "∞".

    Examples
    --------
    >>> format_ratio(0.3432, 0.3011, 0.3921)
    '0.343 (0.301–0.392)'
    >>> format_ratio(1.02, 0.0, math.inf), format_ratio(1.02, 0.5, math.inf)
    ('1.02 (not yet bounded)', '1.02 (0.5 or more)')
    """
    if not all(map(math.isfinite, (ratio, low))) or math.isnan(high):
        return "—"
    if math.isinf(high):
        bound = "not yet bounded" if low <= 0 else f"{format_number(low)} or more"
        return f"{format_number(ratio)} ({bound})"
    return f"{format_number(ratio)} ({format_number(low)}–{format_number(high)})"


def ratio_range(low: float, high: float, reference: str) -> str:
    """A ratio's interval as a phrase about ``reference``: ``between 0.97× and 1.33× Base's``.

    An interval with no upper end is said in words, never as "∞×".

    Examples
    --------
    >>> ratio_range(0.97, 1.33, "Base's")
    "between 0.97× and 1.33× Base's"
    >>> ratio_range(0.971, math.inf, "Base's")
    "at least 0.971× Base's, with no upper bound yet"
    >>> ratio_range(0.0, math.inf, "Base's")
    "not yet bounded against Base's (too few trials)"
    """
    if math.isfinite(high):
        return f"between {format_number(low)}× and {format_number(high)}× {reference}".rstrip()
    if low <= 0:
        return f"not yet bounded against {reference} (too few trials)"
    return f"at least {format_number(low)}× {reference}, with no upper bound yet"


def round_up(value: float, digits: int = 3) -> float:
    """``value`` rounded *up* to ``digits`` significant digits.

    The smallest ε that meets a target, shown rounded to nearest, can be just below it
    (0.39043 shown as 0.39): a specification copied from the page would miss the
    target. Rounded up, the ε a person copies meets it.

    Examples
    --------
    >>> round_up(0.39043), round_up(0.93536), round_up(0.391), round_up(2.0)
    (0.391, 0.936, 0.391, 2.0)
    """
    if value <= 0 or not math.isfinite(value):
        return value
    scale = 10.0 ** (digits - 1 - math.floor(math.log10(value)))
    # The tolerance keeps a value already at the precision (0.391) where it is.
    return math.ceil(value * scale - 1e-9) / scale


def round_down(value: float, digits: int = 3) -> float:
    """``value`` rounded *down* to ``digits`` significant digits (an interval's low end).

    Examples
    --------
    >>> round_down(0.34999), round_down(0.35)
    (0.349, 0.35)
    """
    if value <= 0 or not math.isfinite(value):
        return value
    scale = 10.0 ** (digits - 1 - math.floor(math.log10(value)))
    return math.floor(value * scale + 1e-9) / scale


def format_epsilon(value: float) -> str:
    """The smallest ε that meets a target, as every place prints it: rounded up.

    Examples
    --------
    >>> format_epsilon(0.39043), format_epsilon(0.93536), format_epsilon(4.0)
    ('0.391', '0.936', '4')
    """
    return f"{round_up(value):.3g}"


def epsilon_interval(
    value: float | None,
    low: float | None,
    high: float | None,
    *,
    exact: bool = False,
    source: str | None = None,
) -> str:
    """An ε with its interval in words: ``ε ≈ 0.41 (0.34–0.49)``; ``exact``: no interval.

    ``source`` names where an exact ε's variance comes from (the protocol's
    :attr:`~ldpcore.protocols.base.FrequencyOracle.variance_source`); an exact ε
    needs it, so that no surface says NDSS Eq. 3 for a protocol whose variance is not.

    The ε is rounded up (:func:`format_epsilon`), the interval outwards, so the ε a
    person copies meets the target and the interval still holds it.

    Examples
    --------
    >>> epsilon_interval(0.412, 0.34, None)
    'ε ≈ 0.412 (0.34–above 10)'
    >>> epsilon_interval(0.39043, 0.38011, 0.40111)
    'ε ≈ 0.391 (0.38–0.402)'
    >>> epsilon_interval(0.4051, 0.4051, 0.4051, exact=True, source="NDSS Eq. 3")
    'ε = 0.406 (exact, NDSS Eq. 3)'
    """
    if value is None:
        return f"not reachable for ε ≤ {EPSILON_RANGE[1]:g}"
    if exact:
        if source is None:
            raise ValueError("an exact ε says where its variance comes from: pass source")
        return f"ε = {format_epsilon(value)} (exact, {source})"
    upper = f"above {EPSILON_RANGE[1]:g}" if high is None else f"{round_up(high):.3g}"
    lower = f"below {EPSILON_RANGE[0]:g}" if low is None else f"{round_down(low):.3g}"
    return f"ε ≈ {format_epsilon(value)} ({lower}–{upper})"


def plain_html(text: str) -> str:
    """Text a person typed, for a place that reads HTML or Markdown: shown as typed.

    Every character that starts markup (``<``, ``&``, ``*``, ``_``, ``$``, ``:``, ``[``,
    backquotes and the like) becomes an HTML entity, which both HTML and Streamlit's
    Markdown show as the character itself (a teacher's ``**bold**``, ``$x^2$`` or
    ``:red[...]`` stays those characters).

    Examples
    --------
    >>> plain_html("<b>$5</b> **now**")
    '&lt;b&gt;&#36;5&lt;/b&gt; &#42;&#42;now&#42;&#42;'
    """
    # One pass over the text as typed: escaping twice would break the first entities.
    return "".join(_MARKUP.get(ch, ch) for ch in str(text))


#: HTML's own characters, then Markdown's and Streamlit's markup characters.
_MARKUP = {
    **{ch: html.escape(ch, quote=True) for ch in "&<>\"'"},
    **{ch: f"&#{ord(ch)};" for ch in "*_$:[]()`~#|\\!{}+-=^"},
}


def format_percent_change(share: float) -> str:
    """A relative change as people read it: "−48%", "+3%", "−0.2%", "−0.004%".

    A change below 1% keeps two significant digits, so a small change never reads
    "−0.0%"; no change at all reads "0%".

    Examples
    --------
    >>> format_percent_change(-0.4812), format_percent_change(0.0021)
    ('−48%', '+0.2%')
    >>> format_percent_change(-0.0000412), format_percent_change(0.0)
    ('−0.0041%', '0%')
    """
    if share == 0:
        return "0%"
    sign = "−" if share < 0 else "+"
    size = abs(share) * 100
    if size >= 1:
        return f"{sign}{size:.0f}%"
    return f"{sign}{float(f'{size:.2g}'):g}%" if size < 0.1 else f"{sign}{size:.1f}%"
