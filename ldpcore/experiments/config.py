"""An experiment's settings: a frozen, checked config whose equal values are equal runs.

:class:`ExperimentConfig` takes the dataset and query as text or typed specs and stores
them typed (parsed once, in ``__init__``), with the protocol, ε, n, methods, trials and
seed; ``build()`` makes the dataset, protocol and query without parsing anything
(NDSS 2020, Section V's experimental setup). Running it is :mod:`ldpcore.experiments.trials`.
"""

from __future__ import annotations

import dataclasses
import hashlib
import pickle
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from ldpcore import bounds
from ldpcore._validation import check_epsilon, check_int, check_n_users
from ldpcore.data.datasets import Dataset
from ldpcore.data.specs import DatasetSpec, ExplicitCounts, parse_dataset_spec
from ldpcore.errors import InputError
from ldpcore.postprocess import default_method_names, method_class, resolve_method_name
from ldpcore.protocols import (
    SAMPLERS,
    FrequencyOracle,
    check_protocol_parameters,
    get_protocol,
    protocol_class,
    protocol_parameters,
    resolve_protocol_name,
)
from ldpcore.queries.query import Query
from ldpcore.queries.specs import QuerySpec, parse_query_spec


@dataclass(frozen=True, init=False)
class ExperimentConfig:
    """Everything that determines a simulation's numbers, checked and normalised once.

    Parameters
    ----------
    dataset : str or DatasetSpec
        ``zipf:d=D,s=S``, ``uniform:d=D``, ``file:PATH`` or a bundled name (see
        :func:`ldpcore.data.specs.parse_dataset_spec`); a file is rescaled to ``n``.
        Stored as a typed spec (with ``true_counts``: an
        :class:`~ldpcore.data.specs.ExplicitCounts` named ``dataset``).
    n : int
        Number of users.
    protocol : str
        Registry name of the frequency oracle.
    epsilon : float
        Privacy budget.
    methods : sequence of str
        Post-processing methods (default: all).
    query : str or QuerySpec
        A query spec (:data:`ldpcore.queries.specs.QUERY_KINDS`), stored typed.
    trials : int
        Independent repetitions.
    seed : int
        The one seed everything derives from.
    sampler : {"fast", "per-user"}
        How support counts are drawn.
    params : mapping or tuple of (str, int) pairs, optional
        The protocol's declared extra parameters (``FrequencyOracle.extra_parameters``),
        e.g. ``{"g": 8}`` for OLH's hash range or ``{"k": 3}`` for SS's subset size;
        stored as sorted pairs so that configs stay hashable. Absent: the defaults.
    true_counts : tuple of int, optional
        Explicit true counts (then ``dataset`` is only a name); rescaled to ``n``.
    labels : tuple of str, optional
        Value labels for ``true_counts``.
    groups : tuple of str, optional
        The group of each value of ``true_counts`` (for group queries).

    Examples
    --------
    >>> a = ExperimentConfig(dataset="Zipf:d=8,s=1", n=100, protocol="olh", epsilon=1, query="Full")
    >>> a == ExperimentConfig(dataset="zipf:d=8,s=1.0", n=100, protocol="OLH", epsilon=1.0)
    True
    """

    dataset: DatasetSpec
    n: int
    protocol: str
    epsilon: float
    methods: tuple[str, ...]
    query: QuerySpec
    trials: int
    seed: int
    sampler: str
    params: tuple[tuple[str, int | float], ...]
    true_counts: tuple[int, ...] | None
    labels: tuple[str, ...] | None
    groups: tuple[str, ...] | None

    def __init__(
        self,
        *,
        dataset: str | DatasetSpec,
        n: int,
        protocol: str,
        epsilon: float,
        methods: Sequence[str] | None = None,
        query: str | QuerySpec = "full",
        trials: int = 30,
        seed: int = 0,
        sampler: str = "fast",
        params: tuple[tuple[str, int | float], ...] | Mapping[str, int | float] = (),
        true_counts: Sequence[int] | None = None,
        labels: Sequence[str] | None = None,
        groups: Sequence[str] | None = None,
    ) -> None:
        # Valid from birth: every field is checked here, with the messages the command
        # line prints, so a bad config fails where it is written, not deep in a run.
        # Specs are parsed here, once, into typed values, and names are normalised, so
        # equal settings are equal configs (one fingerprint, one cache entry). What needs
        # the data (k <= d, a protocol's parameter against d) waits for build().
        setting = object.__setattr__
        setting(self, "protocol", resolve_protocol_name(protocol))
        setting(self, "epsilon", check_epsilon(epsilon))
        setting(self, "n", check_n_users(n))
        if true_counts is None:
            setting(self, "dataset", parse_dataset_spec(dataset))
            setting(self, "true_counts", None)
            setting(self, "labels", None)
            setting(self, "groups", None)
        else:
            # dataclasses.replace passes the stored spec back in: keep its name.
            name = dataset.name if isinstance(dataset, ExplicitCounts) else dataset
            if not isinstance(name, str):
                raise InputError(f"dataset must be a name, got {name!r}")
            explicit = ExplicitCounts(
                name,
                _tuple(true_counts),
                None if labels is None else _tuple(labels),
                None if groups is None else _tuple(groups),
                dataset.total if isinstance(dataset, ExplicitCounts) else None,
                dataset.reading if isinstance(dataset, ExplicitCounts) else None,
            )
            setting(self, "dataset", explicit)
            setting(self, "true_counts", explicit.counts)
            setting(self, "labels", explicit.labels)
            setting(self, "groups", explicit.groups)
        setting(self, "query", parse_query_spec(query))
        given = params
        if isinstance(given, Mapping):
            given = tuple(given.items())
        try:
            pairs = dict(given)
        except (TypeError, ValueError):
            raise InputError(f"params must map parameter names to values, got {given!r}") from None
        checked = check_protocol_parameters(self.protocol, pairs)
        setting(self, "params", tuple(sorted(checked.items())))
        if methods is None:
            methods = default_method_names(self.protocol)
        if isinstance(methods, str):
            methods = (methods,)
        resolved = tuple(dict.fromkeys(resolve_method_name(m) for m in methods))
        if not resolved:
            raise InputError("methods must name at least one post-processing method")
        for name in resolved:
            method_class(name).check_protocol(protocol_class(self.protocol))
        setting(self, "methods", resolved)
        limits = {"minimum": bounds.TRIALS_MIN, "maximum": bounds.TRIALS_MAX}
        setting(self, "trials", check_int(trials, name="trials", **limits))
        setting(self, "seed", check_int(seed, name="seed", minimum=0))
        if sampler not in SAMPLERS:
            raise InputError(f"sampler must be one of {', '.join(SAMPLERS)}; got {sampler!r}")
        setting(self, "sampler", sampler)

    @classmethod
    def from_dataset(
        cls,
        dataset: Dataset,
        *,
        n: int,
        protocol: str,
        epsilon: float,
        query: str | QuerySpec = "full",
        methods: tuple[str, ...] | None = None,
        trials: int = 20,
        seed: int = 0,
    ) -> ExperimentConfig:
        """An experiment on a dataset's own counts (rescaled to ``n``), labels and groups."""
        counts = tuple(int(c) for c in dataset.counts)
        return cls(
            # The file's name, and what was done with its total row, for the command.
            dataset=ExplicitCounts(
                dataset.name, counts, total=dataset.total, reading=dataset.reading
            ),
            n=n,
            protocol=protocol,
            epsilon=epsilon,
            methods=methods or default_method_names(protocol),
            query=query,
            trials=trials,
            seed=seed,
            true_counts=counts,
            labels=dataset.labels,
            groups=dataset.groups,
        )

    def build(self) -> tuple[Dataset, FrequencyOracle, Query]:
        """The dataset, protocol and query, from the typed values (no text is parsed)."""
        data = self.dataset.build(self.n)
        protocol = get_protocol(
            self.protocol, epsilon=self.epsilon, domain_size=data.domain_size, **dict(self.params)
        )
        return data, protocol, self.query.build(data, seed=self.seed)

    def oracle(self) -> FrequencyOracle:
        """The protocol alone: :meth:`build` without the query.

        A full query at d = 100,000 takes a tenth of a second to build.
        """
        data = self.dataset.build(self.n)
        return get_protocol(
            self.protocol, epsilon=self.epsilon, domain_size=data.domain_size, **dict(self.params)
        )

    def with_oracle(self, protocol: FrequencyOracle) -> ExperimentConfig:
        """The same experiment with a built protocol: its name, ε and other parameters.

        For a plan whose protocol was chosen by the advice (a memoized chain with its
        lifetime ε∞, say): the run then builds that protocol again, exactly.
        """
        params = {
            key: value
            for key, value in protocol.parameters().items()
            if key not in {"epsilon", "domain_size"}
        }
        return dataclasses.replace(
            self,
            protocol=protocol.name,
            epsilon=protocol.epsilon,
            params=tuple(sorted(params.items())),
        )

    @cached_property
    def fingerprint(self) -> str:
        """A digest that differs whenever any field does (SHA-256 of the pickled fields).

        For caches keyed on configs: hashing the explicit counts element by element
        (as generic hashers do) takes over a second at d = 200,000; this takes
        milliseconds, once per config object.

        Examples
        --------
        >>> a = ExperimentConfig(dataset="zipf:d=8,s=1", n=100, protocol="OLH", epsilon=1.0)
        >>> a.fingerprint == dataclasses.replace(a).fingerprint
        True
        >>> a.fingerprint == dataclasses.replace(a, epsilon=2.0).fingerprint
        False
        """
        # Pickle is unambiguous (a label holding a separator cannot merge two labels)
        # and deterministic for these plain values. Specs enter as their kind and
        # canonical text (not pickled: a loaded spec carries its counts in its cache);
        # explicit counts are the fields true_counts, labels and groups.
        values = tuple(
            _plain_field(getattr(self, field.name)) for field in dataclasses.fields(self)
        )
        digest = hashlib.sha256(pickle.dumps(values, protocol=5))
        return digest.hexdigest()

    def to_dict(self) -> dict[str, Any]:
        """The config as plain JSON-ready values (explicit counts summarised)."""
        # Each declared protocol parameter is its own key (null when not set), where the
        # JSON contract has always had "g" and "k".
        given = dict(self.params)
        plain: dict[str, Any] = {}
        for key in (field.name for field in dataclasses.fields(self)):
            value = getattr(self, key)
            if key == "params":
                plain |= {name: given.get(name) for name in protocol_parameters()}
            elif key in {"dataset", "query"}:
                plain[key] = str(value)
            else:
                plain[key] = list(value) if key == "methods" else value
        if self.true_counts is not None:
            plain["true_counts"] = f"{len(self.true_counts)} explicit counts"
            plain["labels"] = None
            plain["groups"] = None
        return plain


def _tuple(values: Sequence[Any]) -> tuple[Any, ...]:
    # Explicit counts, labels and groups are stored as tuples (hashable, as configs are keys).
    if isinstance(values, str):
        raise InputError(f"expected a sequence of values, got the text {values!r}")
    try:
        return tuple(values)
    except TypeError:
        raise InputError(f"expected a sequence of values, got {values!r}") from None


def _plain_field(value: object) -> object:
    if isinstance(value, DatasetSpec | QuerySpec):
        return (type(value).__name__, str(value))
    return value


__all__ = ["ExperimentConfig"]
