"""What the bare ``pip install ldpcore`` leaves out, and the extra that brings it.

The engine (protocols, post-processing, simulation, aggregation, the command line's
answers) needs numpy, scipy and pandas only. Drawing, the app, clusters and Parquet
files are optional: a feature that needs one of them and does not find it says which
extra to install instead of failing with an import error. ``pyproject.toml`` lists the
extras; this table says which one holds each optional top-level module.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Final

#: Optional top-level module → (the extra that installs it, what ldpcore needs it for).
OPTIONAL_MODULES: Final = MappingProxyType(
    {
        "plotly": ("plots", "draw figures"),
        "kaleido": ("plots", "export figures as PNG"),
        "nbformat": ("plots", "write notebooks"),
        "pyarrow": ("parquet", "read and write Parquet report files"),
        "dask": ("cluster", "run on a Dask cluster"),
        "distributed": ("cluster", "run on a Dask cluster"),
        "streamlit": ("app", "serve the app"),
        "segno": ("app", "draw the class's QR code"),
    }
)


def install_hint(module: str) -> str:
    """The sentence that says which extra brings ``module``.

    Examples
    --------
    >>> install_hint("plotly")
    "ldpcore needs plotly to draw figures: pip install 'ldpcore[plots]'"
    """
    extra, purpose = OPTIONAL_MODULES[module]
    return f"ldpcore needs {module} to {purpose}: pip install 'ldpcore[{extra}]'"


def missing_extra(exc: ImportError) -> str | None:
    """The install hint for an import that failed for want of an extra, else ``None``.

    ``None`` means the missing module is not one an extra brings: a real bug.
    """
    name = getattr(exc, "name", None) or ""
    top = name.partition(".")[0]
    return install_hint(top) if top in OPTIONAL_MODULES else None


__all__ = ["OPTIONAL_MODULES", "install_hint", "missing_extra"]
