"""The words a stakeholder meets, in plain words: one glossary for the pages and the record.

Every page and file that says "Base", "SS", "paired" or "NDSS Eq. 3" to a person who
does not read the papers says, beside it, what it means. :func:`terms_in`
finds the glossary's terms in a text, so a page or the decision record lists exactly
the ones it used.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

#: Term -> plain words. Each entry avoids the other entries' jargon where it can, and
#: names it where it cannot (a reader looks that one up here too).
GLOSSARY: dict[str, str] = {
    "ε": "The privacy budget: how much one person's report may reveal. Smaller is more "
    "private and noisier; each report changes the odds of any guess about its sender by "
    "at most a factor e^ε.",
    "δ": "The small chance that a guarantee stated as (ε, δ) fails; it should be far "
    "below 1 divided by the number of users.",
    "LDP": "Local differential privacy: every user randomizes their own answer before it "
    "leaves their device, so no one, the collector included, sees a true answer.",
    "Base": "The raw, unbiased estimate computed from the randomized reports. Right on "
    "average, but noisy: it can be negative and need not add up to 100%.",
    "post-processing": "A correction applied to Base's estimate after collection (for "
    "example no negative shares, a total of 100%). It costs no privacy.",
    "GRR": "Generalized randomized response: each user reports their true value with "
    "some probability, or another value at random. Best for few values.",
    "OLH": "Optimized local hashing: each user hashes their value into a few buckets and "
    "randomizes the bucket. Good for many values.",
    "BLH": "Binary local hashing: local hashing with two buckets.",
    "OUE": "Optimized unary encoding: each user sends one noisy yes/no bit per value.",
    "SUE": "Symmetric unary encoding (the RAPPOR-style bits): like OUE with symmetric noise.",
    "SHE": "Summed histogram encoding: each user adds random (Laplace) noise to a 1 at "
    "their value and 0 elsewhere, and sends the noisy numbers; the collector adds them up.",
    "THE": "Thresholded histogram encoding: SHE's noisy numbers turned into yes/no bits "
    "by keeping those above a threshold.",
    "SS": "Subset selection: each user reports a random set of values that is more likely "
    "to contain their own.",
    "HR": "Hadamard response: each user reports one bit-pattern index; compact reports "
    "for very many values.",
    "Norm-Sub": "A post-processing method: subtract one amount from every estimate, "
    "clipping at zero, so they add up to 100%. Usually the safest default.",
    "Norm-Mul": "A post-processing method: clip negatives, then scale everything down to "
    "100%. It shrinks the most frequent values most.",
    "Base-Cut": "A post-processing method: keep only the estimates above a noise "
    "threshold and set the rest to zero.",
    "Norm": "A post-processing method: shift every estimate by one amount so they add up "
    "to 100% (some may stay negative).",
    "PowerNS": "A post-processing method: fit a smooth power-law shape to the estimates, "
    "then make them add up to 100%. Strong when the data are skewed.",
    "proper distribution": "Estimates that are all zero or more and add up to 100%, as "
    "true shares do.",
    "within ±x, 95% of the time": "An accuracy target: every value asked about is off by "
    "at most x percentage points in 95 of 100 collections. 'All at once' asks that of "
    "all of them together in 95 of 100 collections, which needs more ε.",
    "MLE": "Maximum likelihood: the distribution under which the reports received are most likely.",
    "MLE-Apx": "A fast approximation of the MLE (maximum likelihood) estimate.",
    "RMSE": "Root-mean-square error: the typical size of an estimate's error, in the "
    "estimate's own units (here, shares or percentage points).",
    "MSE": "Mean squared error: the average of the squared errors; its square root is the RMSE.",
    "pp": "Percentage points: 0.5 pp is the difference between 10% and 10.5%.",
    "paired": "Compared on the same simulated trials, so a difference between two "
    "methods is not an accident of different random draws.",
    "95% interval": "A range that, computed this way, contains the true value in 95 of "
    "100 repetitions.",
    "NDSS Eq. 3": "The exact variance of Base's estimate (Wang et al., NDSS 2020, "
    "Equation 3): used where the answer needs no simulation.",
    "memoized": "A user's randomized answer drawn once and kept: every later report is a "
    "fresh randomization of that answer, so however many reports are sent they reveal no "
    "more than the kept answer does (its lifetime ε, written ε∞).",
    "ε∞": "The lifetime ε of a memoized protocol: what any number of reports of one value "
    "spend together at most.",
    "shuffling": "Mixing everyone's reports before analysis, by a party trusted to do "
    "only that; the collector then cannot tell whose report is whose, which lowers the "
    "effective (central) ε.",
    "central ε": "The ε of the collection as a whole, as a trusted curator would state "
    "it; comparable with published central deployments, not with a local ε.",
}


def terms_in(text: str, glossary: Iterable[str] = GLOSSARY) -> list[str]:
    """The glossary's terms that ``text`` uses, in glossary order (whole words only).

    Examples
    --------
    >>> terms_in("Base meets the target at ε = 0.39 (paired 95% interval) with SS")
    ['ε', 'Base', 'SS', 'paired', '95% interval']
    >>> terms_in("Basement")
    []
    """
    found = []
    for term in glossary:
        if re.search(rf"(?<![\w-]){re.escape(term)}(?![\w-])", text):
            found.append(term)
    return found


def glossary_markdown(terms: Iterable[str]) -> str:
    """The terms with their meanings, as a Markdown list (a page's "what these words mean").

    Examples
    --------
    >>> print(glossary_markdown(["pp"]))
    - **pp**: Percentage points: 0.5 pp is the difference between 10% and 10.5%.
    """
    return "\n".join(f"- **{term}**: {GLOSSARY[term]}" for term in terms)


def terms_help(text: str) -> str:
    """A tooltip for a control or a table's column: the glossary's terms ``text`` uses.

    Examples
    --------
    >>> [line[:12] for line in terms_help("smallest ε (exact, NDSS Eq. 3)").splitlines()]
    ['**ε**: The p', '', '**NDSS Eq. 3']
    """
    return "\n\n".join(f"**{term}**: {GLOSSARY[term]}" for term in terms_in(text))


__all__ = ["GLOSSARY", "glossary_markdown", "terms_help", "terms_in"]
