"""``ldpcore simulate``: one configuration, every method's error (README.md's contract)."""

from __future__ import annotations

import argparse
import dataclasses
import sys
from typing import TYPE_CHECKING, Any

from ldpcore import bounds
from ldpcore.cli import _args
from ldpcore.present.rounds_sentences import PERIODS as ROUND_PERIODS
from ldpcore.present.sentences import not_converged_sentence, settings_line
from ldpcore.protocols import protocol_class, protocol_names

if TYPE_CHECKING:
    from ldpcore.data.specs import DatasetSpec
from ldpcore.queries.specs import query_usage

EXAMPLE = """example:
  ldpcore simulate --protocol OLH --epsilon 1 --n 1000000 \\
      --dataset zipf:d=1024,s=1.5 --methods Base,Norm-Sub,PowerNS --trials 30 --format json
  ldpcore simulate --protocol OUE --epsilon 1 --n 100000 --dataset zipf:d=256 \\
      --attack mga:beta=0.05,targets=3
  ldpcore simulate --protocol L-GRR --epsilon 1 --epsilon-inf 2 --n 10000 \\
      --dataset zipf:d=16 --rounds 365 --methods Base,Norm-Sub --trials 20
"""


def add_parser(commands: Any) -> None:
    """Declare the command's arguments."""
    sim = _args.add_command(
        commands,
        "simulate",
        help="simulate a protocol and compare post-processing methods",
        description="Simulate LDP collection on a dataset and measure every method's error. "
        "--n may be left out for a file or a bundled dataset: its own total is used.",
        example=EXAMPLE,
    )
    sim.add_argument("--protocol", required=True, help=" | ".join(protocol_names()))
    sim.add_argument("--epsilon", required=True, help="privacy budget ε > 0")
    sim.add_argument("--n", help="number of users (default: the dataset's own total)")
    _args.add_protocol_parameter_arguments(sim)
    sim.add_argument("--dataset", required=True, help=_args.DATASET_HELP)
    _args.add_total_arguments(sim)
    _args.add_reading_arguments(sim)
    sim.add_argument("--methods", default="all", help=_args.methods_help())
    sim.add_argument("--query", default="full", help=query_usage())
    sim.add_argument("--trials", default="30", help="independent repetitions (default: 30)")
    sim.add_argument("--seed", default="0", help="the one seed of the run (default: 0)")
    sim.add_argument("--sampler", default="fast", choices=["fast", "per-user"])
    sim.add_argument("--workers", default="1", help="processes to run trials in (default: 1)")
    sim.add_argument("--format", default="table", choices=["table", "json", "csv"])
    sim.add_argument(
        "--attack",
        help="fake users join the collection: KIND:beta=B,targets=R (or fakes=M), KIND one of "
        "rpa (uniform reports), ria (random targets through the randomizer), mga (maximal "
        "gain); pick=rarest for the least frequent targets, or pick=A+B to name them "
        "(labels or 0-based values; default: drawn at random); prints every method's gain "
        "on the targets (with minus without the fake users) instead of its error. On a "
        "tree (TreeOUE, TreeOLH) the targets are one range of R consecutive values, and "
        "aim=consistent points the maximal-gain attack at the consistent tree (default: "
        "the raw tree)",
    )
    sim.add_argument(
        "--rounds",
        help="collect from the same users this many times (1 to "
        f"{bounds.ROUNDS_MAX:,}): what each user spends and each round's and the average's "
        "error, for the protocol, its memoized chain and its one-shot form (exact), then "
        "every method per round and on the average (simulated)",
    )
    sim.add_argument(
        "--period",
        default="day",
        choices=list(ROUND_PERIODS),
        help="with --rounds: what one round is called in the words (default: day)",
    )
    sim.add_argument(
        "--top-k",
        default="10",
        help="with --attack: the k of the top-k query, how many targets each method ranks "
        "among its k largest estimates (default: 10)",
    )


def users_for(raw: str | None, dataset: str | DatasetSpec) -> int:
    """``--n``, or the dataset's own total when it has one (a file or a bundled sample)."""
    if raw is not None:
        return _args.users(raw)
    from ldpcore.data.specs import dataset_total  # noqa: PLC0415

    total = dataset_total(dataset)
    if total is None:
        raise _args.InputError(
            f"--n is required for the synthetic dataset {str(dataset)!r} (it has no total of "
            "its own)"
        )
    return total


