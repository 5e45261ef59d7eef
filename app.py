"""Streamlit entry point (`make run`): the navigation between the pages."""

from __future__ import annotations

import streamlit as st

st.set_page_config(page_title="LDP post-processing explorer", layout="wide")

PAGES = [
    st.Page("pages/explorer.py", title="Explorer", icon=":material/query_stats:", default=True),
    st.Page("pages/tradeoffs.py", title="ε trade-offs", icon=":material/tune:"),
    st.Page("pages/queries.py", title="Queries", icon=":material/join:"),
    st.Page("pages/your_data.py", title="Your data", icon=":material/upload_file:"),
    st.Page("pages/choose_epsilon.py", title="Choose ε", icon=":material/shield:"),
    st.Page("pages/learn.py", title="Learn", icon=":material/school:"),
    st.Page("pages/paper.py", title="Paper", icon=":material/article:"),
]

# Each page draws the shared sidebar itself (pages.common.sidebar); the Learn page
# has its own small population instead.
st.navigation(PAGES).run()
