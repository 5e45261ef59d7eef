"""The ``ldpcore`` command lines that reproduce what the app shows.

One place turns a configuration into arguments, for the pages' downloads and the
Choose ε decision record.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence

from ldpcore.advice.targets import AccuracyTarget, accuracy_target
from ldpcore.data.specs import ExplicitCounts, FileData
from ldpcore.data.totals import TOTAL_FLAGS
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.postprocess import default_method_names
from ldpcore.queries.specs import QuerySpec


def _arguments(config: ExperimentConfig, query: str | QuerySpec) -> list[str]:
    """``--dataset … --seed …`` for a configuration (the options both commands share)."""
    methods = ",".join(config.methods) if config.methods != default_method_names() else "all"
    # A spec as its canonical text; counts by their file's name (file:PATH) or, for
    # sample data a page picked, by the bundled name.
    dataset = str(config.dataset)
    if isinstance(config.dataset, ExplicitCounts):
        dataset = config.dataset.command_text()
    # What was done with the file's total row, so the command reads the file the same way.
    total = config.dataset.total if isinstance(config.dataset, ExplicitCounts | FileData) else None
    # And how it was read (its columns, header, order), so it gives the page's numbers.
    read = config.dataset.reading if isinstance(config.dataset, ExplicitCounts | FileData) else None
    parts = [
        "--dataset",
        dataset,
        *([TOTAL_FLAGS[total]] if total in TOTAL_FLAGS else []),
        *(read.flags() if read is not None else []),
        "--n",
        str(config.n),
        "--query",
        str(query),
        "--methods",
        methods,
        "--trials",
        str(config.trials),
        "--seed",
        str(config.seed),
    ]
    for name, value in dict(config.params).items():  # the protocol's own (--g, --epsilon-inf)
        parts += [
            "--" + name.replace("_", "-"),
            f"{value:g}" if isinstance(value, float) else str(value),
        ]
    return parts


def simulate_command(
    config: ExperimentConfig,
    *,
    query: str | None = None,
    rounds: int | None = None,
    period: str = "day",
) -> str:
    """The ``ldpcore simulate`` command that reproduces a configuration.

    ``query`` asks another query than the configuration's; ``rounds`` collects from the
    same users that many times (``--rounds``), a round called ``period``.

    Examples
    --------
    >>> print(simulate_command(ExperimentConfig(dataset="zipf:d=64,s=1.5", n=10_000,
    ...                                         protocol="OLH", epsilon=1.0, trials=5)))
    ldpcore simulate --protocol OLH --epsilon 1 --dataset zipf:d=64,s=1.5 --n 10000 --query full --methods all --trials 5 --seed 0 --format json
    """  # noqa: E501
    parts = [
        "ldpcore",
        "simulate",
        "--protocol",
        config.protocol,
        "--epsilon",
        f"{config.epsilon:g}",
        *_arguments(config, query or config.query),
        *([] if rounds is None else ["--rounds", str(rounds), "--period", period]),
        "--format",
        "json",
    ]
    return " ".join(shlex.quote(part) for part in parts)


def choose_epsilon_command(
    config: ExperimentConfig,
    *,
    target_rmse: float | None = None,
    protocols: Sequence[str],
    target: AccuracyTarget | None = None,
    methods: Sequence[str] | None = None,
) -> str:
    """The ``ldpcore choose-epsilon`` command that asks the same question.

    ``methods`` are those searched (default: ``config``'s); each protocol runs those that
    run on it, as the page's search did.
    """
    wanted = accuracy_target(target_rmse, target)
    # The search's methods as a list, never "all": the ones chosen.
    listed = None if methods is None else ",".join(dict.fromkeys(methods))
    asked = ["--target-rmse", f"{wanted.size:g}"] if wanted.is_rmse else ["--target", wanted.spec()]
    parts = [
        "ldpcore",
        "choose-epsilon",
        "--protocol",
        ",".join(protocols),
        *_with_methods(_arguments(config, config.query), listed),
        *asked,
        "--format",
        "json",
    ]
    return " ".join(shlex.quote(part) for part in parts)


def _with_methods(arguments: list[str], methods: str | None) -> list[str]:
    """``arguments`` with ``--methods`` set to ``methods`` (unchanged for None)."""
    if methods is not None:
        arguments[arguments.index("--methods") + 1] = methods
    return arguments


def collected_commands(
    source: str,
    settings: dict[str, object],
    *,
    method: str,
    query: str | QuerySpec,
) -> tuple[str, str]:
    """The ``ldpcore recommend`` and ``ldpcore postprocess`` commands for a collected file.

    ``settings`` are the form's (``kind``, ``protocol``, ``epsilon``, ``n``, and the
    protocol's own ``params``); ``source`` is the file's name, as the person saved it.

    Examples
    --------
    >>> settings = {"kind": "counts", "protocol": "OLH", "epsilon": 1.0, "n": 10_000}
    >>> for line in collected_commands("my counts.csv", settings, method="Norm-Sub",
    ...                                query="topk:k=3"):
    ...     print(line)
    ldpcore recommend --protocol OLH --epsilon 1 --n 10000 --input 'my counts.csv' --input-kind counts --query topk:k=3
    ldpcore postprocess --protocol OLH --epsilon 1 --n 10000 --input 'my counts.csv' --input-kind counts --method Norm-Sub --interval 0.95
    """  # noqa: E501
    shared = [
        "--protocol",
        str(settings["protocol"]),
        "--epsilon",
        f"{float(settings['epsilon']):g}",  # type: ignore[arg-type]
        "--n",
        str(settings["n"]),
        "--input",
        source,
        "--input-kind",
        str(settings["kind"]),
    ]
    total = settings.get("total")
    if total in TOTAL_FLAGS:
        shared.append(TOTAL_FLAGS[str(total)])
    for name, value in dict(settings.get("params") or {}).items():  # type: ignore[call-overload]
        shared += ["--" + name.replace("_", "-"), f"{value:g}"]
    ranked = ["ldpcore", "recommend", *shared, "--query", str(query)]
    cleaned = ["ldpcore", "postprocess", *shared, "--method", method, "--interval", "0.95"]
    return " ".join(shlex.quote(p) for p in ranked), " ".join(shlex.quote(p) for p in cleaned)


__all__ = ["choose_epsilon_command", "collected_commands", "simulate_command"]
