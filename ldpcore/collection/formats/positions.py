"""Report files of the Square Wave: one position in ``[0, d + 2b)`` per report.

:mod:`ldpcore.collection.formats` registers these functions for the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    import pandas as pd

from ldpcore.collection.formats.base import ReportFormat
from ldpcore.protocols.square_wave import SquareWave


def columns(protocol: SquareWave) -> tuple[str, ...]:
    """One column, ``position``: where the report fell (int64, in ``[0, d + 2b)``)."""
    return ("position",)


def to_frame(protocol: SquareWave, reports: Any, *, text: bool) -> pd.DataFrame:
    """One row per report, its position."""
    import pandas as pd  # noqa: PLC0415

    return pd.DataFrame({"position": np.asarray(reports, dtype=np.int64)})


def from_frame(protocol: SquareWave, frame: pd.DataFrame, *, source: str) -> NDArray[np.int64]:
    """The ``position`` column, whole numbers in ``[0, d + 2b)``."""
    from ldpcore.collection.formats.checks import integer_columns  # noqa: PLC0415

    return integer_columns(frame, ("position",), protocol.outputs, source)[:, 0]


def describe(protocol: SquareWave, reports: Any, index: int) -> tuple[str, Any]:
    """The position, and the values whose window holds it."""
    array = np.asarray(reports)
    y = int(array[index])
    low, high = max(0, y - 2 * protocol.b), min(protocol.domain_size - 1, y)
    return f"position {y} (likely for values {low} to {high})", array[index : index + 1]


FORMAT = ReportFormat(columns=columns, to_frame=to_frame, from_frame=from_frame, describe=describe)
