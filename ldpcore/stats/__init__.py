"""Statistics that know nothing of privacy: paired comparisons, MCMC and its diagnostics.

* :mod:`~ldpcore.stats.compare` — paired MSE ratios of methods on the same trials,
  with studentized-bootstrap intervals, simultaneous over the methods;
* :mod:`~ldpcore.stats.hmc` — batched Hamiltonian Monte Carlo with its warmup;
* :mod:`~ldpcore.stats.pair_gibbs` — the pair sampler for a Dirichlet prior and a
  separable likelihood, over :mod:`~ldpcore.stats.separable`,
  :mod:`~ldpcore.stats.pair_moves`, :mod:`~ldpcore.stats.concentration` (the learned
  concentration α) and :mod:`~ldpcore.stats.logspace`;
* :mod:`~ldpcore.stats.diagnostics` — whether chains have mixed: split R̂ and
  effective sample sizes.

A leaf package: it imports numpy and scipy, nothing of ``ldpcore`` but its errors, so
the layers above it (the posterior, experiments, advice) all read the same numbers.
What the numbers recommend lives with the advice (:mod:`ldpcore.advice.verdicts`);
how they read, with the words (:mod:`ldpcore.formats`, :mod:`ldpcore.present`).
"""
