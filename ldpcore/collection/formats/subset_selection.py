"""Report files of Subset Selection: their columns, both ways, and one report in words.

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
from ldpcore.protocols.subset_selection import ITEM_COLUMNS_MAX, SubsetSelection


def columns(protocol: SubsetSelection) -> tuple[str, ...]:
    """``item_0`` … ``item_{k−1}`` (int64) for small subsets, else one ``subset`` column.

    Above ``ITEM_COLUMNS_MAX`` values a subset is one column of ``d`` bits (packed,
    hex text in CSV): at d = 10⁶, ε = 1 a report picks 268,941 values, and a file
    with a column per picked value took 57 s to write for 4 users.
    """
    if protocol.subset_size > ITEM_COLUMNS_MAX:
        return ("subset",)
    return tuple(f"item_{i}" for i in range(protocol.subset_size))


def to_frame(protocol: SubsetSelection, reports: Any, *, text: bool) -> pd.DataFrame:
    """One row per report: its ``k`` values, or its packed ``d``-bit membership."""
    import pandas as pd  # noqa: PLC0415

    from ldpcore.collection.formats.checks import pack_bits  # noqa: PLC0415

    array = np.asarray(reports, dtype=np.int64).reshape(len(reports), -1)
    names = columns(protocol)
    if names == ("subset",):
        member = np.zeros((array.shape[0], protocol.domain_size), dtype=bool)
        np.put_along_axis(member, array, True, axis=1)
        return pd.DataFrame({"subset": pack_bits(member, text=text)})
    return pd.DataFrame({name: array[:, i] for i, name in enumerate(names)})


def from_frame(protocol: SubsetSelection, frame: pd.DataFrame, *, source: str) -> NDArray[np.int64]:
    """``k`` distinct values in ``[0, d)`` per row."""
    from ldpcore.collection.formats.checks import integer_columns, unpack_bits  # noqa: PLC0415

    k = protocol.subset_size
    if columns(protocol) == ("subset",):
        member = unpack_bits(frame["subset"], protocol.domain_size, source)
        sizes = member.sum(axis=1)
        if np.any(sizes != k):
            raise InputError(
                f"wrong report format in {source}: a subset must hold k = {k} values "
                f"for d = {protocol.domain_size}, ε = {protocol.epsilon:g}; found "
                f"{int(sizes[sizes != k][0])} (check --epsilon, --domain-size and --k)"
            )
        return np.nonzero(member)[1].reshape(member.shape[0], k).astype(np.int64)
    array = integer_columns(frame, columns(protocol), protocol.domain_size, source)
    ordered = np.sort(array, axis=1)
    if array.shape[1] > 1 and np.any(ordered[:, 1:] == ordered[:, :-1]):
        raise InputError(f"wrong report format in {source}: a subset repeats a value")
    return array


def describe(protocol: SubsetSelection, reports: Any, index: int) -> tuple[str, Any]:
    """The subset, in order."""
    array = np.asarray(reports)
    text = "{" + ", ".join(str(int(v)) for v in sorted(array[index])) + "}"
    return text, array[index : index + 1]


FORMAT = ReportFormat(columns=columns, to_frame=to_frame, from_frame=from_frame, describe=describe)
