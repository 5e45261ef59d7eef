"""True-count datasets: synthetic generators and histogram files.

A dataset is a vector of true counts ``n_v`` (users holding each value). Synthetic
datasets are deterministic: ``n · f`` rounded by largest remainder, so the counts
always sum to exactly ``n``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numpy.typing import NDArray

from ldpcore import bounds
from ldpcore._validation import check_domain_size, check_n_users
from ldpcore.data.reading import Reading
from ldpcore.data.tables import TableError, read_numbers
from ldpcore.errors import InputError

#: Where the bundled datasets live (a folder next to the package in this checkout).
SAMPLE_DATA = Path(__file__).resolve().parents[2] / "sample_data"


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
    total : {"drop", "keep"}, optional
        What was done with its file's total row, when it had one
        (:mod:`ldpcore.data.totals`): a command that reads the file again says the same.
    reading : Reading, optional
        How its file was read (columns, header, order: :mod:`ldpcore.data.reading`), so
        the command a page offers reads it the same way.
    """

    name: str
    labels: tuple[str, ...]
    counts: NDArray[np.int64]
    groups: tuple[str, ...] | None = None
    total: str | None = None
    reading: Reading | None = None

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

    @property
    def ordered(self) -> bool:
        """Whether its values have an order: every label is a number (ages, years, ranks).

        Words, countries or emoji have none, so ranges of them mean nothing and the
        mechanisms made for ordered values do not join "all protocols" for them.
        """
        return self.by_number() is not None

    def by_number(self) -> Dataset | None:
        """The same data with its values in numeric order, or None if a label is no number.

        Ranges and quantiles read the values in order; a file lists ages, incomes or
        hours in any order it likes. Ties keep the file's order (a stable sort); the
        data is returned itself when it is in numeric order already.
        """
        try:
            numbers = np.array([float(label.replace(",", "")) for label in self.labels])
        except ValueError:
            return None
        if not np.all(np.isfinite(numbers)):
            return None
        order = np.argsort(numbers, kind="stable")
        if np.array_equal(order, np.arange(order.size)):
            return self
        return dataclasses.replace(
            self,
            reading=dataclasses.replace(self.reading or Reading(), numeric_order=True),
            labels=tuple(self.labels[i] for i in order),
            counts=self.counts[order],
            groups=None if self.groups is None else tuple(self.groups[i] for i in order),
        )

    @property
    def fingerprint(self) -> str:
        """A short digest of the name, labels, counts and groups: equal data, equal digest.

        What a form keys its data-dependent defaults on (its n, its k), so that another
        file starts them afresh and the same file keeps a person's choices.
        """
        digest = hashlib.sha1(usedforsecurity=False)
        for part in (self.name, *self.labels, *(self.groups or ())):
            digest.update(part.encode("utf-8", "surrogatepass") + b"\0")
        digest.update(np.ascontiguousarray(self.counts, dtype=np.int64).tobytes())
        return digest.hexdigest()[:16]


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
    check_zipf_exponent(s)
    weights = np.arange(1, d + 1, dtype=np.float64) ** -float(s)
    return Dataset(f"zipf:d={d},s={s:g}", _index_labels(d), round_to_total(weights, n))


def check_zipf_exponent(s: object) -> None:
    """Raise unless ``s`` is a Zipf exponent the generator accepts (a number in [0, 10])."""
    if not (isinstance(s, int | float) and math.isfinite(s) and 0 <= s <= 10):
        raise InputError(f"the Zipf exponent s must be a number in [0, 10], got {s!r}")


def uniform(domain_size: int, n: int) -> Dataset:
    """Every value equally frequent (counts differ by at most one)."""
    d = check_domain_size(domain_size)
    return Dataset(f"uniform:d={d}", _index_labels(d), round_to_total(np.ones(d), check_n_users(n)))


def _index_labels(d: int) -> tuple[str, ...]:
    return tuple(str(i) for i in range(d))


