"""The documentation site's generated pages: each from the one place that already says it.

``mkdocs build`` runs :func:`generate` through the ``gen-files`` plugin (``mkdocs.yml``),
so these pages exist only in the built site and cannot drift from their sources:

- the command reference, from every subcommand's own ``--help``;
- the protocols, methods and query kinds, from their registries' metadata;
- the glossary, from the app's glossary;
- the API, from the docstrings (mkdocstrings reads the modules named here);
- the pages of the app, from the pictures' record (``docs/assets/screens/shots.json``);
- the results, from ``benchmarks/README.md``: its targets table first, then one page per
  benchmark with its command and a chart drawn from its first table of numbers;
- the architecture, from ``ARCHITECTURE.md``.

The tests (``tests/house/test_site.py``) call the same functions, so what they check is
what the site shows.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
BENCHMARKS = ROOT / "benchmarks" / "README.md"
SCREENS_RECORD = ROOT / "docs" / "assets" / "screens" / "shots.json"

#: The API reference: page → (title, the modules it renders from their docstrings). A
#: package with ``__all__`` shows what it exports; the others are read module by module.
API_PAGES: dict[str, tuple[str, tuple[str, ...]]] = {
    "experiments": ("Experiments: ExperimentConfig, run, sweeps", ("ldpcore.experiments",)),
    "protocols": ("Protocols: the frequency oracles and their registry", ("ldpcore.protocols",)),
    "postprocess": ("Post-processing: the methods and their registry", ("ldpcore.postprocess",)),
    "queries": ("Queries: what is asked of an estimate", ("ldpcore.queries.specs",)),
    "data": ("Data: datasets and their specs", ("ldpcore.data.datasets", "ldpcore.data.specs")),
    "advice": ("Advice: choosing ε and a method", ("ldpcore.advice",)),
    "attacks": ("Attacks: fake users and defences", ("ldpcore.attacks",)),
    "collection": (
        "Collection: the client randomizer, report files, aggregation",
        ("ldpcore.collection.clients", "ldpcore.collection.report_files"),
    ),
    "stats": ("Statistics: paired comparisons and verdicts", ("ldpcore.stats.compare",)),
}


def _cell(text: Any) -> str:
    """Text for a Markdown table cell: one line, pipes escaped."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _table(header: list[str], rows: list[list[Any]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(value) for value in row) + " |" for row in rows]
    return "\n".join(lines)


# --- the command reference ---------------------------------------------------------


def command_helps() -> dict[str, str]:
    """Every ``ldpcore`` subcommand's ``--help``, by name, with the top-level one first."""
    import argparse

    from ldpcore.cli import parser

    top = parser()
    helps = {"ldpcore": top.format_help()}
    for action in top._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                helps[name] = sub.format_help()
    return helps


def commands_page() -> str:
    """The command reference: each subcommand's help as the command prints it."""
    parts = [
        "# Every command",
        "",
        "Generated from each subcommand's own `--help` when the site is built: what you "
        "read here is what `ldpcore COMMAND --help` prints.",
        "",
    ]
    for name, text in command_helps().items():
        title = "ldpcore" if name == "ldpcore" else f"ldpcore {name}"
        parts += [f"## `{title}`", "", "```text", text.rstrip(), "```", ""]
    return "\n".join(parts)


# --- the registries ------------------------------------------------------------------


def protocols_page() -> str:
    """The protocols, from :data:`ldpcore.protocols.PROTOCOLS`' metadata."""
    from ldpcore.protocols import PROTOCOLS

    rows = [
        [
            f"`{name}`",
            cls.description,
            cls.good_for or "",
            cls.communication,
            "—" if cls.max_domain is None else f"{cls.max_domain:,}",
            "yes" if cls.ordered_values else "",
            cls.reference,
        ]
        for name, cls in PROTOCOLS.items()
    ]
    header = ["name", "what it does", "good for", "a report", "most values", "ordered", "paper"]
    parameters = [
        f"- `{name}`: " + "; ".join(f"`{p.name}`: {p.described()}" for p in cls.extra_parameters)
        for name, cls in PROTOCOLS.items()
        if cls.extra_parameters
    ]
    return "\n".join(
        [
            "# Protocols",
            "",
            "Generated from the protocol registry (`ldpcore.protocols.PROTOCOLS`): one row "
            "per registered frequency oracle. *Ordered*: a mechanism for ordered values "
            '(ranges, quantiles), left out of "every protocol" on data without an order.',
            "",
            _table(header, rows),
            "",
            "## Their parameters",
            "",
            "Each default is described by the function that computes it.",
            "",
            *parameters,
            "",
        ]
    )


