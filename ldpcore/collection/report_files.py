"""Report files: what clients send, one documented format per protocol, Parquet or CSV.

Each protocol family's format is declared in :mod:`ldpcore.collection.formats` (its
columns, reader and writer); this module reads and writes the files. One row per user. The
columns of the built-in protocols (the same names in Parquet and CSV):

========  ==========================================  =====================================
protocol  columns                                     meaning
========  ==========================================  =====================================
GRR       ``value`` (int64)                           the reported value, in ``[0, d)``
OLH, BLH  ``seed_a``, ``seed_b`` (uint64),            the user's hash function
          ``bucket`` (int64)                          ``h_{a,b}`` and the reported bucket
                                                      in ``[0, g)``
OUE, SUE  ``bits`` (binary in Parquet, hex in CSV)    the perturbed bit vector, ``d`` bits
                                                      packed little-endian (numpy
                                                      ``packbits(bitorder="little")``)
SS        ``item_0`` … ``item_{k−1}`` (int64)         the reported subset of ``k`` values
HR        ``row`` (int64)                             the reported Hadamard row, ``[0, K)``
========  ==========================================  =====================================

Parquet files also carry the protocol's parameters in their schema metadata
(``ldpcore.protocol``, ``ldpcore.epsilon``, ``ldpcore.domain_size`` and ``g`` / ``k``),
and CSV files written by ldpcore in their first line (``# ldpcore protocol=OUE
epsilon=1.0 domain_size=16``); :func:`check_metadata` compares them with what the
aggregator was told. CSV files without that line (written by other tools) are read as
they are.

Aggregation streams: :func:`iter_frames` yields bounded chunks, and
:func:`aggregate_chunk` is the one per-chunk function whether it runs here or on
a Dask worker, so counts are identical either way.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from ldpcore.collection.formats import report_format
from ldpcore.errors import InputError
from ldpcore.protocols import FrequencyOracle, protocol_class
from ldpcore.protocols.base import empty_support

#: Rows per chunk when streaming (bounded memory whatever the file size).
CHUNK_ROWS = 1 << 18
#: Schema-metadata prefix of the protocol parameters in Parquet report files.
META = "ldpcore."


def report_columns(protocol: FrequencyOracle) -> tuple[str, ...]:
    """The column names of this protocol's report format (:mod:`.formats`)."""
    return report_format(protocol).columns(protocol)


def reports_to_frame(protocol: FrequencyOracle, reports: Any, *, text: bool) -> pd.DataFrame:
    """A table of reports in the protocol's format (``text``: bits as hex, for CSV)."""
    return report_format(protocol).to_frame(protocol, reports, text=text)


def frame_to_reports(protocol: FrequencyOracle, frame: pd.DataFrame, *, source: str) -> Any:
    """Reports from a table, every column and range checked (:class:`InputError` otherwise)."""
    expected = report_columns(protocol)
    missing = [c for c in expected if c not in frame.columns]
    if missing:
        raise InputError(
            f"wrong report format in {source}: {protocol.name} reports need the columns "
            f"{', '.join(expected)}; found {', '.join(map(str, frame.columns)) or 'none'}"
        )
    return report_format(protocol).from_frame(protocol, frame, source=source)


def protocol_metadata(protocol: FrequencyOracle) -> dict[str, str]:
    """The parameters written into a Parquet file's schema metadata."""
    meta = {f"{META}protocol": protocol.name}
    meta |= {f"{META}{key}": str(value) for key, value in protocol.parameters().items()}
    return meta


#: How a CSV report file written by ldpcore starts: ``# ldpcore protocol=OUE epsilon=1 …``.
CSV_PARAMETERS = "# ldpcore "


def csv_parameter_line(protocol: FrequencyOracle) -> str:
    """The first line of a CSV report file: the protocol's parameters, as ``key=value``."""
    pairs = " ".join(
        f"{key.removeprefix(META)}={value}" for key, value in protocol_metadata(protocol).items()
    )
    return CSV_PARAMETERS + pairs


def _csv_metadata(line: str) -> dict[bytes, bytes]:
    """The parameters of a :func:`csv_parameter_line`, as Parquet metadata."""
    pairs = (item.partition("=") for item in line.removeprefix(CSV_PARAMETERS).split())
    return {f"{META}{key}".encode(): value.encode() for key, _, value in pairs if key}


def check_metadata(
    metadata: dict[bytes, bytes] | None, protocol: FrequencyOracle, source: str
) -> None:
    """Raise if a file's recorded parameters contradict the aggregator's."""
    if not metadata:
        return
    recorded = {k.decode(): v.decode() for k, v in metadata.items() if k.startswith(b"ldpcore.")}
    for key, value in protocol_metadata(protocol).items():
        if key in recorded and recorded[key] != value:
            name = key.removeprefix(META)
            raise InputError(
                f"{source} was written for {name} = {recorded[key]}, but aggregation was asked "
                f"for {name} = {value}"
            )


