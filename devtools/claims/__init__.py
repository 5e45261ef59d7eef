"""The comparisons the docs state, made from the benchmarks' stored results.

A sentence in the docs that says how a method or mechanism compares ("consistency lowers
the raw tree's error 1.3–4×") is not typed: it sits between two markers,
``<!-- claim: NAME -->`` and ``<!-- /claim -->``, and :data:`CLAIMS` makes its text from
the results a benchmark stored (``benchmarks/results/*.json``), with the setting it was
measured at and, over the benchmark's grid of settings, where it holds and where it
flips. ``tests/house/test_claims.py`` makes every claim again and fails when a sentence
no longer matches its results; ``python -m devtools.claims --write`` writes them after a
benchmark is run again.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

from devtools.claims import (
    advice,
    attacks,
    defences,
    intervals,
    lesson,
    methods,
    papers,
    postprocess,
    range_parts,
    ranges,
    top_k,
)
from devtools.claims.words import ROOT, results

__all__ = ["CLAIMS", "DOCUMENTS", "SETTING_ELSEWHERE", "main", "results", "stated", "write"]

#: The files whose claims are made here (a claim marker anywhere else is not read).
DOCUMENTS = (
    ROOT / "README.md",
    ROOT / "benchmarks" / "README.md",
    *sorted((ROOT / "docs").rglob("*.md")),
)
#: The claims whose setting is said elsewhere than in their sentence, and where.
SETTING_ELSEWHERE: dict[str, str] = {
    **papers.SETTING_ELSEWHERE,
    **range_parts.SETTING_ELSEWHERE,
    **advice.SETTING_ELSEWHERE,
}
_MARKER = re.compile(r"(?<!`)<!-- claim: ([\w.-]+) -->(.*?)<!-- /claim -->", re.S)

#: Claim name → the function that makes its text, from every module's own registry.
CLAIMS: dict[str, Callable[[], str]] = {
    **ranges.CLAIMS,
    **range_parts.CLAIMS,
    **attacks.CLAIMS,
    **defences.CLAIMS,
    **methods.CLAIMS,
    **papers.CLAIMS,
    **postprocess.CLAIMS,
    **top_k.CLAIMS,
    **intervals.CLAIMS,
    **advice.CLAIMS,
    **lesson.CLAIMS,
}


def stated() -> list[tuple[Path, str, str]]:
    """Every claim the docs carry: (file, name, its text as written, whitespace made single)."""
    found = []
    for path in DOCUMENTS:
        for name, text in _MARKER.findall(path.read_text(encoding="utf-8")):
            found.append((path, name, " ".join(text.split())))
    return found


def write() -> int:
    """Write every claim's sentence between its markers; returns how many changed."""
    changed = 0
    for path in DOCUMENTS:
        text = path.read_text(encoding="utf-8")

        def made(match: re.Match[str]) -> str:
            return f"<!-- claim: {match.group(1)} -->{CLAIMS[match.group(1)]()}<!-- /claim -->"

        new = _MARKER.sub(made, text)
        if new != text:
            path.write_text(new, encoding="utf-8")
            changed += 1
    return changed


def main(argv: list[str] | None = None) -> int:
    """Print every claim (``--write``: write them into the docs)."""
    args = sys.argv[1:] if argv is None else argv
    if "--write" in args:
        print(f"{write()} files written")
        return 0
    for name, make in CLAIMS.items():
        print(f"{name}: {make()}\n")
    return 0
