"""The range tables at the headline setting: the trees, the Square Wave, the Haar wavelet.

Made from ``benchmarks/results/range_trees.json``, ``range_wave.json``, ``range_haar.json``
(``bench_ranges.py``, ``--wave``, ``--haar``: every range of each length at d = 1,024,
ε = 1, n = 10⁶, each protocol read as its paper reads it) and ``range_hash.json``
(``--hash``: OLH's real hash family against the ideal one). The grid of settings, and
where these comparisons flip across it, is :mod:`devtools.claims.ranges`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from devtools.claims.words import count_words, number, results, signed, span

Row = dict[str, Any]


def _setting(name: str) -> str:
    s = results(name)["setting"]
    return (
        f"d = {s['d']:,}, ε = {s['epsilon']:g}, n = {count_words(s['n'])}, "
        f"{results(name)['trials']} trials"
    )


def _ratio(table: Row, entry: str, reference: str, length: int) -> Row:
    return next(
        r
        for r in table["ratios"]
        if r["entry"] == entry and r["reference"] == reference and r["length"] == length
    )


def _mse_ratio(table: Row, entry: str, reference: str, length: int) -> float:
    at = table["lengths"].index(length)
    return float(table["mse"][entry][at] / table["mse"][reference][at])


def _crossing(table: Row, entry: str, reference: str) -> int | None:
    """The shortest length from which every longer one's paired interval is below 1."""
    rows = [r for r in table["ratios"] if r["entry"] == entry and r["reference"] == reference]
    for at, row in enumerate(rows):
        if all(r["high"] < 1 for r in rows[at:]):
            return int(row["length"])
    return None


