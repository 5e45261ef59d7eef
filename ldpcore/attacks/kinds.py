"""The fake-user attacks and the spec that names one: ``mga:beta=0.05,targets=3``.

Cao, Jia and Gong (USENIX Security 2021, Sec. 3) give three attacks, each a way for the
``m`` fake users to choose the report they send:

* **rpa** (random perturbed value): a report drawn uniformly from the protocol's report
  space, ignoring the randomizer: the attacker knows nothing of the targets' encoding;
* **ria** (random item): a target drawn uniformly, sent through the protocol's own
  randomizer, so a fake report looks exactly like an honest one (the input manipulation
  of Cheu, Smith and Ullman: LDP itself cannot refuse it);
* **mga** (maximal gain): the report that supports the most targets the protocol allows
  (GRR: a target; unary encoding: every target bit set; OLH: a hash that sends every
  target to the reported bucket), which maximises the targets' total estimated gain.

Every attack needs ``r`` targets and the fake users' share ``β = m / (n + m)`` of all
reports (or their number ``m``). The targets are drawn at random, as Cao et al. choose
them (``pick=random``), or are the ``r`` least frequent values (``pick=rarest``: a
rare value made to look popular), or are named (``pick=Kale+Leek``: labels, or 0-based
values, joined by ``+``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from types import MappingProxyType
from typing import Final

from ldpcore.errors import InputError
from ldpcore.specs import format_spec_number, parse_number, parse_spec

#: Attack name → what it is, in words (the order people read them in).
ATTACKS: Final = MappingProxyType(
    {
        "rpa": "random perturbed value: a uniformly random report",
        "ria": "random item: a random target through the real randomizer",
        "mga": "maximal gain: the report that supports every target it can",
    }
)
#: The readings of a tree a maximal-gain attack on its ranges can aim at
#: (:mod:`ldpcore.attacks.ranges`); "raw" is the default, and the only one for a flat
#: protocol.
AIMS: Final = MappingProxyType(
    {
        "raw": "the raw tree: the range read off the fewest nodes that tile it",
        "consistent": "the consistent tree (the Consistency step), which reads every level",
    }
)
#: The largest share of fake users a spec takes: beyond half, they are the collection.
BETA_MAX = 0.5
#: How the targets are chosen, besides naming them.
PICKS: Final = MappingProxyType(
    {"random": "drawn at random", "rarest": "the least frequent values"}
)


def attack_names() -> tuple[str, ...]:
    """The attacks' names, in :data:`ATTACKS` order."""
    return tuple(ATTACKS)


