"""The shared sidebar, the slider grids people pick values from, and the query picker."""

from __future__ import annotations

import dataclasses

import streamlit as st

from ldpcore import bounds
from ldpcore.advice.targets import AccuracyTarget, parse_target
from ldpcore.data.datasets import Dataset, bundled_names
from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.postprocess import default_method_names, method_names
from ldpcore.protocols import protocol_names
from ldpcore.queries.specs import parse_query_spec

# The slider grids, from ldpcore.bounds (the ranges the CLI and the tests check too).
EPSILONS = bounds.EPSILON_STEPS
#: 1-2-5 steps across USERS_RANGE.
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


@dataclasses.dataclass(frozen=True)
class Sidebar:
    """What the shared sidebar's widgets say: the defaults, or a person's choices."""

    protocol: str = "OLH"
    epsilon: float = 1.0
    n: int = 10**6
    d: int = 1024
    shape: str = "Zipf"  # "Zipf", "uniform" or "sample: NAME"
    s: float = 1.5
    methods: tuple[str, ...] | None = None  # None: every method
    trials: int = 30
    seed: int = 0

    def config(self) -> ExperimentConfig:
        """The experiment these settings describe (:class:`InputError` if there is none)."""
        if self.shape == "Zipf":
            dataset = f"zipf:d={self.d},s={self.s:g}"
        elif self.shape == "uniform":
            dataset = f"uniform:d={self.d}"
        else:
            dataset = self.shape.removeprefix("sample: ")
        methods = default_method_names() if self.methods is None else self.methods
        return ExperimentConfig(
            dataset=dataset,
            n=int(self.n),
            protocol=self.protocol,
            epsilon=float(self.epsilon),
            methods=tuple(methods),
            trials=int(self.trials),
            seed=int(self.seed),
        )


DEFAULTS = Sidebar()


def default_config() -> ExperimentConfig:
    """The configuration a first visitor sees (what the launcher computes ahead)."""
    return DEFAULTS.config()


def sidebar() -> ExperimentConfig | None:
    """Draw the shared sidebar; return the configuration it describes (None if invalid).

    Every widget is bound to the URL, so a link reproduces the view. Protocol and
    dataset are pills and the rarely changed settings sit in a popover: a first visit
    loads the code of fewer widget kinds before its first chart (benchmarks/README.md,
    "A first visit"), and every protocol and dataset is in view at once.
    """
    bar, default = st.sidebar, DEFAULTS
    bar.header("Simulation")
    protocol = bar.pills(
        "Protocol",
        protocol_names(),
        default=default.protocol,
        required=True,
        key="protocol",
        bind="query-params",
    )
    epsilon = bar.select_slider(
        "Privacy budget ε", EPSILONS, value=default.epsilon, key="epsilon", bind="query-params"
    )
    # No format_func: the URL carries the option's label, and plain digits keep links clean.
    n = bar.select_slider("Users n", USERS, value=default.n, key="n", bind="query-params")
    d = bar.select_slider("Domain size d", DOMAINS, value=default.d, key="d", bind="query-params")
    shapes = ("Zipf", "uniform", *(f"sample: {name}" for name in bundled_names()))
    shape = bar.pills(
        "Dataset", shapes, default=default.shape, required=True, key="dataset", bind="query-params"
    )
    s = default.s
    if shape == "Zipf":
        s = bar.slider("Zipf exponent s", 0.0, 3.0, default.s, 0.1, key="s", bind="query-params")
    elif shape.startswith("sample: "):
        bar.caption("A bundled sample keeps its own domain; d does not apply.")
    # Methods, trials and seed sit in a popover, with what they are set to said below it.
    # A popover's widgets are drawn only when it opens (270 ms of a first visit for the
    # methods' 13 chips alone); their values still come from the URL and the session.
    more = bar.popover("Methods, trials and seed", icon=":material/tune:", width="stretch")
    every = method_names()
    methods = more.multiselect(
        "Methods", every, default=list(default_method_names()), key="methods", bind="query-params"
    )
    trials = more.slider(
        "Trials",
        bounds.TRIALS_MIN,
        bounds.TRIALS_SLIDER_MAX,
        default.trials,
        key="trials",
        bind="query-params",
    )
    seed = more.number_input("Seed", 0, 2**31 - 1, default.seed, key="seed", bind="query-params")
    if len(methods) == len(every):
        shown = "all"
    elif set(methods) == set(default_method_names()):
        shown = "all but " + ", ".join(m for m in every if m not in methods)
    else:
        shown = f"{len(methods)} of {len(every)}"
    bar.caption(f"Methods: {shown}. Trials: {trials}. Seed: {seed}.")
    if not methods:
        bar.error("Pick at least one method (under *Methods, trials and seed*).")
        return None
    chosen = Sidebar(
        protocol=str(protocol),
        epsilon=float(epsilon),
        n=int(n),
        d=int(d),
        shape=str(shape),
        s=float(s),
        methods=tuple(methods),
        trials=int(trials),
        seed=int(seed),
    )
    try:
        return chosen.config()
    except InputError as exc:
        bar.error(str(exc))
        return None