def rescale(dataset: Dataset, n: int) -> Dataset:
    """The same shape with ``n`` users (largest-remainder rounding)."""
    counts = round_to_total(dataset.counts.astype(float), n)
    return dataclasses.replace(dataset, counts=counts)


def parse_histogram(
    data: bytes,
    *,
    source: str = "the file",
    value_column: str | None = None,
    count_column: str | None = None,
    group_column: str | None = None,
    sum_duplicates: bool = False,
    header: bool | None = None,
    total: str = "ask",
) -> Dataset:
    r"""A :class:`Dataset` from the bytes of a histogram CSV/TSV (an upload).

    Columns are guessed from the header when it is obvious (see
    :func:`ldpcore.data.tables.inspect_table`) and can be chosen, as can whether the first
    row is a header; every problem raises :class:`ldpcore.data.tables.TableError` with a
    message that says what to change. A total row is refused, dropped or kept as
    ``total`` says (:func:`ldpcore.data.tables.read_numbers`).

    Examples
    --------
    >>> parse_histogram(b"emoji;uses\n:);3\n:(;1\n").counts.tolist()
    [3, 1]
    """
    table = read_numbers(
        data,
        source=source,
        value_column=value_column,
        number_column=count_column,
        group_column=group_column,
        numbers="counts",
        sum_duplicates=sum_duplicates,
        header=header,
        total=total,
    )
    counts = table.numbers.astype(np.int64)
    reading = Reading(
        value_column=value_column,
        count_column=count_column,
        group_column=group_column,
        header=header,
        sum_duplicates=sum_duplicates,
    )
    return Dataset(source, table.labels, counts, table.groups, table.total, reading)


def read_histogram(
    path: str | Path, *, total: str = "ask", reading: Reading | None = None
) -> Dataset:
    """Read a histogram file (``value,count[,group]`` CSV or TSV) into a :class:`Dataset`.

    Raises ``ValueError`` (a :class:`~ldpcore.data.tables.TableError`) with a message that
    says what to fix for a missing, empty, oversized or unreadable file and for every
    problem :func:`parse_histogram` finds; ``total`` as there, ``reading`` the choices
    a page made (:class:`~ldpcore.data.reading.Reading`: columns, header, numeric order).
    """
    file = Path(path)
    if not file.is_file():
        raise TableError(f"dataset file {str(file)!r} does not exist")
    if file.stat().st_size > bounds.UPLOAD_BYTES_MAX:  # before reading it into memory
        raise TableError(
            f"dataset file {str(file)!r} is over {bounds.UPLOAD_BYTES_MAX // 2**20} MiB"
        )
    try:
        data = file.read_bytes()
    except OSError as exc:
        raise TableError(f"cannot read {str(file)!r}: {exc.strerror}") from None
    how = reading or Reading()
    dataset = parse_histogram(
        data,
        source=repr(str(file)),
        value_column=how.value_column,
        count_column=how.count_column,
        group_column=how.group_column,
        sum_duplicates=how.sum_duplicates,
        header=how.header,
        total=total,
    )
    dataset = dataclasses.replace(dataset, name=file.name)
    if how.numeric_order:
        ordered = dataset.by_number()
        if ordered is None:
            raise TableError(
                f"{str(file)!r}: --numeric-order needs every value to be a number; "
                "leave it out to keep the file's order"
            )
        dataset = ordered
    return dataset


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
        raise InputError(
            f"unknown bundled dataset {name!r}; bundled: {', '.join(names) or '(none found)'}"
        )
    data = read_histogram(SAMPLE_DATA / f"{name}.csv")
    data = Dataset(name, data.labels, data.counts, data.groups)
    if top_d is not None:
        d = check_domain_size(top_d)
        keep = np.sort(np.argsort(-data.counts, kind="stable")[:d])
        groups = None if data.groups is None else tuple(data.groups[i] for i in keep)
        data = Dataset(
            f"{name} (top {d})", tuple(data.labels[i] for i in keep), data.counts[keep], groups
        )
    return data if n is None else rescale(data, check_n_users(n))
