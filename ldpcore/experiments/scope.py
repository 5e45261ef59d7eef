"""What applies: which protocols and methods fit this data and this question.

Every surface that offers "all protocols" or "all methods" (the commands'
``--protocol all`` and ``--methods all``, the pages' pickers and tables, Choose ε, Fake
users, the record) asks :func:`what_applies`, so the same data and question get the
same list everywhere, and what is left out is said in one line each, before any work
starts, never as an error after it.

The rule reads only what the registries declare:

* a protocol's :attr:`~ldpcore.protocols.base.FrequencyOracle.max_domain` (the Square
  Wave keeps its channel's inverse) leaves it out of a larger domain, named or not;
* a protocol made for ordered values (its ``ordered_values``: the trees, the Haar
  wavelet, the Square Wave) joins "all" only when the values have an order
  (:attr:`ldpcore.data.datasets.Dataset.ordered`) or the question reads one
  (:attr:`ldpcore.queries.specs.QuerySpec.reads_order`); named, it runs anyway;
* a protocol made for collecting again (a memoized chain or dBitFlipPM: its
  :attr:`~ldpcore.protocols.base.FrequencyOracle.one_shot` names the protocol it
  memoizes) joins "all" only when the question is about repeated collection, the one
  its memo exists for; named, it runs anyway;
* a method joins "all" for a protocol as :meth:`~ldpcore.postprocess.base.PostProcessor.joins_all`
  says, and a named method is left out of a protocol it cannot run on
  (:meth:`~ldpcore.postprocess.base.PostProcessor.refusal`) or of a domain larger than
  its :attr:`~ldpcore.postprocess.base.PostProcessor.max_domain`.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from ldpcore.data.datasets import Dataset
from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.postprocess import (
    METHODS,
    default_method_names,
    method_class,
    resolve_method_name,
)
from ldpcore.protocols import PROTOCOLS, protocol_class, resolve_protocol_name
from ldpcore.protocols.base import FrequencyOracle
from ldpcore.queries.specs import QuerySpec

#: How "every protocol" or "every method" is written where a person may write it.
ALL = "all"


@dataclass(frozen=True)
class Scope:
    """The protocols and methods that apply, and one line for each one left out.

    Attributes
    ----------
    plan : tuple of (str, tuple of str)
        Each protocol that applies, in registry order, with the methods that run on it.
    left_out : tuple of str
        Why each protocol or method asked for (or meant by "all") is not in ``plan``.
    """

    plan: tuple[tuple[str, tuple[str, ...]], ...]
    left_out: tuple[str, ...]

    @property
    def protocols(self) -> tuple[str, ...]:
        """The protocols that apply, in order."""
        return tuple(name for name, _ in self.plan)

    def methods_for(self, protocol: str) -> tuple[str, ...]:
        """The methods that run on ``protocol`` here (an InputError if it is left out)."""
        wanted = resolve_protocol_name(protocol)
        for name, methods in self.plan:
            if name == wanted:
                return methods
        raise InputError(f"{wanted} does not apply here: {'; '.join(self.left_out)}")

    @property
    def methods(self) -> tuple[str, ...]:
        """Every method that runs on at least one protocol, in registry order."""
        kept = {m for _, methods in self.plan for m in methods}
        return tuple(name for name in METHODS if name in kept)


def protocol_refusal(
    protocol: type[FrequencyOracle],
    *,
    domain_size: int,
    ordered: bool,
    reads_order: bool,
    named: bool,
    repeated: bool = False,
) -> str | None:
    """Why ``protocol`` does not apply here, in one line (None when it does).

    Examples
    --------
    >>> from ldpcore.protocols import SquareWave
    >>> protocol_refusal(SquareWave, domain_size=10_000, ordered=False, reads_order=False,
    ...                  named=True)
    'SW: at most 2,048 values, and this data has 10,000'
    >>> protocol_refusal(SquareWave, domain_size=100, ordered=False, reads_order=False,
    ...                  named=False)
    'SW: made for ordered values (ranges, quantiles), and these values have no order'
    >>> from ldpcore.protocols import PROTOCOLS
    >>> protocol_refusal(PROTOCOLS["L-GRR"], domain_size=100, ordered=False,
    ...                  reads_order=False, named=False)
    'L-GRR: made for collecting again (memoized reports), and this question is one collection'
    """
    if protocol.max_domain is not None and domain_size > protocol.max_domain:
        return (
            f"{protocol.name}: at most {protocol.max_domain:,} values, and this data has "
            f"{domain_size:,}"
        )
    if protocol.ordered_values and not (ordered or reads_order or named):
        return (
            f"{protocol.name}: made for ordered values (ranges, quantiles), and these "
            "values have no order"
        )
    if protocol.one_shot is not None and not (repeated or named):
        return (
            f"{protocol.name}: made for collecting again (memoized reports), and this "
            "question is one collection"
        )
    return None


def method_refusal(method: str, protocol: type[FrequencyOracle], *, domain_size: int) -> str | None:
    """Why ``method`` does not run on ``protocol`` at this domain, in one line."""
    cls = method_class(method)
    if cls.max_domain is not None and domain_size > cls.max_domain:
        return f"{cls.name}: at most {cls.max_domain:,} values, and this data has {domain_size:,}"
    reason = cls.refusal(protocol)
    if reason is None:
        return None
    # The refusal's first clause says why; the rest says what to choose instead.
    return f"{cls.name} on {protocol.name}: {re.split(r'[:.] ', reason, maxsplit=1)[0]}"


def _names(
    raw: str | Sequence[str], resolve: Callable[[str], str], what: str
) -> tuple[str, ...] | None:
    """None for "all", else the canonical names, each once, in the order given."""
    if isinstance(raw, str):
        if raw.strip().lower() == ALL:
            return None
        raw = raw.split(",")
    names = tuple(part.strip() for part in raw if str(part).strip())
    if not names:
        raise InputError(f"name at least one {what}, or write {ALL!r}")
    return tuple(dict.fromkeys(resolve(name) for name in names))


def what_applies(
    *,
    domain_size: int,
    ordered: bool,
    reads_order: bool = False,
    repeated: bool = False,
    protocols: str | Sequence[str] = ALL,
    methods: str | Sequence[str] = ALL,
) -> Scope:
    """Which protocols and methods apply to data of ``domain_size`` values and a question.

    Parameters
    ----------
    domain_size : int
        The number of values ``d``.
    ordered : bool
        Whether the values have an order (:attr:`ldpcore.data.datasets.Dataset.ordered`).
    reads_order : bool, optional
        Whether the question reads the values in order (a range, a quantile:
        :attr:`ldpcore.queries.specs.QuerySpec.reads_order`).
    repeated : bool, optional
        Whether the question is about collecting the same values again (rounds): only
        then do the protocols made for it join "all".
    protocols, methods : str or sequence of str, optional
        ``"all"`` (the default), ``"A,B"`` or names.

    Returns
    -------
    Scope
        The plan and what is left out. "All" leaves out what does not apply and says
        why; a protocol named that does not take the domain, or named protocols and
        methods of which nothing can run, are an :class:`InputError` saying why.

    Examples
    --------
    >>> scope = what_applies(domain_size=10_000, ordered=False)
    >>> "SW" in scope.protocols, "TreeOUE" in scope.protocols, "OUE" in scope.protocols
    (False, False, True)
    >>> "Consistency" in scope.methods_for("OUE")
    False
    >>> "Consistency" in what_applies(domain_size=64, ordered=True).methods_for("TreeOUE")
    True
    """
    named_protocols = _names(protocols, resolve_protocol_name, "protocol")
    named_methods = _names(methods, resolve_method_name, "method")
    plan: list[tuple[str, tuple[str, ...]]] = []
    said: list[str] = []
    unfit: dict[str, list[str]] = {}  # "all"'s protocols left out, by the reason
    refused: list[str] = []
    for name in named_protocols or tuple(PROTOCOLS):
        cls = protocol_class(name)
        reason = protocol_refusal(
            cls,
            domain_size=domain_size,
            ordered=ordered,
            reads_order=reads_order,
            named=named_protocols is not None,
            repeated=repeated,
        )
        if reason is not None and named_protocols is None:
            unfit.setdefault(reason.removeprefix(f"{name}: "), []).append(name)
            continue
        if reason is not None:
            refused.append(reason)
            continue
        if named_methods is None:
            kept = tuple(
                m
                for m in default_method_names(cls)
                if method_refusal(m, cls, domain_size=domain_size) is None
            )
        else:
            reasons = {m: method_refusal(m, cls, domain_size=domain_size) for m in named_methods}
            kept = tuple(m for m, why in reasons.items() if why is None)
            said.extend(why for why in reasons.values() if why is not None)
        if kept:
            plan.append((name, kept))
        else:
            line = f"{name}: none of the methods asked for runs on it"
            (said if named_protocols is None else refused).append(line)
    # One line per reason, naming every protocol it leaves out.
    said[:0] = [f"{', '.join(names)}: {why}" for why, names in unfit.items()]
    if refused:
        raise InputError("; ".join(refused))
    if not plan:
        raise InputError("nothing asked for applies here: " + "; ".join(said))
    return Scope(plan=tuple(plan), left_out=tuple(dict.fromkeys(said)))


def scope_for(
    data: Dataset,
    query: QuerySpec | None = None,
    *,
    protocols: str | Sequence[str] = ALL,
    methods: str | Sequence[str] = ALL,
) -> Scope:
    """:func:`what_applies` to ``data``'s size and order and ``query``'s reading of it.

    Examples
    --------
    >>> from ldpcore.data.specs import parse_dataset_spec
    >>> from ldpcore.queries.specs import parse_query_spec
    >>> ages = parse_dataset_spec("ages").build(1000)
    >>> "TreeOUE" in scope_for(ages, parse_query_spec("topk:k=5")).protocols
    True
    >>> words = parse_dataset_spec("words").build(1000)
    >>> scope_for(words, parse_query_spec("topk:k=10")).left_out[0]
    'L-GRR, L-OSUE, L-SUE, L-OUE, L-SOUE, dBitFlipPM: made for collecting again (memoized reports), and this question is one collection'
    >>> scope_for(words, parse_query_spec("topk:k=10")).left_out[1]
    'TreeOUE, TreeOLH, HaarHRR: made for ordered values (ranges, quantiles), and these values have no order'
    """  # noqa: E501
    return what_applies(
        domain_size=data.domain_size,
        ordered=data.ordered,
        reads_order=query is not None and query.reads_order,
        protocols=protocols,
        methods=methods,
    )


def scope_of(config: ExperimentConfig, *, methods: str | Sequence[str] = ALL) -> Scope:
    """What applies to ``config``'s data and query, with ``methods`` on each protocol.

    The Explorer's "every protocol" and a sweep over protocols compare these.
    """
    return scope_for(config.dataset.build(config.n), config.query, methods=methods)


def searched_configs(
    config: ExperimentConfig, protocols: Sequence[str], methods: Sequence[str] | None = None
) -> dict[str, ExperimentConfig]:
    """The run a search makes per protocol: ``config`` at it, with the methods that run on it.

    ``methods`` (default: ``config``'s), Base always among them, are narrowed per protocol
    by :func:`ldpcore.experiments.scope.scope_for` (SW has no support counts for Power to
    read); a protocol named that does not apply to the data is an InputError saying why.
    """
    asked = tuple(dict.fromkeys(("Base", *(config.methods if methods is None else methods))))
    scope = scope_for(
        config.dataset.build(config.n), config.query, protocols=tuple(protocols), methods=asked
    )
    return {
        name: dataclasses.replace(config, protocol=name, methods=scope.methods_for(name))
        for name in scope.protocols
    }


__all__ = [
    "ALL",
    "Scope",
    "method_refusal",
    "protocol_refusal",
    "scope_for",
    "scope_of",
    "searched_configs",
    "what_applies",
]
