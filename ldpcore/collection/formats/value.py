"""Report files of one value in [0, d): columns, both ways, and one report in words.

GRR and any protocol mixing in ``ValueReports``.

:mod:`ldpcore.collection.formats` registers these functions for the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    import pandas as pd

from ldpcore.collection.formats.base import ReportFormat
from ldpcore.protocols.base import ValueReports


def columns(protocol: ValueReports) -> tuple[str, ...]:
    """One column, ``value``: the reported value (int64, in ``[0, d)``)."""
    return ("value",)


def to_frame(protocol: ValueReports, reports: Any, *, text: bool) -> pd.DataFrame:
    """One row per report, its value."""
    import pandas as pd  # noqa: PLC0415

    return pd.DataFrame({"value": np.asarray(reports, dtype=np.int64)})


def from_frame(protocol: ValueReports, frame: pd.DataFrame, *, source: str) -> NDArray[np.int64]:
    """The ``value`` column, whole numbers in ``[0, d)``."""
    from ldpcore.collection.formats.checks import integer_columns  # noqa: PLC0415

    return integer_columns(frame, ("value",), protocol.domain_size, source)[:, 0]


def describe(protocol: ValueReports, reports: Any, index: int) -> tuple[str, Any]:
    """The reported value."""
    array = np.asarray(reports)
    return f"{int(array[index])}", array[index : index + 1]


FORMAT = ReportFormat(columns=columns, to_frame=to_frame, from_frame=from_frame, describe=describe)
