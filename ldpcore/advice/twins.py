"""Protocols whose one report is another protocol's: searched once, answered for both.

Choose ε searches every registered protocol; the registry holds memoized chains whose
first round, at the same ε per report, is exactly a one-shot protocol's report (the
same law of support counts). Their searches would repeat another's trial for trial in
law, so each is answered from its twin's search and says so (``same_as``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from ldpcore.experiments.config import ExperimentConfig
from ldpcore.protocols import get_protocol, protocol_class
from ldpcore.protocols.repeated import one_shot_form


def _params_for(config: ExperimentConfig, name: str) -> dict[str, int | float]:
    """The config's protocol parameters that ``name`` declares (a chain's ε∞, OLH's g)."""
    declared = {parameter.name for parameter in protocol_class(name).extra_parameters}
    return {key: value for key, value in config.params if key in declared}


#: The ε at which two protocols' one-report channels are compared (the law is the same
#: at every ε or at none: a chain's first round is its one-shot protocol by construction).
_TWIN_CHECK_EPSILONS = (0.3, 1.0, 4.0)


def same_reports(config: ExperimentConfig, names: Sequence[str]) -> dict[str, str]:
    """The protocols whose one report is another listed protocol's report at the same ε.

    A memoized chain's single report, at the same ε per report, is its one-shot
    protocol's (L-GRR's is GRR's, L-OSUE's OUE's, L-SUE's SUE's; Arcolezi et al.): the
    same law of support counts, so the same search. Matched by the chain's declared
    one-shot form and checked by equal ``p`` and ``q`` at several ε (L-OUE's one-shot
    form is OUE too, but its report is not OUE's: it is searched on its own).

    Examples
    --------
    >>> from ldpcore.experiments.config import ExperimentConfig
    >>> c = ExperimentConfig(dataset="zipf:d=16", n=1000, protocol="GRR", epsilon=1.0)
    >>> same_reports(c, ["GRR", "L-GRR", "OUE", "L-OUE", "L-OSUE"])
    {'L-GRR': 'GRR', 'L-OSUE': 'OUE'}
    """
    d = config.dataset.build(config.n).domain_size
    classes = {name: protocol_class(name) for name in names}
    twins: dict[str, str] = {}
    for name in names:
        form = one_shot_form(classes[name])
        if form is classes[name]:
            continue
        for other in names:
            if classes[other] is not form or other in twins:
                continue
            if all(
                _same_channel(name, other, epsilon, d, config) for epsilon in _TWIN_CHECK_EPSILONS
            ):
                twins[name] = other
                break
    return twins


def _same_channel(name: str, other: str, epsilon: float, d: int, config: ExperimentConfig) -> bool:
    mine = get_protocol(name, epsilon=epsilon, domain_size=d, **_params_for(config, name))
    theirs = get_protocol(other, epsilon=epsilon, domain_size=d, **_params_for(config, other))
    return math.isclose(float(mine.p), float(theirs.p), rel_tol=1e-9) and math.isclose(
        float(mine.q), float(theirs.q), rel_tol=1e-9
    )


__all__ = ["same_reports"]
