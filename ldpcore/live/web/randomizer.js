// The live class's randomizer: it runs in the student's browser, so only the report
// leaves the device. Plain functions, no module syntax: the Streamlit
// component prepends this file to its own code, and the browser tests load this same
// file into a page and draw 100,000 reports from it per protocol.
//
// Every probability comes from Python (ldpcore.live.reports.browser_parameters), so the
// browser and the aggregator cannot disagree about the channel. Randomness comes only
// from crypto.getRandomValues (never Math.random, which is not a secure source).

"use strict";

// A uniform double in [0, 1) with 53 random bits (two 32-bit draws).
function ldpUniform() {
  const words = new Uint32Array(2);
  crypto.getRandomValues(words);
  return ((words[0] >>> 5) * 67108864 + (words[1] >>> 6)) / 9007199254740992;
}

// A uniform integer in [0, n), without modulo bias (rejection on 32-bit words).
function ldpInteger(n) {
  const limit = Math.floor(4294967296 / n) * n;
  const word = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(word);
    if (word[0] < limit) return word[0] % n;
  }
}

// Generalized randomized response over `size` values: keep `value` with probability p,
// else report one of the other size − 1 values uniformly (NDSS 2020, Sec. III-A).
function ldpRandomizedResponse(value, size, p) {
  if (ldpUniform() < p) return value;
  const other = ldpInteger(size - 1);
  return other >= value ? other + 1 : other;
}

// A uniform 64-bit seed, as a BigInt.
function ldpSeed() {
  const words = new Uint32Array(2);
  crypto.getRandomValues(words);
  return (BigInt(words[0]) << 32n) | BigInt(words[1]);
}

// OLH's hash h_{a,b}(x) = floor(g · floor(((a·x + b) mod 2^64) / 2^32) / 2^32), the
// same multiply-add-shift family as ldpcore.protocols.olh.hash_values.
function ldpHash(a, b, x, g) {
  const mixed = (a * BigInt(x) + b) & 0xffffffffffffffffn;
  return Number(((mixed >> 32n) * BigInt(g)) >> 32n);
}

// One report for `value` (0-based option index), in the protocol's report-file row.
function ldpRandomize(params, value) {
  const d = params.d;
  if (!Number.isInteger(value) || value < 0 || value >= d) {
    throw new RangeError("value must be an option index in [0, " + d + ")");
  }
  if (params.protocol === "GRR") {
    return { value: ldpRandomizedResponse(value, d, params.p) };
  }
  if (params.protocol === "OLH") {
    const a = ldpSeed();
    const b = ldpSeed();
    const bucket = ldpRandomizedResponse(ldpHash(a, b, value, params.g), params.g, params.p);
    return { seed_a: a.toString(), seed_b: b.toString(), bucket: bucket };
  }
  if (params.protocol === "OUE") {
    // Own bit 1 with probability p, every other bit 1 with probability q (Sec. III-C);
    // packed little-endian into bytes, as numpy.packbits(bitorder="little") does.
    const bytes = new Uint8Array(Math.ceil(d / 8));
    for (let i = 0; i < d; i++) {
      if (ldpUniform() < (i === value ? params.p : params.q)) bytes[i >> 3] |= 1 << (i & 7);
    }
    let hex = "";
    for (const byte of bytes) hex += byte.toString(16).padStart(2, "0");
    return { bits: hex };
  }
  throw new RangeError("a browser runs GRR, OUE or OLH; got " + params.protocol);
}

// At or above this chance that what a report points at is the sender's answer (every
// option equally likely beforehand), it all but gives the answer away, and says so.
const LDP_ALMOST_ALWAYS = 0.9;

// What a report reveals, in words, for the student who sent it (it follows ε).
function ldpDescribe(params, report, options) {
  const percent = (x) => (100 * x).toFixed(0) + "%";
  if (params.protocol === "GRR") {
    const start = "Your report names \u201c" + options[report.value] + "\u201d. It is your " +
      "answer with probability " + percent(params.p) + " and otherwise one of the other " +
      "options chosen at random, ";
    return start + (params.p >= LDP_ALMOST_ALWAYS
      ? "so at this \u03b5 it almost always shows what you answered."
      : "so no one can tell for sure from it what you answered.");
  }
  if (params.protocol === "OLH") {
    const fits = [];
    const a = BigInt(report.seed_a);
    const b = BigInt(report.seed_b);
    for (let v = 0; v < params.d; v++) {
      if (ldpHash(a, b, v, params.g) === report.bucket) fits.push(options[v]);
    }
    return "Your report is a random hash function and bucket " + report.bucket + " of " +
      params.g + ". The options in that bucket are: " + (fits.join(", ") || "none") +
      ". Your true answer\u2019s bucket was kept with probability " + percent(params.p) +
      // An option in the bucket is the sender's with this chance (each other option's
      // hash lands in it with 1/g), every option equally likely beforehand.
      (params.p / (params.p + (params.d - 1) / params.g) >= LDP_ALMOST_ALWAYS
        ? ", so at this \u03b5 an option in that bucket is almost always yours."
        : ", so the report supports these options without saying which, or whether, one " +
          "is yours.");
  }
  const ones = [];
  for (let i = 0; i < params.d; i++) {
    if ((parseInt(report.bits.substr(2 * (i >> 3), 2), 16) >> (i & 7)) & 1) ones.push(options[i]);
  }
  return "Your report is one bit per option; the bits set are: " + (ones.join(", ") || "none") +
    ". Your own option\u2019s bit was set with probability " + percent(params.p) +
    " and every other bit with probability " + percent(params.q) +
    // How often a set bit is the sender's answer, every option equally likely beforehand.
    (params.p / (params.p + (params.d - 1) * params.q) >= LDP_ALMOST_ALWAYS
      ? ", so at this \u03b5 another option\u2019s bit is rarely set: a set bit is " +
        "almost always your answer."
      : ", so a set bit is not an answer.");
}
