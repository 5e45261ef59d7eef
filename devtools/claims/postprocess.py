"""The post-processing methods' cost per call, and IBU against plain EM.

Made from ``benchmarks/results/postprocess.json`` (``bench_postprocess.py``: every
registered method's best-of time per call on OLH at ε = 1, n = 10⁶, Zipf s = 1.5, d from
10³ to 10⁶; and IBU's accelerated EM against plain EM on the same likelihood).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from devtools.claims.words import count_words, results, span

Row = dict[str, Any]


def _d(size: str) -> str:
    return count_words(int(size))


def _setting() -> str:
    record = results("postprocess")
    s = record["setting"]
    return (
        f"{s['protocol']}, ε = {s['epsilon']:g}, n = {count_words(s['n'])}, Zipf s = "
        f"{s['data'].split('=')[1]}; best of {record['repeat']}; `{record['command']}`, "
        f"{record['date']}"
    )


def time_table() -> str:
    """Milliseconds per call, per method and domain size."""
    timings = results("postprocess")["seconds_per_call"]
    sizes = list(next(iter(timings.values())))
    lines = [
        "| method | " + " | ".join(f"d = {_d(size)}" for size in sizes) + " |",
        "|---|" + "---:|" * len(sizes),
    ]
    for name, row in timings.items():
        cells = ["refused" if row[size] is None else f"{1e3 * row[size]:.2f}" for size in sizes]
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return f"\n\nMilliseconds per call ({_setting()}):\n\n" + "\n".join(lines) + "\n\n"


def growth() -> str:
    """How each method's time grows from the second-largest d to the largest."""
    timings = results("postprocess")["seconds_per_call"]
    sizes = list(next(iter(timings.values())))
    small, large = sizes[-2], sizes[-1]
    factors = {
        name: row[large] / row[small]
        for name, row in timings.items()
        if row[small] is not None and row[large] is not None
    }
    ordered = sorted(factors, key=lambda name: factors[name])
    return (
        f"from d = {_d(small)} to {_d(large)} the time per call grows "
        f"{span(list(factors.values()))}× ({ordered[0]} least, {ordered[-1]} most; "
        f"{_setting()})"
    )


def power() -> str:
    """Power's time at the smallest d, against its 10 ms target."""
    timings = results("postprocess")["seconds_per_call"]
    size = next(iter(timings["Power"]))
    return (
        f"Power at d = {_d(size)}: {1e3 * timings['Power'][size]:.1f} ms (target 10 ms; "
        f"{_setting()})"
    )


def ibu_table() -> str:
    """IBU's accelerated EM and plain EM: steps, seconds, distance to the exact MLE."""
    ibu = results("postprocess")["ibu"]
    lines = [
        "| variant | EM steps | seconds | L∞ distance to MLE | converged |",
        "|---|---:|---:|---:|---|",
    ]
    for v in ibu["variants"]:
        lines.append(
            f"| {v['variant']} | {v['steps']:,} | {v['seconds']:.3f} | {v['distance']:.1e} | "
            f"{'yes' if v['converged'] else 'no'} |"
        )
    return f"\n\nOLH, d = {ibu['d']:,} ({_setting()}):\n\n" + "\n".join(lines) + "\n\n"


def ibu_against_em() -> str:
    """The accelerated IBU against plain EM, in a sentence."""
    ibu = results("postprocess")["ibu"]
    default, fast, *plain = ibu["variants"]
    longest = plain[-1]
    return (
        f"IBU by default starts at the exact MLE where the likelihood has one and stops after "
        f"{default['steps']} step ({default['distance']:.0e} from it); from the uniform start "
        f"its accelerated EM takes {fast['steps']} steps, {1e3 * fast['seconds']:.0f} ms, to "
        f"{fast['distance']:.0e} from the exact MLE, while plain EM on the same likelihood is "
        f"still {longest['distance']:.2g} away after {longest['steps']:,} steps "
        f"({longest['seconds']:.1f} s; d = {ibu['d']:,}, {_setting()})"
    )


#: Claim name → the function that makes its text.
CLAIMS: dict[str, Callable[[], str]] = {
    "postprocess.time-table": time_table,
    "postprocess.growth": growth,
    "postprocess.power": power,
    "postprocess.ibu-table": ibu_table,
    "postprocess.ibu": ibu_against_em,
}
