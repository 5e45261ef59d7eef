"""Report files of unary encoding: their columns, both ways, and one report in words.

OUE, SUE, THE and the memoized chains.

:mod:`ldpcore.collection.formats` registers these functions for the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

if TYPE_CHECKING:
    import pandas as pd

from ldpcore.collection.formats.base import ReportFormat
from ldpcore.protocols.unary import UnaryEncoding


def columns(protocol: UnaryEncoding) -> tuple[str, ...]:
    """``bits``: the ``d`` perturbed bits packed little-endian (hex text in CSV)."""
    return ("bits",)


def to_frame(protocol: UnaryEncoding, reports: Any, *, text: bool) -> pd.DataFrame:
    """One row per report, its bits packed (``numpy.packbits(bitorder="little")``)."""
    import pandas as pd  # noqa: PLC0415

    from ldpcore.collection.formats.checks import pack_bits  # noqa: PLC0415

    return pd.DataFrame({"bits": pack_bits(np.asarray(reports, dtype=bool), text=text)})


def from_frame(protocol: UnaryEncoding, frame: pd.DataFrame, *, source: str) -> NDArray[np.bool_]:
    """The bit matrix, each row exactly ``ceil(d/8)`` bytes."""
    from ldpcore.collection.formats.checks import unpack_bits  # noqa: PLC0415

    return unpack_bits(frame["bits"], protocol.domain_size, source)


def describe(protocol: UnaryEncoding, reports: Any, index: int) -> tuple[str, Any]:
    """The bits, value 0 first."""
    array = np.asarray(reports)
    return "".join("1" if bit else "0" for bit in array[index]), array[index : index + 1]


FORMAT = ReportFormat(columns=columns, to_frame=to_frame, from_frame=from_frame, describe=describe)
