"""OLH in the live class's browsers: what the randomizer is given, what is accepted.

The randomizer itself is ``ldpcore/live/web/randomizer.js``; the browser tests check it
against the exact channel. :mod:`ldpcore.live.browser` registers these functions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from ldpcore._validation import decimal_text, json_integer
from ldpcore.errors import InputError

if TYPE_CHECKING:
    import pandas as pd
from ldpcore.live.browser.base import BrowserForm
from ldpcore.protocols.olh import OLH


def parameters(protocol: OLH) -> dict[str, Any]:
    """``g`` and ``p``: the browser draws its seeds, hashes, and keeps its bucket with ``p``."""
    return {
        "protocol": protocol.name,
        "d": protocol.domain_size,
        "g": protocol.hash_range,
        "p": float(protocol.p),
    }


def check_row(protocol: OLH, report: Mapping[str, Any]) -> dict[str, Any]:
    """Two 64-bit seeds and a bucket, each only in its declared type.

    The seeds are decimal text (JavaScript numbers cannot hold 64 bits), the bucket a
    JSON number.
    """
    seeds = [decimal_text(report[c]) for c in ("seed_a", "seed_b")]
    bucket = json_integer(report["bucket"])
    g = protocol.hash_range
    if (
        any(s is None or not 0 <= s < 2**64 for s in seeds)
        or bucket is None
        or not (0 <= bucket < g)
    ):
        raise InputError(
            f"an OLH report is two 64-bit seeds and a bucket in [0, {g}); got {dict(report)!r}"
        )
    return {"seed_a": str(seeds[0]), "seed_b": str(seeds[1]), "bucket": bucket}


def rows_frame(protocol: OLH, rows: Sequence[Mapping[str, Any]]) -> pd.DataFrame:
    """The seeds as exact uint64 (they are decimal text in a checked row)."""
    import pandas as pd  # noqa: PLC0415

    return pd.DataFrame(
        {
            "seed_a": np.array([int(r["seed_a"]) for r in rows], dtype=np.uint64),
            "seed_b": np.array([int(r["seed_b"]) for r in rows], dtype=np.uint64),
            "bucket": np.array([int(r["bucket"]) for r in rows], dtype=np.int64),
        }
    )


FORM = BrowserForm(parameters=parameters, check_row=check_row, rows_frame=rows_frame)
