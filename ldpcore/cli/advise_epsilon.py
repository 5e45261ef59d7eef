"""``ldpcore advise-epsilon``: each method's own smallest ε for a target (no comparison)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from ldpcore.cli import _args
from ldpcore.cli._args import DATASET_HELP
from ldpcore.cli.simulate import users_for
from ldpcore.protocols import protocol_names
from ldpcore.queries.specs import query_usage

EXAMPLE = """example (top-10 frequencies within ±0.5 percentage points, root-mean-square):
  ldpcore advise-epsilon --protocol OLH,GRR --n 1000000 --dataset zipf:d=1024,s=1.5 \\
      --query topk:k=10 --target-rmse 0.005
"""


def add_search_arguments(
    parser: argparse.ArgumentParser, *, methods: str, trials: str, targets: bool = False
) -> None:
    """The arguments advise-epsilon and choose-epsilon share.

    With ``targets`` the target may also be given in people's words (``--target``).
    """
    parser.add_argument(
        "--protocol", default="all", help=f"all, or P,P,... of {', '.join(protocol_names())}"
    )
    parser.add_argument("--n", help="number of users (default: the dataset's own total)")
    parser.add_argument("--dataset", required=True, help=DATASET_HELP)
    _args.add_total_arguments(parser)
    _args.add_reading_arguments(parser)
    target = parser.add_mutually_exclusive_group(required=True) if targets else parser
    target.add_argument(
        "--target-rmse",
        required=not targets,
        help="root-mean-square error allowed, in frequency units (0.005 = 0.5 pp)",
    )
    if targets:
        target.add_argument(
            "--target",
            help="the target in words: each:X (each value asked about within ±X of the "
            "truth, 95%% of the time, X in frequency units: 0.005 = 0.5 pp), all:X (all of "
            "them at once, 95%% of the time) or rmse:X; add ,level=0.9 for another share",
        )
    parser.add_argument("--query", default="full", help=query_usage())
    parser.add_argument("--methods", default=methods, help=_args.methods_help())
    parser.add_argument("--trials", default=trials)
    parser.add_argument("--seed", default="0")
    parser.add_argument("--format", default="table", choices=["table", "json"])


def add_parser(commands: Any) -> None:
    """Declare the command's arguments."""
    adv = _args.add_command(
        commands,
        "advise-epsilon",
        help="each method's smallest ε for an accuracy target",
        description="For each protocol and method, the smallest ε whose root-mean-square "
        "error on the query is at most the target (with a ±2 SE range). To compare methods "
        "and get a recommendation, use choose-epsilon.",
        example=EXAMPLE,
    )
    add_search_arguments(adv, methods="Base,Norm-Sub,PowerNS", trials="10")


def run(args: argparse.Namespace) -> int:
    """Search and print."""
    from ldpcore.advice import advise_epsilon  # noqa: PLC0415 (pandas: only here)
    from ldpcore.advice.targets import accuracy_target  # noqa: PLC0415
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415

    target = _args.number(args.target_rmse, "target-rmse")
    accuracy_target(target, None)  # checked before anything is said or searched
    dataset = _args.dataset(args)
    n = users_for(args.n, dataset)
    # "all" means every protocol that applies to this data and query, each with the
    # methods that run on it; what is left out is said, not silently dropped.
    scope = _args.scope(args, dataset, n)
    plan, left_out = scope.plan, list(scope.left_out)
    if args.format != "json":
        for line in left_out:
            print(f"left out: {line}", file=sys.stderr)
    configs = [
        ExperimentConfig(
            dataset=dataset,
            n=n,
            protocol=name,
            epsilon=1.0,  # ε: replaced by the search
            methods=chosen,
            query=args.query,
            trials=_args.trials(args.trials),
            seed=_args.seed(args.seed),
        )
        for name, chosen in plan
    ]
    advice = []
    steps = sum(len(config.methods) for config in configs)
    with _args.ProgressLine("searching ε (protocols × methods)") as progress:
        for config in configs:
            before = sum(len(c.methods) for c in configs[: configs.index(config)])

            def report(done: int, _total: int, before: int = before) -> None:
                progress(before + done, steps)

            advice.extend(advise_epsilon(config, target_rmse=target, progress=report))
    records = [
        {
            "protocol": a.protocol,
            "method": a.method,
            "epsilon": a.value,
            "epsilon_low": a.low,
            "epsilon_high": a.high,
            "rmse": a.rmse_at_value,
        }
        for a in advice
    ]
    if args.format == "json":
        _args.print_json({"target_rmse": target, "advice": records, "left_out": left_out})
        return 0
    for record in records:
        if record["epsilon"] is None:
            line = "does not meet the target for any ε up to 10"
        else:
            line = (
                f"ε ≈ {record['epsilon']:.3g} (between {record['epsilon_low']:.3g} and "
                f"{record['epsilon_high']:.3g}: the curve ± t standard errors)"
            )
        print(f"{record['protocol']:>4} + {record['method']:<9} {line}")
    return 0
