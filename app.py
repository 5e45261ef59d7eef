"""Streamlit entry point. Run with `make run`.

The full multi-page dashboard is being built; this page shows, honestly, what the
core package can already do and how to call it.
"""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from ldpcore import bounds
from ldpcore.protocols import describe_protocols

st.set_page_config(page_title="LDP post-processing explorer", layout="wide")
st.title("LDP frequency estimation: protocols")
st.info(
    "Work in progress: this page shows the frequency oracles that `ldpcore` implements today. "
    "Post-processing methods, simulations with charts and the other pages are coming next."
)

left, middle, right = st.columns(3)
epsilon = left.slider(
    "Privacy budget ε", min_value=0.05, max_value=10.0, value=1.0, step=0.05, key="epsilon"
)
domain_size = middle.number_input(
    "Domain size d",
    min_value=bounds.DOMAIN_SIZE_MIN,
    max_value=100_000,
    value=1024,
    step=1,
    key="d",
)
n_users = right.number_input(
    "Users n", min_value=1, max_value=10**9, value=1_000_000, step=1000, key="n"
)

rows = describe_protocols(epsilon=epsilon, domain_size=int(domain_size), n=int(n_users))
table = pd.DataFrame(rows)
table["base_std_pp"] = 100 * table["base_variance"].map(math.sqrt)
st.subheader("Every protocol at these settings")
st.caption(
    "`p`: chance a report supports the user's own value; `q`: any other value. "
    "Base std: the standard deviation of each unbiased estimate (NDSS Eq. 5), in percentage "
    "points. Worst-case ratio: max P(y|v)/P(y|v') computed from the channel; ε-LDP means it is "
    f"at most e^ε = {math.exp(epsilon):.4g}."
)
st.dataframe(
    table[
        [
            "protocol",
            "description",
            "parameters",
            "p",
            "q",
            "base_std_pp",
            "worst_case_ratio",
            "communication",
            "reference",
        ]
    ],
    hide_index=True,
    column_config={
        "base_std_pp": st.column_config.NumberColumn("Base std (pp)", format="%.4f"),
        "p": st.column_config.NumberColumn(format="%.5f"),
        "q": st.column_config.NumberColumn(format="%.5f"),
        "worst_case_ratio": st.column_config.NumberColumn(format="%.6f"),
    },
)

st.subheader("Use the core from Python")
st.code(
    """from ldpcore import get_protocol
import numpy as np

protocol = get_protocol("OLH", epsilon=1.0, domain_size=1024)
true_counts = np.full(1024, 1000)          # users per value
support = protocol.sample_support_counts(true_counts, rng=7)            # fast, exact
support = protocol.sample_support_counts(true_counts, rng=7, sampler="per-user")
estimate = protocol.estimate(support, n=int(true_counts.sum()))         # unbiased Base""",
    language="python",
)
