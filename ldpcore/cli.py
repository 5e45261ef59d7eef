"""The ``ldpcore`` command: simulate, postprocess, recommend, advise-epsilon.

A contract that scripts rely on (DESIGN.md, "The command line"): the JSON of
``simulate --format json`` and the CSV of ``postprocess``. Bad input ends with exit
code 2 and one line on stderr that starts with ``error:``; never a traceback.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

from ldpcore import bounds
from ldpcore.collected import Collected, read_collected
from ldpcore.postprocess import get_method, method_names, resolve_method_name
from ldpcore.protocols import get_protocol, protocol_names

EXIT_USAGE = 2


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one ``error:`` line and exit code 2."""

    def error(self, message: str) -> NoReturn:
        raise _UsageError(f"{message} (see '{self.prog} --help')")


class _UsageError(Exception):
    pass


SIMULATE_EXAMPLE = """example:
  ldpcore simulate --protocol OLH --epsilon 1 --n 1000000 \\
      --dataset zipf:d=1024,s=1.5 --methods Base,Norm-Sub,PowerNS --trials 30 --format json
"""

POSTPROCESS_EXAMPLE = """example (a CSV with header value,estimate or value,count):
  ldpcore postprocess --protocol OLH --epsilon 1 --n 1000000 --method Norm-Sub \\
      --input estimates.csv --output consistent.csv
"""


REPRODUCE_EXAMPLE = """examples:
  ldpcore reproduce --list
  ldpcore reproduce all --quick --out reproduction/
  ldpcore reproduce ndss-fig4 ndss-fig10 --full --out reproduction/
"""


RANDOMIZE_EXAMPLE = """example:
  ldpcore randomize --protocol OLH --epsilon 1 --domain-size 1024 \\
      --input values.csv --output reports.parquet
"""

AGGREGATE_EXAMPLE = """examples:
  ldpcore aggregate --protocol OLH --epsilon 1 --domain-size 1024 \\
      --input reports.parquet --output counts.csv
  ldpcore aggregate --protocol OUE --epsilon 1 --domain-size 1024 \\
      --input partitions/ --dask local:2 --output counts.csv
"""

SWEEP_EXAMPLE = """example sweep.toml:
  dataset = "zipf:d=1024,s=1.5"
  protocols = ["OLH", "OUE"]
  epsilons = [0.5, 1.0, 2.0]
  ns = [1000000]
  methods = ["Base", "Norm-Sub"]
  trials = 30
then:
  ldpcore sweep --config sweep.toml --dask local:2 --out results.parquet
"""


