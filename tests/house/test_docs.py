"""Docs a test keeps true: what ARCHITECTURE.md, the README and the site's hand-written
pages (docs/) state about the code is checked against the code, so a change that makes
them wrong fails."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from ldpcore.cli import COMMANDS, parser

ROOT = Path(__file__).resolve().parents[2]
ARCHITECTURE = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The site's pages written by hand (the generated ones come from the code itself).
WRITTEN = {
    path.relative_to(ROOT).as_posix(): path.read_text(encoding="utf-8")
    for path in sorted((ROOT / "docs").rglob("*.md"))
}
#: Everything a person reads about the project: the README first, then the site's pages.
DOCS = {"README.md": README, **WRITTEN}
CORE = WRITTEN["docs/guide/core.md"]
APP = WRITTEN["docs/guide/app.md"]


def _layout_paragraph() -> str:
    start = ARCHITECTURE.index("Measured on this layout")
    return ARCHITECTURE[start : ARCHITECTURE.index("A slider move reaches the core", start)]


def _lines(path: Path) -> int:
    return len(path.read_text(encoding="utf-8").splitlines())


def test_the_layout_s_counts_are_the_code_s() -> None:
    text = " ".join(_layout_paragraph().split())
    core = ROOT / "ldpcore"
    packages = sorted(p for p in core.iterdir() if (p / "__init__.py").exists())
    leaves = [p for p in core.glob("*.py") if p.name != "__init__.py"]
    found = re.search(r"(\d+) packages and (\d+) top-level leaves", text)
    assert found, "the paragraph no longer states the packages and leaves"
    assert (int(found.group(1)), int(found.group(2))) == (len(packages), len(leaves))
    listed = re.search(r"modules per package: (.*?)\. No module in", text)
    assert listed
    stated = {name: int(count) for name, count in re.findall(r"([a-z_]+) (\d+)", listed.group(1))}
    actual = {p.name: len([m for m in p.glob("*.py") if m.name != "__init__.py"]) for p in packages}
    assert stated == actual


def test_the_longest_modules_named_exist_and_the_limit_is_the_tested_one() -> None:
    """The paragraph names real modules and the limit that test_architecture.py holds."""
    part = _layout_paragraph().split("No module in `ldpcore/` is over", 1)[1]
    assert part.startswith(" 600 lines")
    named = set(re.findall(r"`([a-z_]+/[a-z_]+\.py)`", part.split("No page is", 1)[0]))
    # Only paths inside ldpcore/ (a test's path has a folder of the same name).
    named = {n for n in named if (ROOT / "ldpcore" / n.split("/")[0]).is_dir()}
    assert named and all((ROOT / "ldpcore" / name).exists() for name in named), named


def test_no_page_is_over_250_lines() -> None:
    assert "No page is over 250 lines" in ARCHITECTURE
    pages = {p.name: _lines(p) for p in (ROOT / "pages").glob("*.py")}
    assert all(lines <= 250 for lines in pages.values()), pages


def _commands(text: str) -> list[list[str]]:
    """Every ``ldpcore …`` line of a Markdown text's shell blocks, continuations joined:
    ``bash`` blocks (which tests/house/test_shown_commands.py also runs) and ``console``
    transcripts (their ``$`` prompt dropped), where a command needs a state no step makes.
    """
    commands = []
    for block in re.findall(r"```(?:bash|console)\n(.*?)```", text, flags=re.S):
        joined = re.sub(r"\\\n\s*", " ", block)
        for raw in joined.splitlines():
            line = raw.split("  #", 1)[0].strip().removeprefix("$ ")
            if line.startswith("ldpcore "):
                commands.append(shlex.split(line)[1:])
    return commands


@pytest.mark.parametrize(
    ("page", "arguments"),
    [(page, arguments) for page, text in DOCS.items() for arguments in _commands(text)],
    ids=lambda value: value if isinstance(value, str) else value[0],
)
def test_every_command_in_the_docs_parses(page: str, arguments: list[str]) -> None:
    """The README's and the site's examples name real commands and options (argparse
    refuses others)."""
    assert arguments[0] in COMMANDS, page
    parser().parse_args(arguments)


def test_the_readme_shows_every_command() -> None:
    shown = {arguments[0] for arguments in _commands(README)}
    assert shown == set(COMMANDS) - {"poll"}, set(COMMANDS) - shown


def test_the_docs_run_every_command_somewhere() -> None:
    shown = {arguments[0] for text in DOCS.values() for arguments in _commands(text)}
    assert shown == set(COMMANDS), set(COMMANDS) - shown


def test_every_command_s_own_example_parses() -> None:
    """Each subcommand's ``--help`` ends with a worked example; it must run as written."""
    top = parser()
    parsed = 0
    actions = [a for a in top._actions if a.dest == "command"]
    for name, sub in actions[0].choices.items():  # type: ignore[union-attr]
        example = sub.epilog or ""
        joined = re.sub(r"\\\n\s*", " ", example)
        for raw in joined.splitlines():
            line = raw.split("  #", 1)[0].strip()
            if line.startswith("ldpcore "):
                top.parse_args(shlex.split(line)[1:])
                parsed += 1
        assert name in COMMANDS
    assert parsed >= len(COMMANDS) - 2, parsed  # nearly every command shows one


