"""Report files of the Haar wavelet: a level, a Hadamard row and a bit per report.

:mod:`ldpcore.collection.formats` registers these functions for the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

from ldpcore.collection.formats.base import ReportFormat
from ldpcore.errors import InputError
from ldpcore.protocols.haar import HaarHRR, HaarReports


def columns(protocol: HaarHRR) -> tuple[str, ...]:
    """``level`` (1 … h), ``row`` (in ``[0, 2^(level − 1))``) and ``bit`` (+1 or −1)."""
    return ("level", "row", "bit")


def to_frame(protocol: HaarHRR, reports: HaarReports, *, text: bool) -> pd.DataFrame:
    """One row per report."""
    import pandas as pd  # noqa: PLC0415

    return pd.DataFrame({"level": reports.levels, "row": reports.rows, "bit": reports.bits})


def from_frame(protocol: HaarHRR, frame: pd.DataFrame, *, source: str) -> HaarReports:
    """The three columns, each checked against the protocol's levels and rows."""
    from ldpcore.collection.formats.checks import in_range, whole_numbers  # noqa: PLC0415

    levels = whole_numbers(frame["level"], source, "level", np.int64)
    rows = whole_numbers(frame["row"], source, "row", np.int64)
    bits = whole_numbers(frame["bit"], source, "bit", np.int64)
    in_range(levels - 1, protocol.height, source, "level − 1")
    if rows.size and (rows.min() < 0 or np.any(rows >= np.left_shift(1, levels - 1))):
        raise InputError(
            f"wrong report format in {source}: a row must be below 2^(level − 1) (check "
            "--domain-size and the protocol)"
        )
    if bits.size and not np.all(np.abs(bits) == 1):
        raise InputError(f"wrong report format in {source}: bit must be 1 or -1")
    return HaarReports(levels, rows, bits)


def describe(protocol: HaarHRR, reports: HaarReports, index: int) -> tuple[str, Any]:
    """The level, row and bit."""
    one = HaarReports(
        reports.levels[index : index + 1],
        reports.rows[index : index + 1],
        reports.bits[index : index + 1],
    )
    level, row, bit = int(one.levels[0]), int(one.rows[0]), int(one.bits[0])
    return f"level {level}, row {row}, bit {bit:+d}", one


FORMAT = ReportFormat(columns=columns, to_frame=to_frame, from_frame=from_frame, describe=describe)
