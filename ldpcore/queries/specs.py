"""Query specs as typed values, and the registry of query kinds (NDSS 2020, Section V).

A query spec says what is asked of the distribution: ``full``, ``topk:k=K``,
``set:rho=R[,samples=M]``, ``groups[:file=PATH]``, ``prefix``,
``interval[:samples=M]``, ``range:length=L`` or ``quantile[:q=Q]``. Each kind is one
class here: it parses its options once (:meth:`QuerySpec.from_options`), writes its
canonical text (``str``; parsing it back gives an equal value), builds the
:class:`~ldpcore.queries.query.Query` for a dataset, and says what the pages need
(:meth:`QuerySpec.in_words`, :attr:`QuerySpec.single_values`). A new query kind is one
subclass added to :data:`QUERY_KINDS`.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar, Final, Protocol

import numpy as np
from numpy.typing import NDArray

from ldpcore._validation import check_int
from ldpcore.errors import InputError
from ldpcore.queries.query import (
    DECILES,
    Query,
    full_domain,
    groups,
    groups_from_file,
    prefixes,
    quantiles,
    random_intervals,
    random_sets,
    ranges_of_length,
    top_k,
)
from ldpcore.specs import format_spec_number, parse_number, parse_spec


class QueryData(Protocol):
    """What a query reads of a dataset (:class:`ldpcore.data.datasets.Dataset` has it all)."""

    @property
    def domain_size(self) -> int: ...  # noqa: D102

    @property
    def labels(self) -> tuple[str, ...]: ...  # noqa: D102

    @property
    def groups(self) -> tuple[str, ...] | None: ...  # noqa: D102

    def frequencies(self) -> NDArray[np.float64]: ...  # noqa: D102


@dataclass(frozen=True)
class _Frequencies:
    """A frequency vector with labels and groups: :class:`QueryData` without counts."""

    vector: NDArray[np.float64]
    labels: tuple[str, ...]
    groups: tuple[str, ...] | None

    @property
    def domain_size(self) -> int:
        return int(self.vector.size)

    def frequencies(self) -> NDArray[np.float64]:
        return self.vector


#: Most random sets or intervals a query may ask.
SAMPLES_MAX = 10_000


class QuerySpec(ABC):
    """What is asked of the distribution; a frozen, hashable value.

    Subclasses are frozen dataclasses whose fields are the kind's options.
    """

    #: The text before ``:`` in a spec.
    kind: ClassVar[str]
    #: How the kind is written, for help texts (e.g. ``topk:k=K``).
    usage: ClassVar[str]
    #: Whether every answer is one value's frequency (then Base's exact MSE, Eq. 3, applies).
    single_values: ClassVar[bool] = False
    #: Whether it asks every value on its own (then equivalent users are defined).
    whole_domain: ClassVar[bool] = False
    #: Whether it reads the values in their order (ranges, prefixes, quantiles): the
    #: mechanisms made for ordered values then join "all protocols" whatever the data.
    reads_order: ClassVar[bool] = False

    @classmethod
    @abstractmethod
    def from_options(cls, options: Mapping[str, str], text: str) -> QuerySpec:
        """The spec from its ``key=value`` options (keys lower case), or an InputError."""

    @abstractmethod
    def __str__(self) -> str:
        """The canonical text: ``parse_query_spec`` of it gives an equal spec."""

    @abstractmethod
    def build(self, data: QueryData, *, seed: int = 0) -> Query:
        """The questions for this dataset (``seed`` draws random sets or ranges)."""

    @abstractmethod
    def in_words(self) -> str:
        """A short phrase for headlines ("the top-10 values")."""


def _no_options(options: Mapping[str, str], text: str) -> None:
    if options:
        raise InputError(query_help(text))


def _samples(options: Mapping[str, str], text: str) -> int:
    raw = parse_number(options.get("samples", 10), "samples", where=text)
    return check_int(raw, name="samples", minimum=1, maximum=SAMPLES_MAX)


@dataclass(frozen=True)
class FullQuery(QuerySpec):
    """Every value's frequency on its own (NDSS Sec. V-B)."""

    kind: ClassVar[str] = "full"
    usage: ClassVar[str] = "full"
    single_values: ClassVar[bool] = True
    whole_domain: ClassVar[bool] = True

    @classmethod
    def from_options(cls, options: Mapping[str, str], text: str) -> FullQuery:
        """No options."""
        _no_options(options, text)
        return cls()

    def __str__(self) -> str:
        return "full"

    def build(self, data: QueryData, *, seed: int = 0) -> Query:
        """One question per value."""
        return full_domain(data.domain_size)

    def in_words(self) -> str:
        """Every value's frequency."""
        return "every value's frequency"


