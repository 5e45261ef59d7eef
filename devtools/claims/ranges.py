"""The range comparisons: trees, the Square Wave and the Haar wavelet against flat OUE.

Made from ``benchmarks/results/ranges.json`` (``benchmarks/bench_ranges.py --grid``):
each leads with the benchmarks' headline setting and then says, over the grid of
settings, where it holds and where it flips.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from devtools.claims.words import (
    Setting,
    count_words,
    length_range,
    percent,
    results,
    setting_words,
    shared_setting,
    span,
    stamp,
)

#: The setting each range comparison leads with (the benchmarks' headline one).
HEADLINE = {"d": 1024, "epsilon": 1.0, "n": 1_000_000, "data": "cauchy"}


def _ratios(setting: Setting, entry: str, reference: str) -> list[dict[str, float]]:
    return [r for r in setting["ratios"] if r["entry"] == entry and r["reference"] == reference]


def _upto_half(setting: Setting, rows: Iterable[dict[str, float]]) -> list[dict[str, float]]:
    """The ratios on ranges of 1 to d/2 values (the longest, d − 1, is nearly the root)."""
    return [r for r in rows if r["length"] <= setting["d"] // 2]


def _headline(name: str) -> Setting:
    return next(s for s in results(name)["settings"] if all(s[k] == v for k, v in HEADLINE.items()))


def _grid(name: str, data: str = "cauchy") -> list[Setting]:
    return [s for s in results(name)["settings"] if s["data"] == data]


def _grid_words(name: str) -> str:
    record = results(name)
    ds = sorted({s["d"] for s in record["settings"]})
    eps = sorted({s["epsilon"] for s in record["settings"]})
    ns = sorted({s["n"] for s in record["settings"]})
    sizes = " and ".join(f"{d:,}" for d in ds)
    people = " and ".join(count_words(n) for n in ns)
    return f"d = {sizes}, ε = {eps[0]:g} to {eps[-1]:g}, n = {people}"


# --- the range comparisons (benchmarks/results/ranges.json) ----------------------------


def consistency_gain() -> str:
    """How much the consistency step lowers the raw tree's range error."""
    head = _headline("ranges")
    gains = [
        1 / r["ratio"]
        for r in _upto_half(head, _ratios(head, "TreeOUE · Consistency", "TreeOUE · Base"))
    ]
    every = [
        r
        for s in results("ranges")["settings"]
        for r in _upto_half(s, _ratios(s, "TreeOUE · Consistency", "TreeOUE · Base"))
    ]
    unclear = sum(r["high"] >= 1 for r in every)
    return (
        f"Consistency lowers the raw tree's error {span(gains)}× on ranges of 1 to "
        f"{head['d'] // 2} values at {setting_words(head)} (Cauchy-shaped data), the raw "
        f"tree read off the fewest nodes as Kulkarni et al. read it; over the grid "
        f"({_grid_words('ranges')}, both datasets) {span([1 / r['ratio'] for r in every])}×, "
        + (
            "significantly in every comparison"
            if not unclear
            else f"not significantly in {unclear} of {len(every)} comparisons"
        )
        + f" ({stamp('ranges')})."
    )


def tree_against_flat() -> str:
    """From which range length the consistent tree beats flat OUE."""

    head = _headline("ranges")
    single = [
        r["ratio"]
        for s in results("ranges")["settings"]
        for r in _ratios(s, "TreeOUE · Consistency", "OUE · Base")
        if r["length"] == 1
    ]
    lengths = [_crossover(s) for s in results("ranges")["settings"]]
    found = [length for length in lengths if length is not None]
    never = len(lengths) - len(found)
    return (
        f"The consistent TreeOUE beats flat OUE (paired 95% interval below 1) from ranges of "
        f"{_crossover(head)} values on at {setting_words(head)}; over the grid from "
        f"{length_range(found)} values on"
        + (f" (in {never} settings at no length up to d/2)" if never else "")
        + f", and flat OUE is better on single values in every setting ({span(single)}×)."
    )