def iter_frames(
    path: Path, *, chunk_rows: int = CHUNK_ROWS, protocol: FrequencyOracle | None = None
) -> Iterator[pd.DataFrame]:
    """Chunks of a report file (``.parquet`` or ``.csv``), ``chunk_rows`` rows at a time."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"report file {str(path)!r} does not exist")
    yield from _frames(path, repr(str(path)), path.suffix, chunk_rows, protocol)


def upload_frames(
    data: bytes, name: str, *, protocol: FrequencyOracle | None = None
) -> Iterator[pd.DataFrame]:
    """Chunks of an uploaded report file's bytes; ``name`` (its file name) says its kind."""
    yield from _frames(io.BytesIO(data), name, Path(name).suffix, CHUNK_ROWS, protocol)


def upload_parameters(data: bytes, name: str) -> dict[str, str]:
    """The parameters an ldpcore report file records (``protocol``, ``epsilon``, …), if any.

    A page fills its form with them; :func:`check_metadata` still compares them with
    what the person chose.
    """
    if Path(name).suffix.lower() == ".parquet":
        import pyarrow as pa  # noqa: PLC0415
        import pyarrow.parquet as pq  # noqa: PLC0415

        try:
            metadata = pq.ParquetFile(io.BytesIO(data)).schema_arrow.metadata or {}
        except (pa.ArrowException, OSError):
            return {}
    else:
        first = data.split(b"\n", 1)[0].decode("utf-8", errors="replace").strip()
        metadata = _csv_metadata(first) if first.startswith(CSV_PARAMETERS) else {}
    return {
        key.decode().removeprefix(META): value.decode()
        for key, value in metadata.items()
        if key.startswith(META.encode())
    }


def _frames(
    source: Path | BinaryIO,
    label: str,
    suffix: str,
    chunk_rows: int,
    protocol: FrequencyOracle | None,
) -> Iterator[pd.DataFrame]:
    """:func:`iter_frames` of a path or of an upload's bytes (``label`` names it)."""
    if suffix.lower() == ".parquet":
        import pyarrow as pa  # noqa: PLC0415 (streamlit's own dependency; only here)
        import pyarrow.parquet as pq  # noqa: PLC0415

        try:
            handle = pq.ParquetFile(source)
            if protocol is not None:
                check_metadata(handle.schema_arrow.metadata, protocol, label)
            for batch in handle.iter_batches(batch_size=chunk_rows):
                yield batch.to_pandas()
        except (pa.ArrowException, OSError) as exc:
            raise InputError(f"cannot read {label} as Parquet: {exc}") from None
        return
    if suffix.lower() == ".csv":
        try:
            if isinstance(source, Path):
                with source.open("rb") as handle:
                    lines = _leading_comments(handle)
            else:
                lines = _leading_comments(source)
                source.seek(0)
            first = lines[0] if lines else ""
            if first.startswith(CSV_PARAMETERS) and protocol is not None:
                check_metadata(_csv_metadata(first), protocol, label)
            yield from pd.read_csv(
                source,
                chunksize=chunk_rows,
                dtype=str,
                keep_default_na=False,
                skiprows=len(lines),
            )
        except (pd.errors.ParserError, UnicodeDecodeError, csv.Error) as exc:
            raise InputError(f"cannot read {label} as CSV: {exc}") from None
        except pd.errors.EmptyDataError:
            raise InputError(f"{label} is empty; expected a header line") from None
        return
    raise InputError(f"{label}: report files must end in .parquet or .csv")


def _leading_comments(handle: BinaryIO) -> list[str]:
    """The lines before the header that start with ``#``.

    The parameter line, and notes such as a live poll's option texts (``# option 0: Walk``).
    """
    found: list[str] = []
    while (line := handle.readline()).startswith(b"#"):
        found.append(line.decode("utf-8", errors="replace").strip())
    return found


def check_per_value(protocol: FrequencyOracle) -> None:
    """Refuse, in words, a protocol whose tallies are not per value (a hierarchy, SW).

    A counts file has one row per value; a hierarchy counts the nodes of each level of
    its tree and the Square Wave the positions of its reports, files of other shapes,
    not written or read yet.
    """
    if not protocol.support_view:
        raise InputError(
            f"{protocol.name} counts {protocol.tallies_count}: counts files and report "
            f"checks for it are not built yet; simulate it (ldpcore simulate --protocol "
            f"{protocol.name}) or collect with a protocol that counts values (OUE, OLH, …)"
        )


def aggregate_chunk(
    protocol: FrequencyOracle, frame: pd.DataFrame, source: str
) -> NDArray[np.int64]:
    """The tallies of one chunk of reports: the per-chunk function, local or on Dask.

    ``protocol.tally``: the support counts, followed by the protocol's
    :attr:`~ldpcore.protocols.base.FrequencyOracle.tally_columns` (dBitFlipPM: how many
    users sampled each value, which Ding et al.'s estimator reads).
    """
    if frame.empty:
        return empty_tallies(protocol)
    return counted_tallies(protocol, frame_to_reports(protocol, frame, source=source))