@dataclass(frozen=True)
class TopKQuery(QuerySpec):
    """The ``k`` values with the highest *true* frequency (NDSS Sec. V-C)."""

    k: int
    kind: ClassVar[str] = "topk"
    usage: ClassVar[str] = "topk:k=K"
    single_values: ClassVar[bool] = True

    def __post_init__(self) -> None:
        object.__setattr__(self, "k", check_int(self.k, name="k", minimum=1))

    @classmethod
    def from_options(cls, options: Mapping[str, str], text: str) -> TopKQuery:
        """``k`` (required)."""
        if set(options) != {"k"}:
            raise InputError(query_help(text))
        return cls(check_int(parse_number(options["k"], "k", where=text), name="k", minimum=1))

    def __str__(self) -> str:
        return f"topk:k={self.k}"

    def build(self, data: QueryData, *, seed: int = 0) -> Query:
        """The k most frequent values (k at most d)."""
        return top_k(data.frequencies(), self.k)

    def in_words(self) -> str:
        """E.g. "the top-10 values"."""
        return f"the top-{self.k} values"


@dataclass(frozen=True)
class SetQuery(QuerySpec):
    """``samples`` random sets of ``⌈ρ d⌉`` values (NDSS Sec. V-D)."""

    rho: float
    samples: int = 10
    kind: ClassVar[str] = "set"
    usage: ClassVar[str] = "set:rho=R[,samples=M]"

    def __post_init__(self) -> None:
        rho = self.rho
        if isinstance(rho, bool) or not isinstance(rho, int | float):
            raise InputError(
                f"rho (the set size as a fraction of d) must be in (0, 1], got {rho!r}"
            )
        if not (math.isfinite(rho) and 0 < rho <= 1):
            raise InputError(
                f"rho (the set size as a fraction of d) must be in (0, 1], got {rho!r}"
            )
        object.__setattr__(self, "rho", float(rho))
        samples = check_int(self.samples, name="samples", minimum=1, maximum=SAMPLES_MAX)
        object.__setattr__(self, "samples", samples)

    @classmethod
    def from_options(cls, options: Mapping[str, str], text: str) -> SetQuery:
        """``rho`` (required) and ``samples``."""
        if "rho" not in options or not set(options) <= {"rho", "samples"}:
            raise InputError(query_help(text))
        return cls(parse_number(options["rho"], "rho", where=text), _samples(options, text))

    def __str__(self) -> str:
        return f"set:rho={format_spec_number(self.rho)},samples={self.samples}"

    def build(self, data: QueryData, *, seed: int = 0) -> Query:
        """The same sets for every trial and method (they depend on the seed only)."""
        return random_sets(data.domain_size, self.rho, samples=self.samples, seed=seed)

    def in_words(self) -> str:
        """Sets of values."""
        return "sets of values"


@dataclass(frozen=True)
class GroupsQuery(QuerySpec):
    """The total of each group: the dataset's own, or a ``value,group`` file's."""

    file: str | None = None
    kind: ClassVar[str] = "groups"
    usage: ClassVar[str] = "groups[:file=PATH]"

    @classmethod
    def from_options(cls, options: Mapping[str, str], text: str) -> GroupsQuery:
        """``file`` (optional)."""
        if not set(options) <= {"file"}:
            raise InputError(query_help(text))
        return cls(options.get("file"))

    def __str__(self) -> str:
        return "groups" if self.file is None else f"groups:file={self.file}"

    def build(self, data: QueryData, *, seed: int = 0) -> Query:
        """One question per group (a file is matched to the dataset's labels)."""
        if self.file is not None:
            return groups_from_file(self.file, data.labels)
        if data.groups is None:
            raise InputError(
                "the groups query needs a dataset whose values have groups, or a value,group "
                "file: groups:file=PATH"
            )
        return groups(data.groups)

    def in_words(self) -> str:
        """Group totals."""
        return "group totals"


