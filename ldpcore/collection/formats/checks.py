"""Column checks shared by the protocols' report formats.

See :mod:`ldpcore.collection.report_files`.

Each protocol family declares its report format (:mod:`ldpcore.collection.formats`);
these helpers
turn a column of a report file into checked numbers, with messages that say which file,
which column and what to change.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ldpcore.errors import InputError


def whole_numbers(column: pd.Series, source: str, name: str, dtype: type) -> NDArray[Any]:
    """A column as whole numbers of ``dtype`` (uint64 hash seeds stay exact: no floats)."""
    message = f"wrong report format in {source}: column {name} must hold whole numbers"
    try:
        array = np.asarray(pd.to_numeric(column, errors="raise"))
    except (ValueError, TypeError):
        raise InputError(message) from None
    if array.dtype.kind not in "iuf" or (
        array.dtype.kind == "f" and not np.all(np.isfinite(array) & (array == np.round(array)))
    ):
        raise InputError(message)
    if dtype is np.uint64 and array.dtype.kind == "i" and np.any(array < 0):
        raise InputError(f"wrong report format in {source}: column {name} must be >= 0")
    return array.astype(dtype)


def in_range(values: NDArray[Any], top: int, source: str, name: str) -> None:
    """Raise unless every value is in ``[0, top)``."""
    if values.size and (values.min() < 0 or values.max() >= top):
        raise InputError(
            f"wrong report format in {source}: {name} must be in [0, {top}); found values "
            f"from {values.min()} to {values.max()} (check --domain-size and the protocol)"
        )


def integer_columns(
    frame: pd.DataFrame, columns: tuple[str, ...], top: int, source: str
) -> NDArray[np.int64]:
    """The named columns as an ``(n, len(columns))`` int64 array, each value in ``[0, top)``."""
    array = np.column_stack([whole_numbers(frame[c], source, c, np.int64) for c in columns])
    in_range(array, top, source, "/".join(columns))
    return array


def pack_bits(bits: NDArray[np.bool_], *, text: bool) -> list[Any]:
    """Bit vectors packed little-endian, one ``bytes`` (or hex text, for CSV) per row."""
    packed = np.packbits(np.asarray(bits, dtype=bool), axis=1, bitorder="little")
    rows = [row.tobytes() for row in packed]
    return [r.hex() for r in rows] if text else rows


def unpack_bits(column: pd.Series, d: int, source: str) -> NDArray[np.bool_]:
    """The inverse of :func:`pack_bits`: ``d`` bits per row, every row checked."""
    width = (d + 7) // 8
    try:
        rows = [bytes.fromhex(v) if isinstance(v, str) else bytes(v) for v in column]
    except (ValueError, TypeError):
        raise InputError(
            f"wrong report format in {source}: bits must be hex text or binary"
        ) from None
    if any(len(r) != width for r in rows):
        raise InputError(
            f"wrong report format in {source}: each bit vector must be {width} bytes for "
            f"d = {d} (check --domain-size)"
        )
    packed = np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(len(rows), width)
    return np.unpackbits(packed, axis=1, count=d, bitorder="little").astype(bool)


def real_columns(frame: pd.DataFrame, columns: tuple[str, ...], source: str) -> NDArray[np.float64]:
    """The named columns as an ``(n, len(columns))`` float64 array of finite numbers."""
    found = []
    for name in columns:
        try:
            array = np.asarray(pd.to_numeric(frame[name], errors="raise"), dtype=np.float64)
        except (ValueError, TypeError):
            raise InputError(
                f"wrong report format in {source}: column {name} must hold numbers"
            ) from None
        if not np.all(np.isfinite(array)):
            raise InputError(
                f"wrong report format in {source}: column {name} holds NaN, inf or an empty "
                "cell; every report has a finite number in every column"
            )
        found.append(array)
    return np.column_stack(found) if found else np.empty((len(frame), 0))