def ems_on_smooth_data() -> str:
    """Where SW with EMS stands against flat OUE on smooth data, and where it flips."""
    head = _headline("ranges")
    shares = [r["ratio"] for r in _upto_half(head, _ratios(head, "SW · EMS", "OUE · Base"))]
    every = [
        (s, r) for s in _grid("ranges") for r in _upto_half(s, _ratios(s, "SW · EMS", "OUE · Base"))
    ]
    below = [r["ratio"] for _s, r in every if r["high"] < 1]
    above = [(s, r) for s, r in every if r["low"] > 1]
    words = (
        f"On the smooth (Cauchy-shaped) data, SW with EMS has {percent(shares)} of flat "
        f"OUE's error on ranges of 1 to {head['d'] // 2} values at {setting_words(head)}; "
        f"over the grid ({_grid_words('ranges')}) it is below flat OUE's in {len(below)} of "
        f"{len(every)} comparisons ({percent(below)})"
    )
    if above:
        words += (
            f" and above it in {len(above)} ({span([r['ratio'] for _s, r in above])}×, on "
            f"ranges of {length_range(r['length'] for _s, r in above)} values"
            f"{shared_setting([s for s, _r in above])})"
        )
    return words + "."


def em_against_ems() -> str:
    """Where plain EM beats EMS, which is the best of the Square Wave's answers elsewhere."""
    parts = []
    for data, label in (("cauchy", "smooth data"), ("zipf", "Zipf data")):
        settings = _grid("ranges", data)
        better = [
            (s, r)
            for s in settings
            for r in _upto_half(s, _ratios(s, "SW · EM", "SW · EMS"))
            if r["high"] < 1
        ]
        worse = [
            (s, r)
            for s in settings
            for r in _upto_half(s, _ratios(s, "SW · EM", "SW · EMS"))
            if r["low"] > 1
        ]
        total = sum(len(_upto_half(s, _ratios(s, "SW · EM", "SW · EMS"))) for s in settings)
        if not better:
            parts.append(
                f"on {label} EMS is better than plain EM or level with it at every length "
                f"in every setting (EM significantly worse in {len(worse)} of {total})"
            )
            continue
        where = sorted({setting_words(s) for s, _ in better})
        lengths = sorted({int(r["length"]) for _, r in better})
        parts.append(
            f"on {label} plain EM is significantly better than EMS in {len(better)} of "
            f"{total} comparisons ({span([r['ratio'] for _, r in better])}× EMS's error; "
            f"ranges of {length_range(lengths)} values; in {len(where)} of {len(settings)} settings"
            f"{shared_setting([s for s, _ in better])}), and EMS better in {len(worse)}"
        )
    return (
        f"Of the Square Wave's answers over the grid ({_grid_words('ranges')}), "
        + "; ".join(parts)
        + "."
    )


def haar_against_tree() -> str:
    """HaarHRR's Base against the consistent hierarchy, and where that flips."""
    head = _headline("ranges")
    rows = _upto_half(head, _ratios(head, "HaarHRR · Base", "TreeOUE · Consistency"))
    level = all(r["low"] <= 1 <= r["high"] for r in rows[1:])
    words = [
        f"HaarHRR's error on ranges is {span([r['ratio'] for r in rows])}× the consistent "
        f"TreeOUE's at {setting_words(head)}"
        + (" (level from 4 values on: every paired interval holds 1)" if level else "")
    ]
    every = [
        (s, r)
        for s in results("ranges")["settings"]
        for r in _upto_half(s, _ratios(s, "HaarHRR · Base", "TreeOUE · Consistency"))
    ]
    worse = [(s, r) for s, r in every if r["low"] > 1]
    better = [(s, r) for s, r in every if r["high"] < 1]
    sides = [
        f"{side} in {len(found)} of {len(every)} comparisons "
        f"({span([r['ratio'] for _s, r in found], 3)}×{shared_setting([s for s, _r in found])})"
        for found, side in ((worse, "worse"), (better, "better"))
        if found
    ]
    if sides:
        words.append("over the grid significantly " + ", and ".join(sides))
    return "; ".join(words) + "."


def _crossover(setting: Setting) -> int | None:
    """The shortest length from which the consistent tree beats flat OUE at every longer
    length up to d/2 (paired 95% intervals below 1); None if there is none."""
    rows = _upto_half(setting, _ratios(setting, "TreeOUE · Consistency", "OUE · Base"))
    for at, row in enumerate(rows):
        if all(r["high"] < 1 for r in rows[at:]):
            return int(row["length"])
    return None


