"""The ``ldpcore`` command, run as a person runs it: a real subprocess."""

from __future__ import annotations

import subprocess
import sys

COMMAND = [sys.executable, "-m", "ldpcore.cli"]


def ldpcore(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``ldpcore ARGS…``; its exit code, stdout and stderr, never raising."""
    return subprocess.run(
        [*COMMAND, *args], check=False, capture_output=True, text=True, timeout=120
    )
