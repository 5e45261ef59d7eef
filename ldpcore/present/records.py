"""The Choose ε decision record: one self-contained HTML page a stakeholder can file.

It holds what was asked (dataset, users, query, target, what was searched), the answer
with its interval, every protocol's answer, the error-against-ε chart (Plotly, inlined,
so the file opens offline), what the chosen ε risks for one person, its central ε
after shuffling and its cost over repeated collection, how the numbers were made, and
the command that reproduces them.
"""

from __future__ import annotations

import datetime as _dt
import html
import re
from collections.abc import Sequence

import pandas as pd
import plotly.graph_objects as go

from ldpcore.advice import EpsilonAnswer, winning_answer
from ldpcore.advice.deployments import UNCHECKED_NOTE, context_sentence, deployment_rows
from ldpcore.advice.epsilon_context import EpsilonContext
from ldpcore.advice.longitudinal import CollectionPlan
from ldpcore.advice.shuffling import ShuffleBound
from ldpcore.advice.targets import AccuracyTarget, accuracy_target
from ldpcore.attacks.reach import TopKQuestion
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.present.commands import choose_epsilon_command
from ldpcore.present.context_sentences import (
    SHUFFLE_TERMS,
    odds_sentence,
    repeated_sentence,
    shuffle_sentence,
)
from ldpcore.present.epsilon_sentences import answers_table, epsilon_sentence, interval_note
from ldpcore.present.glossary import GLOSSARY, terms_in
from ldpcore.present.rounds_sentences import plans_frame, plans_words
from ldpcore.present.run_sentences import fake_users_caption, top_k_question_words
from ldpcore.present.tables import fake_users_table, risk_table

_STYLE = """
body { font-family: system-ui, sans-serif; max-width: 60rem; margin: 2rem auto; color: #222;
       line-height: 1.45; padding: 0 1rem; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
table { border-collapse: collapse; margin: 0.5rem 0; } th, td { border: 1px solid #ccc;
        padding: 0.3rem 0.6rem; text-align: left; vertical-align: top; }
.answer { background: #e8f5e9; border-left: 4px solid #2e7d32; padding: 0.8rem 1rem; }
code, pre { background: #f4f4f4; padding: 0.2rem 0.4rem; white-space: pre-wrap; }
.small { color: #555; font-size: 0.9rem; }
"""


