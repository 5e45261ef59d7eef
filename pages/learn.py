"""Learn: a small class population through a protocol, one step at a time."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from ldpcore.learn.lying import lying_class
from ldpcore.learn.walkthrough import report_words, teachable_protocols, walkthrough
from ldpcore.postprocess import method_class, method_names
from ldpcore.present.sentences import prior_sentence
from ldpcore.protocols import protocol_class
from pages.app_layer.controls.navigation import ensure_app
from pages.app_layer.serving.answers import prior_demo_table
from pages.app_layer.views.display import frequency_columns, run_or_explain

ensure_app(__file__)
st.title("Learn: what happens to 20 users' answers")

LABELS = ("A", "B", "C", "D", "E", "F")
PRESETS = {
    "Class default: GRR, ε = 1": ("GRR", 1.0),
    "The paper's headline: OLH, ε = 1": ("OLH", 1.0),
    "Strong privacy: OUE, ε = 0.5": ("OUE", 0.5),
    "Weak privacy: GRR, ε = 4": ("GRR", 4.0),
}

preset = st.selectbox("Preset", list(PRESETS), key="preset", bind="query-params")
default_protocol, default_epsilon = PRESETS[preset]
left, middle, right = st.columns(3)
protocol = left.selectbox(
    "Protocol",
    teachable_protocols(),
    index=teachable_protocols().index(default_protocol),
    key=f"learn-protocol-{preset}",
)
epsilon = middle.slider("ε", 0.1, 6.0, default_epsilon, 0.1, key=f"learn-epsilon-{preset}")
seed = right.number_input("Seed", 0, 10_000, 0, key="learn-seed")

st.page_link(
    "pages/class.py",
    label="Teaching? Run it live: your class answers from their own browsers",
    icon=":material/groups:",
)

st.header("1. Each user's true value")
st.write("Edit the values to see how the rest changes. Nobody's true value leaves their device.")
start = pd.DataFrame(
    {"value": list("AAAAAAAABBBBBCCCDDEF")}, index=pd.RangeIndex(1, 21, name="user")
)
edited = st.data_editor(
    start,
    key="population",
    num_rows="dynamic",
    hide_index=False,
    column_config={
        "value": st.column_config.SelectboxColumn("value", options=LABELS, required=True)
    },
)
chosen = [v for v in edited["value"].tolist() if v in LABELS]
if not chosen:
    st.error("Add at least one user with a value from A to F.")
    st.stop()
values = np.array([LABELS.index(v) for v in chosen])

try:
    steps = walkthrough(
        protocol=protocol, epsilon=float(epsilon), values=values, labels=LABELS, seed=int(seed)
    )
except ValueError as exc:
    st.error(str(exc))
    st.stop()
oracle = steps.protocol
st.bar_chart(pd.Series(np.bincount(values, minlength=6), index=LABELS, name="users"))

st.header("2. Each user sends a randomized report")
words = report_words(oracle, protocol_class(protocol).good_for)
st.write(words.reports)
st.dataframe(steps.reports, hide_index=True, key="reports")

st.header(words.aggregate_header)
st.latex(words.aggregate_formula)
st.bar_chart(pd.Series(steps.support_counts, index=LABELS, name=words.aggregate_name))

st.header("4. The unbiased (Base) estimate")
st.latex(words.estimate_formula)
base = pd.DataFrame({"value": LABELS, "Base estimate": steps.base, "truth": steps.methods["truth"]})
negatives = int((steps.base < 0).sum())
st.dataframe(base, hide_index=True, key="base", column_config=frequency_columns(base))
st.write(
    f"The estimates sum to {steps.base.sum():.3f}"
    + (f" and {negatives} of them are negative" if negatives else "")
    + ": unbiased on average, but not a distribution."
)

st.header("5. Post-processing the same vector")
st.dataframe(
    steps.methods, hide_index=True, key="methods", column_config=frequency_columns(steps.methods)
)
for name, cls in ((m, method_class(m)) for m in method_names()):
    with st.expander(f"{name}: {cls.description}"):
        st.latex(cls.formula)
        st.write(cls.explanation)
        st.write(
            f"Non-negative: **{cls.nonnegative}** · sums to one: **{cls.sums_to_one}** · "
            f"bias: {cls.bias} · {cls.reference}"
        )

st.header("6. What a prior adds (Bayes)")
st.write(
    "Bayes averages every distribution the reports allow, weighted by how plausible it "
    "was beforehand: its prior. With 20 users the prior matters. Below, this class "
    "reports again and again (fresh randomness each time) and Bayes runs with three "
    "priors, each worth as many users as the class: Jeffreys' (weak), last year's class "
    "(a good prior, close to this one's shape) and a class shaped the other way round "
    "(a wrong prior). Each is compared with Jeffreys' on the same trials."
)
if st.button("Compare the priors (about 5 s)", key="learn-prior-demo"):
    demo = run_or_explain(
        lambda: prior_demo_table(protocol, float(epsilon), tuple(values.tolist()), len(LABELS)),
        "Sampling the posteriors…",
    )
    if demo is not None:
        st.dataframe(
            demo.table,
            hide_index=True,
            key="prior-demo",
            column_config=frequency_columns(demo.table[["MSE"]]),
        )
        for label, comparison in demo.informed:
            st.write(prior_sentence(label, comparison))
        st.caption(
            "A good prior helps and a wrong one hurts: the posterior mean has the least "
            "error only under the prior that is true (MLE paper, Sec. 3). On Your data, "
            "Bayes takes a prior from a histogram you trust, with a weight in users."
        )

st.header("7. When some users lie")
st.write(
    "Nothing stops a fake account from skipping the randomizer and sending the report "
    "that helps its cause most (Cao, Jia and Gong, 2021): here, the report that supports "
    "one target value and as few others as the protocol allows. The aggregator cannot "
    "tell it from an honest report."
)
target_column, fakes_column = st.columns(2)
target = target_column.selectbox("Target value", LABELS, index=len(LABELS) - 1, key="lie-target")
fakes = fakes_column.slider("Fake users", 0, 10, 2, key="lie-fakes")
lying = run_or_explain(
    lambda: lying_class(
        oracle,
        steps.support_counts,
        values,
        LABELS,
        target=LABELS.index(target),
        fakes=int(fakes),
        seed=int(seed),
    ),
    "Adding the fake users…",
)
if lying is not None:
    if fakes:
        st.dataframe(lying.reports, hide_index=True, key="fake-reports")
    else:
        st.write("No fake users: move the slider to add some.")
    st.dataframe(
        lying.estimates,
        hide_index=True,
        key="fake-estimates",
        column_config=frequency_columns(lying.estimates.drop(columns="value")),
    )
    st.write(
        "Each method's gain, as Cao, Jia and Gong define it: its estimate of the target "
        "with the fake users minus its estimate without them, on the same honest reports."
    )
    st.dataframe(
        lying.gains,
        hide_index=True,
        key="fake-gains",
        column_config=frequency_columns(lying.gains.drop(columns="method")),
    )
    if lying.kind == "mga":
        st.write(
            "Base counts every fake report at full weight and divides by p − q, so the "
            "smaller ε is, the further each fake report pushes the target: the noise that "
            "protects each honest user is what the aggregator must undo, and the fake "
            f"reports are undone with it. With these {fakes} fake users among "
            f"{values.size} honest ones:"
        )
    elif oracle.real_valued_reports:
        st.write(
            f"{protocol}'s reports are real numbers, so a fake user could send any number "
            "and push the target without limit; the aggregator would have to clip reports. "
            "These fake users send the target through the real randomizer instead: their "
            f"push is the same at every ε. With these {fakes} fake users among "
            f"{values.size} honest ones:"
        )
    else:
        st.write(
            f"{protocol} describes no report that pushes one value most, so these fake users "
            "send the target through the real randomizer: the aggregator undoes their noise "
            "as it undoes everyone's, and their push is the same at every ε. With these "
            f"{fakes} fake users among {values.size} honest ones:"
        )
    st.dataframe(
        lying.by_epsilon,
        hide_index=True,
        key="fake-by-epsilon",
        column_config=frequency_columns(lying.by_epsilon.drop(columns="ε")),
    )
    st.page_link(
        "pages/fake_users.py",
        label="Fake users at scale: every attack against every method",
        icon=":material/report:",
    )
