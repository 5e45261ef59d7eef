"""Report files of Local hashing (OLH, BLH): their columns, both ways, and one report in words.

:mod:`ldpcore.collection.formats` registers these functions for the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd
from ldpcore.collection.formats.base import ReportFormat
from ldpcore.protocols.olh import OLH, HashedReports


def columns(protocol: OLH) -> tuple[str, ...]:
    """``seed_a``, ``seed_b`` (uint64): the user's hash ``h_{a,b}``; ``bucket`` in [0, g)."""
    return ("seed_a", "seed_b", "bucket")


def to_frame(protocol: OLH, reports: HashedReports, *, text: bool) -> pd.DataFrame:
    """One row per report: its hash seeds and bucket."""
    import pandas as pd  # noqa: PLC0415

    return pd.DataFrame(
        {"seed_a": reports.multiplier, "seed_b": reports.offset, "bucket": reports.bucket}
    )


def from_frame(protocol: OLH, frame: pd.DataFrame, *, source: str) -> HashedReports:
    """Seeds as exact uint64 (never through floats); buckets in ``[0, g)``."""
    from ldpcore.collection.formats.checks import in_range, whole_numbers  # noqa: PLC0415

    seeds = [whole_numbers(frame[c], source, c, np.uint64) for c in ("seed_a", "seed_b")]
    bucket = whole_numbers(frame["bucket"], source, "bucket", np.int64)
    in_range(bucket, protocol.hash_range, source, "bucket")
    return HashedReports(seeds[0], seeds[1], bucket)


def describe(protocol: OLH, reports: HashedReports, index: int) -> tuple[str, Any]:
    """The hash (its seed, shortened) and the bucket."""
    one = HashedReports(
        reports.multiplier[index : index + 1],
        reports.offset[index : index + 1],
        reports.bucket[index : index + 1],
    )
    seed = f"{int(reports.multiplier[index]) % 10**6:06d}…"
    return f"hash {seed}, bucket {int(reports.bucket[index])}", one


FORMAT = ReportFormat(columns=columns, to_frame=to_frame, from_frame=from_frame, describe=describe)