def decision_record(
    *,
    config: ExperimentConfig,
    query_words: str,
    target_rmse: float | None = None,
    protocols: Sequence[str],
    answers: Sequence[EpsilonAnswer],
    figure: go.Figure | None,
    risk: pd.DataFrame | None,
    risk_epsilon: float | None,
    context: EpsilonContext | None = None,
    today: _dt.date | None = None,
    target: AccuracyTarget | None = None,
    plans: tuple[Sequence[CollectionPlan], str] | None = None,
    fakes: TopKQuestion | None = None,
    methods: Sequence[str] | None = None,
) -> str:
    """The record as one HTML document (UTF-8 text; the chart's script is inlined).

    ``context`` is ``risk_epsilon`` shuffled among the config's n users and collected at
    the page's cadence; the record then states both figures, and compares the central
    deployments with the shuffled ε. ``plans`` are the ways to collect at that cadence
    (:func:`ldpcore.advice.longitudinal.collection_plans`) and what a round is called.
    ``fakes`` is the page's fake-user question, filed with its words and table as shown.
    ``methods`` are the methods searched (default: ``config``'s), for its command.
    """
    wanted = accuracy_target(target_rmse, target)
    winner = winning_answer(answers)
    note = html.escape(interval_note(winner, config.query))  # "" where the interval covers
    when = (today or _dt.date.today()).isoformat()
    inputs = pd.DataFrame(
        {
            "input": [
                "dataset",
                "users n",
                "query that matters",
                "accuracy target",
                "protocols searched",
                "methods searched",
                "trials per point",
                "seed",
            ],
            "value": [
                config.dataset,
                f"{config.n:,}",
                query_words,
                wanted.in_words(),
                ", ".join(protocols),
                ", ".join(config.methods),
                str(config.trials),
                str(config.seed),
            ],
        }
    )
    parts = [
        "<!doctype html>",
        '<html lang="en"><head><meta charset="utf-8">',
        "<title>Decision record: choosing ε</title>",
        f"<style>{_STYLE}</style></head><body>",
        "<h1>Decision record: choosing the privacy budget ε</h1>",
        f'<p class="small">Made on {html.escape(when)} with the LDP post-processing '
        "explorer (ldpcore). Each number below is exact where it says so (with the formula "
        "it comes from, NDSS Eq. 3 for a flat protocol's Base) and "
        "otherwise simulated and seeded: the command at the end reproduces it.</p>",
        "<h2>What was asked</h2>",
        inputs.to_html(index=False, escape=True, border=0),
        "<h2>The answer</h2>",
        f'<p class="answer" id="answer">{html.escape(epsilon_sentence(winner, config.n))}</p>',
        f'<p class="small" id="interval-note">{note}</p>' if note else "",
        "<h2>Every protocol</h2>",
        answers_table(answers).to_html(index=False, escape=True, border=0),
        '<p class="small">Each ε with its 95% interval: where the simulated error curve '
        "crosses the target. Base and every method are simulated on the same trials; a "
        "method is credited only when it is significantly more accurate than Base (paired, "
        "simultaneous over the methods searched) and its ε interval lies below Base's.</p>",
    ]
    if figure is not None:
        parts += [
            "<h2>Error against ε</h2>",
            figure.to_html(full_html=False, include_plotlyjs=True, div_id="error-against-epsilon"),
        ]
    if fakes is not None:
        parts += [
            '<h2 id="fake-users">How many fake users would push a rare value into the top '
            f"{fakes.k}?</h2>",
            f"<p>{html.escape(top_k_question_words(fakes))}</p>",
            fake_users_table(fakes).to_html(index=False, escape=True, border=0),
            f'<p class="small">{html.escape(fake_users_caption(fakes))}</p>',
        ]
    if risk is not None and risk_epsilon is not None:
        shown = risk_table(risk.to_dict("records"))
        # The same words as the page, markdown bold turned into HTML.
        odds = html.escape(odds_sentence(risk_epsilon)).replace("**", "")
        parts += [
            f"<h2>What ε = {risk_epsilon:g} means for one person</h2>",
            f"<p>{odds}</p>",
            "<p>The best possible attacker, who knows this dataset's distribution and the "
            "protocol, guesses a person's value from their report this often:</p>",
            shown.to_html(index=False, escape=True, border=0),
        ]
        if context is not None:
            parts += [
                "<h3>After shuffling, and over repeated collection</h3>",
                f'<p id="shuffled">{html.escape(shuffle_sentence(context.shuffled))}</p>',
                f'<p class="small">{html.escape(SHUFFLE_TERMS)}</p>',
                f'<p id="repeated">{html.escape(repeated_sentence(context.repeated, context.period))}</p>',  # noqa: E501
            ]
        if plans is not None:
            found, word = plans
            said = plans_words(found, n=config.n, period=word)
            parts += [
                '<h3 id="collecting-again">Collected again and again</h3>',
                f"<p>{html.escape(said[0])}</p>",
                "<ul>",
                *(f"<li>{html.escape(sentence)}</li>" for sentence in said[1:]),
                "</ul>",
                plans_frame(found).to_html(index=False, escape=True, border=0),
            ]
        parts += [
            "<h3>ε in context: published deployments</h3>",
            f"<p>{html.escape(context_sentence(risk_epsilon))}</p>",
            _deployments_html(risk_epsilon, None if context is None else context.shuffled),
            f'<p class="small">{html.escape(UNCHECKED_NOTE)}</p>',
        ]
    # The terms the record uses, in plain words: a record is read by people who were
    # not at the page. The chart's script is left out of the search.
    readable = "\n".join(part for part in parts if "<script" not in part)
    words = terms_in(html.unescape(re.sub(r"<[^>]+>", " ", readable)))
    if words:
        parts += [
            '<h2 id="terms">What these words mean</h2>',
            "<dl>",
            *(
                f"<dt>{html.escape(term)}</dt><dd>{html.escape(GLOSSARY[term])}</dd>"
                for term in words
            ),
            "</dl>",
        ]
    parts += [
        "<h2>Reproduce</h2>",
        f"<pre><code>{html.escape(choose_epsilon_command(config, target=wanted, protocols=protocols, methods=methods))}</code></pre>",  # noqa: E501
        "</body></html>",
    ]
    return "\n".join(parts)


def _deployments_html(epsilon: float, shuffled: ShuffleBound | None) -> str:
    """The deployments table, each source a link.

    Escaped although the text is ours: a record is a file people forward.
    """
    head = ("organisation", "use", "ε", "δ", "model", "unit", "compared with yours", "source")
    lines = ["<table>", "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"]
    for row in deployment_rows(epsilon, shuffled):
        cells = [html.escape(f"{row[h]:g}" if h == "ε" else str(row[h])) for h in head[:-1]]
        link = f'<a href="{html.escape(str(row["link"]))}">{html.escape(str(row["source"]))}</a>'
        lines.append("<tr>" + "".join(f"<td>{c}</td>" for c in [*cells, link]) + "</tr>")
    lines.append("</table>")
    return "\n".join(lines)


__all__ = ["decision_record"]