def length_table(table: Row) -> str:
    """A table of range MSE by length, then each stored paired ratio with its interval."""
    pairs = list(dict.fromkeys((r["entry"], r["reference"]) for r in table["ratios"]))
    lines = [
        "| L | "
        + " | ".join(table["mse"])
        + " | "
        + " | ".join(f"{e} ÷ {r} (95%)" for e, r in pairs)
        + " |",
        "|---:|" + "---:|" * len(table["mse"]) + "---|" * len(pairs),
    ]
    for at, length in enumerate(table["lengths"]):
        cells = [f"{values[at]:.2e}" for values in table["mse"].values()]
        cells += [
            f"{number(r['ratio'], 3)} ({number(r['low'], 3)}–{number(r['high'], 3)})"
            for r in (_ratio(table, e, ref, length) for e, ref in pairs)
        ]
        lines.append(f"| {length:,} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


# --- the trees (range_trees.json) -----------------------------------------------------


def trees_table() -> str:
    """Flat OUE, TreeOUE and TreeOLH by length, with the paired ratios."""
    return "\n\n" + length_table(results("range_trees")["table"]) + "\n\n"


def trees_where() -> str:
    """Where the consistent tree beats flat OUE at the headline, and the raw tree."""
    record = results("range_trees")
    table, d = record["table"], record["setting"]["d"]
    start = _crossing(table, "TreeOUE Consistency", "OUE Base")
    longest = max(length for length in table["lengths"] if length <= d // 2)
    olh = [r for r in table["ratios"] if r["entry"] == "TreeOLH Consistency"]
    level = all(r["low"] <= 1 <= r["high"] for r in olh)
    raw = [_mse_ratio(table, "TreeOUE Base", "OUE Base", n) for n in (1, 4, 16)]
    raw_below = next(
        (
            n
            for n in table["lengths"]
            if all(
                _mse_ratio(table, "TreeOUE Base", "OUE Base", m) < 1
                for m in table["lengths"]
                if m >= n
            )
        ),
        None,
    )
    pair = ("TreeOUE Consistency", "OUE Base")
    return (
        f"from ranges of {start} values on ({100 * (start or 0) / d:.1g}% of the domain) the "
        f"consistent TreeOUE's error is below flat OUE's, significantly, and the gap grows "
        f"with the length ({_ratio(table, *pair, start or 1)['ratio']:.2g}× at {start}, "
        f"{_ratio(table, *pair, longest)['ratio']:.2g}× at {longest}); on 1 and 4 values flat "
        f"OUE is {_ratio(table, *pair, 1)['ratio']:.2g}× and "
        f"{_ratio(table, *pair, 4)['ratio']:.2g}× better. The consistent TreeOLH's error is "
        f"{span([r['ratio'] for r in olh], 3)}× TreeOUE's"
        + (" (every paired interval holds 1)" if level else "")
        + f". The raw tree (the paper's reading) is {raw[0]:.2g}× flat OUE's error on one "
        f"value, {raw[1]:.2g}× on 4, {raw[2]:.2g}× on 16, and below it from {raw_below} values "
        f"on ({_setting('range_trees')}, Cauchy-shaped data)"
    )


def trees_cons_ns() -> str:
    """Norm-Sub after the consistency step: on one value, and on long ranges."""
    table = results("range_trees")["table"]
    one = {k: v[0] for k, v in table["mse"].items()}
    tree = {k: v for k, v in one.items() if k.startswith("TreeOUE")}
    best_tree, best = min(tree, key=lambda k: tree[k]), min(one, key=lambda k: one[k])
    at = 256 if 256 in table["lengths"] else table["lengths"][-2]
    return (
        f"on single values {best_tree} has the smallest error of TreeOUE's answers "
        f"({_mse_ratio(table, best_tree, 'OUE Base', 1):.3g}× flat OUE's) and {best} the "
        f"smallest of all; at {at} values Cons-NS has "
        f"{_mse_ratio(table, 'TreeOUE Cons-NS', 'OUE Base', at):.2g}× flat OUE's error "
        f"(flat OUE with Norm-Sub {_mse_ratio(table, 'OUE Norm-Sub', 'OUE Base', at):.2g}×; "
        f"{_setting('range_trees')})"
    )


def trees_branching() -> str:
    """TreeOUE with consistency by branching factor."""
    record = results("range_trees")
    best = min(record["branchings"], key=lambda b: b["mse"])
    parts = [f"B = {b['branching']}: {b['mse']:.3g} ± {b['se']:.2g}" for b in record["branchings"]]
    level = [
        b["branching"]
        for b in record["branchings"]
        if abs(b["mse"] - best["mse"]) <= 2 * (b["se"] ** 2 + best["se"] ** 2) ** 0.5
    ]
    return (
        f"mean MSE over ranges of 16 to 512 values (± one standard error), {'; '.join(parts)}; "
        f"within two standard errors of the lowest: B = {', '.join(str(b) for b in level)} "
        f"({_setting('range_trees')})"
    )


def trees_nodes() -> str:
    """The nodes a raw range sums, fewest against two prefixes' difference."""
    record = results("range_trees")
    parts = [
        f"{r['fewest']:.2f} / {r['prefixes']:.2f} at L = {r['length']:,}" for r in record["nodes"]
    ]
    return (
        f"nodes summed on average over every range of each length (B = "
        f"{record['setting']['branching']}, d = {record['setting']['d']:,}), fewest against "
        f"prefixes: {'; '.join(parts)}"
    )


def trees_single_values() -> str:
    """The prefix reading's exact variance on single values, over the fewest nodes'."""
    rows = results("range_trees")["single_value_variance"]
    ds = sorted({r["d"] for r in rows})
    bs = sorted({r["branching"] for r in rows})
    return (
        f"on single values the prefix reading's variance is on average "
        f"{span([r['mean'] for r in rows], 3)}× the fewest nodes' (value by value "
        f"{min(r['least'] for r in rows):.2g}× to {max(r['most'] for r in rows):.3g}×; "
        f"TreeOUE, B = {', '.join(map(str, bs))}, d = {', '.join(f'{d:,}' for d in ds)}, "
        f"ε = {results('range_trees')['setting']['epsilon']:g}, n = "
        f"{count_words(results('range_trees')['setting']['n'])}, uniform data, exact)"
    )


def _against_flat(name: str, entries: dict[str, str], how: str) -> str:
    """Each timed entry's milliseconds and ratio to flat OUE's trial, from one stored run."""
    seconds = results(name)["seconds"]
    flat = seconds["OUE"]
    timed = "; ".join(
        f"{label} {1e3 * seconds[key]:.3g} ms ({seconds[key] / flat:.3g}×)"
        for key, label in entries.items()
    )
    return (
        f"flat OUE {1e3 * flat:.3g} ms; {timed} ({how} at {_setting(name)}, "
        f"{results(name)['date']})"
    )


def trees_speed() -> str:
    """A tree's trial against a flat OUE trial."""
    entries = {"TreeOUE raw": "TreeOUE raw", "TreeOUE + Consistency": "with the consistency step"}
    return _against_flat("range_trees", entries, "best of 5 × 200")


# --- the Square Wave (range_wave.json) ------------------------------------------------


def _wave(data: str) -> Row:
    return next(t for t in results("range_wave")["tables"] if t["data"].startswith(data))


def wave_smooth_table() -> str:
    """SW beside flat OUE and the consistent tree on the Cauchy-shaped data."""
    return "\n\n" + length_table(_wave("Cauchy")) + "\n\n"


def wave_zipf_table() -> str:
    """The same on Zipf s = 1.5."""
    return "\n\n" + length_table(_wave("Zipf")) + "\n\n"


def wave_base() -> str:
    """SW's unbiased inverse: the noisiest answer."""
    table = _wave("Cauchy")
    half = [v for n, v in zip(table["lengths"], table["mse"]["SW Base"], strict=True) if n <= 512]
    return (
        f"{span(half)} at every length from 1 to 512 values, "
        f"{_mse_ratio(table, 'SW Base', 'OUE Base', 1):,.0f}× flat OUE's on one value "
        f"({_setting('range_wave')}, Cauchy-shaped data)"
    )


def wave_ems() -> str:
    """SW with EMS on smooth data at the headline setting."""
    table = _wave("Cauchy")
    upto = [r for r in table["ratios"] if r["length"] <= 512]
    to_flat = [r["ratio"] for r in upto if r["reference"] == "OUE Base"]
    to_tree = [r["ratio"] for r in upto if r["reference"] == "TreeOUE Consistency"]
    others = [k for k in table["mse"] if k != "SW EMS"]
    best = all(
        table["mse"]["SW EMS"][at] <= min(table["mse"][k][at] for k in others)
        for at in range(len(table["lengths"]))
    )
    return (
        f"{'the best answer at every length' if best else 'not the best at every length'}: "
        f"{100 * to_flat[0]:.2g}% of flat OUE's error on one value, "
        f"{span([100 * r for r in to_flat[3:]])}% on ranges of 64 to 512, and "
        f"{span([100 * r for r in to_tree], 2)}% of the consistent tree's on ranges of 1 to 512 "
        f"({_setting('range_wave')}, Cauchy-shaped data)"
    )


def wave_em() -> str:
    """Plain EM on the Zipf data at the headline setting."""
    table = _wave("Zipf")
    lengths = table["lengths"]
    below_flat = all(_mse_ratio(table, "SW EM", "OUE Base", n) < 1 for n in lengths)
    below_tree = [n for n in lengths if _mse_ratio(table, "SW EM", "TreeOUE Consistency", n) < 1]
    return (
        f"on Zipf s = 1.5 EM's error is {'below' if below_flat else 'not below'} flat OUE's "
        f"at every length and below the consistent tree's at lengths "
        f"{', '.join(f'{n:,}' for n in below_tree) or 'none'} (point estimates; "
        f"{_setting('range_wave')})"
    )


def wave_speed() -> str:
    """SW's trial against flat OUE's."""
    entries = {"SW, Base": "SW's trial (draw and Base)", "SW with EMS": "with EMS"}
    return _against_flat("range_wave", entries, "best of 3 × 5")


# --- the Haar wavelet (range_haar.json) and OLH's hash (range_hash.json) ---------------


def haar_table() -> str:
    """HaarHRR beside flat OUE and the consistent tree."""
    return "\n\n" + length_table(results("range_haar")["table"]) + "\n\n"


def haar_level() -> str:
    """HaarHRR against the consistent tree, and where it crosses flat OUE."""
    table = results("range_haar")["table"]
    against = [r for r in table["ratios"] if r["reference"] == "TreeOUE Consistency"]
    level = [r["length"] for r in against if r["low"] <= 1 <= r["high"]]
    differ = [r for r in against if not r["low"] <= 1 <= r["high"]]
    start = _crossing(table, "HaarHRR Base", "OUE Base")
    words = (
        f"HaarHRR and the consistent tree are level (the paired interval holds 1) at "
        f"{len(level)} of {len(against)} lengths"
    )
    if differ:
        words += "; they differ at " + ", ".join(
            f"L = {r['length']:,} ({signed(100 * (r['ratio'] - 1), '+.0f')}%, "
            f"{signed(100 * (r['low'] - 1), '+.0f')}% to {signed(100 * (r['high'] - 1), '+.0f')}%)"
            for r in differ
        )
    crossing = (
        f"{_ratio(table, 'HaarHRR Base', 'OUE Base', start)['ratio']:.2g}× at {start}"
        if start
        else "never"
    )
    norm_sub = _mse_ratio(table, "HaarHRR Norm-Sub", "OUE Base", 256)
    return (
        f"{words}. Against flat OUE it crosses from {start} values on ({crossing}); with "
        f"Norm-Sub after it, {norm_sub:.2g}× flat OUE's error at 256 values "
        f"({_setting('range_haar')}, Cauchy-shaped data)"
    )


def haar_speed() -> str:
    """HaarHRR's trial against flat OUE's."""
    entries = {"HaarHRR": "HaarHRR's trial (draw and estimate)"}
    return _against_flat("range_haar", entries, "best of 5 × 200")


def hash_variance() -> str:
    """OLH's real hash against the ideal one on sums of values."""
    record = results("range_hash")
    s = record["setting"]
    rows = "; ".join(
        f"{r['sum']}: variance {r['ratio']:.2f}× ({r['low']:.2f}–{r['high']:.2f})"
        for r in record["sums"]
    )
    return (
        f"per-user reports against the fast sampler, {rows} (d = {s['d']}, ε = "
        f"{s['epsilon']:g}, n = {s['n']:,}, {record['collections']:,} collections each way, "
        f"F-test intervals; `{record['command']}`, {record['date']})"
    )


#: The claims whose setting is not a d, ε and n, and why.
SETTING_ELSEWHERE = {"range-trees.nodes": "a count of nodes, which d and B alone decide"}

#: Claim name → the function that makes its text.
CLAIMS: dict[str, Callable[[], str]] = {
    "range-trees.table": trees_table,
    "range-trees.where": trees_where,
    "range-trees.cons-ns": trees_cons_ns,
    "range-trees.branching": trees_branching,
    "range-trees.nodes": trees_nodes,
    "range-trees.single-values": trees_single_values,
    "range-trees.speed": trees_speed,
    "range-wave.smooth-table": wave_smooth_table,
    "range-wave.zipf-table": wave_zipf_table,
    "range-wave.base": wave_base,
    "range-wave.ems": wave_ems,
    "range-wave.em": wave_em,
    "range-wave.speed": wave_speed,
    "range-haar.table": haar_table,
    "range-haar.level": haar_level,
    "range-haar.speed": haar_speed,
    "range-hash.variance": hash_variance,
}
