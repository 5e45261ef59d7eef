"""True-count datasets: synthetic generators and histogram files.

A dataset is a vector of true counts ``n_v`` (users holding each value). Synthetic
datasets are deterministic: ``n · f`` rounded by largest remainder, so the counts
always sum to exactly ``n``.
"""

from __future__ import annotations

import csv
import io
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ldpcore import bounds
from ldpcore._validation import check_domain_size, check_n_users

#: Largest histogram file read, in bytes (also the upload limit of the app).
MAX_FILE_BYTES = 20 * 1024 * 1024

#: Where the bundled datasets live (a folder next to the package in this checkout).
SAMPLE_DATA = Path(__file__).resolve().parent.parent / "sample_data"


@dataclass(frozen=True)
class Dataset:
    """True counts with their value labels.

    Attributes
    ----------
    name : str
        How to refer to it (a spec such as ``zipf:d=1024,s=1.5`` or a file name).
    labels : tuple of str
        One label per value, in index order.
    counts : ndarray of int64
        ``n_v`` per value; ``counts.sum()`` is the number of users.
    groups : tuple of str, optional
        The group of each value (for group queries), when the data has them.
    """

    name: str
    labels: tuple[str, ...]
    counts: NDArray[np.int64]
    groups: tuple[str, ...] | None = None

    @property
    def n(self) -> int:
        """Number of users."""
        return int(self.counts.sum())

    @property
    def domain_size(self) -> int:
        """Number of values ``d``."""
        return int(self.counts.size)

    def frequencies(self) -> NDArray[np.float64]:
        """``f_v = n_v / n``."""
        return self.counts / self.n


def round_to_total(weights: NDArray[np.float64], total: int) -> NDArray[np.int64]:
    """Largest-remainder rounding of ``total · weights / Σ weights`` to whole counts.

    Ties in the remainders go to the lower index, so the result is deterministic.

    Examples
    --------
    >>> round_to_total(np.array([1.0, 1.0, 1.0]), 10).tolist()
    [4, 3, 3]
    """
    share = np.asarray(weights, dtype=np.float64)
    raw = total * share / share.sum()
    counts = np.floor(raw).astype(np.int64)
    short = total - int(counts.sum())
    counts[np.argsort(-(raw - counts), kind="stable")[:short]] += 1
    return counts


def zipf(domain_size: int, n: int, s: float = 1.5) -> Dataset:
    """Zipf counts: ``f_i ∝ i^(−s)`` for ranks ``i = 1..d`` (NDSS Sec. V-A uses s = 1.5)."""
    d = check_domain_size(domain_size)
    n = check_n_users(n)
    if not (isinstance(s, int | float) and math.isfinite(s) and 0 <= s <= 10):
        raise ValueError(f"the Zipf exponent s must be a number in [0, 10], got {s!r}")
    weights = np.arange(1, d + 1, dtype=np.float64) ** -float(s)
    return Dataset(f"zipf:d={d},s={s:g}", _index_labels(d), round_to_total(weights, n))


def uniform(domain_size: int, n: int) -> Dataset:
    """Every value equally frequent (counts differ by at most one)."""
    d = check_domain_size(domain_size)
    return Dataset(f"uniform:d={d}", _index_labels(d), round_to_total(np.ones(d), check_n_users(n)))


def _index_labels(d: int) -> tuple[str, ...]:
    return tuple(str(i) for i in range(d))


def rescale(dataset: Dataset, n: int) -> Dataset:
    """The same shape with ``n`` users (largest-remainder rounding)."""
    counts = round_to_total(dataset.counts.astype(float), n)
    return Dataset(dataset.name, dataset.labels, counts, dataset.groups)


def read_histogram(path: str | Path) -> Dataset:
    """Read a ``value,count`` CSV (header required) into a :class:`Dataset`.

    Raises ``ValueError`` with a message that says what to fix for: a missing,
    empty, unreadable or oversized file, a missing column, a count that is not a
    whole number ≥ 0, duplicate values, fewer than 2 values, or all-zero counts.
    """
    file = Path(path)
    if not file.is_file():
        raise ValueError(f"dataset file {str(file)!r} does not exist")
    size = file.stat().st_size
    if size == 0:
        raise ValueError(f"dataset file {str(file)!r} is empty; expected a 'value,count' CSV")
    if size > MAX_FILE_BYTES:
        raise ValueError(f"dataset file {str(file)!r} is over {MAX_FILE_BYTES // 2**20} MiB")
    try:
        text = file.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"cannot read {str(file)!r} as UTF-8 text: {exc}") from None
    rows = read_two_column_csv(text, value_column="value", number_column="count", source=str(file))
    labels = tuple(label for label, _ in rows)
    groups = _group_column(text, len(rows))
    counts = []
    for line, (label, raw) in enumerate(rows, start=2):
        counts.append(_whole_number(raw, what=f"count of value {label!r} (line {line})"))
    array = np.array(counts, dtype=np.int64)
    if array.sum() == 0:
        raise ValueError(f"{str(file)!r}: every count is 0; there are no users")
    if array.size > bounds.DOMAIN_SIZE_MAX:
        raise ValueError(
            f"{str(file)!r} has {array.size:,} values; at most {bounds.DOMAIN_SIZE_MAX:,}"
        )
    return Dataset(file.name, labels, array, groups)


def _group_column(text: str, rows: int) -> tuple[str, ...] | None:
    """The optional ``group`` column, in row order (blank lines skipped as for the rest)."""
    reader = csv.reader(io.StringIO(text))
    header = [cell.strip().lower() for cell in next(reader)]
    if "group" not in header:
        return None
    at = header.index("group")
    groups = tuple(
        (row[at].strip() if len(row) > at else "") or "(no group)"
        for row in reader
        if any(cell.strip() for cell in row)
    )
    return groups if len(groups) == rows else None