def require_config() -> ExperimentConfig:
    """Draw the sidebar; stop the page with a hint when its settings are not usable."""
    config = sidebar()
    if config is None:
        st.info("Fix the settings in the sidebar to see results.")
        st.stop()
    return config


def with_query(config: ExperimentConfig, query: str) -> ExperimentConfig:
    """The same configuration asking another query."""
    return dataclasses.replace(config, query=parse_query_spec(query))


def follow(key: str, source: object, default: object) -> None:
    """Start the widget ``key`` at ``default`` whenever ``source`` changes.

    For a default that depends on the data (its n, its number of values): passed as the
    widget's ``value``, a new file's default would be drawn in the browser while the
    session kept the previous file's number, and the run, its command and its record
    used that one. Set here instead, the session and the browser hold one value; the
    widget is then drawn without ``value``. A person's own choice stays while the source
    is the same and the widget is drawn (Streamlit forgets a widget's value on a run
    that does not draw it; it starts at ``default`` again).
    """
    marker = f"{key}--follows"
    if st.session_state.get(marker) != source or key not in st.session_state:
        st.session_state[marker] = source
        st.session_state[key] = default


def query_picker(key: str, dataset: Dataset) -> str:
    """The query that matters, as an ``ldpcore.queries.query`` spec."""
    kinds = ["The most frequent values", "Every value", "A set of values"]
    if dataset.groups is not None:
        kinds.append("Group totals")
    kind = st.radio("Query that matters", kinds, horizontal=True, key=f"{key}-query")
    if kind == "The most frequent values":
        follow(f"{key}-k", dataset.fingerprint, min(10, dataset.domain_size - 1))
        k = st.number_input(
            "How many (k)",
            1,
            max(1, dataset.domain_size - 1),
            key=f"{key}-k",
        )
        return f"topk:k={int(k)}"
    if kind == "A set of values":
        rho = st.slider(
            "Set size, as a share of the values", 0.01, 0.9, 0.1, 0.01, key=f"{key}-rho"
        )
        return f"set:rho={rho:g}"
    return "groups" if kind == "Group totals" else "full"


def epsilon_to_inspect(answer: float | None) -> float:
    """Choose ε's "ε to inspect": starts at the answer's ε, itself one of the choices.

    A new answer moves the control to it (a person's own choice stays otherwise), and a
    control moved away from the answer says that the decision record describes the
    answer's ε (issue 54).
    """
    choices = tuple(sorted({*EPSILONS, *([answer] if answer else [])}))
    if st.session_state.get("choose-risk-answer") != answer:
        st.session_state["choose-risk-answer"] = answer
        st.session_state["choose-risk-epsilon"] = answer or 1.0
    inspect = float(
        st.select_slider(
            "ε to inspect",
            choices,
            format_func=lambda e: f"{e:g} (the answer)" if e == answer else f"{e:g}",
            key="choose-risk-epsilon",
        )
    )
    if answer is not None and inspect != answer:
        st.caption(
            f"Inspecting ε = {inspect:g}, not the answer's ε = {answer:g}; the decision "
            "record describes the answer's."
        )
    return inspect


#: The accuracy targets Choose ε offers, in the words people use (issue 54), with what
#: each means exactly (the help under the control).
TARGET_CHOICES = {
    "each": "Each value within ±x, 95% of the time",
    "all": "All values within ±x at once, 95% of the time",
    "rmse": "Root-mean-square error at most x",
}
TARGET_HELP = (
    "**Each value within ±x**: every value asked about, on its own, is within ±x "
    "percentage points of the truth in at least 95% of collections; the value whose "
    "estimate varies most (for most protocols the most frequent) decides. "
    "**All values within ±x at once**: in 95% of collections every value asked about is "
    "within ±x together; needs more ε, and is the promise to make when a whole table "
    "will be published. **Root-mean-square error**: the typical error over the values "
    "asked about; an estimate is within ±x only about 68% of the time, not 95%."
)


def accuracy_target_picker(prefix: str) -> AccuracyTarget:
    """The accuracy target, in the words people use, and its size in percentage points."""
    kind_column, size_column = st.columns([3, 2])
    kind = kind_column.selectbox(
        "Accuracy target",
        list(TARGET_CHOICES),
        format_func=TARGET_CHOICES.__getitem__,
        key=f"{prefix}-target-kind",
        help=TARGET_HELP,
    )
    size = size_column.number_input(
        "x, in percentage points",
        0.001,
        50.0,
        0.5,
        step=0.1,
        format="%.3f",
        key=f"{prefix}-target",
        help="0.5 means half a percentage point: a true 12.0% may be read as 11.5% to 12.5%.",
    )
    return parse_target(f"{kind}:{float(size) / 100!r}")
