"""Queries: what is asked of the estimated frequencies (single values, top-k, sets).

* :mod:`~ldpcore.queries.specs` — one frozen value per query kind (``full``,
  ``topk:k=10``, ``sets:…``) with its canonical text, and the registry
  :data:`~ldpcore.queries.specs.QUERY_KINDS`;
* :mod:`~ldpcore.queries.query` — a built :class:`~ldpcore.queries.query.Query`: the
  members of each question, their labels and how answers are summed.

A query needs a dataset (its domain and, for top-k, its true order), so it sits above
:mod:`ldpcore.data`; it knows no protocol and no method.
"""
