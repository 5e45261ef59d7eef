"""Fake users: data-poisoning attacks on the frequency oracles and their gain.

Some reports may come from fake accounts crafted to push chosen *target* values up
(Cao, Jia and Gong, "Data Poisoning Attacks to Local Differential Privacy Protocols",
USENIX Security 2021; Cheu, Smith and Ullman, "Manipulation Attacks in Local
Differential Privacy", IEEE S&P 2021). This package holds

* :mod:`~ldpcore.attacks.kinds` — the attacks (``ATTACKS``: random perturbed value,
  random item, maximal gain) and the text spec that names one
  (``mga:beta=0.05,targets=3``), parsed once into an :class:`AttackSpec`;
* :mod:`~ldpcore.attacks.gains` — a poisoned collection's support counts, drawn exactly
  in O(d) like the honest ones, and the targets' expected gain in closed form.

What a fake report *is* for a protocol (a uniformly random report, or the report that
supports every target) is the protocol's own: its ``fake_*`` hooks
(:class:`~ldpcore.protocols.base.FrequencyOracle`).
"""

from __future__ import annotations

from ldpcore.attacks.gains import Poisoned, expected_gain, fake_rate, poison
from ldpcore.attacks.kinds import ATTACKS, AttackSpec, attack_names, parse_attack

__all__ = [
    "ATTACKS",
    "AttackSpec",
    "Poisoned",
    "attack_names",
    "expected_gain",
    "fake_rate",
    "parse_attack",
    "poison",
]
