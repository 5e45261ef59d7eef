"""Ranges over an ordered domain: the hierarchy against flat OUE, as the range grows.

Run: ``.venv/bin/python -m benchmarks.bench_ranges [--trials 50]``. Kulkarni, Cormode
and Srivastava (VLDB 2019) compare hierarchies of intervals (TreeOUE, TreeOLH), with and
without Hay et al.'s consistency step, against flat OUE on ranges of growing length.
Here at d = 1,024, ε = 1, n = 10⁶, on a Cauchy-shaped histogram (their synthetic data:
centre 0.4 d, scale d/20), the same ``trials`` seeds for every mechanism:

1. for each range length L, the mean over every range of that length of the squared
   error, for flat OUE (Base and Norm-Sub) and the hierarchies (raw, Consistency,
   Cons-NS); and the paired ratio of TreeOUE with Consistency to flat OUE's Base, with
   its simultaneous 95% interval (``ldpcore.stats.compare``: trial i of each uses seed i;
   the noises are independent, so pairing only matches the trials);
2. the branching factor: TreeOUE with Consistency at B = 2, 3, 4, 5, 8, 16 on every
   range of lengths 16 to 512;
3. how many nodes a range sums on the raw tree: its own fewest-node decomposition
   (Kulkarni et al., Sec. 4.1, the tool's reading) against two prefixes' difference,
   averaged over every range of each length: a raw answer's noise is about
   proportional to it;
4. a trial's seconds: flat OUE (draw and estimate) against TreeOUE (draw and the raw
   estimate; with the consistency step), best of 5 × 200;
6. with ``--wave``, only this: the Square Wave (Li et al., SIGMOD 2020) on the same data
   and lengths, its Base (the channel's unbiased inverse), EM and EMS, beside flat OUE's
   Base and TreeOUE with Consistency; the paired ratios of SW with EMS to each, and a
   trial's seconds (best of 3 × 5);
7. with ``--haar``, only this: the Haar wavelet (HaarHRR, Kulkarni et al. Sec. 4.4) on the
   Cauchy data beside flat OUE and TreeOUE with Consistency, the paired ratio of its Base
   to the consistent tree's, and a trial's seconds (best of 5 × 200);
8. with ``--grid``, only this: every comparison the docs state, over the grid
   :data:`GRID` (d = 256 and 1,024, ε = 0.5 and 2, n = 10⁵ and 10⁶, and the headline
   setting d = 1,024, ε = 1, n = 10⁶), on the Cauchy-shaped data and on Zipf s = 1.5:
   flat OUE, TreeOUE (raw, Consistency, Cons-NS), HaarHRR and SW (Base, EM, EMS), every
   range of each length read as each protocol's paper reads it (``run_ranges``, 256
   ranges per length at most, drawn once), with the paired 95% ratios the claims are
   made of. Written to ``benchmarks/results/ranges.json``, from which
   ``devtools/claims`` makes the sentences the docs carry (a test holds them equal);
5. with ``--hash``, only this: OLH's real hash family against the ideal hash the fast
   sampler draws, on a sum of values (d = 64, n = 2,000, ε = 1, 1,500 collections each
   way): the variance of the range [0, 32) and of every other value's sum, per-user
   reports against the fast sampler, each with its F-test's 95% interval.
"""

from __future__ import annotations

import argparse
import datetime
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks._common import best_of, store
from ldpcore.experiments.readings import Output, post_process, read_runs
from ldpcore.postprocess import get_method
from ldpcore.protocols import get_protocol
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.protocols.trees import TreeLayout
from ldpcore.reproduce.ranges import cauchy_counts
from ldpcore.stats.compare import compare

D, EPSILON, N = 1024, 1.0, 1_000_000
LENGTHS = (1, 4, 16, 64, 256, 512, 1023)
BRANCHINGS = (2, 3, 4, 5, 8, 16)
#: The setting of parts 1 to 4, 6 and 7, as stored with their results.
_SETTING = {"d": D, "epsilon": EPSILON, "n": N, "branching": 4}


