"""Jupyter notebooks that reproduce what a page of the app shows, with the ldpcore API.

Each page that shows results offers its view as a notebook (``.ipynb``, nbformat 4): the
same configuration, the same calls and the same seed, so running it gives the page's
numbers, and a person can change a line and carry on from there. The notebooks only
call the public API (``ldpcore.run``, ``sweep``, ``choose_epsilon``, ``advice``,
``figures``); nothing in them depends on the app.

The three shapes of view in the app:

- :func:`run_notebook`: one configuration, every method (Explorer, Your data, and the
  group and interval queries);
- :func:`sweep_notebook`: one parameter swept (ε trade-offs, set and top-k queries);
- :func:`choose_epsilon_notebook`: the smallest ε meeting an error target.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
from collections.abc import Sequence
from typing import Any

from ldpcore.advice.targets import AccuracyTarget, accuracy_target
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.postprocess import default_method_names

#: The notebook format written (nbformat 4.5: cells carry ids).
NBFORMAT = (4, 5)


def config_source(config: ExperimentConfig, name: str = "config") -> str:
    """Python that rebuilds ``config`` (fields left at their defaults are omitted).

    Examples
    --------
    >>> config = ExperimentConfig(dataset="zipf:d=64,s=1.5", n=10_000, protocol="OLH",
    ...                           epsilon=1.0, trials=5)
    >>> print(config_source(config))
    config = ExperimentConfig(
        dataset='zipf:d=64,s=1.5',
        n=10000,
        protocol='OLH',
        epsilon=1.0,
        trials=5,
    )
    """
    lines = [f"{name} = ExperimentConfig("]
    # The defaults are the constructor's (it takes specs as text and parses them).
    defaults = inspect.signature(ExperimentConfig).parameters
    for field in dataclasses.fields(ExperimentConfig):
        value = getattr(config, field.name)
        if field.name in {"dataset", "query"}:
            value = str(value)
        default = defaults[field.name].default
        if default is not inspect.Parameter.empty and value == default:
            continue
        if field.name == "methods" and value == default_method_names():
            continue
        if field.name == "params":
            value = dict(value)
            if not value:
                continue
        lines.append(f"    {field.name}={value!r},")
    lines.append(")")
    return "\n".join(lines)


def _cells(title: str, intro: str, steps: Sequence[tuple[str, str]]) -> dict[str, Any]:
    """A notebook of a title cell and (markdown, code) steps, as nbformat would write it."""
    import nbformat  # noqa: PLC0415 - only needed when a notebook is asked for

    notebook = nbformat.v4.new_notebook()
    notebook.metadata["kernelspec"] = {
        "name": "python3",
        "display_name": "Python 3",
        "language": "python",
    }
    notebook.metadata["language_info"] = {"name": "python"}
    cells = [nbformat.v4.new_markdown_cell(f"# {title}\n\n{intro}")]
    for words, code in steps:
        if words:
            cells.append(nbformat.v4.new_markdown_cell(words))
        cells.append(nbformat.v4.new_code_cell(code))
    notebook.cells = cells
    nbformat.validate(notebook)
    result: dict[str, Any] = notebook
    return result


def _bytes(notebook: dict[str, Any]) -> bytes:
    import nbformat  # noqa: PLC0415

    return nbformat.writes(nbformat.from_dict(notebook)).encode()


_INTRO = (
    "Made by the LDP post-processing explorer. The simulation is seeded, so running "
    "this notebook gives the numbers the page showed; change any line and run on. "
    "Needs `ldpcore` (`pip install -e .` in the project)."
)

_COMPARISON = (
    "Every method is compared with Base on the same trials (paired): a method is called "
    "better only when its whole 95% interval for the MSE ratio lies below 1."
)


def run_notebook(config: ExperimentConfig, *, title: str) -> bytes:
    """One configuration, every method: the table, the verdict and the charts."""
    setup = (
        "from ldpcore import ExperimentConfig, run\n"
        "from ldpcore.present import figures\n"
        "from ldpcore.advice import rank_methods\n"
        "from ldpcore.present.sentences import query_in_words, verdict_headline\n\n"
        + config_source(config)
    )
    steps = [
        ("The configuration the page showed.", setup),
        ("Every method's error over the trials.", "result = run(config)\nresult.summary"),
        (
            _COMPARISON,
            (
                "ranking = rank_methods(result, config.build()[1],\n"
                "                       query_words=query_in_words(config.query))\n"
                "print(f'Recommended: {ranking.verdict.recommended}. '\n"
                "      f'{verdict_headline(ranking.verdict)}')"
            ),
        ),
        (
            "Each method's mean squared error against Base's, split into bias² and variance.",
            (
                "figures.error_breakdown(result.summary,\n"
                "                        recommended=ranking.verdict.winner,\n"
                "                        query=query_in_words(config.query))"
            ),
        ),
    ]
    if config.query.whole_domain:
        steps.append(
            (
                "Estimates against the truth, by rank (symmetric-log axis: negative "
                "estimates show).",
                "figures.estimates_by_rank(result.per_item, featured=figures.FEATURED)",
            )
        )
    return _bytes(_cells(title, _INTRO, steps))


def sweep_notebook(
    config: ExperimentConfig,
    parameter: str,
    values: Sequence[Any],
    *,
    title: str,
    x_title: str,
    y_title: str = "MSE",
    y: str = "mse",
    log_x: bool = False,
) -> bytes:
    """One parameter swept: the table, the verdict per point and the curves."""
    setup = (
        "from ldpcore import ExperimentConfig, sweep\n"
        "from ldpcore.present import figures\n"
        "from ldpcore.advice import sweep_verdicts\n"
        "from ldpcore.present.sentences import sweep_headline\n\n"
        + config_source(config)
        + f"\nvalues = {list(values)!r}"
    )
    steps = [
        (f"The configuration the page showed, and the {parameter} values it swept.", setup),
        (
            "Every method at every point (each point's trials are its own).",
            f"frame = sweep(config, {parameter!r}, values)\nframe",
        ),
        (
            _COMPARISON,
            (
                f"found = sweep_verdicts(frame, {parameter!r})\n"
                "print(sweep_headline(found))\nfound.table"
            ),
        ),
        (
            "The curves.",
            (
                f"figures.curves(frame, {parameter!r}, y={y!r}, title={title!r},\n"
                f"               x_title={x_title!r}, y_title={y_title!r}, "
                f"log_x={log_x!r})"
            ),
        ),
    ]
    return _bytes(_cells(title, _INTRO, steps))


def choose_epsilon_notebook(
    config: ExperimentConfig,
    *,
    target_rmse: float | None = None,
    protocols: Sequence[str],
    cadence: tuple[int, int, str] = (1, 365, "day"),
    delta: float = 1e-6,
    distinct_values: int = 1,
    target: AccuracyTarget | None = None,
) -> bytes:
    """The Choose ε search: per protocol, the smallest ε that meets the target.

    Then the chosen ε in context: its central ε after shuffling among the
    config's n users at ``delta``, and what one user spends at ``cadence`` (reports per
    period, periods, the period's name) holding ``distinct_values`` values.
    """
    per_period, periods, period = cadence
    wanted = accuracy_target(target_rmse, target)
    setup = (
        "from ldpcore import ExperimentConfig, choose_epsilon\n"
        "import pandas as pd\n"
        "from ldpcore.advice import winning_answer\n"
        "from ldpcore.advice.targets import parse_target\n"
        "from ldpcore.formats import round_up\n"
        "from ldpcore.present.epsilon_sentences import answers_table, epsilon_sentence\n\n"
        + config_source(config)
        + f"\n# {wanted.in_words()}\ntarget = parse_target({wanted.spec()!r})"
        + f"\nprotocols = {list(protocols)!r}"
    )
    steps = [
        (
            "The question the page asked: the accuracy target and the protocols to search.",
            setup,
        ),
        (
            "The search (adaptive and paired; about as long as the page took).",
            (
                "answers = choose_epsilon(config, target=target, protocols=protocols)\n"
                "print(epsilon_sentence(winning_answer(answers), config.n))\n"
                "answers_table(answers)"
            ),
        ),
        (
            "The chosen ε in context: the central ε its reports reach through a trusted "
            "shuffler (Feldman, McMillan & Talwar, FOCS 2021), what one user spends when "
            "the collection repeats, and the published deployments with their units.",
            (
                "from ldpcore.advice.deployments import deployment_rows\n"
                "from ldpcore.advice.epsilon_context import epsilon_context\n"
                "from ldpcore.present.context_sentences import (\n"
                "    repeated_sentence,\n"
                "    shuffle_sentence,\n"
                ")\n\n"
                "# The ε as the page prints it: rounded up, so that it meets the target.\n"
                "chosen = round_up(winning_answer(answers).epsilon or 1.0)  # 1.0: none met it\n"
                f"context = epsilon_context(chosen, config.n, delta={delta!r}, "
                f"reports_per_period={per_period!r}, periods={periods!r}, "
                f"period={period!r}, distinct_values={distinct_values!r})\n"
                "print(shuffle_sentence(context.shuffled))\n"
                "print(repeated_sentence(context.repeated, context.period))\n"
                "pd.DataFrame(deployment_rows(chosen, context.shuffled))"
            ),
        ),
    ]
    return _bytes(_cells("Choose ε", _INTRO, steps))


def read(data: bytes) -> dict[str, Any]:
    """A notebook's JSON (for tests and tools)."""
    loaded: dict[str, Any] = json.loads(data)
    return loaded


def ranges_notebook(config: ExperimentConfig) -> bytes:
    """Ranges of growing length: flat and hierarchical protocols on the same trials."""
    setup = (
        "from ldpcore import ExperimentConfig\n"
        "from ldpcore.experiments.ranges import run_ranges\n"
        "from ldpcore.present import figures\n"
        "from ldpcore.present.range_sentences import range_headline, range_table\n\n"
        + config_source(config)
    )
    steps = [
        ("The configuration the page showed (its protocol is the flat one).", setup),
        (
            "Every protocol's methods on every range of each length, the same trials.",
            "found = run_ranges(config)\nprint(range_headline(found))\nrange_table(found)",
        ),
        (
            "Error against the range's length.",
            'figures.range_curves(found.frame(), title="Range MSE against length")',
        ),
    ]
    return _bytes(_cells("Ranges of growing length", _INTRO + "\n\n" + _COMPARISON, steps))


__all__ = [
    "choose_epsilon_notebook",
    "config_source",
    "ranges_notebook",
    "read",
    "run_notebook",
    "sweep_notebook",
]
