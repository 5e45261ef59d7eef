"""Write the files the README's and the tours' commands read.

Run from the checkout: ``.venv/bin/python docs/examples/make_examples.py``.

``values.csv``: 10,000 users' values on 1,024 values, drawn from Zipf(1.5), seed 0 (what
``ldpcore randomize`` reads: a ``value`` column of 0..d-1). ``support_counts.csv``: the
collected tab's example, OLH support counts at ε = 1 from 10,000 users over the 20 most
populous countries (:func:`ldpcore.collection.estimates.example_collected`).
``sweep.toml`` is written by hand beside them.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ldpcore.collection.estimates import example_collected


def main() -> None:
    """Write ``values.csv`` and ``support_counts.csv`` beside this file."""
    weights = 1 / np.arange(1, 1025) ** 1.5
    values = np.random.default_rng(0).choice(1024, size=10_000, p=weights / weights.sum())
    here = Path(__file__).resolve().parent
    (here / "values.csv").write_text("value\n" + "\n".join(map(str, values)) + "\n")
    (here / "support_counts.csv").write_bytes(example_collected())


if __name__ == "__main__":
    main()