def range_errors(reading: tuple[Output, FrequencyOracle], truth: np.ndarray, length: int) -> float:
    """Mean squared error over every range of ``length`` consecutive values, each read as
    its protocol's paper reads it (a raw tree: the fewest nodes; ``readings.py``)."""
    output, protocol = reading
    start = np.arange(0, truth.size - length + 1)
    got = read_runs(output, protocol, start, start + length)
    true = np.concatenate(([0.0], np.cumsum(truth)))
    return float(np.mean((got - (true[start + length] - true[start])) ** 2))


def estimates(
    name: str, counts: np.ndarray, seed: int, methods: tuple[str, ...], **params: int
) -> dict[str, tuple[Output, FrequencyOracle]]:
    """Each method's output from one collection drawn with ``seed``, with its protocol."""
    protocol = get_protocol(name, epsilon=EPSILON, domain_size=counts.size, **params)
    tallies = protocol.sample_tallies(counts, seed)
    n = int(counts.sum())
    base = protocol.estimate_from_tallies(tallies, n)
    return {
        m: (post_process(get_method(m), base, protocol=protocol, n=n, tallies=tallies), protocol)
        for m in methods
    }


def errors_by_length(
    runs: dict[str, tuple[str, tuple[str, ...], dict[str, int]]], counts: np.ndarray, trials: int
) -> dict[str, np.ndarray]:
    """``"label method"`` → its range MSE per length and trial, trial i from seed i."""
    truth = counts / counts.sum()
    errors: dict[str, np.ndarray] = {}
    for label, (name, methods, params) in runs.items():
        per = {m: np.empty((len(LENGTHS), trials)) for m in methods}
        for trial in range(trials):
            found = estimates(name, counts, trial, methods, **params)
            for m, vector in found.items():
                per[m][:, trial] = [range_errors(vector, truth, length) for length in LENGTHS]
        for m in methods:
            errors[f"{label} {m}"] = per[m]
    return errors


def fewest_nodes(layout: TreeLayout, start: int, stop: int) -> int:
    """The nodes of the fewest-node tiling of ``[start, stop)`` (the root, known, is none).

    Level by level from the leaves: the nodes at either end that do not complete a
    parent are taken, the rest move up as their parents.
    """
    count, a, b = 0, start, stop
    for _ in range(layout.height):
        while a < b and a % layout.branching:
            count, a = count + 1, a + 1
        while a < b and b % layout.branching:
            count, b = count + 1, b - 1
        a, b = a // layout.branching, b // layout.branching
    return count


def prefix_nodes(layout: TreeLayout, start: int, stop: int) -> int:
    """The nodes two prefixes' difference sums, their shared nodes cancelling."""
    weights = layout.prefix_difference_weights(start, stop)
    return int(sum(np.count_nonzero(w) for w in weights))


def real_hash() -> dict[str, Any]:
    """Part 5: a sum of OLH's support counts, per-user reports against the fast sampler."""
    from scipy import stats

    d, n, collections = 64, 2_000, 1_500
    protocol = get_protocol("OLH", epsilon=1.0, domain_size=d)
    counts = np.random.default_rng(0).multinomial(n, np.full(d, 1 / d))
    sums = {"the range [0, 32)": np.arange(32), "every other value": np.arange(0, d, 2)}
    print("| sum of | per-user variance | fast variance | ratio (95%) |")
    print("|---|---:|---:|---|")
    drawn, rows = {}, []
    for sampler in ("per-user", "fast"):
        support = np.array(
            [protocol.sample_support_counts(counts, s, sampler=sampler) for s in range(collections)]
        )
        drawn[sampler] = (support / n - protocol.q) / (protocol.p - protocol.q)
    for label, values in sums.items():
        real = drawn["per-user"][:, values].sum(axis=1).var(ddof=1)
        ideal = drawn["fast"][:, values].sum(axis=1).var(ddof=1)
        ratio = real / ideal
        low = ratio / stats.f.ppf(0.975, collections - 1, collections - 1)
        high = ratio / stats.f.ppf(0.025, collections - 1, collections - 1)
        print(f"| {label} | {real:.4g} | {ideal:.4g} | {ratio:.3f} ({low:.3f}–{high:.3f}) |")
        rows.append(
            {
                "sum": label,
                "per_user": float(real),
                "fast": float(ideal),
                "ratio": float(ratio),
                "low": float(low),
                "high": float(high),
            }
        )
    return {
        "setting": {"d": d, "n": n, "epsilon": 1.0, "data": "uniform multinomial"},
        "collections": collections,
        "sums": rows,
    }


