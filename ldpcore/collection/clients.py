"""The client side as a batch tool: a file of users' values in, a file of reports out.

For pilots and classes: :func:`randomize_file` reads values in chunks (bounded
memory), runs the protocol's real client randomizer on each and appends the
reports in the documented format (:mod:`ldpcore.collection.report_files`) to Parquet or CSV.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ldpcore._files import replacing
from ldpcore.collection.report_files import (
    CHUNK_ROWS,
    csv_parameter_line,
    protocol_metadata,
    reports_to_frame,
)
from ldpcore.errors import InputError
from ldpcore.protocols import FrequencyOracle
from ldpcore.rng import ClientRNG


def _values(frame: pd.DataFrame, d: int, source: str, first_line: int) -> np.ndarray:
    column = "value" if "value" in frame.columns else frame.columns[0]
    if "value" not in frame.columns and len(frame.columns) != 1:
        raise InputError(
            f"{source}: expected a 'value' column (or a single column), found "
            f"{', '.join(map(str, frame.columns))}"
        )
    numbers = pd.to_numeric(frame[column].str.strip(), errors="coerce").to_numpy()
    bad = ~np.isfinite(numbers) | (numbers != np.round(numbers)) | (numbers < 0) | (numbers >= d)
    if bad.any():
        at = int(np.flatnonzero(bad)[0])
        raise InputError(
            f"{source}, line {first_line + at}: value {frame[column].iloc[at]!r} is not a whole "
            f"number in [0, {d}); values are 0-based indices into the domain"
        )
    return numbers.astype(np.int64)


def randomize_file(
    protocol: FrequencyOracle,
    source: Path,
    output: Path,
    *,
    rng: ClientRNG = None,
    chunk_rows: int = CHUNK_ROWS,
) -> int:
    """Randomize every value of ``source`` (CSV) into reports at ``output``; returns n."""
    source, output = Path(source), Path(output)
    if not source.is_file():
        raise InputError(f"--input {str(source)!r} does not exist")
    suffix = output.suffix.lower()
    if suffix not in {".parquet", ".csv"}:
        raise InputError(f"--output {str(output)!r} must end in .parquet or .csv")
    # Written to a temporary file and renamed when complete: a run killed midway
    # leaves the old file or none, never a truncated one that ends on a row boundary.
    with replacing(output, what="--output") as temporary:
        users = _randomize_into(
            protocol, source, temporary, rng, chunk_rows, as_csv=suffix == ".csv"
        )
        if users == 0:
            raise InputError(f"--input {str(source)!r} has no values")
    return users


def _randomize_into(
    protocol: FrequencyOracle,
    source: Path,
    output: Path,
    rng: ClientRNG,
    chunk_rows: int,
    *,
    as_csv: bool,
) -> int:
    writer: Any = None
    users = 0
    try:
        chunks = pd.read_csv(source, chunksize=chunk_rows, dtype=str, keep_default_na=False)
        for chunk in chunks:
            values = _values(chunk, protocol.domain_size, str(source), users + 2)
            frame = reports_to_frame(protocol, protocol.randomize(values, rng), text=as_csv)
            writer = _append(writer, frame, output, protocol, as_csv=as_csv)
            users += len(values)
    except pd.errors.EmptyDataError:
        raise InputError(f"--input {str(source)!r} is empty; expected a 'value' column") from None
    except (pd.errors.ParserError, UnicodeDecodeError, csv.Error) as exc:
        raise InputError(f"cannot read --input {str(source)!r} as CSV: {exc}") from None
    finally:
        if writer is not None and not as_csv:
            writer.close()
    return users


def _append(
    writer: Any, frame: pd.DataFrame, output: Path, protocol: FrequencyOracle, *, as_csv: bool
) -> Any:
    """Append a chunk; the first chunk opens the file (Parquet: with the protocol metadata)."""
    if as_csv:
        if writer is None:
            # The first line records the protocol's parameters, as Parquet's schema does,
            # so aggregation can refuse reports made with other parameters.
            output.write_text(csv_parameter_line(protocol) + "\n", encoding="utf-8")
        frame.to_csv(output, mode="a", header=writer is None, index=False)
        return True
    import pyarrow as pa  # noqa: PLC0415 (streamlit's own dependency; only here)
    import pyarrow.parquet as pq  # noqa: PLC0415

    table = pa.Table.from_pandas(frame, preserve_index=False)
    if writer is None:
        metadata = {k.encode(): v.encode() for k, v in protocol_metadata(protocol).items()}
        schema = table.schema.with_metadata({**(table.schema.metadata or {}), **metadata})
        writer = pq.ParquetWriter(output, schema)
    writer.write_table(table.replace_schema_metadata(writer.schema.metadata))
    return writer
