"""The shared sidebar, the slider grids people pick values from, and the query picker."""

from __future__ import annotations

import dataclasses

import streamlit as st

from ldpcore import bounds
from ldpcore.advice.targets import AccuracyTarget
from ldpcore.data.datasets import Dataset, bundled_names
from ldpcore.errors import InputError
from ldpcore.experiments.config import ExperimentConfig
from ldpcore.postprocess import default_method_names, method_names
from ldpcore.present.epsilon_sentences import TARGET_CHOICES, TARGET_HELP
from ldpcore.protocols import protocol_class, protocol_names
from ldpcore.queries.specs import (
    FullQuery,
    GroupsQuery,
    QuerySpec,
    RangeQuery,
    SetQuery,
    TopKQuery,
    parse_query_spec,
)
from ldpcore.serving.settings import (
    DEFAULTS,
    DOMAINS,
    EPSILONS,
    SAMPLE_PREFIX,
    USERS,
    Settings,
    methods_shown,
)
from pages.app_layer.controls.navigation import page_switched
from pages.app_layer.serving.answers import bundled_dataset

#: Where the sidebar's settings wait for the next page this session opens.
CARRIED = "sidebar-settings"
#: Each setting's key in the URL (the widget's key).
URL_KEYS = {
    "protocol": "protocol",
    "epsilon": "epsilon",
    "n": "n",
    "d": "d",
    "shape": "dataset",
    "s": "s",
    "methods": "methods",
    "trials": "trials",
    "seed": "seed",
}


def _carry_to_this_page() -> None:
    """On a page just reached from another, start the sidebar at the settings last drawn.

    Only on the page's first run, and only when its URL names none of them (a URL that
    names any setting is the person's: a link). On any later run the widgets hold what
    the person moved them to: carried again, a move would be undone by the last run's
    value. Set through the session, as Streamlit asks for a widget bound to the URL; the
    widgets then write the settings into the URL, so a link to the page reproduces it.
    """
    carried: Settings | None = st.session_state.get(CARRIED)
    if carried is None or not page_switched():
        return
    if any(key in st.query_params for key in URL_KEYS.values()):
        return
    defaults = dataclasses.replace(DEFAULTS, methods=tuple(default_method_names()))
    for field, key in URL_KEYS.items():
        value = getattr(carried, field)
        if value != getattr(defaults, field):
            st.session_state[key] = list(value) if isinstance(value, tuple) else value


def sidebar() -> ExperimentConfig | None:
    """Draw the shared sidebar; return the configuration it describes (None if invalid).

    Every widget is bound to the URL, so a link reproduces the view. Protocol and
    dataset are pills and the rarely changed settings sit in a popover: a first visit
    loads the code of fewer widget kinds before its first chart (benchmarks/README.md,
    "A first visit"), and every protocol and dataset is in view at once.

    The settings go with the person from page to page ("Fake users, at these
    settings"): another page's URL has none of them, and its widgets are new ones to
    Streamlit, which once started them at the defaults there while the link said "at
    these settings". :func:`_carry_to_this_page` writes the settings this session last
    drew into the new page's URL first, so the widgets start from them and a link to the
    page reproduces it.
    """
    _carry_to_this_page()
    bar, default = st.sidebar, DEFAULTS
    bar.header("Simulation")
    protocol = bar.pills(
        "Protocol",
        protocol_names(),
        default=default.protocol,
        required=True,
        key="protocol",
        bind="query-params",
        help="How each user's report is randomized:\n\n"
        + "\n".join(
            f"- **{name}**: {protocol_class(name).description}" for name in protocol_names()
        ),
    )
    epsilon = bar.select_slider(
        "Privacy budget ε", EPSILONS, value=default.epsilon, key="epsilon", bind="query-params"
    )
    # No format_func: the URL carries the option's label, and plain digits keep links clean.
    n = bar.select_slider("Users n", USERS, value=default.n, key="n", bind="query-params")
    d = bar.select_slider("Domain size d", DOMAINS, value=default.d, key="d", bind="query-params")
    shapes = ("Zipf", "uniform", *(SAMPLE_PREFIX + name for name in bundled_names()))
    shape = bar.pills(
        "Dataset", shapes, default=default.shape, required=True, key="dataset", bind="query-params"
    )
    s = default.s
    if shape == "Zipf":
        s = bar.slider("Zipf exponent s", 0.0, 3.0, default.s, 0.1, key="s", bind="query-params")
    elif shape.startswith(SAMPLE_PREFIX):
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
    shown = methods_shown(tuple(methods), tuple(every), tuple(default_method_names()))
    bar.caption(f"Methods: {shown}. Trials: {trials}. Seed: {seed}.")
    if not methods:
        bar.error("Pick at least one method (under *Methods, trials and seed*).")
        return None
    chosen = Settings(
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
    st.session_state[CARRIED] = chosen
    _, left_out = chosen.runnable_methods()
    if shape.startswith(SAMPLE_PREFIX) and protocol_class(str(protocol)).ordered_values:
        data = bundled_dataset(shape.removeprefix(SAMPLE_PREFIX))
        if not data.ordered:  # chosen by name, it runs; "every protocol" leaves it out
            bar.caption(f"{protocol} is made for ordered values; {data.name} has none.")
    if left_out:
        bar.caption(f"Not run on {protocol} (it has no support counts): {', '.join(left_out)}.")
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


def with_query(config: ExperimentConfig, query: str | QuerySpec) -> ExperimentConfig:
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


def per_upload(upload: object, defaults: dict[str, object]) -> None:
    """Start every widget in ``defaults`` at what ``upload`` says, afresh for each file.

    The one rule of every upload surface (a histogram's columns, collected output's
    settings, a report file's recorded ones): a widget whose default comes from a file
    belongs to that file, so a second file never runs with the first one's choices while
    the form shows its own. ``upload`` identifies the file (its upload id, with anything
    the defaults were read under, such as whether the first row is a header); the widgets
    are then drawn without ``value`` or ``index``.
    """
    for key, default in defaults.items():
        follow(key, upload, default)


def query_picker(key: str, dataset: Dataset) -> QuerySpec:
    """The query that matters, as a typed spec (its numbers as picked, never text)."""
    kinds = ["The most frequent values", "Every value", "A set of values", "Ranges of values"]
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
        return TopKQuery(int(k))
    if kind == "A set of values":
        rho = st.slider(
            "Set size, as a share of the values", 0.01, 0.9, 0.1, 0.01, key=f"{key}-rho"
        )
        return SetQuery(float(rho))
    if kind == "Ranges of values":
        # The values in their order (a file's rows, a sample's ranks); every range of this
        # many consecutive values is asked.
        # The default depends on d alone: a new order of the same values keeps a length.
        follow(f"{key}-length", dataset.domain_size, min(16, dataset.domain_size))
        length = st.number_input(
            "Range length (values)",
            1,
            dataset.domain_size,
            key=f"{key}-length",
            help="Every range of this many consecutive values, in the data's order.",
        )
        return RangeQuery(int(length))
    return GroupsQuery() if kind == "Group totals" else FullQuery()


def epsilon_to_inspect(answer: float | None) -> float:
    """Choose ε's "ε to inspect": starts at the answer's ε, itself one of the choices.

    A new answer moves the control to it (a person's own choice stays otherwise), and a
    control moved away from the answer says that the decision record describes the
    answer's ε.
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
    return AccuracyTarget(kind, float(size) / 100)