def _length_table(
    title: str, errors: dict[str, np.ndarray], pairs: tuple[tuple[str, str], ...]
) -> dict[str, Any]:
    """Print one table of range MSE by length with paired ratios, and return its record.

    ``pairs`` are (entry, reference) columns of ``errors``; each ratio is the entry's MSE
    over the reference's on the same trials, with the tool's paired 95% interval.
    """
    print(f"## {title}\n")
    print(
        "| L | "
        + " | ".join(errors)
        + " | "
        + " | ".join(f"{e} / {r} (95%)" for e, r in pairs)
        + " |"
    )
    print("|---" * (len(errors) + len(pairs) + 1) + "|")
    ratios = []
    for row, length in enumerate(LENGTHS):
        cells = []
        for entry, reference in pairs:
            pair = np.vstack([errors[reference][row], errors[entry][row]])
            found = compare(pair, [reference, entry], reference=reference, margin=0)[0]
            cells.append(f"{found.ratio:.3f} ({found.low:.3f}–{found.high:.3f})")
            ratios.append(
                {
                    "entry": entry,
                    "reference": reference,
                    "length": length,
                    "ratio": float(found.ratio),
                    "low": float(found.low),
                    "high": float(found.high),
                }
            )
        means = " | ".join(f"{errors[k][row].mean():.2e}" for k in errors)
        print(f"| {length} | {means} | {' | '.join(cells)} |", flush=True)
    return {
        "lengths": list(LENGTHS),
        "mse": {k: [float(v) for v in errors[k].mean(axis=1)] for k in errors},
        "ratios": ratios,
    }


def _wave_table(data: str, counts: np.ndarray, trials: int) -> dict[str, Any]:
    """One dataset's table of range errors by length, with SW with EMS's paired ratios."""
    runs = {
        "OUE": ("OUE", ("Base",), {}),
        "TreeOUE": ("TreeOUE", ("Consistency",), {"branching": 4}),
        "SW": ("SW", ("Base", "EM", "EMS"), {}),
    }
    errors = errors_by_length(runs, counts, trials)
    title = (
        f"The Square Wave on ranges, {data} (d = {D:,}, ε = {EPSILON:g}, n = {N:,}, "
        f"{trials} trials)"
    )
    pairs = (("SW EMS", "OUE Base"), ("SW EMS", "TreeOUE Consistency"))
    return {"data": data, **_length_table(title, errors, pairs)}


def wave(trials: int) -> dict[str, Any]:
    """Part 6: the Square Wave's Base, EM and EMS against flat OUE and the consistent tree.

    On the Cauchy-shaped data (smooth: what EMS's smoothing assumes) and on Zipf s = 1.5
    (a spike at the first value, which the smoothing blurs).
    """
    from ldpcore.data.datasets import zipf

    tables = [
        _wave_table(label, counts, trials)
        for label, counts in (
            ("Cauchy-shaped", np.array(cauchy_counts(D, N))),
            ("Zipf s = 1.5", np.asarray(zipf(D, N, 1.5).counts)),
        )
    ]
    counts = np.array(cauchy_counts(D, N))
    rng = np.random.default_rng(0)
    sw = get_protocol("SW", epsilon=EPSILON, domain_size=D)
    flat = get_protocol("OUE", epsilon=EPSILON, domain_size=D)
    ems = get_method("EMS")

    def sw_trial() -> object:
        return sw.estimate_from_tallies(sw.sample_tallies(counts, rng), N)

    def sw_ems() -> object:
        tallies = sw.sample_tallies(counts, rng)
        return ems(sw.estimate_from_tallies(tallies, N), protocol=sw, n=N, tallies=tallies)

    def flat_trial() -> object:
        return flat.estimate_from_tallies(flat.sample_tallies(counts, rng), N)

    print("\n| trial | seconds | against flat OUE |")
    print("|---|---:|---:|")
    times = {
        k: best_of(f, repeat=3, number=5)
        for k, f in (("OUE", flat_trial), ("SW, Base", sw_trial), ("SW with EMS", sw_ems))
    }
    for k, seconds in times.items():
        print(f"| {k} | {seconds:.2e} | {seconds / times['OUE']:.2f}× |")
    return {"setting": _SETTING, "trials": trials, "tables": tables, "seconds": times}


