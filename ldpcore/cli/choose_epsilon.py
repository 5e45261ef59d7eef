"""``ldpcore choose-epsilon``: per protocol, the smallest ε with and without post-processing.

The same computation as the app's Choose ε page (:func:`ldpcore.advice.choose_epsilon`).
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from ldpcore.cli import _args
from ldpcore.cli.advise_epsilon import add_search_arguments
from ldpcore.cli.simulate import users_for

#: The page's defaults: the fast methods that enforce consistency, plus Base.
DEFAULT_METHODS = "Base,Base-Cut,Norm,Norm-Sub,MLE-Apx,PowerNS"

EXAMPLE = """example (top-10 within ±0.5 percentage points; n is the dataset's own total):
  ldpcore choose-epsilon --protocol all --dataset countries --n 1000000 \\
      --query topk:k=10 --target each:0.005 --format json
"""


def add_parser(commands: Any) -> None:
    """Declare the command's arguments."""
    cho = _args.add_command(
        commands,
        "choose-epsilon",
        help="the smallest ε per protocol, with its best method and without post-processing",
        description="For each protocol: the smallest ε meeting the target with the "
        "recommended method and with Base, each with its 95% interval, simulated on the "
        "same trials; post_processing_helps is true only when the paired comparison and "
        "the two intervals both say so.",
        example=EXAMPLE,
    )
    add_search_arguments(cho, methods=DEFAULT_METHODS, trials="10", targets=True)
    cho.add_argument(
        "--workers",
        default="auto",
        help="processes to search protocols in, and threads each search simulates its ε "
        "points on: a number, or auto (default: the cores this process may use, at most one "
        "process per protocol, as the Choose ε page does); the answers are the same",
    )


def search_workers(raw: str, protocols: int) -> int:
    """``--workers``: a whole number in [1, 64], or ``auto`` (usable cores, ≤ protocols).

    Examples
    --------
    >>> search_workers("auto", 1), search_workers("3", 5)
    (1, 3)
    """
    if str(raw).strip().lower() == "auto":
        cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
        return max(1, min(cores or 1, protocols))
    return _args.whole(raw, "workers", 1, 64) or 1


def run(args: argparse.Namespace) -> int:
    """Search and print."""
    from ldpcore.advice import choose_epsilon  # noqa: PLC0415 (pandas)
    from ldpcore.advice.targets import accuracy_target, parse_target  # noqa: PLC0415
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415
    from ldpcore.formats import epsilon_interval  # noqa: PLC0415
    from ldpcore.present.epsilon_sentences import interval_note, option_words  # noqa: PLC0415

    if args.target is not None:
        wanted = parse_target(args.target)
    else:
        wanted = accuracy_target(_args.number(args.target_rmse, "target-rmse"), None)
    dataset = _args.dataset(args)
    n = users_for(args.n, dataset)
    # The protocols that apply to this data and question, each searched with the methods
    # that run on it; what is left out is said before the search, in a line each.
    scope = _args.scope(args, dataset, n)
    protocols = scope.protocols
    if args.format != "json":
        for reason in scope.left_out:
            print(f"left out: {reason}", file=sys.stderr)
    config = ExperimentConfig(
        dataset=dataset,
        n=n,
        protocol=protocols[0],
        epsilon=1.0,
        methods=scope.methods_for(protocols[0]),
        query=args.query,
        trials=_args.trials(args.trials),
        seed=_args.seed(args.seed),
    )
    workers = search_workers(args.workers, len(protocols))
    # Threads each search simulates its new ε points on: the cores (or the number given).
    threads = search_workers(args.workers, 64)
    with _args.ProgressLine("searching ε (protocols)") as line:

        def progress(share: float, _protocol: str) -> None:
            line(round(share * len(protocols)), len(protocols))

        if workers > 1:
            from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

            with ProcessPoolExecutor(workers) as pool:
                answers = choose_epsilon(
                    config,
                    target=wanted,
                    protocols=protocols,
                    executor=pool,
                    progress=progress,
                    point_threads=threads,
                    methods=scope.methods,
                )
        else:
            answers = choose_epsilon(
                config,
                target=wanted,
                protocols=protocols,
                progress=progress,
                point_threads=threads,
                methods=scope.methods,
            )
    if args.format == "json":
        _args.print_json(
            {
                "target_rmse": wanted.size if wanted.is_rmse else None,
                "target": wanted.to_json_dict(),
                "n": config.n,
                "left_out": list(scope.left_out),
                "answers": [
                    {**a.to_json_dict(), "interval_note": interval_note(a, config.query)}
                    for a in answers
                ],
            }
        )
        return 0
    print(
        f"target: {wanted.in_words()}; n = {config.n:,}, {args.dataset}, "
        f"query {config.query}, {config.trials} trials"
    )
    for answer in answers:
        exact = answer.base_exact
        helps = answer.post_processing_helps
        source = answer.variance_source
        method = epsilon_interval(
            answer.epsilon,
            answer.epsilon_low,
            answer.epsilon_high,
            exact=exact and not helps,
            source=source,
        )
        base = epsilon_interval(
            answer.base_epsilon,
            answer.base_epsilon_low,
            answer.base_epsilon_high,
            exact=exact,
            source=source,
        )
        print(
            f"{answer.protocol:>4} + {answer.method:<9} {method}   Base: {base}   "
            f"post-processing helps: {'yes' if helps else 'no'}"
        )
        if answer.consistent_option is not None:
            print(f"       option: {option_words(answer.consistent_option)}")
        if note := interval_note(answer, config.query):
            print(f"       note: {note}")
    return 0