@dataclass(frozen=True)
class AttackSpec:
    """A fake-user attack: its kind, how many fake users, and how many targets.

    Attributes
    ----------
    kind : str
        ``"rpa"``, ``"ria"`` or ``"mga"`` (:data:`ATTACKS`).
    beta : float or None
        The fake users' share of all reports, ``m / (n + m)``, in ``[0, 1/2]``.
    fakes : int or None
        Their number instead (exactly one of ``beta`` and ``fakes`` is set).
    targets : int
        How many values the attack pushes up (``r`` ≥ 1).
    pick : str
        How they are chosen: ``"random"``, ``"rarest"`` (:data:`PICKS`), or ``"named"``
        with ``named`` set.
    named : tuple of str
        The targets' labels (or 0-based values) when ``pick == "named"``.
    aim : str
        Against a tree, the reading its maximal-gain attack aims at (:data:`AIMS`).
    """

    kind: str
    beta: float | None = None
    fakes: int | None = None
    targets: int = 1
    pick: str = "random"
    named: tuple[str, ...] = ()
    aim: str = "raw"

    def __post_init__(self) -> None:
        if self.kind not in ATTACKS:
            raise InputError(
                f"unknown attack {self.kind!r}; choose one of {', '.join(ATTACKS)} "
                "(e.g. mga:beta=0.05,targets=3)"
            )
        if (self.beta is None) == (self.fakes is None):
            raise InputError(
                "an attack needs either beta (the fake users' share of all reports, e.g. "
                "beta=0.05) or fakes (their number, e.g. fakes=500), not both"
            )
        if self.beta is not None and not 0.0 <= self.beta <= BETA_MAX:
            raise InputError(
                f"beta is the fake users' share of all reports: between 0 and {BETA_MAX:g}, "
                f"got {self.beta:g}"
            )
        if self.fakes is not None and self.fakes < 0:
            raise InputError(f"fakes must be a number of users >= 0, got {self.fakes}")
        if self.targets < 1:
            raise InputError(f"targets must be at least 1, got {self.targets}")
        if self.pick not in (*PICKS, "named"):
            raise InputError(
                f"pick must be random, rarest or the targets' names joined by +, got {self.pick!r}"
            )
        if (self.pick == "named") != bool(self.named):
            raise InputError("named targets need pick=named and at least one name")
        if self.aim not in AIMS:
            raise InputError(
                f"aim must be {' or '.join(AIMS)} (the reading of a tree the fake users aim "
                f"at), got {self.aim!r}"
            )
        if self.aim != "raw" and self.kind != "mga":
            raise InputError(
                f"aim={self.aim} steers the maximal-gain attack; {self.kind} does not aim"
            )
        if self.named and len(self.named) != self.targets:
            raise InputError(
                f"{len(self.named)} named target(s) but targets={self.targets}: name as "
                "many as the targets, or leave targets out"
            )

    def fake_users(self, honest: int) -> int:
        """``m`` for ``honest`` users: ``fakes``, or the whole ``m`` with ``m/(n+m) ≈ β``."""
        if self.fakes is not None:
            return self.fakes
        assert self.beta is not None
        return round(self.beta * honest / (1.0 - self.beta))

    def __str__(self) -> str:
        size = (
            f"beta={format_spec_number(self.beta)}"
            if self.beta is not None
            else f"fakes={self.fakes}"
        )
        pick = ""
        if self.pick == "rarest":
            pick = ",pick=rarest"
        elif self.pick == "named":
            pick = ",pick=" + "+".join(self.named)
        aim = "" if self.aim == "raw" else f",aim={self.aim}"
        return f"{self.kind}:{size},targets={self.targets}{pick}{aim}"

    def in_words(self, *, ranges: bool = False) -> str:
        """E.g. "5% fake users, maximal gain on 3 targets".

        ``ranges``: the targets are one range of consecutive values (a tree's attack).
        """
        size = (
            f"{self.beta:.0%} fake users" if self.beta is not None else f"{self.fakes:,} fake users"
        )
        unit = "value" if ranges else "target"
        many = f"{self.targets} {unit}{'' if self.targets == 1 else 's'}"
        which = {"random": " (drawn at random)", "rarest": " (the least frequent)"}.get(
            self.pick, " (named)"
        )
        aim = "" if self.aim == "raw" else f", aimed at the {self.aim} tree"
        on = f"a range of {many}" if ranges else many
        return f"{size}, {ATTACKS[self.kind].split(':')[0]} on {on}{which}{aim}"


def parse_attack(text: object) -> AttackSpec:
    """``KIND:beta=B,targets=R`` (or ``fakes=M``) as an :class:`AttackSpec`.

    Examples
    --------
    >>> parse_attack("MGA:beta=0.05, targets=3")
    AttackSpec(kind='mga', beta=0.05, fakes=None, targets=3, pick='random', named=(), aim='raw')
    >>> parse_attack("mga:fakes=500,pick=Kale+Leek").named
    ('Kale', 'Leek')
    >>> str(parse_attack("ria:fakes=500"))
    'ria:fakes=500,targets=1'
    """
    spec = parse_spec(text, what="attack")
    options = dict(spec.options)
    unknown = set(options) - {"beta", "fakes", "targets", "pick", "aim"}
    if unknown:
        raise InputError(
            f"unknown attack option(s) {', '.join(sorted(unknown))} in {spec.text!r}; "
            "an attack takes beta (or fakes), targets, pick and (against a tree) aim, "
            "e.g. mga:beta=0.05,targets=3,pick=rarest"
        )
    beta = None if "beta" not in options else parse_number(options["beta"], "beta", where=spec.text)
    fakes = None
    if "fakes" in options:
        value = parse_number(options["fakes"], "fakes", where=spec.text)
        if value != math.floor(value):
            raise InputError(f"fakes is a number of users, got {options['fakes']!r}")
        fakes = int(value)
    pick = str(options.get("pick", "random")).strip()
    named: tuple[str, ...] = ()
    if pick.lower() in PICKS:
        pick = pick.lower()
    else:
        named = tuple(name.strip() for name in pick.split("+") if name.strip())
        pick = "named"
    default = str(len(named)) if named else "1"
    targets = parse_number(options.get("targets", default), "targets", where=spec.text)
    if targets != math.floor(targets):
        raise InputError(f"targets is a number of values, got {options['targets']!r}")
    if beta is None and fakes is None:
        beta = 0.05
    return AttackSpec(
        spec.kind,
        beta=beta,
        fakes=fakes,
        targets=int(targets),
        pick=pick,
        named=named,
        aim=str(options.get("aim", "raw")).strip().lower(),
    )


__all__ = ["AIMS", "ATTACKS", "BETA_MAX", "PICKS", "AttackSpec", "attack_names", "parse_attack"]