def haar(trials: int) -> dict[str, Any]:
    """Part 7: the Haar wavelet against flat OUE and the consistent tree, and its speed."""
    counts = np.array(cauchy_counts(D, N))
    runs = {
        "OUE": ("OUE", ("Base",), {}),
        "TreeOUE": ("TreeOUE", ("Consistency",), {"branching": 4}),
        "HaarHRR": ("HaarHRR", ("Base", "Norm-Sub"), {}),
    }
    errors = errors_by_length(runs, counts, trials)
    title = f"The Haar wavelet on ranges (d = {D:,}, ε = {EPSILON:g}, n = {N:,}, {trials} trials)"
    pairs = (("HaarHRR Base", "OUE Base"), ("HaarHRR Base", "TreeOUE Consistency"))
    table = _length_table(title, errors, pairs)
    rng = np.random.default_rng(0)
    wavelet = get_protocol("HaarHRR", epsilon=EPSILON, domain_size=D)
    flat = get_protocol("OUE", epsilon=EPSILON, domain_size=D)

    def haar_trial() -> object:
        return wavelet.estimate_from_tallies(wavelet.sample_tallies(counts, rng), N)

    def flat_trial() -> object:
        return flat.estimate_from_tallies(flat.sample_tallies(counts, rng), N)

    times = {
        k: best_of(f, repeat=5, number=200)
        for k, f in (("OUE", flat_trial), ("HaarHRR", haar_trial))
    }
    print("\n| trial | seconds | against flat OUE |")
    print("|---|---:|---:|")
    for k, seconds in times.items():
        print(f"| {k} | {seconds:.2e} | {seconds / times['OUE']:.2f}× |")
    return {"setting": _SETTING, "trials": trials, "table": table, "seconds": times}


#: The settings the stored comparisons span: (d, ε, n), the headline setting first.
GRID: tuple[tuple[int, float, int], ...] = (
    (1024, 1.0, 1_000_000),
    *((d, eps, n) for d in (256, 1024) for eps in (0.5, 2.0) for n in (100_000, 1_000_000)),
)
#: The lengths the grid asks at each d: these, then d/4, d/2 and d − 1.
GRID_LENGTHS = (1, 4, 16, 64)
RESULTS = Path(__file__).resolve().parent / "results" / "ranges.json"
#: The ratios stored per length: (entry, reference), each paired over the same trials.
RATIOS = (
    ("TreeOUE · Consistency", "OUE · Base"),
    ("TreeOUE · Consistency", "TreeOUE · Base"),
    ("TreeOUE · Base", "OUE · Base"),
    ("HaarHRR · Base", "TreeOUE · Consistency"),
    ("SW · EMS", "OUE · Base"),
    ("SW · EMS", "TreeOUE · Consistency"),
    ("SW · EM", "SW · EMS"),
    ("SW · EM", "OUE · Base"),
)


