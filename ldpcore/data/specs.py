"""Dataset specs as typed values: parsed once where a person writes them, then carried.

A dataset spec says where the true counts come from: ``zipf:d=D,s=S``, ``uniform:d=D``,
``file:PATH``, a bundled dataset's name (``emoji``), or counts given as numbers
(:class:`ExplicitCounts`, which has a name but no text form). Each spec is a frozen value
with a canonical ``str`` (``parse_dataset_spec(str(spec)) == spec``), so equal settings
are equal values, and :meth:`DatasetSpec.build` makes the :class:`~ldpcore.data.datasets.Dataset`
without reading any text. The synthetic generators are NDSS 2020 Sec. V-A's.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import ClassVar

import numpy as np
from numpy.typing import NDArray

from ldpcore._validation import check_counts, check_domain_size, check_n_users
from ldpcore.data.datasets import (
    Dataset,
    bundled_names,
    check_zipf_exponent,
    load_bundled,
    read_histogram,
    rescale,
    uniform,
    zipf,
)
from ldpcore.data.reading import Reading
from ldpcore.data.totals import TOTAL_FLAGS, check_total_choice
from ldpcore.errors import InputError
from ldpcore.specs import format_spec_number, parse_number, parse_spec

#: The Zipf exponent when a spec leaves it out (NDSS Sec. V-A's s = 1.5).
ZIPF_EXPONENT = 1.5


class DatasetSpec(ABC):
    """Where the true counts come from; a frozen, hashable value."""

    #: The text before ``:`` in a spec (empty for kinds with no text form).
    kind: ClassVar[str] = ""

    @abstractmethod
    def __str__(self) -> str:
        """The canonical text: ``parse_dataset_spec`` of it gives an equal spec."""

    @abstractmethod
    def build(self, n: int | None = None) -> Dataset:
        """The true counts, rescaled to ``n`` users when given (required if synthetic)."""

    @property
    def own_total(self) -> int | None:
        """The number of users the data carries itself (files and samples), else None."""
        return None

    @property
    def synthetic(self) -> bool:
        """Whether the counts are generated (so ``d`` can be swept)."""
        return False

    def with_domain_size(self, domain_size: int) -> DatasetSpec:
        """The same spec over ``domain_size`` values (synthetic specs only)."""
        raise InputError("sweeping d needs a synthetic dataset (zipf:… or uniform:…)")

    @abstractmethod
    def in_words(self) -> str:
        """A short phrase for sentences and captions."""


def _need_n(kind: str, n: int | None) -> int:
    if n is None:
        raise InputError(f"the {kind} dataset needs the number of users n")
    return check_n_users(n)


@dataclass(frozen=True)
class ZipfData(DatasetSpec):
    """Zipf counts, ``f_i ∝ i^(−s)`` over ranks ``1..d`` (NDSS Sec. V-A)."""

    domain_size: int
    s: float = ZIPF_EXPONENT
    kind: ClassVar[str] = "zipf"

    def __post_init__(self) -> None:
        object.__setattr__(self, "domain_size", check_domain_size(self.domain_size))
        check_zipf_exponent(self.s)
        object.__setattr__(self, "s", float(self.s))

    def __str__(self) -> str:
        return f"zipf:d={self.domain_size},s={format_spec_number(self.s)}"

    def build(self, n: int | None = None) -> Dataset:
        """Largest-remainder counts summing to exactly ``n``."""
        data = zipf(self.domain_size, _need_n(self.kind, n), self.s)
        return Dataset(str(self), data.labels, data.counts)

    @property
    def synthetic(self) -> bool:
        """Generated: yes."""
        return True

    def with_domain_size(self, domain_size: int) -> ZipfData:
        """The same exponent over ``domain_size`` values."""
        return ZipfData(domain_size, self.s)

    def in_words(self) -> str:
        """E.g. "Zipf (s = 1.5) over 1,024 values"."""
        return f"Zipf (s = {format_spec_number(self.s)}) over {self.domain_size:,} values"


@dataclass(frozen=True)
class UniformData(DatasetSpec):
    """Every value equally frequent (counts differ by at most one)."""

    domain_size: int
    kind: ClassVar[str] = "uniform"

    def __post_init__(self) -> None:
        object.__setattr__(self, "domain_size", check_domain_size(self.domain_size))

    def __str__(self) -> str:
        return f"uniform:d={self.domain_size}"

    def build(self, n: int | None = None) -> Dataset:
        """Counts differing by at most one, summing to ``n``."""
        return uniform(self.domain_size, _need_n(self.kind, n))

    @property
    def synthetic(self) -> bool:
        """Generated: yes."""
        return True

    def with_domain_size(self, domain_size: int) -> UniformData:
        """Uniform over ``domain_size`` values."""
        return UniformData(domain_size)

    def in_words(self) -> str:
        """E.g. "uniform over 64 values"."""
        return f"uniform over {self.domain_size:,} values"


@dataclass(frozen=True)
class _LoadedData(DatasetSpec):
    """A spec whose counts are read once, on first use, and kept with the value.

    Kept in the instance (not a module cache), so worker processes that receive the
    spec receive the counts too; equality and hashing see only the spec's fields.
    """

    @cached_property
    def loaded(self) -> Dataset:
        """The data as stored (not rescaled)."""
        return self._load()

    @abstractmethod
    def _load(self) -> Dataset: ...

    def build(self, n: int | None = None) -> Dataset:
        """The stored counts, rescaled to ``n`` users when given."""
        data = self.loaded
        return data if n is None else rescale(data, check_n_users(n))

    @property
    def own_total(self) -> int | None:
        """The number of users the stored counts hold."""
        return self.loaded.n


@dataclass(frozen=True)
class BundledData(_LoadedData):
    """A dataset shipped in ``sample_data/``, by its name."""

    name: str

    def __post_init__(self) -> None:
        names = bundled_names()
        if self.name not in names:
            raise InputError(
                f"unknown bundled dataset {self.name!r}; bundled: "
                f"{', '.join(names) or '(none found)'}"
            )

    def __str__(self) -> str:
        return self.name

    def _load(self) -> Dataset:
        return load_bundled(self.name)

    def in_words(self) -> str:
        """E.g. "the bundled emoji data"."""
        return f"the bundled {self.name} data"


@dataclass(frozen=True)
class FileData(_LoadedData):
    """A ``value,count[,group]`` CSV/TSV file on disk.

    ``total`` says what to do with a total row (:mod:`ldpcore.data.totals`); it is the
    command line's ``--drop-total`` / ``--keep-total``, and ``reading`` its column,
    header and order flags (:class:`~ldpcore.data.reading.Reading`); neither is part of
    the text form.
    """

    path: str
    total: str = "ask"
    reading: Reading = field(default_factory=Reading)
    kind: ClassVar[str] = "file"

    def __post_init__(self) -> None:
        check_total_choice(self.total)
        if not self.path:
            raise InputError("file: needs a path, e.g. file:counts.csv")
        if not Path(self.path).is_file():
            raise InputError(f"dataset file {self.path!r} does not exist")

    def __str__(self) -> str:
        return f"file:{self.path}"

    def _load(self) -> Dataset:
        return read_histogram(self.path, total=self.total, reading=self.reading)

    def in_words(self) -> str:
        """E.g. "the file counts.csv"."""
        return f"the file {Path(self.path).name}"


@dataclass(frozen=True)
class ExplicitCounts(DatasetSpec):
    """Counts given as numbers (an upload, an API call): a name, no text form.

    ``str`` is the name, which :func:`parse_dataset_spec` does not read back. ``total``
    is what was done with the file's total row when it had one (``"drop"`` or
    ``"keep"``), so that the command reproducing it reads the file the same way.
    """

    name: str
    counts: tuple[int, ...]
    labels: tuple[str, ...] | None = None
    groups: tuple[str, ...] | None = None
    total: str | None = None
    reading: Reading | None = None
    # The checked array, made once; not part of the value.
    _array: NDArray[np.int64] | None = field(
        default=None, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise InputError(f"dataset must be a name, got {self.name!r}")
        d = len(self.counts)
        for what in ("labels", "groups"):
            given = getattr(self, what)
            if given is not None and len(given) != d:
                raise InputError(
                    f"{what} must have one entry per value of true_counts ({d}), got {len(given)}"
                )
        if self.total is not None and self.total not in TOTAL_FLAGS:
            raise InputError(f"total must be one of {', '.join(TOTAL_FLAGS)}; got {self.total!r}")
        array = check_counts(self.counts, name="true_counts", length=d)
        if array.sum() == 0:
            raise InputError("true_counts must hold at least one user (they are all 0)")
        object.__setattr__(self, "_array", array)

    def __str__(self) -> str:
        return self.name

    def build(self, n: int | None = None) -> Dataset:
        """The counts with their labels and groups, rescaled to ``n`` when it differs."""
        assert self._array is not None  # set in __post_init__
        labels = self.labels or tuple(str(i) for i in range(len(self.counts)))
        data = Dataset(self.name, labels, self._array, self.groups, self.total, self.reading)
        return data if n is None or data.n == n else rescale(data, check_n_users(n))

    @property
    def own_total(self) -> int | None:
        """The number of users the counts hold."""
        return int(sum(self.counts))

    def in_words(self) -> str:
        """The name as given."""
        return self.name

    def command_text(self) -> str:
        """How a command names these counts.

        ``file:NAME``, the person's file by its name, or a bundled dataset's own name
        where they are its counts as shipped (a page's pick of sample data, which the
        command finds without a file).
        """
        assert self._array is not None  # set in __post_init__
        shipped = (
            self.total is None
            and self.reading is None
            and self.name in bundled_names()
            and np.array_equal(load_bundled(self.name).counts, self._array)
        )
        return self.name if shipped else f"file:{self.name}"


_DATASET_HELP = (
    "unknown dataset {got}; use zipf:d=D,s=S (e.g. zipf:d=1024,s=1.5), uniform:d=D, "
    "file:PATH or a bundled dataset name"
)


def parse_dataset_spec(text: object) -> DatasetSpec:
    """The typed spec of a dataset written as text (a spec passes through unchanged).

    Examples
    --------
    >>> str(parse_dataset_spec("Zipf:d=8, s=1"))
    'zipf:d=8,s=1'
    >>> parse_dataset_spec("zipf:d=8") == parse_dataset_spec("zipf:d=8,s=1.5")
    True
    """
    if isinstance(text, DatasetSpec):
        return text
    if not isinstance(text, str) or not text.strip():
        raise InputError(_DATASET_HELP.format(got=repr(text)))
    stripped = text.strip()
    if ":" not in stripped and stripped in bundled_names():
        return BundledData(stripped)
    kind, _, rest = stripped.partition(":")
    if kind.lower() == FileData.kind:  # a path may hold "," or "="
        return FileData(rest)
    parsed = parse_spec(text, what="dataset")
    options = parsed.options
    if parsed.kind == ZipfData.kind and "d" in options and set(options) <= {"d", "s"}:
        d = parse_number(options["d"], "d", where=text)
        s = parse_number(options.get("s", ZIPF_EXPONENT), "s", where=text)
        return ZipfData(check_domain_size(d), s)
    if parsed.kind == UniformData.kind and set(options) == {"d"}:
        return UniformData(check_domain_size(parse_number(options["d"], "d", where=text)))
    raise InputError(_DATASET_HELP.format(got=repr(text)))


def parse_dataset(spec: str | DatasetSpec, n: int | None = None) -> Dataset:
    """Build a dataset from its spec (text or typed).

    Specs: ``zipf:d=D,s=S``, ``uniform:d=D``, ``file:PATH`` or a bundled dataset's name.
    Synthetic specs need ``n``; files and bundled data are rescaled to ``n`` when given.

    Examples
    --------
    >>> parse_dataset("zipf:d=4,s=1", n=100).counts.tolist()
    [48, 24, 16, 12]
    """
    return parse_dataset_spec(spec).build(n)


def dataset_total(spec: str | DatasetSpec) -> int | None:
    """The number of users a dataset carries itself (a file or a bundled sample), else None.

    Examples
    --------
    >>> dataset_total("zipf"), dataset_total("zipf:d=8,s=1")
    (1000000, None)
    """
    return parse_dataset_spec(spec).own_total


__all__ = [
    "ZIPF_EXPONENT",
    "BundledData",
    "DatasetSpec",
    "ExplicitCounts",
    "FileData",
    "UniformData",
    "ZipfData",
    "dataset_total",
    "parse_dataset",
    "parse_dataset_spec",
]