@dataclass(frozen=True)
class PrefixQuery(QuerySpec):
    """``P(value ≤ i)`` for every ``i`` of an ordered domain."""

    kind: ClassVar[str] = "prefix"
    reads_order: ClassVar[bool] = True
    usage: ClassVar[str] = "prefix"

    @classmethod
    def from_options(cls, options: Mapping[str, str], text: str) -> PrefixQuery:
        """No options."""
        _no_options(options, text)
        return cls()

    def __str__(self) -> str:
        return "prefix"

    def build(self, data: QueryData, *, seed: int = 0) -> Query:
        """One running sum per value."""
        return prefixes(data.domain_size)

    def in_words(self) -> str:
        """Prefixes."""
        return "prefixes"


@dataclass(frozen=True)
class IntervalQuery(QuerySpec):
    """``samples`` random ranges ``[a, b]`` of an ordered domain."""

    samples: int = 10
    kind: ClassVar[str] = "interval"
    reads_order: ClassVar[bool] = True
    usage: ClassVar[str] = "interval[:samples=M]"

    def __post_init__(self) -> None:
        samples = check_int(self.samples, name="samples", minimum=1, maximum=SAMPLES_MAX)
        object.__setattr__(self, "samples", samples)

    @classmethod
    def from_options(cls, options: Mapping[str, str], text: str) -> IntervalQuery:
        """``samples`` (optional)."""
        if not set(options) <= {"samples"}:
            raise InputError(query_help(text))
        return cls(_samples(options, text))

    def __str__(self) -> str:
        return f"interval:samples={self.samples}"

    def build(self, data: QueryData, *, seed: int = 0) -> Query:
        """The same ranges for every trial and method."""
        return random_intervals(data.domain_size, samples=self.samples, seed=seed)

    def in_words(self) -> str:
        """Intervals."""
        return "intervals"


@dataclass(frozen=True)
class RangeQuery(QuerySpec):
    """Every range of ``length`` consecutive values of an ordered domain."""

    length: int = 10
    kind: ClassVar[str] = "range"
    reads_order: ClassVar[bool] = True
    usage: ClassVar[str] = "range:length=L"

    def __post_init__(self) -> None:
        object.__setattr__(self, "length", check_int(self.length, name="length", minimum=1))

    @classmethod
    def from_options(cls, options: Mapping[str, str], text: str) -> RangeQuery:
        """``length`` (required)."""
        if set(options) != {"length"}:
            raise InputError(query_help(text))
        raw = parse_number(options["length"], "length", where=text)
        return cls(check_int(raw, name="length", minimum=1))

    def __str__(self) -> str:
        return f"range:length={self.length}"

    def build(self, data: QueryData, *, seed: int = 0) -> Query:
        """The ``d − L + 1`` ranges, the same for every trial and method."""
        if self.length > data.domain_size:
            raise InputError(
                f"a range of {self.length:,} values is longer than the domain's "
                f"{data.domain_size:,}; use a length of at most {data.domain_size:,}"
            )
        return ranges_of_length(data.domain_size, self.length)

    def in_words(self) -> str:
        """Ranges of L values."""
        return f"ranges of {self.length:,} values"