def methods_page() -> str:
    """The post-processing methods, from :data:`ldpcore.postprocess.METHODS`' metadata."""
    from ldpcore.postprocess import METHODS

    rows = [
        [
            f"`{name}`",
            cls.description,
            str(cls.nonnegative.value if hasattr(cls.nonnegative, "value") else cls.nonnegative),
            str(cls.sums_to_one.value if hasattr(cls.sums_to_one, "value") else cls.sums_to_one),
            cls.bias,
            cls.complexity,
            "yes" if cls.by_default else "",
            cls.reference,
        ]
        for name, cls in METHODS.items()
    ]
    header = ["name", "what it does", "≥ 0", "sums to 1", "bias", "cost", "default", "paper"]
    caveats = [f"- `{name}`: {cls.caveat}" for name, cls in METHODS.items() if cls.caveat]
    return "\n".join(
        [
            "# Post-processing methods",
            "",
            "Generated from the method registry (`ldpcore.postprocess.METHODS`): one row "
            "per registered method, in the NDSS paper's Table I order, then the rest.",
            "",
            _table(header, rows),
            "",
            "## What each is careful about",
            "",
            *caveats,
            "",
        ]
    )


def queries_page() -> str:
    """The query kinds, from :data:`ldpcore.queries.specs.QUERY_KINDS`."""
    from ldpcore.queries.specs import QUERY_KINDS

    rows = [
        [
            f"`{kind}`",
            f"`{cls.usage}`",
            (cls.__doc__ or "").strip().splitlines()[0],
            "yes" if cls.reads_order else "",
        ]
        for kind, cls in QUERY_KINDS.items()
    ]
    return "\n".join(
        [
            "# Query kinds",
            "",
            "Generated from the query registry (`ldpcore.queries.specs.QUERY_KINDS`); "
            "`--query` on the command line takes the form in the second column.",
            "",
            _table(["kind", "written", "what it asks", "reads an order"], rows),
            "",
        ]
    )


def glossary_page() -> str:
    """The app's glossary, as the pages and the decision record use it."""
    from ldpcore.present.glossary import GLOSSARY

    entries = [f"**{term}**\n:   {words}\n" for term, words in GLOSSARY.items()]
    return "\n".join(
        [
            "# Glossary",
            "",
            "The words the app says to a person who does not read the papers, generated "
            "from the app's own glossary (`ldpcore.present.glossary`): the pages and the "
            "decision record explain the same terms with the same sentences.",
            "",
            *entries,
        ]
    )


def api_pages() -> dict[str, str]:
    """One page per entry of :data:`API_PAGES`, rendered from its modules' docstrings."""
    pages = {}
    for name, (title, modules) in API_PAGES.items():
        blocks = [
            f"::: {module}\n    options:\n      show_submodules: false\n" for module in modules
        ]
        pages[f"reference/api/{name}.md"] = f"# {title}\n\n" + "\n".join(blocks)
    index = [
        "# Python API",
        "",
        "Generated from the docstrings (numpydoc) by mkdocstrings. The engine needs only "
        "numpy, scipy and pandas: `pip install ldpcore`.",
        "",
        *[f"- [{title}]({name}.md)" for name, (title, _modules) in API_PAGES.items()],
        "",
    ]
    pages["reference/api/index.md"] = "\n".join(index)
    return pages


# --- the pages of the app -----------------------------------------------------------


def screens() -> dict[str, dict[str, Any]]:
    """The pictures' record: name → page title and headings."""
    return json.loads(SCREENS_RECORD.read_text(encoding="utf-8"))


def app_pages_page() -> str:
    """Every page of the app with its picture, in the menu's order."""
    from devtools.screenshots import SHOTS
    from pages.app_layer.controls.navigation import PAGES

    drawn = screens()
    # The captions are the script's (they may be reworded without drawing again); the
    # record says which pictures exist.
    shots = {shot.name: {"title": shot.title, "caption": shot.caption} for shot in SHOTS}
    shots = {name: shot for name, shot in shots.items() if name in drawn}
    parts = [
        "# Every page of the app",
        "",
        "Pictures of the app as `make run` serves it, drawn by `make screenshots` "
        "(`devtools/screenshots.py`) and checked against the app by the browser tier.",
        "",
    ]
    for _path, title, _extra in PAGES:
        shown = [(name, shot) for name, shot in shots.items() if shot["title"] == title]
        parts += [f"## {title}", ""]
        for name, shot in shown:
            parts += [f"![{shot['caption']}](../assets/screens/{name}.png)", "", shot["caption"]]
            parts.append("")
    return "\n".join(parts)


