"""Fake users: data-poisoning attacks on the frequency oracles and their gain.

Some reports may come from fake accounts crafted to push chosen *target* values up
(Cao, Jia and Gong, "Data Poisoning Attacks to Local Differential Privacy Protocols",
USENIX Security 2021; Cheu, Smith and Ullman, "Manipulation Attacks in Local
Differential Privacy", IEEE S&P 2021). This package holds

* :mod:`~ldpcore.attacks.kinds` — the attacks (``ATTACKS``: random perturbed value,
  random item, maximal gain) and the text spec that names one
  (``mga:beta=0.05,targets=3``), parsed once into an :class:`AttackSpec`;
* :mod:`~ldpcore.attacks.gains` — a poisoned collection's support counts, drawn exactly
  in O(d) like the honest ones, and the targets' expected gain in closed form;
* :mod:`~ldpcore.attacks.fakes` — what a fake report *is* for each protocol family (a
  uniformly random report, or the report that supports every target), its support
  drawn exactly, and the reports themselves: a feature of its own, registered per
  protocol, so that the protocols hold only the mechanism;
* :mod:`~ldpcore.attacks.detection` and :mod:`~ldpcore.attacks.reach` — the
  ones-count check of a report file, and how many fake users lift a value into the
  top k.
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