@dataclass(frozen=True)
class QuantileQuery(QuerySpec):
    """A quantile (``q``) or the deciles (no ``q``) of an ordered domain, as value positions."""

    q: float | None = None
    kind: ClassVar[str] = "quantile"
    reads_order: ClassVar[bool] = True
    usage: ClassVar[str] = "quantile[:q=Q]"

    def __post_init__(self) -> None:
        if self.q is not None and not (
            isinstance(self.q, int | float) and math.isfinite(self.q) and 0 < self.q < 1
        ):
            raise InputError(f"q (the quantile) must be between 0 and 1, got {self.q!r}")

    @classmethod
    def from_options(cls, options: Mapping[str, str], text: str) -> QuantileQuery:
        """``q`` (optional: the deciles without it)."""
        if not set(options) <= {"q"}:
            raise InputError(query_help(text))
        if "q" not in options:
            return cls()
        return cls(float(parse_number(options["q"], "q", where=text)))

    def __str__(self) -> str:
        return "quantile" if self.q is None else f"quantile:q={format_spec_number(self.q)}"

    def build(self, data: QueryData, *, seed: int = 0) -> Query:
        """The positions at which the running share reaches each level."""
        return quantiles(data.domain_size, DECILES if self.q is None else (self.q,))

    def in_words(self) -> str:
        """The deciles, or the q-quantile."""
        if self.q is None:
            return "the deciles (in values)"
        if self.q == 0.5:
            return "the median (in values)"
        return f"the {format_spec_number(100 * self.q)}th percentile (in values)"


#: Kind → spec class: the one list of query kinds (help texts and pickers read it).
QUERY_KINDS: Final = MappingProxyType(
    {
        cls.kind: cls
        for cls in (
            FullQuery,
            TopKQuery,
            SetQuery,
            GroupsQuery,
            PrefixQuery,
            IntervalQuery,
            RangeQuery,
            QuantileQuery,
        )
    }
)


def query_kinds() -> tuple[str, ...]:
    """The registered query kinds, in display order."""
    return tuple(QUERY_KINDS)


def query_usage() -> str:
    """How every registered kind is written: ``full | topk:k=K | …``."""
    return " | ".join(cls.usage for cls in QUERY_KINDS.values())


def query_help(got: object) -> str:
    """The message for a query spec that is not one of the registered kinds."""
    kinds = [cls.usage for cls in QUERY_KINDS.values()]
    return f"unknown query {got!r}; use {', '.join(kinds[:-1])} or {kinds[-1]}"


def parse_query_spec(text: object) -> QuerySpec:
    """The typed spec of a query written as text (a spec passes through unchanged).

    Examples
    --------
    >>> parse_query_spec("TopK:k=10")
    TopKQuery(k=10)
    >>> str(parse_query_spec("set:rho=0.1"))
    'set:rho=0.1,samples=10'
    """
    if isinstance(text, QuerySpec):
        return text
    if not isinstance(text, str):
        raise InputError(query_help(text))
    parsed = parse_spec(text, what="query")
    cls = QUERY_KINDS.get(parsed.kind)
    if cls is None:
        raise InputError(query_help(text))
    return cls.from_options(parsed.options, text)


def parse_query(
    spec: str | QuerySpec,
    *,
    true_frequencies: NDArray[np.float64],
    group_of_value: list[str] | tuple[str, ...] | None = None,
    seed: int = 0,
    labels: tuple[str, ...] | None = None,
) -> Query:
    """Build a query from its spec for a frequency vector (labels and groups optional).

    Examples
    --------
    >>> parse_query("topk:k=2", true_frequencies=np.array([0.1, 0.6, 0.3])).labels
    ('1', '2')
    """
    f = np.asarray(true_frequencies, dtype=np.float64)
    data = _Frequencies(
        f,
        labels or tuple(map(str, range(f.size))),
        None if group_of_value is None else tuple(group_of_value),
    )
    return parse_query_spec(spec).build(data, seed=seed)


__all__ = [
    "QUERY_KINDS",
    "SAMPLES_MAX",
    "FullQuery",
    "GroupsQuery",
    "IntervalQuery",
    "PrefixQuery",
    "QuantileQuery",
    "QueryData",
    "QuerySpec",
    "RangeQuery",
    "SetQuery",
    "TopKQuery",
    "parse_query",
    "parse_query_spec",
    "query_help",
    "query_kinds",
    "query_usage",
]