def grid(trials: int) -> None:
    """Part 8: every stored comparison over :data:`GRID`, on both datasets, as JSON."""
    from ldpcore.data.datasets import zipf
    from ldpcore.data.specs import ExplicitCounts
    from ldpcore.experiments import ExperimentConfig
    from ldpcore.experiments.ranges import run_ranges

    settings = []
    for d, epsilon, n in GRID:
        for data, counts in (
            ("cauchy", tuple(cauchy_counts(d, n))),
            ("zipf", tuple(int(c) for c in zipf(d, n, 1.5).counts)),
        ):
            started = time.perf_counter()
            config = ExperimentConfig(
                dataset=ExplicitCounts(data, counts),
                n=n,
                protocol="OUE",
                epsilon=epsilon,
                trials=trials,
                seed=2019,
                true_counts=counts,
            )
            lengths = (*GRID_LENGTHS, d // 4, d // 2, d - 1)
            found = run_ranges(
                config,
                lengths=lengths,
                protocols=("TreeOUE", "HaarHRR", "SW"),
                branching=4,
                wave_methods=("Base", "EM", "EMS"),
            )
            entries = list(found.entries)
            mse = {
                e: [float(found.errors[i, at].mean()) for at in range(len(found.lengths))]
                for i, e in enumerate(entries)
            }
            ratios = []
            for entry, reference in RATIOS:
                for at, length in enumerate(found.lengths):
                    pair = np.vstack(
                        [
                            found.errors[entries.index(reference), at],
                            found.errors[entries.index(entry), at],
                        ]
                    )
                    c = compare(pair, [reference, entry], reference=reference, margin=0)[0]
                    ratios.append(
                        {
                            "entry": entry,
                            "reference": reference,
                            "length": length,
                            "ratio": float(c.ratio),
                            "low": float(c.low),
                            "high": float(c.high),
                        }
                    )
            settings.append(
                {
                    "d": d,
                    "epsilon": epsilon,
                    "n": n,
                    "data": data,
                    "lengths": list(found.lengths),
                    "mse": mse,
                    "ratios": ratios,
                }
            )
            seconds = time.perf_counter() - started
            print(f"d = {d}, ε = {epsilon:g}, n = {n:,}, {data}: {seconds:.0f} s", flush=True)
    record = {
        "command": f"python -m benchmarks.bench_ranges --grid --trials {trials}",
        "date": datetime.date.today().isoformat(),
        "trials": trials,
        "branching": 4,
        "data": {
            "cauchy": "Cauchy-shaped histogram, centre 0.4 d, scale d/20 (smooth)",
            "zipf": "Zipf s = 1.5 (a spike at the first value)",
        },
        "settings": settings,
    }
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(record, indent=1) + "\n")
    print(f"written to {RESULTS}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=50)
    parser.add_argument("--hash", action="store_true", help="only part 5, OLH's real hash")
    parser.add_argument("--wave", action="store_true", help="only part 6, the Square Wave")
    parser.add_argument("--haar", action="store_true", help="only part 7, the Haar wavelet")
    parser.add_argument("--grid", action="store_true", help="only part 8, the stored grid")
    args = parser.parse_args()
    if args.grid:
        grid(args.trials)
        return
    if args.hash:
        store("range_hash", real_hash())
        return
    if args.wave:
        store("range_wave", wave(args.trials))
        return
    if args.haar:
        store("range_haar", haar(args.trials))
        return
    store("range_trees", trees(args.trials))


def trees(trials: int) -> dict[str, Any]:
    """Parts 1 to 4: flat OUE against the hierarchies, the branching factor, nodes, time."""
    counts = np.array(cauchy_counts(D, N))
    truth = counts / N
    runs = {
        "OUE": ("OUE", ("Base", "Norm-Sub"), {}),
        "TreeOUE": ("TreeOUE", ("Base", "Consistency", "Cons-NS"), {"branching": 4}),
        "TreeOLH": ("TreeOLH", ("Base", "Consistency"), {"branching": 4}),
    }
    errors = errors_by_length(runs, counts, trials)
    title = f"Range MSE by length (d = {D:,}, ε = {EPSILON:g}, n = {N:,}, {trials} trials)"
    pairs = (
        ("TreeOUE Consistency", "OUE Base"),
        ("TreeOUE Consistency", "TreeOUE Base"),
        ("TreeOLH Consistency", "TreeOUE Consistency"),
    )
    table = _length_table(title, errors, pairs)
    print("\n## TreeOUE with Consistency by branching factor (ranges of 16 to 512)\n")
    middle = [i for i, length in enumerate(LENGTHS) if 16 <= length <= 512]
    print("| B | height | mean range MSE |")
    print("|---|---|---|")
    branchings = []
    for branching in BRANCHINGS:
        values = []
        for trial in range(trials):
            fitted = estimates("TreeOUE", counts, trial, ("Consistency",), branching=branching)[
                "Consistency"
            ]
            values.append(np.mean([range_errors(fitted, truth, LENGTHS[i]) for i in middle]))
        height = TreeLayout(D, branching).height
        spread = np.std(values, ddof=1) / np.sqrt(len(values))
        print(f"| {branching} | {height} | {np.mean(values):.3e} ± {spread:.1e} |")
        branchings.append(
            {
                "branching": branching,
                "height": height,
                "mse": float(np.mean(values)),
                "se": float(spread),
            }
        )

    print("\n## Nodes a raw range sums (B = 4), averaged over every range of each length\n")
    layout = TreeLayout(D, 4)
    print("| L | fewest nodes (Kulkarni et al., the tool) | two prefixes' difference |")
    print("|---|---|---|")
    nodes = []
    for length in LENGTHS:
        starts = range(0, D - length + 1)
        tool = np.mean([prefix_nodes(layout, a, a + length) for a in starts])
        fewest = np.mean([fewest_nodes(layout, a, a + length) for a in starts])
        print(f"| {length} | {fewest:.2f} | {tool:.2f} |")
        nodes.append({"length": length, "fewest": float(fewest), "prefixes": float(tool)})

    print("\n## Single values: the prefix reading's exact variance over the fewest nodes'\n")
    print("| d | B | ratio (mean, least, most over the values) |")
    print("|---|---|---|")
    exact = []
    for d in (64, 256, 1000):
        for branching in (2, 4, 8):
            tree = get_protocol("TreeOUE", epsilon=EPSILON, domain_size=d, branching=branching)
            uniform, starts = np.full(d, 1 / d), np.arange(d)
            ratio = tree.prefix_difference_variances(
                uniform, N, starts, starts + 1
            ) / tree.range_variances(uniform, N, starts, starts + 1)
            print(
                f"| {d} | {branching} | {ratio.mean():.3f} ({ratio.min():.3f}–{ratio.max():.3f}) |"
            )
            exact.append(
                {
                    "d": d,
                    "branching": branching,
                    "mean": float(ratio.mean()),
                    "least": float(ratio.min()),
                    "most": float(ratio.max()),
                }
            )

    print("\n## A trial's seconds (best of 5 × 200)\n")
    rng = np.random.default_rng(0)
    flat = get_protocol("OUE", epsilon=EPSILON, domain_size=D)
    tree = get_protocol("TreeOUE", epsilon=EPSILON, domain_size=D, branching=4)
    consistency = get_method("Consistency")

    def flat_trial() -> object:
        return flat.estimate_from_tallies(flat.sample_tallies(counts, rng), N)

    def tree_trial() -> object:
        return tree.estimate_from_tallies(tree.sample_tallies(counts, rng), N)

    def tree_consistent() -> object:
        tallies = tree.sample_tallies(counts, rng)
        return consistency(
            tree.estimate_from_tallies(tallies, N), protocol=tree, n=N, tallies=tallies
        )

    times = {
        k: best_of(f, repeat=5, number=200)
        for k, f in (
            ("OUE", flat_trial),
            ("TreeOUE raw", tree_trial),
            ("TreeOUE + Consistency", tree_consistent),
        )
    }
    for label, seconds in times.items():
        print(f"| {label} | {seconds * 1e3:.3f} ms | {seconds / times['OUE']:.2f}× |")
    return {
        "setting": _SETTING,
        "trials": trials,
        "table": table,
        "branchings": branchings,
        "nodes": nodes,
        "single_value_variance": exact,
        "seconds": times,
    }


if __name__ == "__main__":
    main()
