"""Report files of dBitFlipPM: their columns, both ways, and one report in words.

:mod:`ldpcore.collection.formats` registers these functions for the protocol.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from ldpcore.errors import InputError

if TYPE_CHECKING:
    import pandas as pd
from ldpcore.collection.formats.base import ReportFormat
from ldpcore.protocols.dbitflip import DBitFlipPM


def columns(protocol: DBitFlipPM) -> tuple[str, ...]:
    """``value_0`` … ``value_{d'−1}`` (the sampled values), then ``bit_0`` … their bits."""
    m = protocol.sampled
    return (*(f"value_{i}" for i in range(m)), *(f"bit_{i}" for i in range(m)))


def to_frame(protocol: DBitFlipPM, reports: Any, *, text: bool) -> pd.DataFrame:
    """One row per report: its sampled values and their bits."""
    import pandas as pd  # noqa: PLC0415

    picks, bits = protocol.picks_and_bits(reports)
    names = columns(protocol)
    m = protocol.sampled
    data = {names[i]: picks[:, i] for i in range(m)}
    data |= {names[m + i]: bits[:, i] for i in range(m)}
    return pd.DataFrame(data)


def from_frame(protocol: DBitFlipPM, frame: pd.DataFrame, *, source: str) -> NDArray[np.int64]:
    """Distinct sampled values in ``[0, k)`` and bits in ``{0, 1}`` per row."""
    from ldpcore.collection.formats.checks import integer_columns  # noqa: PLC0415

    m = protocol.sampled
    names = columns(protocol)
    picks = integer_columns(frame, names[:m], protocol.domain_size, source)
    bits = integer_columns(frame, names[m:], 2, source)
    ordered = np.sort(picks, axis=1)
    if m > 1 and np.any(ordered[:, 1:] == ordered[:, :-1]):
        raise InputError(f"wrong report format in {source}: a report samples a value twice")
    return np.concatenate([picks, bits], axis=1)


def describe(protocol: DBitFlipPM, reports: Any, index: int) -> tuple[str, Any]:
    """The sampled values with their bits."""
    picks, bits = protocol.picks_and_bits(reports)
    text = ", ".join(
        f"{int(j)}→{int(bit)}" for j, bit in zip(picks[index], bits[index], strict=True)
    )
    return "{" + text + "}", np.asarray(reports)[index : index + 1]


FORMAT = ReportFormat(columns=columns, to_frame=to_frame, from_frame=from_frame, describe=describe)
