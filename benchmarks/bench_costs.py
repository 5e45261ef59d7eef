"""Measure what one trial costs, per protocol, domain size and method: the cost model's data.

Run: ``.venv/bin/python benchmarks/bench_costs.py [--check] [--protocols THE,OUE]
[--methods Consistency]``.
Prints the table kept in ``ldpcore/experiments/costs.py`` (``MEASURED``), the worst-case table of
``benchmarks/README.md`` (every protocol × d ∈ SIZES: a trial with every default method,
its dearest method, 30 trials on one core) and, with ``--check``, how far the model's
estimate of whole runs (4 trials, every default method) is from their measured time over
the same grid.

One trial at n = 10⁶, ε = 1, Zipf s = 1.5, run as a simulation runs it
(``_run_trials``): the sampler with the Base estimate (the trial's floor), then each
default method alone on top of it. Each figure is the best of two calls after a warm-up,
at d = 1,024, 16,384 and 100,000 (the slider's end; one call there); the model
interpolates in log-log between them.
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
import time
import warnings

from ldpcore.experiments.config import ExperimentConfig
from ldpcore.experiments.costs import SIZES, run_seconds
from ldpcore.experiments.trials import _run_trials, run, trial_generator
from ldpcore.postprocess import default_method_names, get_method
from ldpcore.protocols import protocol_class, protocol_names

N = 1_000_000


def _seconds(config: ExperimentConfig, repeat: int = 2) -> float:
    built = config.build()
    _run_trials(config, [0], built)  # warm-up: first-call costs are not a trial's
    best = float("inf")
    for index in range(1, repeat + 1):
        start = time.perf_counter()
        _run_trials(config, [index], built)
        best = min(best, time.perf_counter() - start)
    return best


def _method_seconds(method: str, built: tuple, seed: int, repeat: int = 3) -> float:
    data, protocol, _ = built
    rng = trial_generator(seed, 0)
    tallies = protocol.sample_tallies(data.counts, rng)
    estimate = protocol.estimate_from_tallies(tallies, data.n)
    chosen = get_method(method)
    best = float("inf")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chosen(estimate, protocol=protocol, n=data.n, tallies=tallies)  # warm-up
        for _ in range(repeat):
            start = time.perf_counter()
            chosen(estimate, protocol=protocol, n=data.n, tallies=tallies)
            best = min(best, time.perf_counter() - start)
    return best


def measure(
    protocols: tuple[str, ...], methods: tuple[str, ...] | None = None
) -> dict[tuple[str, str], tuple[float, ...]]:
    """``(protocol, "trial" | method) -> seconds at each of SIZES``.

    "trial" is one trial with Base only (the sampler, the estimate, the metrics); each
    method is timed alone on one trial's estimate, as a trial calls it.
    """
    table: dict[tuple[str, str], list[float]] = {}
    for protocol in protocols:
        for d in _sizes(protocol):
            config = ExperimentConfig(
                dataset=f"zipf:d={d},s=1.5",
                n=N,
                protocol=protocol,
                epsilon=1.0,
                methods=("Base",),
                trials=3,
            )
            repeat = 2 if d < 50_000 else 1
            table.setdefault((protocol, "trial"), []).append(_seconds(config, repeat))
            built = config.build()
            for method in methods or default_method_names(protocol):
                if method != "Base":
                    table.setdefault((protocol, method), []).append(
                        _method_seconds(method, built, d, repeat=3 if d < 50_000 else 1)
                    )
        print(f"  {protocol}: measured", flush=True)
    return {key: tuple(times) for key, times in table.items()}


def _sizes(protocol: str) -> tuple[int, ...]:
    """The sizes of SIZES the protocol takes (SW: up to 2,048 values, so only the first)."""
    most = protocol_class(protocol).max_domain
    return tuple(d for d in SIZES if most is None or d <= most)


def worst_case(table: dict[tuple[str, str], tuple[float, ...]]) -> None:
    """Per trial with every default method, its dearest method, and 30 trials on one core."""
    print(
        "\n| protocol | d | sampler + Base (s) | dearest method (s) | a trial, every method (s) "
        "| 30 trials, one core (s) |"
    )
    print("|---|---:|---:|---|---:|---:|")
    for protocol in sorted({name for name, _ in table}, key=protocol_names().index):
        for at, d in enumerate(_sizes(protocol)):
            methods = {
                part: times[at]
                for (name, part), times in table.items()
                if name == protocol and part != "trial"
            }
            dearest = max(methods, key=methods.__getitem__)
            trial = table[(protocol, "trial")][at] + sum(methods.values())
            print(
                f"| {protocol} | {d:,} | {table[(protocol, 'trial')][at]:.3f} | "
                f"{dearest} {methods[dearest]:.3f} | {trial:.3f} | {30 * trial:.1f} |"
            )


def check() -> None:
    """Whole runs against the model (the Explorer's default methods) over the worst-case grid."""
    print("\n| protocol | d | estimated (s) | measured (s) | ratio |")
    print("|---|---:|---:|---:|---:|")
    for protocol in protocol_names():
        for d in _sizes(protocol):
            config = ExperimentConfig(
                dataset=f"zipf:d={d},s=1.5", n=N, protocol=protocol, epsilon=1.0, trials=4
            )
            # What the estimate covers: the trials, the run's summaries and per-item
            # table, and a pickle round trip (a worker's result); after a warm-up run
            # at another ε, so that first-call costs (imports, caches) are not counted.
            warm = run(dataclasses.replace(config, epsilon=2.0, trials=1))
            pickle.dumps((warm.summary, warm.per_item))  # (pandas' string type loads here)
            start = time.perf_counter()
            result = run(config)
            pickle.loads(pickle.dumps((result.summary, result.per_item)))
            measured = time.perf_counter() - start
            estimated = run_seconds(config)
            print(
                f"| {protocol} | {d:,} | {estimated:.2f} | {measured:.2f} | "
                f"{estimated / measured:.2f} |"
            )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    parser.add_argument(
        "--check-only", action="store_true", help="compare the kept table with whole runs"
    )
    parser.add_argument(
        "--protocols",
        default=",".join(protocol_names()),
        help="comma-separated protocols to measure (default: every registered one)",
    )
    parser.add_argument(
        "--methods",
        default=None,
        help="comma-separated methods to time (default: every default method)",
    )
    args = parser.parse_args()
    if args.check_only:
        check()
        return
    methods = None if args.methods is None else tuple(m.strip() for m in args.methods.split(","))
    table = measure(tuple(name.strip() for name in args.protocols.split(",")), methods)
    print("\nMEASURED = {")
    for (protocol, part), times in table.items():
        shown = ", ".join(f"{t:.2e}" for t in times) + ("," if len(times) == 1 else "")
        print(f"    ({protocol!r}, {part!r}): ({shown}),")
    print("}")
    worst_case(table)
    if args.check:
        check()


if __name__ == "__main__":
    main()
