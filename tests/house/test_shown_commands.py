"""Every command the README and the tours show runs as written (slow tier).

A reader copies a block into a shell in the checkout after the quick start (`make run`,
`make test`, which CI runs itself): each ``bash`` block of README.md and docs/tours/ is
run line by line, in a fresh folder that holds the checkout's `.venv` and `docs/` (the
example files the commands read), and every line must succeed. A block that needs a
state no step makes (a live class's poll) is written as a ``console`` transcript instead.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SHOWN = [ROOT / "README.md", *sorted((ROOT / "docs" / "tours").glob("*.md"))]
#: The quick start's own commands: run by CI, not again here (`make run` serves forever).
QUICK_START = re.compile(r"^make (run|test)\b")


def _blocks(path: Path) -> list[list[str]]:
    """The command lines of each ``bash`` block, continuations joined, comments cut."""
    blocks = re.findall(r"^```bash\n(.*?)^```", path.read_text(encoding="utf-8"), re.M | re.S)
    found = []
    for block in blocks:
        joined = re.sub(r"\\\n\s*", " ", block)
        lines = [re.sub(r"\s+#.*$", "", line).strip() for line in joined.splitlines()]
        found.append([line for line in lines if line and not line.startswith("#")])
    return found


def test_every_shown_block_is_found() -> None:
    # The blocks this test runs: a doc's commands moved into another kind of block would
    # silently leave it.
    shown = {path.name: _blocks(path) for path in SHOWN}
    assert all(shown.values()), shown
    ldpcore = [line for blocks in shown.values() for b in blocks for line in b if "ldpcore" in line]
    assert len(ldpcore) >= 15, ldpcore


@pytest.mark.slow
@pytest.mark.parametrize("path", SHOWN, ids=lambda p: p.name)
def test_the_commands_a_page_shows_run_as_written(path: Path, tmp_path: Path) -> None:
    (tmp_path / ".venv").symlink_to(ROOT / ".venv")
    (tmp_path / "docs").symlink_to(ROOT / "docs")
    for block in _blocks(path):
        lines = [line for line in block if not QUICK_START.match(line)]
        if not lines:
            continue
        script = "set -e\n" + "\n".join(lines) + "\n"
        ran = subprocess.run(
            ["bash", "-c", script],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            timeout=900,
            check=False,
        )
        assert ran.returncode == 0, (path.name, lines, ran.stderr[-2000:])