# --- the results ----------------------------------------------------------------------


@dataclass(frozen=True)
class Section:
    """One ``## `` section of benchmarks/README.md: a page of the site's results."""

    title: str
    slug: str
    body: str


def slug(title: str) -> str:
    """A file name for a section title: lower case, words joined by hyphens."""
    words = re.findall(r"[a-z0-9]+", title.lower().replace("ε", "epsilon"))
    return "-".join(words) or "section"


def benchmark_sections(text: str | None = None) -> tuple[str, list[Section]]:
    """benchmarks/README.md split at its ``## `` headings: the opening, and each section."""
    text = BENCHMARKS.read_text(encoding="utf-8") if text is None else text
    pieces = re.split(r"^## (.+)$", text, flags=re.M)
    opening, rest = pieces[0], pieces[1:]
    sections = []
    for title, body in zip(rest[::2], rest[1::2], strict=True):
        sections.append(Section(title.strip(), slug(title), body.strip() + "\n"))
    return opening.replace("# Benchmarks: results", "").strip(), sections


_NUMBER = re.compile(r"[−-]?\d[\d,]*(?:\.\d+)?(?:e[+−-]?\d+)?")


def first_number(cell: str) -> float | None:
    """The first number written in a cell ("1.90 s (1.85–2.18)" → 1.9), or None."""
    found = _NUMBER.search(cell.replace("**", ""))
    if found is None:
        return None
    try:
        return float(found.group().replace(",", "").replace("−", "-"))
    except ValueError:
        return None


def markdown_tables(body: str) -> Iterator[tuple[list[str], list[list[str]]]]:
    """Each pipe table of a Markdown text: its header and its rows of cells."""
    lines = body.splitlines()
    i = 0
    while i < len(lines) - 1:
        if lines[i].startswith("|") and re.match(r"^\|[\s:|-]+\|?\s*$", lines[i + 1]):
            header = [c.strip() for c in lines[i].strip().strip("|").split("|")]
            rows = []
            i += 2
            while i < len(lines) and lines[i].startswith("|"):
                rows.append([c.strip() for c in lines[i].strip().strip("|").split("|")])
                i += 1
            yield header, rows
        else:
            i += 1


def chart_of(body: str) -> dict[str, Any] | None:
    """A Plotly figure of a section's first table of numbers, or None if it has none.

    The first column names the rows; each column whose every cell starts with a number
    (the first number in a cell: a median before its range) is one series, four at most.
    """
    for header, rows in markdown_tables(body):
        if len(rows) < 2 or len(header) < 2:
            continue
        columns = []
        for j in range(1, len(header)):
            values = [first_number(row[j]) if j < len(row) else None for row in rows]
            if all(value is not None for value in values):
                columns.append((header[j], values))
        if not columns:
            continue
        labels = [re.sub(r"[`*]", "", row[0])[:40] for row in rows]
        shown = columns[:4]
        traces = [
            {"type": "bar", "name": re.sub(r"[`*]", "", name), "x": labels, "y": values}
            for name, values in shown
        ]
        positive = [v for _name, values in shown for v in values if v is not None and v > 0]
        # Results often span orders of magnitude (an error by range length): a log axis
        # keeps the small bars visible; the rows are categories even when they are numbers.
        spread = bool(positive) and len(positive) == sum(len(v) for _n, v in shown)
        wide = spread and max(positive) / min(positive) > 100
        return {
            "data": traces,
            "layout": {
                "barmode": "group",
                "height": 380,
                "margin": {"l": 60, "r": 20, "t": 30, "b": 120},
                "legend": {"orientation": "h", "y": 1.12},
                "xaxis": {"type": "category"},
                "yaxis": {
                    "title": {"text": "as in the table's columns"},
                    "type": "log" if wide else "linear",
                },
            },
        }
    return None


def commands_of(body: str) -> list[str]:
    """The commands a section says it was measured with, in order, each once."""
    found = re.findall(
        r"`((?:\.venv/bin/)?(?:python |pytest |ldpcore |make |time make |LDPCORE_)[^`]*"
        r"|\S*(?:bench_\w+|compare_peers)\.py[^`]*"
        r"|tests/\S+::\S+"
        r"|(?:randomize|aggregate|simulate) --[^`]*)`",
        body,
    )
    return list(dict.fromkeys(" ".join(command.split()) for command in found))