def run(args: argparse.Namespace) -> int:
    """Run the simulation and print it in the chosen format."""
    from ldpcore.experiments.config import ExperimentConfig  # noqa: PLC0415 (pandas: only here)
    from ldpcore.experiments.trials import run  # noqa: PLC0415 (pandas: only here)

    dataset = _args.dataset(args)
    config = ExperimentConfig(
        dataset=dataset,
        n=users_for(args.n, dataset),
        protocol=args.protocol,
        epsilon=_args.number(args.epsilon, "epsilon"),
        methods=_args.methods(args.methods, args.protocol),
        query=args.query,
        trials=_args.trials(args.trials),
        seed=_args.seed(args.seed),
        sampler=args.sampler,
        params=_args.protocol_params(args),
    )
    workers = _args.whole(args.workers, "workers", 1, 64) or 1
    if args.attack is not None:
        return _attacked(config, args)
    if args.rounds is not None:
        return _repeated(config, args)
    with _args.ProgressLine("simulating trials") as progress:
        if workers > 1:
            from concurrent.futures import ProcessPoolExecutor  # noqa: PLC0415

            with ProcessPoolExecutor(workers) as pool:
                result = run(config, executor=pool, workers=workers, progress=progress)
        else:
            result = run(config, progress=progress)
    if args.format == "json":
        _args.print_json(result.to_json_dict())
    elif args.format == "csv":
        sys.stdout.write(result.summary.to_csv(index=False, float_format="%.17g"))
    else:
        analytic = result.analytic
        print(settings_line(config))
        print(result.summary.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
        if analytic["base_mse"] is not None:
            source = protocol_class(config.protocol).variance_source
            print(f"analytic Base MSE ({source}): {analytic['base_mse']:.4g}")
        if analytic["lower_bound"] is not None:
            print(f"lower bound (asymptotic, prior-averaged): {analytic['lower_bound']:.4g}")
    for record in result.summary.to_dict("records"):
        if record["converged"] < 1:  # never a silent cap
            sentence = not_converged_sentence(record["method"], 1 - record["converged"])
            print(f"warning: {sentence}", file=sys.stderr)
    return 0


def _repeated(config: Any, args: argparse.Namespace) -> int:
    """``--rounds``: the plans for collecting again and again (exact), then the simulation."""
    from ldpcore._json import json_value  # noqa: PLC0415
    from ldpcore.advice.longitudinal import (  # noqa: PLC0415
        ATTACK_DOMAIN_MAX,
        averaging_attack,
        collection_plans,
    )
    from ldpcore.experiments.rounds import run_rounds  # noqa: PLC0415 (pandas)
    from ldpcore.present.rounds_sentences import (  # noqa: PLC0415
        attack_rounds,
        averaging_words,
        no_attack_words,
        plans_frame,
        plans_words,
        rounds_run_words,
    )

    rounds = _args.whole(args.rounds, "rounds", bounds.ROUNDS_MIN, bounds.ROUNDS_MAX) or 1
    data, protocol = config.dataset.build(config.n), config.oracle()  # no query needed
    plans = collection_plans(protocol, data.frequencies(), data.n, rounds)
    with _args.ProgressLine(f"simulating {rounds:,} rounds per trial"):
        result = run_rounds(config, rounds)
        attack = (
            averaging_attack(plans, attack_rounds(rounds), seed=config.seed)
            if protocol.domain_size <= ATTACK_DOMAIN_MAX
            else []
        )
    if args.format == "json":
        table = plans_frame(plans)
        _args.print_json(
            {
                **result.to_json_dict(),
                "plans": [
                    {
                        "plan": plan.label,
                        "protocol": str(plan.protocol),
                        # null where a plan has no bound (JSON has no infinity)
                        **{
                            key: json_value(value)
                            for key, value in (
                                ("epsilon_per_report", plan.per_report),
                                ("epsilon_after_rounds", plan.spent),
                                ("epsilon_bound", plan.bound),
                                ("round_error", plan.round_error),
                                ("average_error", plan.average_error),
                            )
                        },
                    }
                    for plan in plans
                ],
                "plans_table": table.to_dict("records"),
                "averaging_attack": [
                    {key: json_value(value) for key, value in dataclasses.asdict(row).items()}
                    for row in attack
                ],
            }
        )
    elif args.format == "csv":
        sys.stdout.write(result.summary.to_csv(index=False, float_format="%.17g"))
    else:
        print(settings_line(config))
        print("\n".join(plans_words(plans, n=data.n, period=args.period)))
        print(plans_frame(plans).to_string(index=False))
        if attack:
            print(averaging_words(attack, period=args.period))
        elif protocol.domain_size <= ATTACK_DOMAIN_MAX:
            print(no_attack_words(plans))
        else:
            print(
                f"(The averaging attack is simulated on at most {ATTACK_DOMAIN_MAX:,} values; "
                f"this domain has {protocol.domain_size:,}.)"
            )
        print()
        print(rounds_run_words(result))
        print(result.summary.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    return 0


def _attacked(config: Any, args: argparse.Namespace) -> int:
    """``--attack``: every method's gain on the targets, against Base on the same trials."""
    from ldpcore.attacks import parse_attack  # noqa: PLC0415
    from ldpcore.experiments.poisoning import run_attack  # noqa: PLC0415 (pandas)
    from ldpcore.present.attack_sentences import attack_sentence  # noqa: PLC0415

    attack = parse_attack(args.attack)
    top_k = _args.whole(args.top_k, "top-k", 1, bounds.DOMAIN_SIZE_MAX) or 10
    result = run_attack(config, attack, top_k=top_k)
    if args.format == "json":
        _args.print_json({"config": config.to_dict(), **result.to_json_dict()})
    elif args.format == "csv":
        sys.stdout.write(result.summary.to_csv(index=False, float_format="%.17g"))
    else:
        print(settings_line(config))
        print(attack_sentence(result))
        print(result.summary.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
    return 0


assert bounds.TRIALS_MIN >= 1
