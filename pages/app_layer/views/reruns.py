"""Run the page again, unless its visitor has already asked for something else."""

from __future__ import annotations

from typing import NoReturn

import streamlit as st


def rerun_unless_asked_elsewhere() -> NoReturn:
    """``st.rerun()``, after honouring any rerun the visitor asked for meanwhile.

    A rerun the browser asked for while this run worked (another page chosen from the
    menu, a slider moved) waits as a pending request, and ``st.rerun()`` folds its own
    request into it with *this* page and query: the visitor who chose another page
    while the trials finished was put back on this one, with the sidebar at its
    defaults. Drawing an element first lets Streamlit act on the pending request (it
    stops this run and starts the one asked for); only with none pending does this page
    run again.
    """
    st.empty()
    st.rerun()


__all__ = ["rerun_unless_asked_elsewhere"]
