"""Presentation: every sentence, figure and take-away a person reads.

* :mod:`~ldpcore.present.sentences` — results in words: comparisons, verdicts, sweep
  headlines, the Choose ε answer, the notes under tables;
* :mod:`~ldpcore.present.figures` — Plotly figures (data in, ``go.Figure`` out) with
  their text alternatives;
* :mod:`~ldpcore.present.notebooks` — the notebook each results page offers;
* :mod:`~ldpcore.present.records` — Choose ε's decision record (HTML);
* :mod:`~ldpcore.present.commands` — the command line that repeats a page's run.

It sits above the results it describes (experiments, advice, the live class, the
learning demos) and below the command line and the pages that print it. Number
formats, which any layer may need, are the leaf :mod:`ldpcore.formats`.
"""
