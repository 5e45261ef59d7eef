"""A protocol's constructor parameter besides ε and d, with the rule its default follows.

The command line (``--g``, ``--branching``), ``ExperimentConfig.params`` and
:func:`ldpcore.protocols.get_protocol` read these declarations; each protocol's own
constructor checks a value against the domain, and computes the default by the rule the
declaration names, so that what ``--help`` says is what runs.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class ProtocolParameter:
    """A protocol's constructor parameter besides ε and d (e.g. OLH's ``g``).

    The command line (``--NAME``), ``ExperimentConfig.params`` and
    :func:`ldpcore.protocols.get_protocol` read these declarations; the protocol's own
    constructor checks the value against the domain.

    Attributes
    ----------
    name : str
        The keyword of the protocol's constructor.
    help : str
        What it is and its default, for people.
    minimum : float
        The smallest value that can be valid whatever the domain (and ε).
    whole : bool
        Whether it is a whole number (OLH's ``g``) or any real number (THE's ``θ``).
    """

    name: str
    help: str
    minimum: float
    whole: bool = True
    #: The rule the constructor computes the default with, from (ε, d): the help shows
    #: its values, so what a person reads is what runs (a test checks them against the
    #: built protocol).
    default: Callable[[float, int], float] | None = None
    #: The settings ``(ε, d)`` the help shows the default at.
    examples: tuple[tuple[float, int], ...] = ()

    def described(self) -> str:
        """The help, with the default computed at :attr:`examples` by :attr:`default`.

        Examples
        --------
        >>> ProtocolParameter("g", "a hash range (default round(e^ε + 1))", 2,
        ...     default=lambda e, d: round(math.exp(e) + 1), examples=((1.0, 8),)).described()
        'a hash range (default round(e^ε + 1): 4 at ε = 1, d = 8)'
        """
        if self.default is None or not self.examples:
            return self.help
        shown = "; ".join(
            f"{self.default(epsilon, d):.3g} at ε = {epsilon:g}, d = {d:,}"
            for epsilon, d in self.examples
        )
        return (
            f"{self.help.removesuffix(')')}: {shown})"
            if self.help.endswith(")")
            else (f"{self.help} (default {shown})")
        )

    @property
    def flag(self) -> str:
        """Its command-line option: ``--g``, ``--epsilon-inf``."""
        return "--" + self.name.replace("_", "-")

    def check(self, value: object, *, name: str | None = None) -> int | float:
        """``value`` as this parameter's kind, at least :attr:`minimum`, or an InputError."""
        from ldpcore._validation import check_int, check_real  # noqa: PLC0415

        label = self.name if name is None else name
        if self.whole:
            return check_int(value, name=label, minimum=math.ceil(self.minimum))
        return check_real(value, name=label, minimum=self.minimum)


__all__ = ["ProtocolParameter"]
