"""Presentation: every sentence, figure and take-away a person reads.

Sentences, by what they speak for:

* :mod:`~ldpcore.present.sentences` — comparisons and verdicts: a paired comparison in
  words, a verdict's and a sweep's headline, gains in users, what was simulated, the
  notes under tables;
* :mod:`~ldpcore.present.run_sentences` — a run: its cost, a method's caveats, a report
  file's checks, fake users in the top k;
* :mod:`~ldpcore.present.attack_sentences` — fake users against every method: the
  answer, each method's effect, the table;
* :mod:`~ldpcore.present.epsilon_sentences` — the Choose ε answer: its rows, reasons,
  option and users needed;
* :mod:`~ldpcore.present.context_sentences` — an ε in context: its odds, after shuffling,
  over repeated reports;
* :mod:`~ldpcore.present.rounds_sentences` — collecting again: the plans' words and table;
* :mod:`~ldpcore.present.class_sentences` — the live class: what the teacher and the
  students read;
* :mod:`~ldpcore.present.glossary` — the papers' terms in plain words.

And the rest of what a page or a file shows:

* :mod:`~ldpcore.present.tables` — the tables a page shows and its record files;
* :mod:`~ldpcore.present.figures` — Plotly figures, one chart family per module, with
  their text alternatives;
* :mod:`~ldpcore.present.notebooks` — the notebook each results page offers;
* :mod:`~ldpcore.present.records` — Choose ε's decision record (HTML);
* :mod:`~ldpcore.present.commands` — the command line that repeats a page's run.

It sits above the results it describes (experiments, advice, the live class, the
learning demos) and below the command line and the pages that print it. Number
formats, which any layer may need, are the leaf :mod:`ldpcore.formats`.
"""
