"""The ``ldpcore`` command, run as a person runs it: a real subprocess."""

from __future__ import annotations

import shlex
import subprocess
import sys
from pathlib import Path

COMMAND = [sys.executable, "-m", "ldpcore.cli"]


def ldpcore(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``ldpcore ARGS…``; its exit code, stdout and stderr, never raising."""
    return subprocess.run(
        [*COMMAND, *args], check=False, capture_output=True, text=True, timeout=120
    )


def run_shown(line: str, *, cwd: Path, timeout: int = 300) -> subprocess.CompletedProcess[str]:
    """Run a command line a page shows (``ldpcore …``), pasted as a person would, in ``cwd``."""
    return subprocess.run(
        [*COMMAND, *shlex.split(line)[1:]],
        cwd=cwd,
        check=False,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