def counted_tallies(protocol: FrequencyOracle, reports: Any) -> NDArray[np.int64]:
    """Support counts and the protocol's tally columns, stacked (length ``d·(1 + columns)``).

    A protocol whose tallies are another histogram (HR's rows) gives its support counts
    here: a counts file has one row per value.
    """
    if not protocol.tally_columns:
        return np.asarray(protocol.aggregate(reports))
    return np.asarray(protocol.tally(reports))


def empty_tallies(protocol: FrequencyOracle) -> NDArray[np.int64]:
    """The tallies of no reports (zeros of :func:`counted_tallies`' shape)."""
    support = empty_support(protocol)
    return np.zeros(support.size * (1 + len(protocol.tally_columns)), dtype=support.dtype)


def aggregate_file(
    protocol: FrequencyOracle, path: Path, *, chunk_rows: int = CHUNK_ROWS
) -> tuple[NDArray[np.int64], int]:
    """The tallies (:func:`aggregate_chunk`) and number of reports of one file, streamed."""
    check_per_value(protocol)
    total = empty_tallies(protocol)
    users = 0
    for frame in iter_frames(path, chunk_rows=chunk_rows, protocol=protocol):
        total += aggregate_chunk(protocol, frame, str(path))
        users += len(frame)
    return total, users


def counts_rows(
    protocol: FrequencyOracle, tallies: NDArray[np.int64]
) -> tuple[list[str], list[list[Any]]]:
    """A counts file's header and rows: ``value,count`` and the protocol's tally columns."""
    check_per_value(protocol)
    d = protocol.domain_size
    columns = np.asarray(tallies).reshape(1 + len(protocol.tally_columns), d)
    header = ["value", "count", *protocol.tally_columns]
    rows = [[value, *(column[value].item() for column in columns)] for value in range(d)]
    return header, rows


def report_files(path: Path) -> list[Path]:
    """The report files at ``path``: the file itself, or a folder's ``*.parquet`` / ``*.csv``."""
    path = Path(path)
    if path.is_dir():
        files = sorted([*path.glob("*.parquet"), *path.glob("*.csv")])
        if not files:
            raise InputError(f"folder {str(path)!r} has no .parquet or .csv report files")
        return files
    if not path.exists():
        raise InputError(f"report file {str(path)!r} does not exist")
    return [path]


#: How a poll export names each option after its parameter line: ``# option 0: Car``.
OPTION_LINE = re.compile(r"^# option (\d+): (.*)$")


def file_parameters(path: Path) -> dict[str, str]:
    """What a report file on disk records (:func:`upload_parameters`), read from its head.

    A Parquet file's schema metadata, or a CSV file's first line; a large file is not
    read whole for it.
    """
    path = Path(path)
    if path.suffix.lower() == ".parquet":
        import pyarrow as pa  # noqa: PLC0415
        import pyarrow.parquet as pq  # noqa: PLC0415

        try:
            metadata = pq.ParquetFile(path).schema_arrow.metadata or {}
        except (pa.ArrowException, OSError):
            return {}
        return {
            key.decode().removeprefix(META): value.decode()
            for key, value in metadata.items()
            if key.startswith(META.encode())
        }
    with path.open("rb") as file:
        return upload_parameters(file.readline(), path.name)


def recorded_options(path: Path) -> tuple[str, ...] | None:
    """The option each value is, as a poll export names them (``# option i: text``).

    None when the file names none (a report file from ``ldpcore randomize``), or names
    them out of order.
    """
    path = Path(path)
    if path.suffix.lower() != ".csv":
        return None
    found: list[str] = []
    with path.open(encoding="utf-8", errors="replace") as file:
        for line in file:
            if not line.startswith("#"):
                break
            if match := OPTION_LINE.match(line.rstrip("\r\n")):
                if int(match.group(1)) != len(found):
                    return None
                found.append(match.group(2))
    return tuple(found) or None


def recorded_number(recorded: Mapping[str, str], key: str, default: float) -> float:
    """A number the file's parameter line records (``default`` if absent or unreadable)."""
    try:
        return float(recorded[key])
    except (KeyError, ValueError):
        return default


def recorded_extras(recorded: Mapping[str, str], protocol: str) -> dict[str, int | float]:
    """The protocol's declared parameters the file records; one it cannot read is left out.

    Left out, it takes its default, and the file's own parameters are compared with the
    form's by ``check_metadata``, which names the difference.
    """
    extras: dict[str, int | float] = {}
    for parameter in protocol_class(protocol).extra_parameters:
        try:
            extras[parameter.name] = parameter.check(float(recorded[parameter.name]))
        except (KeyError, ValueError):  # InputError is a ValueError
            continue
    return extras