def result_pages() -> dict[str, str]:
    """The results section of the site: its index (the targets first), a page each."""
    opening, sections = benchmark_sections()
    pages: dict[str, str] = {}
    index = ["# Results", "", opening, ""]
    for section in sections[:2]:  # the targets and the test tiers lead the index
        index += [f"## {section.title}", "", section.body]
    index += ["## Each benchmark", ""]
    for section in sections[2:]:
        index.append(f"- [{section.title}]({section.slug}.md)")
        lines = [f"# {section.title}", ""]
        commands = commands_of(section.body)
        if commands:
            lines += ["**Measured with:**", "", *[f"- `{c}`" for c in commands], ""]
        figure = chart_of(section.body)
        if figure is not None:
            lines += [
                '<div class="ldp-chart" data-figure=\''
                + json.dumps(figure).replace("'", "&#39;")
                + "'></div>",
                "",
                "*The chart draws the first table below, one bar per cell (the first number "
                "written in it).*",
                "",
            ]
        lines.append(section.body)
        pages[f"results/{section.slug}.md"] = "\n".join(lines)
    pages["results/index.md"] = "\n".join(index) + "\n"
    return pages


# --- everything ---------------------------------------------------------------------


def architecture_page() -> str:
    """ARCHITECTURE.md, as it is in the checkout."""
    return (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")


def research_pages() -> list[tuple[str, str]]:
    """docs/research's notes: (title, path inside the site), by file name."""
    notes = []
    for path in sorted((ROOT / "docs" / "research").glob("*.md")):
        first = path.read_text(encoding="utf-8").splitlines()[0]
        notes.append((first.lstrip("# ").strip(), f"research/{path.name}"))
    return notes


def nav_page() -> str:
    """The site's navigation (literate-nav's SUMMARY.md): hand-written pages, then the
    generated ones, each results page and research note listed as it is found."""
    _opening, sections = benchmark_sections()
    api = [
        f"        - [{title.split(':')[0]}](reference/api/{name}.md)"
        for name, (title, _modules) in API_PAGES.items()
    ]
    lines = [
        "- [Home](index.md)",
        "- Tours",
        "    - [A teacher: a class in 15 minutes](tours/teacher.md)",
        "    - [A stakeholder: choosing ε](tours/stakeholder.md)",
        "    - [An analyst: your own data](tours/analyst.md)",
        "- The app",
        "    - [Every page](app/pages.md)",
        "    - [Using the app](guide/app.md)",
        "    - [Running a live class](guide/class.md)",
        "- The core and the command line",
        "    - [The core and its extras](guide/core.md)",
        "    - [The command line](guide/cli.md)",
        "- Reference",
        "    - [Every command](reference/commands.md)",
        "    - [Protocols](reference/protocols.md)",
        "    - [Post-processing methods](reference/methods.md)",
        "    - [Query kinds](reference/queries.md)",
        "    - [Glossary](reference/glossary.md)",
        "    - [Python API](reference/api/index.md)",
        *api,
        "- [Results](results/index.md)",
        *[f"    - [{section.title}](results/{section.slug}.md)" for section in sections[2:]],
        "- Research notes",
        *[f"    - [{title}]({path})" for title, path in research_pages()],
        "- Development",
        "    - [Layout and development](guide/development.md)",
        "    - [Architecture](architecture.md)",
    ]
    return "\n".join(lines) + "\n"


def generated() -> dict[str, str]:
    """Every generated page: path inside the site's docs → Markdown."""
    pages: dict[str, str] = {
        "reference/commands.md": commands_page(),
        "reference/protocols.md": protocols_page(),
        "reference/methods.md": methods_page(),
        "reference/queries.md": queries_page(),
        "reference/glossary.md": glossary_page(),
        "app/pages.md": app_pages_page(),
        "architecture.md": architecture_page(),
        "SUMMARY.md": nav_page(),
    }
    pages.update(api_pages())
    pages.update(result_pages())
    return pages


def generate(open_file: Callable[..., Any]) -> None:
    """Write every generated page through ``open_file`` (mkdocs-gen-files' ``open``)."""
    for path, text in generated().items():
        with open_file(path, "w") as handle:
            handle.write(text)


def write_assets(open_file: Callable[..., Any]) -> None:
    """Plotly's own script, from the installed plotly: the results' charts draw offline."""
    import plotly

    script = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    with open_file("assets/plotly.min.js", "wb") as handle:
        handle.write(script.read_bytes())
