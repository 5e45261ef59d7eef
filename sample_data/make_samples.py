"""Regenerate the bundled datasets in this folder.

Run: ``.venv/bin/python sample_data/make_samples.py``. Deterministic: the files it
writes are byte-identical on every run.
"""

from __future__ import annotations

from pathlib import Path

from ldpcore.datasets import zipf

HERE = Path(__file__).resolve().parent


def write_zipf() -> None:
    """The NDSS paper's synthetic set: Zipf s = 1.5, d = 1024, n = 1,000,000."""
    data = zipf(1024, 1_000_000, s=1.5)
    lines = ["value,count"] + [
        f"{label},{count}" for label, count in zip(data.labels, data.counts, strict=True)
    ]
    (HERE / "zipf.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")


if __name__ == "__main__":
    write_zipf()
