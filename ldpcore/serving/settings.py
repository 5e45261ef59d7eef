"""The Explorer sidebar's settings as one typed value, and the grids its sliders offer.

A slider's value reaches the sampler as the number it is: :meth:`Settings.config`
builds typed dataset specs (:class:`~ldpcore.data.specs.ZipfData` and its siblings),
never a spec written as text and read back.
"""

from __future__ import annotations

import dataclasses

from ldpcore import bounds
from ldpcore.data.specs import BundledData, DatasetSpec, UniformData, ZipfData
from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.postprocess import default_method_names, runnable_methods

#: The ε grid the sliders offer (``ldpcore.bounds``: the CLI and the tests read it too).
EPSILONS = bounds.EPSILON_STEPS
#: 1-2-5 steps across the users' range.
USERS = tuple(
    m * 10**e
    for e in range(10)
    for m in (1, 2, 5)
    if bounds.USERS_RANGE[0] <= m * 10**e <= bounds.USERS_RANGE[1]
)
#: Powers of two from the smallest domain, then the largest a slider offers.
DOMAINS = (
    *(2**k for k in range(1, 20) if bounds.DOMAIN_SIZE_MIN <= 2**k < bounds.DOMAIN_SLIDER_MAX),
    bounds.DOMAIN_SLIDER_MAX,
)
#: How a bundled dataset is named among the dataset choices.
SAMPLE_PREFIX = "sample: "


@dataclasses.dataclass(frozen=True)
class Settings:
    """What the shared sidebar's widgets say: the defaults, or a person's choices.

    Examples
    --------
    >>> Settings(shape="uniform", d=8, n=100).config().dataset
    UniformData(domain_size=8)
    """

    protocol: str = "OLH"
    epsilon: float = 1.0
    n: int = 10**6
    d: int = 1024
    shape: str = "Zipf"  # "Zipf", "uniform" or SAMPLE_PREFIX + a bundled name
    s: float = 1.5
    methods: tuple[str, ...] | None = None  # None: the default methods
    trials: int = 30
    seed: int = 0

    def dataset(self) -> DatasetSpec:
        """The dataset these settings name (:class:`~ldpcore.errors.InputError` if none)."""
        if self.shape == "Zipf":
            return ZipfData(self.d, self.s)
        if self.shape == "uniform":
            return UniformData(self.d)
        return BundledData(self.shape.removeprefix(SAMPLE_PREFIX))

    def runnable_methods(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """The methods the run takes for this protocol, and those left out as not its.

        The methods "all" means follow the protocol (:func:`default_method_names`): the
        default list for the (p, q) protocols, picked untouched, becomes the protocol's own
        (SW: EMS in, MLE-Apx and Power out). A method picked that cannot run on the
        protocol (:meth:`~ldpcore.postprocess.base.PostProcessor.refusal`) is left out
        and named, so switching protocol never ends in an error over a picker's leftovers.

        Examples
        --------
        >>> Settings(protocol="SW", d=64, methods=("Base", "Power")).runnable_methods()
        (('Base',), ('Power',))
        """
        chosen = self.methods
        if chosen is None or tuple(chosen) == default_method_names():
            return default_method_names(self.protocol), ()
        return runnable_methods(tuple(chosen), self.protocol)

    def config(self) -> ExperimentConfig:
        """The experiment these settings describe (``InputError`` if there is none)."""
        methods, _ = self.runnable_methods()
        if not methods:
            raise InputError(
                f"none of the methods picked runs on {self.protocol}; pick another method "
                "(Base, Norm-Sub)"
            )
        return ExperimentConfig(
            dataset=self.dataset(),
            n=int(self.n),
            protocol=self.protocol,
            epsilon=float(self.epsilon),
            methods=tuple(methods),
            trials=int(self.trials),
            seed=int(self.seed),
        )


#: What a first visitor's sidebar says.
DEFAULTS = Settings()


def default_config() -> ExperimentConfig:
    """The configuration a first visitor sees (what the launcher computes ahead)."""
    return DEFAULTS.config()


def methods_shown(
    chosen: tuple[str, ...], every: tuple[str, ...], defaults: tuple[str, ...]
) -> str:
    """The methods picked, in a few words: "all", "all but …" or "3 of 13".

    Examples
    --------
    >>> methods_shown(("A", "B"), ("A", "B", "C"), ("A", "B"))
    'all but C'
    >>> methods_shown(("A",), ("A", "B", "C"), ("A",))
    'all but B and C'
    """
    if len(chosen) == len(every):
        return "all"
    if set(chosen) == set(defaults):
        left = [m for m in every if m not in chosen]
        return "all but " + (", ".join(left[:-1]) + " and " if len(left) > 1 else "") + left[-1]
    return f"{len(chosen)} of {len(every)}"


__all__ = [
    "DEFAULTS",
    "DOMAINS",
    "EPSILONS",
    "USERS",
    "Settings",
    "default_config",
    "methods_shown",
]
