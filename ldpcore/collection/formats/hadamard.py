"""Report files of Hadamard Response: their columns, both ways, and one report in words.

:mod:`ldpcore.collection.formats` registers these functions for the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    import pandas as pd

from ldpcore.collection.formats.base import ReportFormat
from ldpcore.protocols.hadamard import HadamardResponse


def columns(protocol: HadamardResponse) -> tuple[str, ...]:
    """``row`` (int64): the reported Hadamard row, in ``[0, K)``."""
    return ("row",)


def to_frame(protocol: HadamardResponse, reports: Any, *, text: bool) -> pd.DataFrame:
    """One row per report, the row index."""
    import pandas as pd  # noqa: PLC0415

    return pd.DataFrame({"row": np.asarray(reports, dtype=np.int64)})


def from_frame(
    protocol: HadamardResponse, frame: pd.DataFrame, *, source: str
) -> NDArray[np.int64]:
    """Row indices in ``[0, K)``."""
    from ldpcore.collection.formats.checks import integer_columns  # noqa: PLC0415

    return integer_columns(frame, ("row",), protocol.order, source)[:, 0]


def describe(protocol: HadamardResponse, reports: Any, index: int) -> tuple[str, Any]:
    """The row index."""
    array = np.asarray(reports)
    return f"row {int(array[index])}", array[index : index + 1]


FORMAT = ReportFormat(columns=columns, to_frame=to_frame, from_frame=from_frame, describe=describe)
