"""Report files of SHE: their columns, both ways, and one report in words.

:mod:`ldpcore.collection.formats` registers these functions for the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    import pandas as pd
from ldpcore.collection.formats.base import ReportFormat
from ldpcore.protocols.she import SHE


def columns(protocol: SHE) -> tuple[str, ...]:
    """``y_0`` … ``y_{d−1}``: the noisy vector, one real per value."""
    return tuple(f"y_{v}" for v in range(protocol.domain_size))


def to_frame(protocol: SHE, reports: Any, *, text: bool) -> pd.DataFrame:
    """One row per report, one column per value (grid numbers, exact in CSV)."""
    import pandas as pd  # noqa: PLC0415

    array = np.asarray(reports, dtype=np.float64)
    frame = pd.DataFrame(array, columns=list(columns(protocol)))
    if text:  # repr round-trips every float64 exactly through CSV
        return frame.map(repr)
    return frame


def from_frame(protocol: SHE, frame: pd.DataFrame, *, source: str) -> NDArray[np.float64]:
    """The ``(n, d)`` real matrix, every cell a finite number."""
    from ldpcore.collection.formats.checks import real_columns  # noqa: PLC0415

    return real_columns(frame, columns(protocol), source)


def describe(protocol: SHE, reports: Any, index: int) -> tuple[str, Any]:
    """The noisy vector, value 0 first, to two decimals."""
    array = np.asarray(reports, dtype=np.float64)
    text = "(" + ", ".join(f"{x:+.2f}" for x in array[index]) + ")"
    return text, array[index : index + 1]


FORMAT = ReportFormat(columns=columns, to_frame=to_frame, from_frame=from_frame, describe=describe)
