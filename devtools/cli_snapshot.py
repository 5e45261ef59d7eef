"""Seeded JSON outputs of the CLI's answering commands, to compare a refactor before and after.

``python -m devtools.cli_snapshot OUT_DIR`` writes one file per command; compare two such
folders with ``diff -r -I '^- mode: quick'`` (a report's run time in seconds differs
from run to run): a move that changes no behaviour leaves them otherwise identical.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

COMMANDS: dict[str, list[str]] = {
    "simulate-olh": [
        "simulate",
        "--protocol",
        "OLH",
        "--epsilon",
        "1",
        "--n",
        "20000",
        "--dataset",
        "zipf:d=64,s=1.1",
        "--trials",
        "8",
        "--seed",
        "3",
        "--format",
        "json",
    ],
    "simulate-she": [
        "simulate",
        "--protocol",
        "SHE",
        "--epsilon",
        "2",
        "--n",
        "5000",
        "--dataset",
        "zipf:d=32,s=1",
        "--trials",
        "5",
        "--seed",
        "4",
        "--format",
        "json",
        "--query",
        "topk:k=4",
    ],
    "simulate-attack": [
        "simulate",
        "--protocol",
        "OUE",
        "--epsilon",
        "1",
        "--n",
        "5000",
        "--dataset",
        "zipf:d=32,s=1",
        "--trials",
        "4",
        "--seed",
        "5",
        "--format",
        "json",
        "--attack",
        "mga:beta=0.05,targets=2",
    ],
    "simulate-rounds": [
        "simulate",
        "--protocol",
        "L-OSUE",
        "--epsilon",
        "1",
        "--n",
        "5000",
        "--dataset",
        "zipf:d=16,s=1",
        "--trials",
        "4",
        "--seed",
        "6",
        "--format",
        "json",
        "--rounds",
        "3",
    ],
    "choose-epsilon": [
        "choose-epsilon",
        "--protocol",
        "GRR,OUE,HR",
        "--dataset",
        "zipf:d=32,s=1.1",
        "--n",
        "20000",
        "--target-rmse",
        "0.01",
        "--trials",
        "6",
        "--seed",
        "7",
        "--format",
        "json",
    ],
    "recommend": [
        "recommend",
        "--protocol",
        "OUE",
        "--epsilon",
        "1",
        "--n",
        "10000",
        "--input",
        "{estimates}",
        "--trials",
        "6",
        "--seed",
        "8",
        "--format",
        "json",
    ],
}


def main(out: Path) -> int:
    """Write each command's stdout, and ``reproduce all --quick``'s reports, under ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    estimates = out / "estimates.csv"
    estimates.write_text(
        "value,estimate\n" + "".join(f"v{i},{0.3 / (i + 1) - 0.01 * (i % 3)}\n" for i in range(20))
    )
    for name, args in COMMANDS.items():
        argv = [a.replace("{estimates}", str(estimates)) for a in args]
        done = subprocess.run(
            [sys.executable, "-m", "ldpcore.cli", *argv],
            capture_output=True,
            text=True,
            check=False,
        )
        (out / f"{name}.json").write_text(done.stdout + done.stderr + f"\nexit {done.returncode}\n")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "ldpcore.cli",
            "reproduce",
            "all",
            "--quick",
            "--no-png",
            "--out",
            str(out / "reproduce"),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    for html in (out / "reproduce").rglob("figure.html"):
        html.unlink()  # plotly writes a random div id: the data and reports are what count
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