def read_two_column_csv(
    text: str, *, value_column: str, number_column: str, source: str
) -> list[tuple[str, str]]:
    """Rows ``(value, number)`` from CSV text with a header naming both columns."""
    reader = csv.reader(io.StringIO(text))
    try:
        header = [cell.strip().lower() for cell in next(reader)]
    except StopIteration:
        raise ValueError(
            f"{source}: no header line; expected '{value_column},{number_column}'"
        ) from None
    except csv.Error as exc:
        raise ValueError(f"{source}: not a readable CSV ({exc})") from None
    if value_column not in header or number_column not in header:
        raise ValueError(
            f"{source}: the header must name the columns '{value_column}' and "
            f"'{number_column}', got {','.join(header) or '(nothing)'}"
        )
    value_at, number_at = header.index(value_column), header.index(number_column)
    rows: list[tuple[str, str]] = []
    seen: set[str] = set()
    try:
        for line, row in enumerate(reader, start=2):
            if not any(cell.strip() for cell in row):
                continue
            if len(row) <= max(value_at, number_at):
                raise ValueError(f"{source}, line {line}: expected {len(header)} columns")
            value = row[value_at].strip()
            if value in seen:
                raise ValueError(f"{source}, line {line}: value {value!r} appears more than once")
            seen.add(value)
            rows.append((value, row[number_at].strip()))
    except csv.Error as exc:
        raise ValueError(f"{source}: not a readable CSV ({exc})") from None
    if len(rows) < bounds.DOMAIN_SIZE_MIN:
        raise ValueError(f"{source}: needs at least {bounds.DOMAIN_SIZE_MIN} rows, got {len(rows)}")
    return rows


def _whole_number(raw: str, *, what: str) -> int:
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"the {what} must be a whole number >= 0, got {raw!r}") from None
    if not math.isfinite(value) or value < 0 or value != round(value):
        raise ValueError(f"the {what} must be a whole number >= 0, got {raw!r}")
    return round(value)


def bundled_names() -> tuple[str, ...]:
    """Names of the datasets bundled in ``sample_data/`` (file stems)."""
    if not SAMPLE_DATA.is_dir():
        return ()
    return tuple(sorted(path.stem for path in SAMPLE_DATA.glob("*.csv")))


def load_bundled(name: str, *, n: int | None = None, top_d: int | None = None) -> Dataset:
    """A bundled dataset, optionally cut to its ``top_d`` most frequent values and rescaled.

    Examples
    --------
    >>> load_bundled("zipf").n
    1000000
    """
    names = bundled_names()
    if name not in names:
        raise ValueError(
            f"unknown bundled dataset {name!r}; bundled: {', '.join(names) or '(none found)'}"
        )
    data = read_histogram(SAMPLE_DATA / f"{name}.csv")
    data = Dataset(name, data.labels, data.counts, data.groups)
    if top_d is not None:
        d = check_domain_size(top_d)
        keep = np.sort(np.argsort(-data.counts, kind="stable")[:d])
        groups = None if data.groups is None else tuple(data.groups[i] for i in keep)
        data = Dataset(f"{name} (top {d})", tuple(data.labels[i] for i in keep),
                       data.counts[keep], groups)  # fmt: skip
    return data if n is None else rescale(data, check_n_users(n))


def parse_dataset(spec: str, n: int | None = None) -> Dataset:
    """Build a dataset from a spec.

    Specs: ``zipf:d=D,s=S``, ``uniform:d=D``, ``file:PATH`` or a bundled dataset's name.
    Synthetic specs need ``n``; files and bundled data are rescaled to ``n`` when given.

    Examples
    --------
    >>> parse_dataset("zipf:d=4,s=1", n=100).counts.tolist()
    [48, 24, 16, 12]
    """
    if not isinstance(spec, str) or not spec.strip():
        raise ValueError(_DATASET_HELP.format(got=repr(spec)))
    if ":" not in spec and spec.strip() in bundled_names():
        return load_bundled(spec.strip(), n=n)
    kind, _, rest = spec.strip().partition(":")
    kind = kind.lower()
    if kind == "file":
        if not rest:
            raise ValueError("file: needs a path, e.g. file:counts.csv")
        data = read_histogram(rest)
        return data if n is None else rescale(data, check_n_users(n))
    if kind in {"zipf", "uniform"}:
        if n is None:
            raise ValueError(f"the {kind} dataset needs the number of users n")
        options = _parse_options(rest, spec)
        allowed = {"d", "s"} if kind == "zipf" else {"d"}
        unknown = set(options) - allowed
        if unknown or "d" not in options:
            raise ValueError(_DATASET_HELP.format(got=repr(spec)))
        d = check_domain_size(_number(options["d"], "d", spec))
        if kind == "zipf":
            return zipf(d, n, _number(options.get("s", "1.5"), "s", spec))
        return uniform(d, n)
    raise ValueError(_DATASET_HELP.format(got=repr(spec)))


_DATASET_HELP = (
    "unknown dataset {got}; use zipf:d=D,s=S (e.g. zipf:d=1024,s=1.5), uniform:d=D, "
    "file:PATH or a bundled dataset name"
)


def _parse_options(text: str, spec: str) -> dict[str, str]:
    options: dict[str, str] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = part.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise ValueError(f"malformed option {part!r} in {spec!r}; expected key=value")
        options[key.strip().lower()] = value.strip()
    return options


def _number(raw: str, name: str, spec: str) -> float:
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{name} must be a number in {spec!r}, got {raw!r}") from None
    if not math.isfinite(value):
        raise ValueError(f"{name} must be finite in {spec!r}, got {raw!r}")
    return value