def grid_table() -> str:
    """One row per setting of the grid: where each comparison stands, ranges of 1 to d/2."""

    def cell(setting: Setting, entry: str, reference: str, invert: bool = False) -> str:
        rows = _upto_half(setting, _ratios(setting, entry, reference))
        values = [1 / r["ratio"] if invert else r["ratio"] for r in rows]
        return span(values) + "×"

    lines = [
        "| d | ε | n | data | consistent tree beats flat OUE from | consistency's gain on "
        "the raw tree | SW EMS ÷ flat OUE | SW EM ÷ SW EMS | HaarHRR ÷ consistent tree |",
        "|---:|---:|---:|---|---:|---|---|---|---|",
    ]
    for s in results("ranges")["settings"]:
        crossing = _crossover(s)
        lines.append(
            f"| {s['d']:,} | {s['epsilon']:g} | {count_words(s['n'])} | {s['data']} | "
            f"{'none' if crossing is None else f'{crossing} values'} | "
            f"{cell(s, 'TreeOUE · Consistency', 'TreeOUE · Base', invert=True)} | "
            f"{cell(s, 'SW · EMS', 'OUE · Base')} | {cell(s, 'SW · EM', 'SW · EMS')} | "
            f"{cell(s, 'HaarHRR · Base', 'TreeOUE · Consistency')} |"
        )
    return "\n\n" + "\n".join(lines) + "\n\n"


def _headline_of(data: str) -> Setting:
    return next(
        s
        for s in results("ranges")["settings"]
        if s["data"] == data and all(s[k] == v for k, v in HEADLINE.items() if k != "data")
    )


def _at(setting: Setting, entry: str, reference: str, length: int) -> float:
    return next(r["ratio"] for r in _ratios(setting, entry, reference) if r["length"] == length)


def target_tree() -> str:
    """The targets table's cell: where the consistent tree beats flat OUE, at the headline."""
    head = _headline("ranges")
    start = _crossover(head)
    pair = ("TreeOUE · Consistency", "OUE · Base")
    longest = head["d"] // 2
    shown = sorted({start or 1, 64, longest})
    return (
        f"from {start} values on: "
        + ", ".join(f"{_at(head, *pair, length):.2g}× at {length}" for length in shown)
        + f" (paired 95% intervals below 1); {_at(head, *pair, 1):.2g}× and "
        f"{_at(head, *pair, 4):.2g}× on 1 and 4 values ({setting_words(head)}, Cauchy data)"
    )


def target_wave() -> str:
    """The targets table's cell: SW's EMS and EM against flat OUE, both datasets."""
    smooth, steep = _headline_of("cauchy"), _headline_of("zipf")

    def spread(setting: Setting, entry: str) -> str:
        rows = _upto_half(setting, _ratios(setting, entry, "OUE · Base"))
        return span([r["ratio"] for r in rows])

    return (
        f"smooth data: EMS {spread(smooth, 'SW · EMS')}× flat OUE's error on ranges of 1 to "
        f"{smooth['d'] // 2} values; Zipf: EMS {spread(steep, 'SW · EMS')}× it, EM "
        f"{spread(steep, 'SW · EM')}× ({setting_words(smooth)})"
    )


def target_haar() -> str:
    """The targets table's cell: HaarHRR against the consistent tree at the headline."""
    head = _headline("ranges")
    rows = _upto_half(head, _ratios(head, "HaarHRR · Base", "TreeOUE · Consistency"))
    level = [r["length"] for r in rows if r["low"] <= 1 <= r["high"]]
    return (
        f"level (paired interval holding 1) on {len(level)} of {len(rows)} lengths; "
        f"{span([r['ratio'] for r in rows])}× over ranges of 1 to {head['d'] // 2} values "
        f"({setting_words(head)})"
    )


#: Claim name → the function that makes its sentence.
CLAIMS: dict[str, Callable[[], str]] = {
    "ranges.consistency-gain": consistency_gain,
    "ranges.tree-against-flat": tree_against_flat,
    "ranges.ems-on-smooth-data": ems_on_smooth_data,
    "ranges.em-against-ems": em_against_ems,
    "ranges.haar-against-tree": haar_against_tree,
    "ranges.grid-table": grid_table,
    "ranges.target-tree": target_tree,
    "ranges.target-wave": target_wave,
    "ranges.target-haar": target_haar,
}