def _parser() -> _Parser:
    parser = _Parser(
        prog="ldpcore",
        description="Frequency oracles under local differential privacy and their post-processing.",
    )
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    commands.required = True

    sim = commands.add_parser(
        "simulate",
        help="simulate a protocol and compare post-processing methods",
        description="Simulate LDP collection on a dataset and measure every method's error.",
        epilog=SIMULATE_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_protocol_arguments(sim)
    sim.add_argument(
        "--dataset",
        required=True,
        help="zipf:d=D,s=S | uniform:d=D | file:PATH (a value,count CSV)",
    )
    sim.add_argument("--methods", default="all", help="all, or NAME,NAME,... (default: all)")
    sim.add_argument(
        "--query",
        default="full",
        help="full | topk:k=K | set:rho=R[,samples=M] | prefix (default: full)",
    )
    sim.add_argument("--trials", default="30", help="independent repetitions (default: 30)")
    sim.add_argument("--seed", default="0", help="the one seed of the run (default: 0)")
    sim.add_argument("--sampler", default="fast", choices=["fast", "per-user"])
    sim.add_argument("--workers", default="1", help="processes to run trials in (default: 1)")
    sim.add_argument("--format", default="table", choices=["table", "json", "csv"])

    post = commands.add_parser(
        "postprocess",
        help="post-process LDP estimates or support counts from a CSV",
        description="Read Base estimates or support counts and write consistent frequencies.",
        epilog=POSTPROCESS_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_protocol_arguments(post)
    post.add_argument("--method", required=True, help=", ".join(method_names()))
    post.add_argument(
        "--input", required=True, help="CSV with header value,estimate or value,count"
    )
    post.add_argument(
        "--input-kind",
        choices=["estimates", "counts"],
        help="what the input holds (default: read from its header)",
    )
    post.add_argument("--output", help="where to write value,frequency (default: stdout)")

    rec = commands.add_parser(
        "recommend",
        help="rank post-processing methods for your collected estimates",
        description="Simulate on a consistent stand-in for your data (NDSS Sec. V-D) and rank "
        "the methods for the query that matters.",
        epilog=RECOMMEND_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_protocol_arguments(rec)
    rec.add_argument("--input", required=True, help="CSV with header value,estimate or value,count")
    rec.add_argument("--input-kind", choices=["estimates", "counts"])
    rec.add_argument("--query", default="full", help="full | topk:k=K | set:rho=R | prefix")
    rec.add_argument("--methods", default="all", help="all, or NAME,NAME,...")
    rec.add_argument("--trials", default="20")
    rec.add_argument("--seed", default="0")
    rec.add_argument("--truth-from", default="Norm-Sub", choices=["Norm-Sub", "PowerNS"])
    rec.add_argument("--format", default="table", choices=["table", "json"])

    adv = commands.add_parser(
        "advise-epsilon",
        help="the smallest ε that meets an accuracy target",
        description="For each protocol and method, the smallest ε whose root-mean-square "
        "error on the query is at most the target (with a ±2 SE range).",
        epilog=ADVISE_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    adv.add_argument(
        "--protocol", default="all", help="all, or P,P,... of " + ", ".join(protocol_names())
    )
    adv.add_argument("--n", required=True, help="number of users")
    adv.add_argument("--dataset", required=True, help="zipf:d=D,s=S | uniform:d=D | file:PATH")
    adv.add_argument(
        "--target-rmse",
        required=True,
        help="root-mean-square error allowed, in frequency units (0.005 = 0.5 pp)",
    )
    adv.add_argument("--query", default="full", help="full | topk:k=K | set:rho=R | prefix")
    adv.add_argument("--methods", default="Base,Norm-Sub,PowerNS", help="NAME,NAME,... or all")
    adv.add_argument("--trials", default="10")
    adv.add_argument("--seed", default="0")
    adv.add_argument("--format", default="table", choices=["table", "json"])

    _add_more_commands(commands)
    return parser


def _add_more_commands(commands: Any) -> None:
    """The reproduction, collection, cluster and audit commands."""
    rep = commands.add_parser(
        "reproduce",
        help="reproduce the papers' figures and check their claims",
        description="Run paper recipes (NDSS 2020 Figs. 1-10, the MLE paper's Figs. 2-3, the "
        "IBU paper's Table 1). Per figure, DIR/<id>/ gets data.csv, figure.html, figure.png "
        "and report.md (each claim, the measured value, holds or not); DIR/report.md "
        "lists every claim.",
        epilog=REPRODUCE_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    rep.add_argument("figures", nargs="*", metavar="FIGURE", help="figure ids, or all")
    size = rep.add_mutually_exclusive_group()
    size.add_argument("--quick", action="store_true", help="few trials and points (default)")
    size.add_argument("--full", action="store_true", help="the papers' trial counts")
    rep.add_argument("--out", help="output folder (required unless --list)")
    rep.add_argument("--list", action="store_true", help="list the figure ids and stop")
    rep.add_argument("--no-png", action="store_true", help="skip PNG export (needs Chromium)")
    rep.add_argument("--dask", help="run the trials on Dask: local:N or tcp://HOST:PORT")

    rnd = commands.add_parser(
        "randomize",
        help="the client randomizer: values in, LDP reports out",
        description="Randomize each user's value with the protocol's client randomizer and "
        "write one report per user (format per protocol: see ldpcore.reports). Randomness "
        "comes from the operating system's secure generator. --seed makes the output "
        "reproducible and therefore NOT private: use it only to simulate.",
        epilog=RANDOMIZE_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _protocol_arguments(rnd)
    rnd.add_argument("--input", required=True, help="CSV with a 'value' column of 0..d-1")
    rnd.add_argument("--output", required=True, help="reports file, .parquet or .csv")
    rnd.add_argument("--seed", help="ONLY for reproducible simulation: makes reports non-private")

    agg = commands.add_parser(
        "aggregate",
        help="reports in, support counts out (streamed; optionally on Dask)",
        description="Count, for every value, the reports that support it. Streams in chunks "
        "(memory stays bounded); a folder of Parquet/CSV partitions can be aggregated on a "
        "Dask cluster with the same per-chunk function. Output: CSV value,count, ready for "
        "'ldpcore postprocess --input-kind counts'.",
        epilog=AGGREGATE_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _protocol_arguments(agg)
    agg.add_argument("--input", required=True, help="a report file or a folder of them")
    agg.add_argument("--output", help="CSV value,count (default: standard output)")
    agg.add_argument("--dask", help="local:N or tcp://HOST:PORT (default: this process)")
    agg.add_argument("--chunk-rows", default=str(1 << 18), help="reports per chunk")
    agg.add_argument("--connect-timeout", default="10", help="seconds to reach a scheduler")

    swp = commands.add_parser(
        "sweep",
        help="run a parameter grid from a TOML file (optionally on Dask)",
        description="Cross the lists of a sweep file (see ldpcore.sweeps) and run every "
        "point through the experiment engine; identical results locally and on a cluster.",
        epilog=SWEEP_EXAMPLE,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    swp.add_argument("--config", required=True, help="sweep file (TOML)")
    swp.add_argument("--out", required=True, help="results, .parquet or .csv")
    swp.add_argument("--dask", help="local:N or tcp://HOST:PORT (default: this process)")
    swp.add_argument("--connect-timeout", default="10", help="seconds to reach a scheduler")

    aud = commands.add_parser(
        "audit",
        help="check that a protocol's randomizer satisfies ε-LDP",
        description="The exact worst-case output-probability ratio from the channel, and an "
        "empirical audit of the real randomizer on the two most distinguishable inputs with "
        "a one-sided confidence bound; exit code 1 if either finds a violation.",
    )
    _protocol_arguments(aud)
    aud.add_argument("--runs", default="200000", help="randomizer runs per input")
    aud.add_argument("--confidence", default="0.99")
    aud.add_argument("--seed", help="seed the randomizer (default: OS secure generator)")


def _protocol_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--protocol", required=True, help=", ".join(protocol_names()))
    parser.add_argument("--epsilon", required=True)
    parser.add_argument("--domain-size", required=True, help="number of values d")
    parser.add_argument("--g", help="OLH hash range (default round(e^ε + 1))")
    parser.add_argument("--k", help="SS subset size (default about d/(e^ε + 1))")


RECOMMEND_EXAMPLE = """example:
  ldpcore recommend --protocol OLH --epsilon 1 --n 1000000 --input estimates.csv --query topk:k=10
"""

ADVISE_EXAMPLE = """example (top-10 frequencies within ±0.5 percentage points, root-mean-square):
  ldpcore advise-epsilon --protocol OLH,GRR --n 1000000 --dataset zipf:d=1024,s=1.5 \\
      --query topk:k=10 --target-rmse 0.005
"""


def _add_protocol_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--protocol", required=True, help=" | ".join(protocol_names()))
    parser.add_argument("--epsilon", required=True, help="privacy budget ε > 0")
    parser.add_argument("--n", required=True, help="number of users")
    parser.add_argument("--g", default=None, help="OLH hash range (default round(e^ε + 1))")
    parser.add_argument("--k", default=None, help="SS subset size (default round(d/(e^ε + 1)))")


def _number(raw: str, name: str) -> float:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"--{name} must be a number, got {raw!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"--{name} must be a finite number, got {raw!r}")
    return value


def _whole(raw: str | None, name: str, minimum: int, maximum: int | None = None) -> int | None:
    if raw is None:
        return None
    value = _number(raw, name)
    if value != round(value) or value < minimum or (maximum is not None and value > maximum):
        upper = "" if maximum is None else f" and at most {maximum:,}"
        raise ValueError(f"--{name} must be a whole number >= {minimum}{upper}, got {raw!r}")
    return round(value)


def _n(raw: str) -> int:
    n = _whole(raw, "n", bounds.N_USERS_MIN, bounds.N_USERS_MAX)
    assert n is not None
    return n


def _simulate(args: argparse.Namespace) -> int:
    from ldpcore.experiment import ExperimentConfig, run  # noqa: PLC0415 (pandas: only here)

    methods = (
        method_names()
        if args.methods.strip().lower() == "all"
        else tuple(name for name in (m.strip() for m in args.methods.split(",")) if name)
    )
    config = ExperimentConfig(
        dataset=args.dataset,
        n=_n(args.n),
        protocol=args.protocol,
        epsilon=_number(args.epsilon, "epsilon"),
        methods=methods,
        query=args.query,
        trials=_whole(args.trials, "trials", bounds.TRIALS_MIN, bounds.TRIALS_MAX) or 1,
        seed=_whole(args.seed, "seed", 0) or 0,
        sampler=args.sampler,
        g=_whole(args.g, "g", 2),
        k=_whole(args.k, "k", 1),
    )
    workers = _whole(args.workers, "workers", 1, 64) or 1
    if workers > 1:
        from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

        with ProcessPoolExecutor(workers) as pool:
            result = run(config, executor=pool, workers=workers)
    else:
        result = run(config)
    if args.format == "json":
        print(json.dumps(result.to_json_dict(), allow_nan=False, default=_json_default))
    elif args.format == "csv":
        sys.stdout.write(result.summary.to_csv(index=False, float_format="%.17g"))
    else:
        analytic = result.analytic
        print(
            f"{config.protocol}, ε = {config.epsilon:g}, n = {config.n:,}, {args.dataset}, "
            f"query {config.query}, {config.trials} trials, seed {config.seed}"
        )
        print(result.summary.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
        if analytic["base_mse"] is not None:
            print(f"analytic Base MSE (Eq. 3): {analytic['base_mse']:.4g}")
        print(f"lower bound (asymptotic, prior-averaged): {analytic['lower_bound']:.4g}")
    return 0


def _json_default(value: object) -> object:
    if isinstance(value, np.integer | np.floating):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")


def _read_estimate(args: argparse.Namespace, n: int) -> Collected:
    """Collected output (estimates or support counts) from ``--input``."""
    epsilon = _number(args.epsilon, "epsilon")
    path = Path(args.input)
    if not path.is_file():
        raise ValueError(f"--input {args.input!r} does not exist")
    if path.stat().st_size > bounds.UPLOAD_BYTES_MAX:  # before reading it into memory
        raise ValueError(f"--input {args.input!r} is over {bounds.UPLOAD_BYTES_MAX // 2**20} MiB")
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ValueError(f"cannot read --input {args.input!r}: {exc.strerror}") from None
    return read_collected(
        data, protocol=args.protocol, epsilon=epsilon, n=n, kind=args.input_kind,
        source=args.input, g=_whole(args.g, "g", 2), k=_whole(args.k, "k", 1),
    )  # fmt: skip


def _postprocess(args: argparse.Namespace) -> int:
    n = _n(args.n)
    method = get_method(resolve_method_name(args.method))
    collected = _read_estimate(args, n)
    frequencies = method(collected.estimate, protocol=collected.protocol, n=n)
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["value", "frequency"])
    for value, frequency in zip(collected.labels, frequencies, strict=True):
        writer.writerow([value, repr(float(frequency))])  # repr: full double precision
    if args.output:
        try:
            Path(args.output).write_text(out.getvalue(), encoding="utf-8")
        except OSError as exc:
            raise ValueError(f"cannot write --output {args.output!r}: {exc.strerror}") from None
    else:
        sys.stdout.write(out.getvalue())
    return 0


def _method_list(raw: str) -> tuple[str, ...]:
    if raw.strip().lower() == "all":
        return method_names()
    return tuple(resolve_method_name(m) for m in (p.strip() for p in raw.split(",")) if m)


def _recommend(args: argparse.Namespace) -> int:
    from ldpcore.advice import recommend  # noqa: PLC0415 (pandas: only here)

    n = _n(args.n)
    collected = _read_estimate(args, n)
    protocol, estimate = collected.protocol, collected.estimate
    ranking = recommend(
        estimate,
        protocol=protocol,
        n=n,
        query=args.query,
        methods=_method_list(args.methods),
        trials=_whole(args.trials, "trials", 1, bounds.TRIALS_MAX) or 1,
        seed=_whole(args.seed, "seed", 0) or 0,
        truth_from=args.truth_from,
    )
    if args.format == "json":
        print(json.dumps({"query": args.query, "ranking": ranking.to_dict("records")},
                         default=_json_default))  # fmt: skip
    else:
        best = ranking.iloc[0]
        print(f"recommended for query {args.query}: {best['method']}")
        print(ranking.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    return 0


def _advise_epsilon(args: argparse.Namespace) -> int:
    from ldpcore.advice import advise_epsilon  # noqa: PLC0415 (pandas: only here)
    from ldpcore.experiment import ExperimentConfig  # noqa: PLC0415

    protocols = (
        protocol_names()
        if args.protocol.strip().lower() == "all"
        else tuple(p.strip() for p in args.protocol.split(",") if p.strip())
    )
    target = _number(args.target_rmse, "target-rmse")
    advice = []
    for name in protocols:
        config = ExperimentConfig(
            dataset=args.dataset,
            n=_n(args.n),
            protocol=name,
            epsilon=1.0,  # replaced by the search
            methods=_method_list(args.methods),
            query=args.query,
            trials=_whole(args.trials, "trials", 1, bounds.TRIALS_MAX) or 1,
            seed=_whole(args.seed, "seed", 0) or 0,
        )
        advice.extend(advise_epsilon(config, target_rmse=target))
    records = [
        {"protocol": a.protocol, "method": a.method, "epsilon": a.value, "epsilon_low": a.low,
         "epsilon_high": a.high, "rmse": a.rmse_at_value}
        for a in advice
    ]  # fmt: skip
    if args.format == "json":
        print(json.dumps({"target_rmse": target, "advice": records}, default=_json_default))
        return 0
    for record in records:
        if record["epsilon"] is None:
            line = "does not meet the target for any ε up to 10"
        else:
            line = (
                f"ε ≈ {record['epsilon']:.3g} (between {record['epsilon_low']:.3g} and "
                f"{record['epsilon_high']:.3g} within ±2 SE)"
            )
        print(f"{record['protocol']:>4} + {record['method']:<9} {line}")
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    from ldpcore import reproduce  # noqa: PLC0415 (pandas and plotly: only here)

    if args.list:
        for recipe_id in reproduce.recipe_ids():
            recipe = reproduce.get_recipe(recipe_id)
            print(f"{recipe_id:12} {recipe.title} (quick ≈ {recipe.quick_seconds:g} s, "
                  f"full ≈ {recipe.full_seconds:g} s)")  # fmt: skip
        return 0
    if not args.figures:
        raise ValueError("name the figures to reproduce (or all); --list shows them")
    if not args.out:
        raise ValueError("--out DIR is required: where the figures and reports go")
    ids = reproduce.recipe_ids() if args.figures == ["all"] else tuple(args.figures)
    mode = "full" if args.full else "quick"
    out = Path(args.out)
    if out.exists() and not out.is_dir():
        raise ValueError(f"--out {args.out!r} exists and is not a folder")

    def progress(share: float, message: str) -> None:
        print(f"\r[{share:4.0%}] {message[:70]:70}", end="", file=sys.stderr, flush=True)

    def warn(message: str) -> None:
        print(f"\nwarning: {message}", file=sys.stderr)

    try:
        if args.dask:
            from ldpcore.cluster import dask_client, where  # noqa: PLC0415

            with dask_client(args.dask) as client:
                print(f"running on {where(client)}", file=sys.stderr)
                workers = max(1, len(client.scheduler_info().get("workers", {})))
                results = reproduce.reproduce(ids, mode, out, png=not args.no_png,
                                              progress=progress, executor=client.get_executor(),
                                              workers=workers, warn=warn)  # fmt: skip
        else:
            results = reproduce.reproduce(ids, mode, out, png=not args.no_png, progress=progress,
                                          warn=warn)  # fmt: skip
    except OSError as exc:
        raise ValueError(f"cannot write to --out {args.out!r}: {exc.strerror or exc}") from None
    print(file=sys.stderr)
    for result in results:
        held = sum(c.holds for c in result.claims)
        print(f"{result.recipe:12} {held}/{len(result.claims)} claims hold "
              f"({result.seconds:.1f} s) -> {out / result.recipe}")  # fmt: skip
    print(f"summary: {out / 'report.md'}")
    return 0


def _protocol(args: argparse.Namespace) -> Any:
    return get_protocol(
        args.protocol, epsilon=_number(args.epsilon, "epsilon"),
        domain_size=_whole(args.domain_size, "domain-size", 2) or 2, g=_whole(args.g, "g", 2),
        k=_whole(args.k, "k", 1),
    )  # fmt: skip


def _randomize(args: argparse.Namespace) -> int:
    from ldpcore.collection import randomize_file  # noqa: PLC0415 (pandas: only here)
    from ldpcore.rng import SecureRandom  # noqa: PLC0415

    protocol = _protocol(args)
    seed = _whole(args.seed, "seed", 0)
    rng = SecureRandom() if seed is None else np.random.default_rng(seed)
    users = randomize_file(protocol, Path(args.input), Path(args.output), rng=rng)
    source = "OS secure generator" if seed is None else f"seed {seed} (NOT private)"
    print(f"{users:,} reports -> {args.output} ({protocol}, randomness: {source})",
          file=sys.stderr)  # fmt: skip
    return 0


def _aggregate(args: argparse.Namespace) -> int:
    from ldpcore.reports import aggregate_file, report_files  # noqa: PLC0415

    protocol = _protocol(args)
    chunk_rows = _whole(args.chunk_rows, "chunk-rows", 1) or 1
    files = report_files(Path(args.input))
    if args.dask:
        from ldpcore.cluster import aggregate_on_dask, dask_client, where  # noqa: PLC0415

        with dask_client(
            args.dask, timeout=_number(args.connect_timeout, "connect-timeout")
        ) as client:
            print(f"aggregating {len(files)} file(s) on {where(client)}", file=sys.stderr)
            counts, users = aggregate_on_dask(client, protocol, files, chunk_rows=chunk_rows)
    else:
        counts, users = np.zeros(protocol.domain_size, dtype=np.int64), 0
        for file in files:
            part, rows = aggregate_file(protocol, file, chunk_rows=chunk_rows)
            counts += part
            users += rows
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(["value", "count"])
    writer.writerows(enumerate(counts.tolist()))
    _write_output(args.output, out.getvalue())
    print(f"{users:,} reports aggregated (n = {users:,})", file=sys.stderr)
    return 0


def _write_output(path: str | None, text: str) -> None:
    if not path:
        sys.stdout.write(text)
        return
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise ValueError(f"cannot write --output {path!r}: {exc.strerror}") from None


def _sweep(args: argparse.Namespace) -> int:
    from ldpcore.sweeps import read_sweep, run_sweep, write_table  # noqa: PLC0415

    points = read_sweep(Path(args.config))
    out = Path(args.out)
    if out.suffix.lower() not in {".parquet", ".csv"}:
        raise ValueError(f"--out {args.out!r} must end in .parquet or .csv")

    def progress(done: int, total: int) -> None:
        print(f"\r{done}/{total} grid points", end="", file=sys.stderr, flush=True)

    if args.dask:
        from ldpcore.cluster import dask_client, where  # noqa: PLC0415

        with dask_client(
            args.dask, timeout=_number(args.connect_timeout, "connect-timeout")
        ) as client:
            print(f"running {len(points)} grid points on {where(client)}", file=sys.stderr)
            frame = run_sweep(points, executor=client.get_executor(), progress=progress)
    else:
        frame = run_sweep(points, progress=progress)
    print(file=sys.stderr)
    try:
        write_table(frame, out)
    except OSError as exc:
        raise ValueError(f"cannot write --out {args.out!r}: {exc.strerror}") from None
    print(f"{len(points)} grid points, {len(frame)} rows -> {out}")
    return 0


def _audit(args: argparse.Namespace) -> int:
    from ldpcore.audit import audit  # noqa: PLC0415

    protocol = _protocol(args)
    seed = _whole(args.seed, "seed", 0)
    result = audit(
        protocol, runs=_whole(args.runs, "runs", 1000) or 1000,
        confidence=_number(args.confidence, "confidence"), rng=seed,
    )  # fmt: skip
    print(f"{protocol}: {result.verdict}")
    return 0 if result.passed else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    try:
        args = _parser().parse_args(argv)
        handlers = {
            "simulate": _simulate,
            "postprocess": _postprocess,
            "recommend": _recommend,
            "advise-epsilon": _advise_epsilon,
            "reproduce": _reproduce,
            "randomize": _randomize,
            "aggregate": _aggregate,
            "sweep": _sweep,
            "audit": _audit,
        }
        return handlers[args.command](args)
    except (_UsageError, ValueError) as exc:
        message = " ".join(str(exc).split())  # one line, whatever the message
        print(f"error: {message}", file=sys.stderr)
        return EXIT_USAGE
    except KeyboardInterrupt:
        print("error: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