def test_no_test_imports_the_benchmarks() -> None:
    """what tests and benchmarks share is in ``devtools/``; a benchmark is a
    script that prints results, never a library a test depends on."""
    offenders = [
        path.name
        for path in (ROOT / "tests").rglob("*.py")
        if re.search(r"^\s*(from benchmarks\b|import benchmarks\b)", path.read_text(), re.M)
    ]
    assert offenders == []


def test_the_readme_quotes_benchmark_rows_that_exist() -> None:
    """the docs quote a timing by naming its row of the benchmarks' results
    table, not by repeating a figure that goes stale; each named row must exist."""
    table = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    targets = [
        line.split("|")[1].strip()
        for line in table.split("## Every target, where it stands", 1)[1].splitlines()
        if line.startswith("| ") and not line.startswith("| target")
    ]
    quoted = re.findall(r'the "([^"]+)"\s+row', " ".join(" ".join(DOCS.values()).split()))
    assert quoted, "the docs quote no benchmark row"
    for name in quoted:
        assert any(name in target for target in targets), (name, targets)


def _shipped(registry: object) -> set[str]:
    """A registry's names, without the toys ``make test-toys`` adds to it."""
    return {
        name
        for name, cls in registry.items()  # type: ignore[attr-defined]
        if not cls.__module__.startswith("toy_")
    }


def test_the_core_s_page_names_every_protocol_and_method() -> None:
    import ldpcore.postprocess  # noqa: PLC0415 (read at test time: the toys may be in)
    import ldpcore.protocols  # noqa: PLC0415

    start = CORE.index("- `ldpcore.protocols`: the frequency oracles")
    bullet = CORE[start : CORE.index("each with", start)]
    named = set(re.findall(r"\b((?:L-)?[A-Z]{2,5}|dBitFlipPM|Tree[A-Z]{3}|HaarHRR)\b", bullet))
    assert named == _shipped(ldpcore.protocols.PROTOCOLS)
    today = CORE[CORE.index("## What the core holds") : CORE.index("## The fast samplers")]
    missing = {m for m in _shipped(ldpcore.postprocess.METHODS) if m not in today}
    assert not missing, f"docs/guide/core.md's 'What the core holds' does not name {missing}"
    front = {m for m in _shipped(ldpcore.postprocess.METHODS) if m not in README}
    front |= {p for p in _shipped(ldpcore.protocols.PROTOCOLS) if p not in README}
    front -= {"SS", "HR", "SW"}  # the README spells these out
    assert not front, f"the README's table does not name {front}"


WORDS = {
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ninth": 9,
    "ten": 10,
    "tenth": 10,
    "eleventh": 11,
    "thirteen": 13,
    "fourteen": 14,
}


def test_the_docs_counts_of_pages_and_default_methods_are_the_code_s() -> None:
    import ldpcore.postprocess  # noqa: PLC0415
    from pages.app_layer.controls.navigation import PAGES  # noqa: PLC0415

    menu = [page for page in PAGES if page[2].get("visibility") != "hidden"]
    found = re.search(r"`make run` serves (\w+) pages, .*?\(and an? (\w+), the students'", APP)
    assert found, "docs/guide/app.md no longer counts the pages"
    assert (WORDS[found.group(1)], WORDS[found.group(2)]) == (len(menu), len(PAGES))
    shipped = _shipped(ldpcore.postprocess.METHODS)
    by_default = [m for m in ldpcore.postprocess.default_method_names() if m in shipped]
    lines = re.search(r"(\w+) lines are unreadable", APP)
    assert lines and WORDS[lines.group(1)] == len(by_default)


def test_every_cited_benchmark_section_exists() -> None:
    """A sentence that sends a reader to benchmarks/README.md, "X" finds a section X there."""
    table = (ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8")
    headings = {line.lstrip("#").strip() for line in table.splitlines() if line.startswith("##")}
    cited: set[str] = set()
    for folder in ("ldpcore", "pages", "devtools", "benchmarks"):
        for path in (ROOT / folder).rglob("*.py"):
            text = " ".join(path.read_text(encoding="utf-8").split())
            # A string literal continued on the next line: 'Intervals for a ' 'class'.
            text = text.replace("' '", "").replace('" "', "")
            cited.update(re.findall(r'benchmarks/README\.md, "([^"]+)"', text))
    for doc in (ARCHITECTURE, *DOCS.values()):
        cited.update(re.findall(r'benchmarks/README\.md, "([^"]+)"', " ".join(doc.split())))
    assert cited, "nothing cites a benchmark section: the pattern no longer matches"
    missing = {name for name in cited if not any(h.startswith(name) for h in headings)}
    assert not missing, f"cited but not a section of benchmarks/README.md: {missing}"
