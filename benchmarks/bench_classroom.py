"""A class on one server: N sessions open the Explorer and move ε, at the same moment.

Run: ``.venv/bin/python -m benchmarks.bench_classroom [--sessions 1 10 30]``. What it
measures and how: :mod:`devtools.classroom`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from devtools.classroom import HEADER, measure
from devtools.serving import ROOT


def main(argv: Sequence[str] | None = None) -> None:
    """Measure and print the results table (and save it as JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, nargs="+", default=[1, 10, 30])
    parser.add_argument("--json", type=Path, default=ROOT / "test-artifacts" / "classroom.json")
    args = parser.parse_args(argv)
    phases = measure(args.sessions, ROOT / "test-artifacts" / "classroom-server.log")
    print(HEADER)
    for phase in phases:
        print(phase.row())
    args.json.parent.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = [phase.__dict__ for phase in phases]
    args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
