/* posenc explorer: every panel's formula (the same names and arguments as posenc.explore.golden.FUNCTIONS), the
   drawing (SVG and canvas written for this page), the language switch and the self-check against posenc's values.
   No library, no network: the page's data sits in the JSON block #explore-data. */
"use strict";

const DATA = JSON.parse(document.getElementById("explore-data").textContent);
const TAU = 2 * Math.PI;
const TOLERANCE = {rel: 1e-6, abs: 1e-12};

/* ---------------------------------------------------------------- random draws (mulberry32 + Box-Muller) --- */
function mulberry32(seed) {
  let a = seed >>> 0;
  return function () {
    a = (a + 0x6D2B79F5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a) >>> 0;
    t = ((t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t) >>> 0;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function normalVectors(seed, count, dim) {
  const draw = mulberry32(seed), out = new Float64Array(count * dim);
  for (let i = 0; i < out.length; i++) {
    const u1 = 1 - draw(), u2 = draw();
    out[i] = Math.sqrt(-2 * Math.log(u1)) * Math.cos(TAU * u2);
  }
  return out;
}

/* ---------------------------------------------------------------------------------------------- formulas --- */
function tabulate(n, f) {  // Float64Array [f(0), ..., f(n - 1)] by a plain loop (Float64Array.from's callback is slow)
  const out = new Float64Array(n);
  for (let k = 0; k < n; k++) out[k] = f(k);
  return out;
}

function defaultInvFreq(dim, base) {  // base^(-2i/dim), i = 0..dim/2-1
  const out = new Float64Array(dim / 2);
  for (let i = 0; i < dim / 2; i++) out[i] = 1 / Math.pow(base, (2 * i) / dim);
  return out;
}

function naive(a) {  // integer: p + 1; normalized: p / (n - 1); binary: bit j of p, table [n, dim]
  const n = a.n, out = [];
  if (a.kind === "integer") for (let p = 0; p < n; p++) out.push(p + 1);
  else if (a.kind === "normalized") for (let p = 0; p < n; p++) out.push(p / Math.max(n - 1, 1));
  else for (let p = 0; p < n; p++) for (let j = 0; j < a.dim; j++) out.push(j < 31 ? (p >>> j) & 1 : 0);
  return out;
}

function sinusoidRow(p, d, w, out, offset) {  // PE[p, 2i] = sin(p w_i), PE[p, 2i+1] = cos(p w_i)
  for (let i = 0; i < d / 2; i++) {
    const angle = p * w[i];
    out[offset + 2 * i] = Math.sin(angle);
    out[offset + 2 * i + 1] = Math.cos(angle);
  }
}

function sinusoid(a) {
  const w = defaultInvFreq(a.d, a.base), out = new Float64Array(a.n * a.d);
  for (let p = 0; p < a.n; p++) sinusoidRow(p, a.d, w, out, p * a.d);
  return out;
}

function sinusoidDot(a) {  // PE[p] . PE[q] = sum_i cos((p - q) w_i)
  const w = defaultInvFreq(a.d, a.base), out = [];
  const rowP = new Float64Array(a.d), rowQ = new Float64Array(a.d);
  sinusoidRow(a.p, a.d, w, rowP, 0);
  for (let q = 0; q < a.n; q++) {
    sinusoidRow(q, a.d, w, rowQ, 0);
    let s = 0;
    for (let j = 0; j < a.d; j++) s += rowP[j] * rowQ[j];
    out.push(s);
  }
  return out;
}

function sinusoidPair(a) {  // [PE[p], PE[q], PE[p] . PE[q]]
  const w = defaultInvFreq(a.d, a.base), out = new Float64Array(2 * a.d + 1);
  sinusoidRow(a.p, a.d, w, out, 0);
  sinusoidRow(a.q, a.d, w, out, a.d);
  let s = 0;
  for (let j = 0; j < a.d; j++) s += out[j] * out[a.d + j];
  out[2 * a.d] = s;
  return Array.from(out);
}

function pairAt(p, w) { return [Math.sin(p * w), Math.cos(p * w)]; }

function rotation(a) {  // M(k) read off the vectors: M = B A^-1, A = [PE[p], PE[p+1]], B = [PE[p+k], PE[p+k+1]]
  const w = defaultInvFreq(a.d, a.base)[a.i];
  const x0 = pairAt(a.p, w), x1 = pairAt(a.p + 1, w), y0 = pairAt(a.p + a.k, w), y1 = pairAt(a.p + a.k + 1, w);
  const det = x0[0] * x1[1] - x1[0] * x0[1];
  const inv = [[x1[1] / det, -x1[0] / det], [-x0[1] / det, x0[0] / det]];  // A^-1 with A's columns x0, x1
  const m = [[y0[0] * inv[0][0] + y1[0] * inv[1][0], y0[0] * inv[0][1] + y1[0] * inv[1][1]],
             [y0[1] * inv[0][0] + y1[1] * inv[1][0], y0[1] * inv[0][1] + y1[1] * inv[1][1]]];
  return [x0[0], x0[1], y0[0], y0[1], m[0][0], m[0][1], m[1][0], m[1][1]];
}

function rotateHalf(x, offset, dim, position, invFreq, out) {  // channel i with i + dim/2
  const h = dim / 2;
  for (let i = 0; i < h; i++) {
    const t = position * invFreq[i], c = Math.cos(t), s = Math.sin(t), u = x[offset + i], v = x[offset + i + h];
    out[i] = u * c - v * s;
    out[i + h] = u * s + v * c;
  }
}

function ropeScore(a) {
  const inv = defaultInvFreq(a.dim, a.base), qk = normalVectors(a.seed, 2, a.dim);
  const q = new Float64Array(a.dim), k = new Float64Array(a.dim);
  rotateHalf(qk, 0, a.dim, a.m, inv, q);
  rotateHalf(qk, a.dim, a.dim, a.n, inv, k);
  let s = 0;
  for (let j = 0; j < a.dim; j++) s += q[j] * k[j];
  return [s];
}

function ropeAngles(a) {
  const inv = defaultInvFreq(a.dim, a.base), out = new Float64Array(a.n * a.dim / 2);
  for (let p = 0; p < a.n; p++) for (let i = 0; i < a.dim / 2; i++) out[p * a.dim / 2 + i] = p * inv[i];
  return out;
}

/* cos(r theta_i) for r = 0..n-1 and theta_i = base^(-2i/dim): one table per (dim, base), grown a row at a time and
   shared by RoPE's decay (its readouts) and its angle heatmap (cos of the angle), each entry one Math.cos */
const cosTables = new Map();

function cosTable(dim, base, n) {  // {rows, h, values: Float64Array [rows, h]}, at least n rows
  const key = `${dim}|${base}`;
  let table = cosTables.get(key);
  if (!table) {
    if (cosTables.size > 3) cosTables.delete(cosTables.keys().next().value);
    table = {rows: 0, h: dim / 2, inv: defaultInvFreq(dim, base), values: new Float64Array(0)};
    cosTables.set(key, table);
  }
  if (table.rows < n) {
    const h = table.h, values = new Float64Array(Math.max(n, 2 * table.rows) * h);
    values.set(table.values.subarray(0, table.rows * h));
    for (let r = table.rows, o = r * h; r < n; r++) for (let i = 0; i < h; i++, o++) values[o] = Math.cos(r * table.inv[i]);
    Object.assign(table, {rows: n, values});
  }
  return table;
}

/* q rotated at r against k = q at 0, over `samples` draws: mean then std (population). With k = q,
   q_r . k_0 = sum_i (qa^2 + qb^2) cos(r t_i), (a, b) = channels (i, i + dim/2): the sine's weight qa kb - qb ka is
   exactly 0. Each distance's scores are kept per draw (the draws come from one generator in order), so another
   number of positions or of draws computes only the rows and draws it has not seen; four draws' sums run side by
   side over one cosine row, each summed over i in order as one alone would be. */
const decayStates = new Map();
const MAX_SAMPLES = 200;  // the panel's largest number of draws: each distance keeps room for them

function decayState(dim, base, seed) {
  const key = `${dim}|${base}|${seed}`;
  if (!decayStates.has(key)) {
    if (decayStates.size > 3) decayStates.delete(decayStates.keys().next().value);
    decayStates.set(key, {h: dim / 2, dim, base, draw: mulberry32(seed), drawn: 0, even: new Float64Array(0),
      scores: [], counts: []});
  }
  return decayStates.get(key);
}

function drawEven(st, samples) {  // even[s, i] = qa^2 + qb^2 of draw 2s; draw 2s + 1 (k's) only advances the generator
  if (st.drawn >= samples) return;
  const h = st.h, dim = st.dim, even = new Float64Array(Math.max(samples, 2 * st.drawn) * h), q = new Float64Array(dim);
  even.set(st.even.subarray(0, st.drawn * h));
  for (let s = st.drawn; s < samples; s++) {
    for (let j = 0; j < dim; j++) {
      const u1 = 1 - st.draw(), u2 = st.draw();
      q[j] = Math.sqrt(-2 * Math.log(u1)) * Math.cos(TAU * u2);
    }
    for (let j = 0; j < dim; j++) { st.draw(); st.draw(); }  // Box-Muller takes two uniforms per normal
    for (let i = 0, o = s * h; i < h; i++) even[o + i] = q[i] * q[i] + q[i + h] * q[i + h];
  }
  st.even = even;
  st.drawn = samples;
}

function scoreRoom(st, r, S) {  // distance r's scores, with room for S draws
  let scores = st.scores[r];
  if (!scores || scores.length < S) {
    const room = new Float64Array(Math.max(MAX_SAMPLES, S));
    if (scores) room.set(scores);
    scores = st.scores[r] = room;
  }
  return scores;
}

/* two distances (cosine rows c0 and c0 + h) x four draws (s..s+3): eight sums side by side over one pass of i */
function scoreBlock(cos, even, h, c0, s, out0, out1) {
  const c1 = c0 + h, e0 = s * h, e1 = e0 + h, e2 = e1 + h, e3 = e2 + h;
  let a0 = 0, a1 = 0, a2 = 0, a3 = 0, b0 = 0, b1 = 0, b2 = 0, b3 = 0;
  for (let i = 0; i < h; i++) {
    const x = cos[c0 + i], y = cos[c1 + i], q0 = even[e0 + i], q1 = even[e1 + i], q2 = even[e2 + i], q3 = even[e3 + i];
    a0 += q0 * x; a1 += q1 * x; a2 += q2 * x; a3 += q3 * x;
    b0 += q0 * y; b1 += q1 * y; b2 += q2 * y; b3 += q3 * y;
  }
  out0[s] = a0; out0[s + 1] = a1; out0[s + 2] = a2; out0[s + 3] = a3;
  out1[s] = b0; out1[s + 1] = b1; out1[s + 2] = b2; out1[s + 3] = b3;
}

/* the scores of draws from..S-1 at distances r and r + 1 (rows = 2) or r alone: each a sum over i in order */
function scoreRows(st, cos, r, rows, from, S) {
  const h = st.h, even = st.even, c0 = r * h, c1 = c0 + h, out0 = scoreRoom(st, r, S), out1 = rows > 1 ? scoreRoom(st, r + 1, S) : out0;
  let s = from;
  if (rows > 1) for (; s + 4 <= S; s += 4) scoreBlock(cos, even, h, c0, s, out0, out1);
  for (; s < S; s++) {  // the draws past the last four, and a lone last distance
    const e = s * h;
    let a = 0, b = 0;
    for (let i = 0; i < h; i++) { a += even[e + i] * cos[c0 + i]; b += rows > 1 ? even[e + i] * cos[c1 + i] : 0; }
    out0[s] = a;
    if (rows > 1) out1[s] = b;
  }
  st.counts[r] = S;
  if (rows > 1) st.counts[r + 1] = S;
}

function ropeDecay(a) {
  const st = decayState(a.dim, a.base, a.seed), S = a.samples;
  drawEven(st, S);
  const cos = cosTable(a.dim, a.base, a.n).values, mean = new Float64Array(a.n), std = new Float64Array(a.n);
  for (let r = 0; r < a.n;) {  // the draws each distance has not seen yet, two distances at a time when they agree
    const from = st.counts[r] ?? 0, rows = r + 1 < a.n && (st.counts[r + 1] ?? 0) === from ? 2 : 1;
    if (from < S) scoreRows(st, cos, r, rows, from, S);
    r += rows;
  }
  for (let r = 0; r < a.n; r++) {
    const scores = st.scores[r];
    let total = 0;
    for (let k = 0; k < S; k++) total += scores[k];
    const m = total / S;
    let sq = 0;
    for (let k = 0; k < S; k++) sq += (scores[k] - m) * (scores[k] - m);
    mean[r] = m;
    std[r] = Math.sqrt(sq / S);
  }
  return [...mean, ...std];
}

/* entry k of ropeDecay(a) (the mean at distance k, or the std at distance k - n), computed as ropeDecay computes that
   distance: the same draws, each score summed over i in order with cos(r t_i) as cosTable makes it, then the mean
   and std over the draws in order; the same float64 bits, for the readouts while the whole curve is computed apart */
const entryDraws = new Map();  // the draws by (dim, seed): another base draws nothing again

function decayEntry(a, k) {
  const key = `${a.dim}|${a.seed}`;
  if (!entryDraws.has(key)) {
    if (entryDraws.size > 3) entryDraws.delete(entryDraws.keys().next().value);
    entryDraws.set(key, {h: a.dim / 2, dim: a.dim, draw: mulberry32(a.seed), drawn: 0, even: new Float64Array(0)});
  }
  const r = k < a.n ? k : k - a.n, st = entryDraws.get(key), S = a.samples, h = st.h;
  drawEven(st, S);
  const inv = defaultInvFreq(a.dim, a.base), cos = new Float64Array(h), even = st.even, scores = new Float64Array(S);
  for (let i = 0; i < h; i++) cos[i] = Math.cos(r * inv[i]);
  for (let s = 0; s < S; s++) {
    let v = 0;
    for (let i = 0, e = s * h; i < h; i++) v += even[e + i] * cos[i];
    scores[s] = v;
  }
  let total = 0;
  for (let s = 0; s < S; s++) total += scores[s];
  const m = total / S;
  if (k < a.n) return m;
  let sq = 0;
  for (let s = 0; s < S; s++) sq += (scores[s] - m) * (scores[s] - m);
  return Math.sqrt(sq / S);
}

/* RoPE scalings: each returns [inv_freq..., attention_factor] (posenc.encodings.rope_scaling) */
function yarnMscale(scale, mscale) { return scale <= 1 ? 1 : 0.1 * (mscale === undefined ? 1 : mscale) * Math.log(scale) + 1; }

function yarnRange(dim, base, original, betaFast, betaSlow) {
  const corr = (rotations) => dim * Math.log(original / (rotations * TAU)) / (2 * Math.log(base));
  const low = Math.floor(corr(betaFast)), high = Math.ceil(corr(betaSlow));
  return [Math.max(low, 0), Math.min(high, dim - 1)];
}

function yarnRamp(low, high, n) {
  if (low === high) high += 0.001;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = Math.min(1, Math.max(0, (i - low) / (high - low)));
  return out;
}

const SCALINGS = {
  default: (dim, base) => [defaultInvFreq(dim, base), 1],
  linear: (dim, base, p) => [defaultInvFreq(dim, base).map((f) => f / (p.factor ?? 1)), 1],
  ntk: (dim, base, p) => SCALINGS.default(dim, base * Math.pow(p.factor ?? 1, dim / (dim - 2))),
  dynamic: (dim, base, p, seqLen) => {
    const s = p.factor ?? 1, original = p.original_max_len ?? 2048;
    const length = Math.max(seqLen || original, original);
    return SCALINGS.default(dim, base * Math.pow(s * length / original - (s - 1), dim / (dim - 2)));
  },
  yarn: (dim, base, p) => {
    const s = p.factor ?? 1, inv = defaultInvFreq(dim, base);
    let factor = p.attention_factor;
    if (factor === undefined || factor === null) {
      factor = (p.mscale && p.mscale_all_dim) ? yarnMscale(s, p.mscale) / yarnMscale(s, p.mscale_all_dim) : yarnMscale(s);
    }
    const [low, high] = yarnRange(dim, base, p.original_max_len ?? 2048, p.beta_fast ?? 32, p.beta_slow ?? 1);
    const gamma = yarnRamp(low, high, dim / 2);
    return [inv.map((f, i) => f / s * gamma[i] + f * (1 - gamma[i])), factor];
  },
  llama3: (dim, base, p) => {
    const s = p.factor ?? 8, lowF = p.low_freq_factor ?? 1, highF = p.high_freq_factor ?? 4;
    const original = p.original_max_len ?? 8192, inv = defaultInvFreq(dim, base);
    return [inv.map((f) => {
      const wavelen = TAU / f;
      if (wavelen > original / lowF) return f / s;
      if (wavelen < original / highF) return f;
      const smooth = Math.min(1, Math.max(0, (original / wavelen - lowF) / (highF - lowF)));
      return (1 - smooth) * f / s + smooth * f;
    }), 1];
  },
  longrope: (dim, base, p, seqLen) => {
    const s = p.factor ?? 1, original = p.original_max_len ?? 4096;
    const ext = seqLen && seqLen > original ? p.long_factor : p.short_factor;
    let factor = p.attention_factor;
    if (factor === undefined || factor === null) factor = s <= 1 ? 1 : Math.sqrt(1 + Math.log(s) / Math.log(original));
    return [defaultInvFreq(dim, base).map((f, i) => f / ext[i]), factor];
  },
  proportional: (dim, base, p) => {
    const kept = Math.floor((p.partial_rotary_factor ?? 1) * dim / 2), s = p.factor ?? 1;
    return [defaultInvFreq(dim, base).map((f, i) => (i < kept ? f : 0) / s), 1];
  },
};

function scaling(a) {
  const [inv, factor] = SCALINGS[a.type](a.dim, a.base, a.params || {}, a.seq_len);
  return [...inv, factor];
}

function yarnGamma(a) {
  const [low, high] = yarnRange(a.dim, a.base, a.original_max_len, a.beta_fast, a.beta_slow);
  return [...yarnRamp(low, high, a.dim / 2), low, high];
}

/* bias encodings */
function alibi(a) {  // Press et al.: 2^(-8h/n) for a power of two n, interleaved for the rest
  const pow2 = (n) => Array.from({length: n}, (_, h) => Math.pow(2, -8 * (h + 1) / n));
  const p = Math.pow(2, Math.floor(Math.log2(a.heads)));
  let slopes = pow2(p);
  if (p < a.heads) slopes = slopes.concat(pow2(2 * p).filter((_, i) => i % 2 === 0).slice(0, a.heads - p));
  return slopes;
}

function t5Bucket(r, bidirectional, buckets, maxDistance) {
  let bucket = 0, distance, nb = buckets;
  if (bidirectional) { nb = Math.floor(nb / 2); bucket += r > 0 ? nb : 0; distance = Math.abs(r); }
  else distance = Math.max(-r, 0);
  const maxExact = Math.floor(nb / 2);
  if (distance < maxExact) return bucket + distance;
  const ratio = Math.log(Math.max(distance, 1) / maxExact) / Math.log(maxDistance / maxExact);
  return bucket + Math.min(maxExact + Math.trunc(ratio * (nb - maxExact)), nb - 1);
}

function t5(a) {
  const out = [];
  for (let r = -a.n + 1; r < a.n; r++) out.push(t5Bucket(r, a.bidirectional, a.buckets, a.max_distance));
  return out;
}

function kerpleAt(d, r1, r2, kernel) { return kernel === "power" ? -r1 * Math.pow(d, r2) : -r1 * Math.log1p(r2 * d); }

function kerple(a) { return Array.from({length: a.n}, (_, d) => kerpleAt(d, a.r1, a.r2, a.kernel)); }

function fireAt(i, j, c, L) { return Math.log1p(c * Math.abs(i - j)) / Math.max(Math.log1p(c * Math.max(i, L)), 1e-6); }

function fire(a) {  // fireAt's two logarithms taken once per distance and once per row: the same numbers
  const n = a.n, out = new Float64Array(n * n);
  const top = tabulate(n, (r) => Math.log1p(a.c * r));
  for (let i = 0, o = 0; i < n; i++) {
    const bottom = Math.max(Math.log1p(a.c * Math.max(i, a.L)), 1e-6);
    for (let j = 0; j < n; j++, o++) out[o] = top[Math.abs(i - j)] / bottom;
  }
  return out;
}

function sandwichRho(heads, compress) { return Array.from({length: heads}, (_, h) => compress ? 8 * (h + 1) / heads : 1); }

function sandwichCell(w, rho, dim, r) {  // sum_i cos(r w_i / rho_h) - d'/2
  let s = 0;
  for (let i = 0; i < w.length; i++) s += Math.cos(r * w[i] / rho);
  return s - dim / 2;
}

function sandwich(a) {  // [heads, n]
  const w = defaultInvFreq(a.dim, 10000), rho = sandwichRho(a.heads, a.compress), out = new Float64Array(a.heads * a.n);
  for (let h = 0, o = 0; h < a.heads; h++) for (let r = 0; r < a.n; r++, o++) out[o] = sandwichCell(w, rho[h], a.dim, r);
  return out;
}

/* Sandwich's cells one at a time, each as sandwich(a) computes it, kept once computed: the heads' tiles read 64
   offsets of each head and the chosen head's grid its n, not the whole [heads, n] table */
function sandwichCells(a) {
  return drawTable(`sandwich|${a.n}|${a.dim}|${a.heads}|${a.compress}`, () => {
    const w = defaultInvFreq(a.dim, 10000), rho = sandwichRho(a.heads, a.compress), cells = new Float64Array(a.heads * a.n).fill(NaN);
    return (h, r) => { const o = h * a.n + r; return Number.isNaN(cells[o]) ? (cells[o] = sandwichCell(w, rho[h], a.dim, r)) : cells[o]; };
  });
}

/* one entry of a formula's table, computed as the whole table computes it, for readouts of tables too large to make
   for one number: (args, index) -> value */
const ENTRY = {
  rope_decay: decayEntry,
  fire: (a, k) => fireAt(Math.floor(k / a.n), k % a.n, a.c, a.L),
  sandwich: (a, k) => sandwichCells(a)(Math.floor(k / a.n), k % a.n),
};

/* precision: a float64 value rounded to float32, then to bfloat16 or float16 (round half to even), as torch does */
const F32 = new Float32Array(1), U32 = new Uint32Array(F32.buffer);
const POW2 = Float64Array.from({length: 401}, (_, k) => Math.pow(2, k - 200));  // 2^-200 .. 2^200

function roundTo(x, mantissa, minExp, overflow) {
  F32[0] = x;  // float64 -> float32 (round half to even), as torch converts first
  x = F32[0];
  if (!Number.isFinite(x) || x === 0) return x;
  const a = Math.abs(x);
  if (a >= overflow) return Math.sign(x) * Infinity;
  const biased = (U32[0] >>> 23) & 0xFF, e = biased === 0 ? -127 : biased - 127;  // the float32's exponent
  const ulp = POW2[Math.max(e, minExp) - mantissa + 200], r = a / ulp;
  let n = Math.floor(r);
  const f = r - n;
  if (f > 0.5 || (f === 0.5 && n % 2 === 1)) n += 1;
  return Math.sign(x) * n * ulp;
}

/* the same roundings by the float32's bits (round half to even at the format's last mantissa bit, the carry running
   into the exponent), for the precision search's many calls: bfloat16 keeps float32's exponent range, so its 16
   low bits go for every float32; float16's normal range (2^-14 up to its overflow) drops 13, the rest (its
   subnormals, zero, overflow) takes roundTo's path. tests/explore checks both against torch at every binade. */
function bfloat16Bits(x) {
  F32[0] = x;
  const b = U32[0];
  if ((b & 0x7F800000) !== 0x7F800000) U32[0] = (b + 0x7FFF + ((b >>> 16) & 1)) & 0xFFFF0000;  // not inf or NaN
  return F32[0];
}

function float16Bits(x) {
  F32[0] = x;
  const b = U32[0], magnitude = b & 0x7FFFFFFF;  // 0x38800000 is 2^-14, 0x477FF000 is 65520
  if (magnitude < 0x38800000 || magnitude >= 0x477FF000) return roundTo(x, 10, -14, 65520);  // subnormal, overflow, NaN
  U32[0] = (b + 0xFFF + ((b >>> 13) & 1)) & 0xFFFFE000;
  return F32[0];
}

const FORMATS = {
  bfloat16: bfloat16Bits,  // roundTo(x, 7, -126, (2 - 2^-8) 2^127): rounds up past the largest
  float16: float16Bits,  // roundTo(x, 10, -14, 65504 + half an ulp)
};

function precision(a) {
  const w = defaultInvFreq(a.dim, a.base)[a.i], round = FORMATS[a.dtype];
  return a.positions.map((p) => { const exact = p * w; return round(exact) - exact; });
}

/* the first aliased row: the first q (0 < q < limit) whose every angle q w_i rounds in the format to the same value as
   (q - 1) w_i, else -1. A walk over q that asks each frequency in turn does up to 32768 x 256 pairs of roundings in
   float16; this search asks each frequency only for its next row: the first q' >= q with round(q' w) > round((q' - 1)
   w) (the rounded angle never falls as q grows, so the rows between are not told apart by it). Rows are visited in
   order; a frequency whose next row is known waits in that row's list, the others in a queue. A row with a waiting
   frequency is told apart; a row without one asks the queue's frequencies for their next rows (each then waits there,
   or is dropped past the limit) until one is this row; when the queue runs out the row aliases. The same answer as
   the walk, with about two questions a row (tests/explore checks both over every format, bases, widths, limits and
   frequencies that alias at once, never, or overflow). A next row is found by arithmetic that is exact where it
   decides: with v = round((q - 1) w) and t the midpoint to the format's next value (the boundary q' w must pass),
   q' = ceil(t / w) corrected a row at a time; the rounded angle is n s (s the format's step in x's binade, n the
   nearest integer to x / s, exact in float64) unless x / s lies within 2^-12 of a midpoint, where the float32 step
   could matter (2^-14 of s at most), and k w is above or below t by its float64 value unless it is within 2^-22 of t
   (past float32's step); in both narrow cases, and past the arithmetic's range, the format's own rounding decides. */
const ALIAS_SEARCH = {  // per format: mantissa bits, smallest normal (its step continues below it), largest x by arithmetic
  bfloat16: {mantissa: 7, normal: Math.pow(2, -126), guard: Math.pow(2, 127)},
  float16: {mantissa: 10, normal: Math.pow(2, -14), guard: 32768},  // overflow (65520 and up) rounds to Infinity
};

function aliasedRow(freqs, dtype, limit) {
  const round = FORMATS[dtype], {mantissa, normal, guard} = ALIAS_SEARCH[dtype], m = freqs.length;
  const head = new Int32Array(limit + 1).fill(-1), link = new Int32Array(m);  // each row's waiting frequencies
  const queue = new Int32Array(m + 1), wrap = m;  // a ring: every frequency at most once
  const edge = new Float64Array(m).fill(2 * normal), step = new Float64Array(m).fill(normal * Math.pow(2, -mantissa));
  let first = 0, end = 0;
  for (let i = 0; i < m; i++) queue[end++] = i;  // fastest first
  const above = (y, t, v) => {  // round(y) > v, t the midpoint above v
    const d = y - t, margin = t * 2.4e-7 + 1e-44;  // 2^-22 of t (or float32's smallest step): past its float32 step
    return d > margin || (d >= -margin && round(y) > v);
  };
  const next = (i, q) => {  // frequency i's next row from q, or limit
    const w = freqs[i], x = (q - 1) * w;
    if (!(x < guard)) {  // the format's rounding, a row at a time (float16's largest angles: never in the page)
      const v = round(x);
      let k = q;
      if (v !== Infinity) while (k < limit && !(round(k * w) > v)) k++;
      return v === Infinity ? limit : k;
    }
    let e = edge[i], s = step[i];
    while (x >= e) { e *= 2; s *= 2; }  // x in [e / 2, e) (or below the smallest normal), s its binade's step
    edge[i] = e; step[i] = s;
    const f = x / s + 0.5, n = Math.floor(f), frac = f - n;
    const v = frac > 2.5e-4 && frac < 1 - 2.5e-4 ? n * s : round(x);
    const t = v + (v >= e ? s : s / 2);  // rounded up to e: the next value is e + 2 s
    let k = Math.ceil(t / w);
    if (!(k > q)) k = q;  // w = 0: NaN
    if (k > limit) k = limit;
    while (k > q && above((k - 1) * w, t, v)) k--;
    while (k < limit && !above(k * w, t, v)) k++;
    return k;
  };
  for (let q = 1; q < limit; q++) {
    let i = head[q];
    if (i !== -1) {  // told apart: its frequencies wait in the queue for their next rows
      for (; i !== -1; i = link[i]) { queue[end] = i; end = end === wrap ? 0 : end + 1; }
      continue;
    }
    let apart = false;
    while (first !== end && !apart) {
      i = queue[first]; first = first === wrap ? 0 : first + 1;
      const k = next(i, q);
      if (k === q) { apart = true; queue[end] = i; end = end === wrap ? 0 : end + 1; }
      else if (k < limit) { link[i] = head[k]; head[k] = i; }
    }
    if (!apart) return q;
  }
  return -1;
}

function firstAliased(a) {  // [the first q whose whole angle row equals row q - 1 in the format, else -1]
  return [aliasedRow(defaultInvFreq(a.dim, a.base), a.dtype, a.limit)];
}

/* the last results by formula and arguments: a redraw asks for the numbers it draws and its readouts once */
const memo = new Map();
function cached(f, args) {
  const key = f + JSON.stringify(args);
  if (!memo.has(key)) {
    if (memo.size > 64) memo.delete(memo.keys().next().value);
    memo.set(key, F[f](args));
  }
  return memo.get(key);
}

/* RoPE's decay curve (at the largest 512 distances x 50 draws x 256 pairs) is computed off the page's thread, so that
   a control's redraw does not wait for it: a worker built from this script's own functions (a Blob URL, which works
   from a file with the network off) runs ropeDecay and sends the mean and std back, the figure saying "computing…"
   until they arrive. One job runs at a time; while it runs, the newest request waits and any older one is dropped
   (a drag asks for the values it passes, the figure shows where it stops). Where no worker can be made, or one
   fails, the curve is computed here as before. The readouts never wait: decayEntry computes their distance here. */
const DECAY_CODE = [mulberry32, defaultInvFreq, cosTable, decayState, drawEven, scoreRoom, scoreBlock, scoreRows, ropeDecay];
const decayJobs = {worker: undefined, running: null, next: null, settled: []};

function decayWorker() {  // the worker, made on first use; null where none can be
  if (decayJobs.worker !== undefined) return decayJobs.worker;
  try {
    const source = `"use strict";\nconst TAU = 2 * Math.PI, MAX_SAMPLES = ${MAX_SAMPLES}, cosTables = new Map(), decayStates = new Map();\n`
      + DECAY_CODE.map(String).join("\n") + "\nonmessage = (e) => {\n  if (e.data === 'forget') { cosTables.clear(); decayStates.clear(); return; }\n"
      + "  const values = Float64Array.from(ropeDecay(e.data));\n  postMessage(values, [values.buffer]);\n};\n";
    const worker = new Worker(URL.createObjectURL(new Blob([source], {type: "text/javascript"})));
    worker.onmessage = (e) => decayDone(e.data);
    worker.onerror = (e) => {  // compute here from now on, starting with the job it failed
      e.preventDefault();
      worker.terminate();
      decayJobs.worker = null;
      const job = decayJobs.running;
      if (job) decayDone(Float64Array.from(ropeDecay(job.args)));
    };
    decayJobs.worker = worker;
  } catch (e) {
    decayJobs.worker = null;
  }
  return decayJobs.worker;
}

function decayStart(job) {
  const key = "rope_decay" + JSON.stringify(job.args);
  if (memo.has(key)) { job.done(memo.get(key)); return decayNext(); }
  const worker = decayWorker();
  if (!worker) { memo.set(key, ropeDecay(job.args)); job.done(memo.get(key)); return decayNext(); }
  decayJobs.running = job;
  worker.postMessage(job.args);
}

function decayDone(values) {
  const job = decayJobs.running;
  decayJobs.running = null;
  if (memo.size > 64) memo.delete(memo.keys().next().value);
  memo.set("rope_decay" + JSON.stringify(job.args), values);
  job.done(values);
  decayNext();
}

function decayNext() {  // the waiting request, if any; else every promise of settled() is kept
  const job = decayJobs.next;
  decayJobs.next = null;
  if (job) decayStart(job);
  else if (!decayJobs.running) { const at = performance.now(); decayJobs.settled.splice(0).forEach((resolve) => resolve(at)); }
}

/* done(values) once ropeDecay(args) is known: at once when it is (memo), else when the worker sends it */
function requestDecay(args, done) {
  const job = {args, done};
  if (decayJobs.running) decayJobs.next = job;
  else decayStart(job);
}

const F = {naive, sinusoid, sinusoid_dot: sinusoidDot, sinusoid_pair: sinusoidPair, rotation, rope_score: ropeScore, rope_angles: ropeAngles,
  rope_decay: ropeDecay, scaling, yarn_gamma: yarnGamma, alibi, t5, kerple, fire, sandwich, precision,
  first_aliased: firstAliased};

/* ------------------------------------------------------------------------------------------- languages --- */
const LANGS = ["zh", "en"];
let lang = (() => {
  const asked = new URLSearchParams(location.search).get("lang");
  return LANGS.includes(asked) ? asked : document.documentElement.dataset.defaultLang || "zh";
})();

function t(key, ...args) {
  let text = (STRINGS[lang] && STRINGS[lang][key]) ?? STRINGS.en[key];
  if (text === undefined) { missing.add(key); return key; }
  args.forEach((v, i) => { text = text.split(`{${i}}`).join(v); });
  return text;
}
const missing = new Set();

function setLang(next) {
  lang = next;
  document.documentElement.lang = lang === "zh" ? "zh-CN" : "en";
  const url = new URL(location.href);
  url.searchParams.set("lang", lang);
  try { history.replaceState(null, "", url); } catch (e) { /* file:// pages may refuse; the links still carry it */ }
  document.querySelectorAll("[data-i18n]").forEach((el) => { el.textContent = t(el.dataset.i18n); });
  document.querySelectorAll("cite[data-where]").forEach((el) => {
    const found = /^tutorial (\S+), (.*)$/.exec(el.dataset.where);
    el.textContent = found ? t("cite", found[1], found[2]) : el.dataset.where;
  });
  document.querySelectorAll("a[data-report]").forEach((el) => {
    el.href = `index.html?lang=${lang}${el.dataset.report ? "#claim-" + el.dataset.report : ""}`;
  });
  const button = document.getElementById("lang-switch");
  button.textContent = lang === "zh" ? "English" : "中文";
  button.setAttribute("aria-label", t("switch_label"));
  document.title = t("title");
  PANELS.forEach((p) => p.redraw());
  showSelfCheck();
}

/* -------------------------------------------------------------------------------------------- drawing --- */
const SVG = "http://www.w3.org/2000/svg";

function el(tag, attrs = {}, parent = null, ns = null) {
  const node = ns ? document.createElementNS(ns, tag) : document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") node.textContent = v; else node.setAttribute(k, v);
  }
  if (parent) parent.appendChild(node);
  return node;
}

function fmt(x) {
  if (!Number.isFinite(x)) return String(x);
  if (x === 0) return "0";
  return Number(x.toPrecision(8)).toString();
}

/* colour maps as 256-entry tables over their range; `outside` is the colour of a value past it (masked cells) */
function colourTable(low, high, rgb, outside = [240, 240, 240]) {
  const bytes = new Uint8ClampedArray(257 * 4);  // RGBA per entry, read as one 32-bit pixel each
  for (let k = 0; k <= 256; k++) bytes.set([...(k < 256 ? rgb(low + (high - low) * k / 255) : outside), 255], 4 * k);
  return {low, high, pixels: new Uint32Array(bytes.buffer)};
}
const diverging = colourTable(-1, 1, (c) => c >= 0 ? [255, 255 * (1 - c), 255 * (1 - c)] : [255 * (1 + c), 255 * (1 + c), 255]);  // -1 blue, 0 white, +1 red
const SEQUENTIAL = (c) => [255 - 215 * c, 250 - 170 * c, 205 - 55 * c];  // 0 pale yellow .. 1 dark blue
const sequential = colourTable(0, 1, SEQUENTIAL);
const biasTables = new Map();
function biasColours(lo, hi, rising) {  // the sequential map over a bias's own range (far = dark: reversed when rising)
  const key = `${lo}|${hi}|${rising}`;
  if (!biasTables.has(key)) {
    if (biasTables.size > 16) biasTables.delete(biasTables.keys().next().value);
    biasTables.set(key, colourTable(lo, hi, (v) => SEQUENTIAL(rising ? (hi - v) / (hi - lo) : (v - lo) / (hi - lo))));
  }
  return biasTables.get(key);
}

/* a rows x cols heatmap, one canvas pixel per cell (the browser scales the canvas): `values` holds the cells row by
   row (a typed array, or a function value(r, c)), in the colour map's range; NaN or past it: `outside`. One ImageData
   written as 32-bit pixels from the map's 257 colours, one putImageData. */
function heatCanvas(canvas, rows, cols) {  // the canvas at rows x cols, its kept ImageData's 32-bit pixels, and `put`
  if (canvas.width !== cols || canvas.height !== rows) {  // each write clears the canvas and makes its bitmap anew: only a changed one
    if (canvas.width !== cols) canvas.width = cols;
    if (canvas.height !== rows) canvas.height = rows;
    canvas.style.aspectRatio = String(Math.min(4, Math.max(0.5, cols / rows)));  // wide tables flat, tall ones tall
    canvas.image = null;
  }
  let fresh = false;  // a new buffer: no pixel of an earlier drawing is in it
  if (!canvas.image) {  // its pixels in the buffer of the canvas's largest size so far: a drag to smaller sizes allocates none
    const bytes = 4 * rows * cols;
    if (!(canvas.pixels?.byteLength >= bytes)) { canvas.pixels = new ArrayBuffer(bytes); fresh = true; }
    canvas.image = new ImageData(new Uint8ClampedArray(canvas.pixels, 0, bytes), cols, rows);
  }
  const ctx = canvas.getContext("2d"), image = canvas.image;
  return {px: new Uint32Array(canvas.pixels, 0, rows * cols), put: () => ctx.putImageData(image, 0, 0), fresh};
}

function heatmap(canvas, rows, cols, values, map) {
  const {px, put} = heatCanvas(canvas, rows, cols);
  let table = values;
  if (typeof values === "function") {
    table = new Float64Array(rows * cols);
    for (let r = 0, o = 0; r < rows; r++) for (let c = 0; c < cols; c++, o++) table[o] = values(r, c);
  }
  const pixel = pixelOf(map);
  for (let o = 0; o < rows * cols; o++) px[o] = pixel(table[o]);
  put();
}

/* a value's pixel in a colour map: the nearest of its 256 colours (a value just past the range: the end colour), or
   `outside` for NaN and values past it */
function pixelOf(map) {
  const {low, high, pixels} = map, scale = 255 / (high - low), lo = low - 1e-9, hi = high + 1e-9, outside = pixels[256];
  return (v) => {
    if (!(v >= lo && v <= hi)) return outside;
    const k = (v - low) * scale + 0.5;
    return pixels[k < 0 ? 0 : k >= 255 ? 255 : k | 0];
  };
}

/* the heatmap of sin(p w_i) and cos(p w_i) for p = 0..n-1 (rows), by the angle-addition recurrence, exact again every
   32 rows (the drift stays below 1e-13), each pixel written as its value is made (no table is kept, the colour picked
   as heatmap() picks it over [-1, 1]): `both` writes [sin, cos] per i (the sinusoid's PE, 2m columns), else cos alone
   (RoPE's cos(p theta_i), m columns). Returns g[p] = sum_i cos(p w_i). For the figures only: no readout reads them
   (the readouts come from the formulas above). */
function waveHeatmap(canvas, w, n, both) {
  const {px, put} = heatCanvas(canvas, n, both ? 2 * w.length : w.length), g = new Float64Array(n);
  waveRows(w, both, px, g, 0, n);
  put();
  return g;
}

/* rows from..to-1 of that heatmap into px (and g), from the start of from's block of 32 (its rows made again, the
   same). A value stays within 1e-13 of [-1, 1], so inside the colour map's [-1 - 1e-9, 1 + 1e-9], where pixelOf's
   index is (v + 1) 127.5 + 0.5 clamped to 0..255 and truncated: k | 0, as k lies in [0.5 - 1e-11, 255.5 + 1e-11] */
function waveRows(w, both, px, g, from, to) {
  const m = w.length, cols = both ? 2 * m : m, colours = diverging.pixels;
  const cw = w.map(Math.cos), sw = w.map(Math.sin), sn = new Float64Array(m), cn = new Float64Array(m);
  for (let p = from & ~31; p < to; p++) {
    if ((p & 31) === 0) for (let i = 0; i < m; i++) { sn[i] = Math.sin(p * w[i]); cn[i] = Math.cos(p * w[i]); }
    let total = 0, o = p * cols;
    if (both) {
      for (let i = 0; i < m; i++, o += 2) {
        const a = sn[i], b = cn[i], c = cw[i], d = sw[i];
        px[o] = colours[((a + 1) * 127.5 + 0.5) | 0];
        px[o + 1] = colours[((b + 1) * 127.5 + 0.5) | 0];
        total += b;
        sn[i] = a * c + b * d; cn[i] = b * c - a * d;
      }
    } else {
      for (let i = 0; i < m; i++, o++) {
        const a = sn[i], b = cn[i], c = cw[i], d = sw[i];
        px[o] = colours[((b + 1) * 127.5 + 0.5) | 0];
        total += b;
        sn[i] = a * c + b * d; cn[i] = b * c - a * d;
      }
    }
    g[p] = total;
  }
}

/* the sinusoid's heatmap with its rows kept in the canvas's pixels from one redraw to the next at the same d and
   base (`key`): fewer positions show the first rows again (a row's pixels depend on p alone), more make only the new
   rows. Kept while `key` is in drawTables (forget() empties them) and the canvas's buffer was not made anew. */
function keptWaveHeatmap(canvas, w, n, key) {
  const {px, put, fresh} = heatCanvas(canvas, n, 2 * w.length);
  let kept = canvas.wave;
  if (fresh || !kept || kept.key !== key || drawTables.get(key) !== kept) {
    kept = canvas.wave = {key, rows: 0, g: new Float64Array(n)};
    drawTables.delete(key);
    drawTable(key, () => kept);
  }
  if (kept.rows < n) {
    if (kept.g.length < n) { const g = new Float64Array(n); g.set(kept.g.subarray(0, kept.rows)); kept.g = g; }
    waveRows(w, true, px, kept.g, kept.rows, n);
    kept.rows = n;
  }
  put();
  return kept.g;
}

const drawTables = new Map();
function drawTable(key, make) {  // the last few figure tables, by their inputs
  if (!drawTables.has(key)) {
    if (drawTables.size > 8) drawTables.delete(drawTables.keys().next().value);
    drawTables.set(key, make());
  }
  return drawTables.get(key);
}

/* draw a figure only when what it shows changed: `key` names its inputs (and the language of its labels) */
function once(node, key, draw) {
  const full = `${lang}|${key}`;
  if (node.dataset.drawn === full) return;
  draw();
  node.dataset.drawn = full;
}

const PLOT = {w: 560, h: 220, left: 72, right: 12, top: 14, bottom: 34};

/* an SVG figure's nodes kept from one redraw to the next: `add` reuses the next child when it has the same tag and
   sets only the attributes (and text) that changed, so an unchanged tick or label is not laid out again; `end`
   removes the children left over. The figure reads the same as one rebuilt from nothing. */
function svgNodes(svg) {
  let n = 0;
  return {
    add(tag, attrs) {
      let node = svg.children[n];
      if (!node || node.tagName !== tag) {
        while (svg.children.length > n) svg.lastChild.remove();  // a different figure from here on: built anew
        node = svg.appendChild(document.createElementNS(SVG, tag));
        node.shown = {};
      }
      const shown = node.shown;
      for (const k in shown) if (!(k in attrs)) { if (k === "text") node.textContent = ""; else node.removeAttribute(k); delete shown[k]; }
      for (const k in attrs) {
        const v = String(attrs[k]);
        if (shown[k] === v) continue;
        if (k === "text") node.textContent = v; else node.setAttribute(k, v);
        shown[k] = v;
      }
      n++;
      return node;
    },
    end() { while (svg.children.length > n) svg.lastChild.remove(); },
  };
}

/* String(t / 10) for an integer t, written from two integers (the shortest decimal of t / 10 is "q.r", or "q"): the
   same text without formatting a fraction */
function tenths(t) {
  if (!(t >= 0 && t < 2147483647)) return String(t / 10);
  const r = t % 10;
  return r === 0 ? String(t / 10) : `${(t - r) / 10}.${r}`;
}

/* series: [{ys, xs?, colour, dash?, label}]; opts: {xlog, ylog, xlabel, ylabel, hlines:[{y, label}], vlines, ymin, ymax, marks} */
function linePlot(svg, series, opts = {}) {
  const nodes = svgNodes(svg);
  if (!svg.hasAttribute("viewBox")) svg.setAttribute("viewBox", `0 0 ${PLOT.w} ${PLOT.h}`);
  const tx = opts.xlog ? (v) => Math.log10(v) : (v) => v, ty = opts.ylog ? (v) => Math.log10(v) : (v) => v;
  let x0 = Infinity, x1 = -Infinity, y0 = opts.ymin ?? Infinity, y1 = opts.ymax ?? -Infinity;
  for (const s of series) {
    for (let i = 0; i < s.ys.length; i++) {
      const x = tx(s.xs ? s.xs[i] : i), y = ty(s.ys[i]);
      if (!Number.isFinite(y) || !Number.isFinite(x)) continue;
      x0 = Math.min(x0, x); x1 = Math.max(x1, x);
      if (opts.ymin === undefined) y0 = Math.min(y0, y);
      if (opts.ymax === undefined) y1 = Math.max(y1, y);
    }
  }
  for (const line of opts.hlines || []) { if (opts.ymax === undefined) y1 = Math.max(y1, ty(line.y)); if (opts.ymin === undefined) y0 = Math.min(y0, ty(line.y)); }
  if (!(x1 > x0)) x1 = x0 + 1;
  if (!(y1 > y0)) { y1 = y0 + 1; y0 -= 1; }
  const W = PLOT.w - PLOT.left - PLOT.right, H = PLOT.h - PLOT.top - PLOT.bottom;
  const sx = (x) => PLOT.left + (tx(x) - x0) / (x1 - x0) * W, sy = (y) => PLOT.top + (1 - (ty(y) - y0) / (y1 - y0)) * H;
  nodes.add("rect", {x: PLOT.left, y: PLOT.top, width: W, height: H, class: "frame"});
  for (const [v, anchor] of [[y0, "end"], [y1, "end"]]) {
    nodes.add("text", {x: PLOT.left - 4, y: sy(opts.ylog ? Math.pow(10, v) : v) + 4, "text-anchor": anchor, class: "tick",
      text: fmt(opts.ylog ? Math.pow(10, v) : v)});
  }
  for (const v of [x0, x1]) {  // the right end's label ends at the frame, so a long number stays inside the figure
    nodes.add("text", {x: sx(opts.xlog ? Math.pow(10, v) : v), y: PLOT.h - PLOT.bottom + 14, "text-anchor": v === x1 ? "end" : "middle", class: "tick",
      text: fmt(opts.xlog ? Math.pow(10, v) : v)});
  }
  if (opts.xlabel) nodes.add("text", {x: PLOT.left + W / 2, y: PLOT.h - 4, "text-anchor": "middle", class: "axis", text: opts.xlabel});
  if (opts.ylabel) nodes.add("text", {x: 12, y: PLOT.top + H / 2, transform: `rotate(-90 12 ${PLOT.top + H / 2})`, "text-anchor": "middle", class: "axis", text: opts.ylabel});
  for (const line of opts.hlines || []) {
    if (!Number.isFinite(ty(line.y))) continue;
    nodes.add("line", {x1: PLOT.left, x2: PLOT.left + W, y1: sy(line.y), y2: sy(line.y), class: "guide"});
    nodes.add("text", {x: PLOT.left + W - 4, y: sy(line.y) - 4, "text-anchor": "end", class: "guide-label", text: line.label});
  }
  for (const line of opts.vlines || []) {
    nodes.add("line", {x1: sx(line.x), x2: sx(line.x), y1: PLOT.top, y2: PLOT.top + H, class: "guide"});
  }
  for (const s of series) {
    let d = "", pen = false;  // each point at a tenth of a pixel
    const ax = W / (x1 - x0), ay = H / (y1 - y0), low = PLOT.top - 2, high = PLOT.top + H + 2;
    for (let i = 0; i < s.ys.length; i++) {
      const u = tx(s.xs ? s.xs[i] : i), v = ty(s.ys[i]);
      if (!Number.isFinite(v) || !Number.isFinite(u)) { pen = false; continue; }
      const px = PLOT.left + (u - x0) * ax, py = Math.max(low, Math.min(high, PLOT.top + (y1 - v) * ay));
      d += (pen ? "L" : "M") + tenths(Math.round(px * 10)) + " " + tenths(Math.round(py * 10));
      pen = true;
    }
    nodes.add("path", {d, stroke: s.colour, fill: "none", "stroke-width": s.width || 1.6, "stroke-dasharray": s.dash || ""});
  }
  (opts.marks || []).filter((m) => Number.isFinite(ty(m.y)) && Number.isFinite(tx(m.x)))
    .forEach((m) => nodes.add("circle", {cx: sx(m.x), cy: Math.max(PLOT.top, Math.min(PLOT.top + H, sy(m.y))), r: 4, fill: m.colour || "#000"}));
  const legend = series.filter((s) => s.label);
  legend.forEach((s, i) => {
    const y = PLOT.top + 12 + 14 * i;
    nodes.add("line", {x1: PLOT.left + 8, x2: PLOT.left + 26, y1: y - 4, y2: y - 4, stroke: s.colour, "stroke-width": 2, "stroke-dasharray": s.dash || ""});
    nodes.add("text", {x: PLOT.left + 30, y, class: "legend", text: s.label});
  });
  nodes.end();
}

/* ----------------------------------------------------------------------------------------------- panels --- */
/* A panel: controls (range, select, checkbox: each labelled, each operable from the keyboard), figures and readouts
   (numbers the page computed with F[f](args), picked by index; the browser test reads them and asks posenc). */
class Panel {
  constructor(spec) {
    Object.assign(this, spec);
    this.meta = DATA.panels.find((p) => p.id === spec.id);
    this.inputs = {};
    this.lastMs = 0;
  }

  get state() {
    const s = {};
    for (const [key, input] of Object.entries(this.inputs)) {
      s[key] = input.type === "checkbox" ? input.checked : input.tagName === "SELECT" ? input.value : Number(input.value);
    }
    return s;
  }

  build(root) {
    const section = el("section", {class: "panel", id: `panel-${this.id}`, "aria-labelledby": `h-${this.id}`}, root);
    el("h2", {id: `h-${this.id}`, "data-i18n": `${this.id}.title`}, section);
    const quote = el("blockquote", {lang: "zh-CN"}, section);
    el("p", {text: `“${this.meta.quote}”`}, quote);
    el("cite", {"data-where": this.meta.where}, quote);  // "tutorial 000, §2.2", said in the page's language
    el("p", {class: "explain", "data-i18n": `${this.id}.explain`}, section);
    const claims = el("p", {class: "claims"}, section);
    el("span", {"data-i18n": "claims"}, claims);
    for (const claim of this.meta.claims) {
      const a = el("a", {"data-report": claim.id, href: `index.html#claim-${claim.id}`, class: "claim"}, claims);
      el("span", {text: claim.id}, a);
      if (claim.status) el("span", {class: `pill ${claim.status.replace(/ /g, "-")}`, "data-i18n": `verdict.${claim.status}`}, a);
    }
    const controls = el("div", {class: "controls"}, section);
    for (const c of this.controls) {
      const id = `ctl-${this.id}-${c.key}`, box = el("div", {class: `control ${c.kind}`}, controls);
      el("label", {for: id, "data-i18n": `${this.id}.${c.key}`}, box);
      let input;
      if (c.kind === "select") {
        input = el("select", {id, "data-key": c.key}, box);
        for (const [value, label] of c.options()) {
          const option = el("option", {value}, input);
          if (label.startsWith("@")) option.dataset.i18n = label.slice(1); else option.textContent = label;
        }
        input.value = String(c.value);
      } else if (c.kind === "check") {
        input = el("input", {id, type: "checkbox", "data-key": c.key}, box);
        input.checked = Boolean(c.value);
      } else {
        input = el("input", {id, type: "range", min: c.min, max: c.max, step: c.step || 1, value: c.value, "data-key": c.key}, box);
        el("output", {for: id, class: "value", id: `${id}-value`}, box);
      }
      input.addEventListener("input", () => this.update(c.key));
      input.addEventListener("change", () => this.update(c.key));
      this.inputs[c.key] = input;
    }
    this.figureBox = el("div", {class: "figures"}, section);
    this.figures = {};
    this.captions = {};
    for (const f of this.figureSpecs) {
      const figure = el("figure", {class: f.wide ? "wide" : ""}, this.figureBox);
      const node = f.kind === "canvas" ? el("canvas", {width: 1, height: 1, role: "img", "aria-labelledby": `cap-${this.id}-${f.key}`}, figure)
        : el("svg", {role: "img", "aria-labelledby": `cap-${this.id}-${f.key}`}, figure, SVG);
      if (f.later) el("p", {class: "busy", "data-i18n": "computing", hidden: ""}, figure);  // shown while it is computed
      const caption = el("figcaption", f.measured ? {id: `cap-${this.id}-${f.key}`} : {id: `cap-${this.id}-${f.key}`, "data-i18n": `${this.id}.fig.${f.key}`}, figure);
      this.figures[f.key] = node;
      this.captions[f.key] = caption;
    }
    this.readoutBox = el("dl", {class: "readouts", "aria-live": "polite"}, section);
    this.extra = el("div", {class: "extra"}, section);
  }

  update(changed) {
    if (this.constrain) this.constrain(changed);
    this.redraw();
  }

  setRange(key, max, min) {
    const input = this.inputs[key];  // written only when they change: an input whose range is written is laid out again
    if (min !== undefined && input.min !== String(min)) input.min = min;
    if (input.max !== String(max)) input.max = max;
    if (Number(input.value) > max) input.value = max;
    if (min !== undefined && Number(input.value) < min) input.value = min;
  }

  redraw() {
    const start = performance.now();
    const s = this.state;
    for (const c of this.controls) {  // a text or attribute is written only when it changes: an unchanged one is not laid out again
      if (c.kind === "range") {
        const shown = c.show ? c.show(s[c.key], s) : fmt(s[c.key]), output = c.output ??= document.getElementById(`ctl-${this.id}-${c.key}-value`);
        if (output.textContent !== shown) {
          output.textContent = shown;
          this.inputs[c.key].setAttribute("aria-valuetext", shown);
        }
      }
    }
    const rows = this.draw(s), box = this.readoutBox;
    while (box.children.length > rows.length) box.lastChild.remove();
    while (box.children.length < rows.length) {  // a row: <div><dt/><dd><output class="num"/></dd></div>
      const row = el("div", {class: "readout"}, box);
      el("dt", {}, row);
      el("output", {class: "num"}, el("dd", {}, row));
    }
    rows.forEach((r, n) => {  // rewritten in place: only what changed is laid out again
      const row = box.children[n], out = row.querySelector("output"), value = typeof r.pick === "number" && ENTRY[r.f] ? ENTRY[r.f](r.args, r.pick) : pick(cached(r.f, r.args), r.pick);
      const label = t(r.label, ...(r.labelArgs || [])), text = fmt(value), data = out.dataset;
      if (row.firstChild.textContent !== label) row.firstChild.textContent = label;
      for (const [k, v] of [["key", r.key], ["f", r.f], ["args", JSON.stringify(r.args)], ["pick", JSON.stringify(r.pick)]]) if (data[k] !== v) data[k] = v;
      if (out.textContent !== text) out.textContent = text;
    });
    this.lastMs = performance.now() - start;
  }
}

/* a figure computed apart (the worker's): "computing…" shown beside it until it is drawn */
function busy(figure, on) {
  const note = figure.parentNode.querySelector(".busy");
  if (note && note.hidden === on) note.hidden = !on;
  figure.setAttribute("aria-busy", String(on));
}

/* a measured figure's caption: what was measured, where, and the link to its claim's verdict in the report */
function measuredCaption(caption, text, claim) {
  caption.replaceChildren();
  el("span", {text: `${text} `}, caption);
  el("a", {"data-report": claim, class: "claim", href: `index.html?lang=${lang}#claim-${claim}`, text: claim}, caption);
}

/* what a readout shows of a formula's values: an index, the difference of two, or a wavelength 2 pi / value */
function pick(values, spec) {
  if (typeof spec === "number") return values[spec];
  if (spec[0] === "sub") return values[spec[1]] - values[spec[2]];
  if (spec[0] === "wavelength") return TAU / values[spec[1]];
  if (spec[0] === "flips") {  // bits that differ between rows a and b of a [n, width] table
    let n = 0;
    for (let j = 0; j < spec[3]; j++) n += values[spec[1] * spec[3] + j] !== values[spec[2] * spec[3] + j] ? 1 : 0;
    return n;
  }
  throw new Error(`unknown pick ${JSON.stringify(spec)}`);
}

const BASES = [["100", "100"], ["1000", "1000"], ["10000", "10000"], ["100000", "100000"], ["500000", "500000"], ["1000000", "1000000"]];
const COLOURS = ["#1b6ca8", "#d1495b", "#2e933c", "#8f5bb0", "#e0a100", "#444"];

const PANELS = [
  new Panel({
    id: "naive",
    controls: [
      {key: "n", kind: "range", min: 2, max: 512, value: 16},
      {key: "p", kind: "range", min: 0, max: 15, value: 3},
      {key: "bits", kind: "range", min: 1, max: 16, value: 8},
    ],
    figureSpecs: [{key: "values", kind: "svg"}, {key: "binary", kind: "canvas"}],
    constrain() { this.setRange("p", this.state.n - 2); },
    draw(s) {
      const ints = naive({kind: "integer", n: s.n}), units = naive({kind: "normalized", n: s.n});
      linePlot(this.figures.values, [
        {ys: ints.map((v) => v / s.n), colour: COLOURS[0], label: t("naive.integer_scaled", s.n)},
        {ys: units, colour: COLOURS[1], label: t("naive.normalized")},
      ], {xlabel: t("position"), ylabel: t("value"), marks: [{x: s.p, y: units[s.p], colour: COLOURS[1]}]});
      const bits = naive({kind: "binary", n: s.n, dim: s.bits});
      heatmap(this.figures.binary, s.bits, s.n, (r, c) => bits[c * s.bits + r], sequential);
      const flips = pick(bits, ["flips", s.p + 1, s.p, s.bits]);
      this.extra.textContent = t("naive.failure", s.n, fmt(1 / (s.n - 1)), s.p, s.p + 1, flips);
      return [
        {key: "integer", label: "naive.r.integer", labelArgs: [s.p], f: "naive", args: {kind: "integer", n: s.n}, pick: s.p},
        {key: "normalized", label: "naive.r.normalized", labelArgs: [s.p], f: "naive", args: {kind: "normalized", n: s.n}, pick: s.p},
        {key: "step", label: "naive.r.step", f: "naive", args: {kind: "normalized", n: s.n}, pick: ["sub", 1, 0]},
        {key: "flips", label: "naive.r.flips", labelArgs: [s.p, s.p + 1], f: "naive", args: {kind: "binary", n: s.n, dim: s.bits}, pick: ["flips", s.p + 1, s.p, s.bits]},
      ];
    },
  }),
  new Panel({
    id: "sinusoid",
    controls: [
      {key: "d", kind: "range", min: 4, max: 1024, step: 2, value: 128},
      {key: "base", kind: "select", options: () => BASES, value: "10000"},
      {key: "n", kind: "range", min: 8, max: 512, value: 128},
      {key: "p", kind: "range", min: 0, max: 127, value: 1},
      {key: "q", kind: "range", min: 0, max: 127, value: 5},
      {key: "j", kind: "range", min: 0, max: 127, value: 2},
    ],
    figureSpecs: [{key: "heatmap", kind: "canvas"}, {key: "dot", kind: "svg"}, {key: "period", kind: "svg"}, {key: "close", kind: "svg"}],
    constrain() { const s = this.state; this.setRange("p", s.n - 1); this.setRange("q", s.n - 1); this.setRange("j", s.d - 1); },
    draw(s) {
      const base = Number(s.base), grid = `${s.d}|${base}|${s.n}`, w = defaultInvFreq(s.d, base);
      // the heatmap, and g[r] = sum_i cos(r w_i) = PE[r] . PE[0]: PE[p] . PE[q] = g[|p - q|] (cos(a - b) = sin a sin b
      // + cos a cos b), which the dot figure reads instead of n dot products of d
      once(this.figures.heatmap, grid, () => { this.g = keptWaveHeatmap(this.figures.heatmap, w, s.n, `wave|${s.d}|${base}`); });
      const pe = (p, j) => (j % 2 ? Math.cos : Math.sin)(p * w[j >> 1]);  // PE[p, j], for the figures' rows and columns
      once(this.figures.dot, `${grid}|${s.p}|${s.q}`, () => {  // PE[p] . PE[q] = g[|p - q|]
        const dots = tabulate(s.n, (q) => this.g[Math.abs(s.p - q)]);
        linePlot(this.figures.dot, [{ys: dots, colour: COLOURS[0], label: `PE[${s.p}]·PE[q]`}],
          {xlabel: "q", ylabel: "PE[p]·PE[q]", marks: [{x: s.q, y: dots[s.q], colour: COLOURS[1]}]});
      });
      once(this.figures.period, `${grid}|${s.j}`, () => {
        const dims = [2, 6, 12, s.j].filter((j, i, all) => j < s.d && all.indexOf(j) === i);
        linePlot(this.figures.period, dims.map((j, i) => ({ys: tabulate(s.n, (p) => pe(p, j)), colour: COLOURS[i], label: `${t("dim")} ${j}`})),
          {xlabel: t("position"), ylabel: "PE", ymin: -1, ymax: 1});
      });
      once(this.figures.close, `${s.d}|${base}|${s.p}|${s.q}`, () => {  // d points: the positions shown do not move it
        const gap = tabulate(s.d, (j) => Math.abs(pe(s.p, j) - pe(s.q, j)));
        linePlot(this.figures.close, [{ys: gap, colour: COLOURS[2], label: `|PE[${s.p}] − PE[${s.q}]|`}], {xlabel: t("dim"), ylabel: "|Δ|", ymin: 0, ymax: 2});
      });
      const wj = Math.pow(base, -2 * Math.floor(s.j / 2) / s.d);
      this.extra.textContent = t("sinusoid.period", s.j, fmt(TAU / wj));
      const args = {d: s.d, base, p: s.p, q: s.q};
      return [
        {key: "pe_p", label: "sinusoid.r.pe", labelArgs: [s.p, s.j], f: "sinusoid_pair", args, pick: s.j},
        {key: "pe_q", label: "sinusoid.r.pe", labelArgs: [s.q, s.j], f: "sinusoid_pair", args, pick: s.d + s.j},
        {key: "dot", label: "sinusoid.r.dot", labelArgs: [s.p, s.q], f: "sinusoid_pair", args, pick: 2 * s.d},
      ];
    },
  }),
  new Panel({
    id: "rotation",
    controls: [
      {key: "d", kind: "range", min: 2, max: 128, step: 2, value: 16},
      {key: "i", kind: "range", min: 0, max: 7, value: 1},
      {key: "p", kind: "range", min: 0, max: 200, value: 7},
      {key: "k", kind: "range", min: 0, max: 50, value: 3},
    ],
    figureSpecs: [{key: "circle", kind: "svg"}],
    constrain() { this.setRange("i", this.state.d / 2 - 1); },
    draw(s) {
      const args = {d: s.d, base: 10000, i: s.i, p: s.p, k: s.k}, v = rotation(args);
      const svg = this.figures.circle, R = 95, cx = 110, cy = 110;
      svg.replaceChildren();
      svg.setAttribute("viewBox", "0 0 440 220");
      el("circle", {cx, cy, r: R, class: "frame"}, svg, SVG);
      const hand = (sinv, cosv, colour, label) => {  // x = cos, y = sin
        el("line", {x1: cx, y1: cy, x2: cx + R * cosv, y2: cy - R * sinv, stroke: colour, "stroke-width": 3}, svg, SVG);
        el("text", {x: cx + 0.6 * R * cosv, y: cy - 0.6 * R * sinv - 6, "text-anchor": cosv >= 0 ? "start" : "end", class: "legend", fill: colour, text: label}, svg, SVG);
      };
      hand(v[0], v[1], COLOURS[0], `p=${s.p}`);
      hand(v[2], v[3], COLOURS[1], `p+k=${s.p + s.k}`);
      el("text", {x: 230, y: 40, class: "legend", text: `M(${s.k}) =`}, svg, SVG);
      el("path", {d: "M232 58 h-6 v64 h6 M428 58 h6 v64 h-6", fill: "none", stroke: "#333"}, svg, SVG);
      [[v[4], v[5]], [v[6], v[7]]].forEach((row, r) => row.forEach((x, c) => {
        el("text", {x: 330 + 95 * (c - 0.5), y: 84 + 28 * r, "text-anchor": "middle", class: "matrix", text: fmt(x)}, svg, SVG);
      }));
      el("text", {x: 230, y: 160, class: "legend", text: t("rotation.same")}, svg, SVG);
      return ["m00", "m01", "m10", "m11"].map((key, n) => ({key, label: `rotation.r.${key}`, labelArgs: [s.k], f: "rotation", args, pick: 4 + n}))
        .concat([{key: "pk_sin", label: "rotation.r.pk", labelArgs: [s.p + s.k, 2 * s.i], f: "rotation", args, pick: 2}]);
    },
  }),
  new Panel({
    id: "rope",
    controls: [
      {key: "dim", kind: "range", min: 4, max: 512, step: 2, value: 64},
      {key: "base", kind: "select", options: () => BASES, value: "10000"},
      {key: "m", kind: "range", min: 0, max: 511, value: 5},
      {key: "n", kind: "range", min: 0, max: 511, value: 2},
      {key: "offset", kind: "range", min: 0, max: 511, value: 100},
      {key: "positions", kind: "range", min: 16, max: 512, value: 256},
      {key: "samples", kind: "range", min: 1, max: 200, value: 50},
      {key: "seed", kind: "range", min: 1, max: 100, value: 1},
    ],
    figureSpecs: [{key: "angles", kind: "canvas"}, {key: "decay", kind: "svg", later: true}],
    draw(s) {
      const base = Number(s.base), h = s.dim / 2;
      once(this.figures.angles, `${s.dim}|${base}|${s.positions}`, () => {  // cos(p theta_i): rows p, columns i
        waveHeatmap(this.figures.angles, defaultInvFreq(s.dim, base), s.positions, false);
      });
      const decayArgs = {dim: s.dim, base, n: s.positions, samples: s.samples, seed: s.seed}, figure = this.figures.decay;
      const want = `${lang}|${JSON.stringify(decayArgs)}`;
      if (figure.dataset.drawn !== want) {  // the curve from the worker: "computing…" until it comes
        this.decayWanted = want;
        busy(figure, true);
        requestDecay(decayArgs, (decay) => {
          if (this.decayWanted !== want) return;  // moved on: the newer request is on its way
          const mean = decay.slice(0, s.positions), std = decay.slice(s.positions);
          linePlot(figure, [
            {ys: mean, colour: COLOURS[0], label: t("rope.mean")},
            {ys: mean.map((m, i) => m + std[i]), colour: COLOURS[1], dash: "4 3", label: t("rope.spread")},
            {ys: mean.map((m, i) => m - std[i]), colour: COLOURS[1], dash: "4 3"},
          ], {xlabel: "m − n", ylabel: "q·k"});
          figure.dataset.drawn = want;
          busy(figure, false);
        });
      }
      const r = Math.min(Math.abs(s.m - s.n), s.positions - 1);
      return [
        {key: "score", label: "rope.r.score", labelArgs: [s.m, s.n], f: "rope_score", args: {dim: s.dim, base, m: s.m, n: s.n, seed: s.seed}, pick: 0},
        {key: "shifted", label: "rope.r.score", labelArgs: [s.m + s.offset, s.n + s.offset], f: "rope_score", args: {dim: s.dim, base, m: s.m + s.offset, n: s.n + s.offset, seed: s.seed}, pick: 0},
        {key: "mean", label: "rope.r.mean", labelArgs: [r], f: "rope_decay", args: decayArgs, pick: r},
        {key: "std", label: "rope.r.std", labelArgs: [r], f: "rope_decay", args: decayArgs, pick: s.positions + r},
      ];
    },
  }),
  new Panel({
    id: "scaling",
    controls: [
      {key: "model", kind: "select", options: () => [["custom", "@scaling.custom"], ...DATA.models.map((m, i) => [String(i), m.name])], value: "custom"},
      {key: "group", kind: "range", min: 0, max: 0, value: 0},
      {key: "type", kind: "select", options: () => Object.keys(SCALINGS).map((k) => [k, `@scaling.type.${k}`]), value: "yarn"},
      {key: "dim", kind: "range", min: 8, max: 512, step: 2, value: 128},
      {key: "base", kind: "select", options: () => BASES, value: "10000"},
      {key: "factor", kind: "range", min: 1, max: 64, step: 0.5, value: 8},
      {key: "original", kind: "select", options: () => ["2048", "4096", "8192", "32768"].map((v) => [v, v]), value: "4096"},
      {key: "seq_len", kind: "range", min: 512, max: 262144, step: 512, value: 16384},
      {key: "beta_fast", kind: "range", min: 2, max: 64, value: 32},
      {key: "beta_slow", kind: "range", min: 1, max: 8, value: 1},
      {key: "low_freq_factor", kind: "range", min: 1, max: 4, step: 0.5, value: 1},
      {key: "high_freq_factor", kind: "range", min: 2, max: 16, step: 0.5, value: 4},
      {key: "partial", kind: "range", min: 0, max: 1, step: 0.05, value: 0.25},
      {key: "pair", kind: "range", min: 0, max: 63, value: 20},
    ],
    figureSpecs: [{key: "wavelength", kind: "svg", wide: true}, {key: "ratio", kind: "svg"}, {key: "use", kind: "svg", measured: true},
      {key: "ppl", kind: "svg", measured: true}],
    constrain(changed) {
      const s = this.state;
      if (changed === "model" || changed === "group") {
        const model = DATA.models[Number(s.model)];
        if (model) {
          const ropes = model.groups.filter((g) => g.rope);
          this.setRange("group", Math.max(ropes.length - 1, 0));
          const rope = (ropes[Number(this.inputs.group.value)] || ropes[0] || {}).rope;
          if (rope) {
            this.inputs.type.value = rope.type;
            this.inputs.dim.value = rope.dim;
            const known = BASES.some(([b]) => Number(b) === rope.base);
            if (!known) { const o = el("option", {value: String(rope.base), text: String(rope.base)}, this.inputs.base); o.dataset.added = "1"; }
            this.inputs.base.value = BASES.find(([b]) => Number(b) === rope.base)?.[0] ?? String(rope.base);
            const p = rope.params;
            if (p.factor !== undefined) this.inputs.factor.value = p.factor;
            if (p.original_max_len !== undefined && [...this.inputs.original.options].some((o) => Number(o.value) === p.original_max_len)) this.inputs.original.value = String(p.original_max_len);
            for (const key of ["beta_fast", "beta_slow", "low_freq_factor", "high_freq_factor"]) if (p[key] !== undefined) this.inputs[key].value = p[key];
          }
        }
      }
      this.setRange("pair", this.state.dim / 2 - 1);
    },
    params(s) {
      const model = DATA.models[Number(s.model)], rope = model && (model.groups.filter((g) => g.rope)[s.group] || {}).rope;
      const original = rope && rope.params.original_max_len !== undefined && ![...this.inputs.original.options].some((o) => Number(o.value) === rope.params.original_max_len)
        ? rope.params.original_max_len : Number(s.original);
      const p = {factor: s.factor, original_max_len: original};
      if (s.type === "default") return {};
      if (s.type === "linear" || s.type === "ntk") return {factor: s.factor};
      if (s.type === "yarn") Object.assign(p, {beta_fast: s.beta_fast, beta_slow: Math.min(s.beta_slow, s.beta_fast - 1)});
      if (s.type === "llama3") Object.assign(p, {low_freq_factor: s.low_freq_factor, high_freq_factor: Math.max(s.high_freq_factor, s.low_freq_factor + 0.5)});
      if (s.type === "proportional") return {factor: s.factor, partial_rotary_factor: s.partial};
      if (s.type === "longrope") {  // a preset's own factors, else an illustrative ramp from 1 to s over the pairs
        if (rope && rope.type === "longrope" && rope.params.long_factor.length === s.dim / 2) return {...rope.params, factor: s.factor};
        p.short_factor = Array.from({length: s.dim / 2}, () => 1);
        p.long_factor = Array.from({length: s.dim / 2}, (_, i) => 1 + (s.factor - 1) * i / Math.max(s.dim / 2 - 1, 1));
      }
      if (rope && rope.type === s.type) for (const key of ["mscale", "mscale_all_dim", "attention_factor"]) if (rope.params[key] !== undefined) p[key] = rope.params[key];
      return p;
    },
    draw(s) {
      const base = Number(s.base), params = this.params(s), half = s.dim / 2;
      const seqLen = s.type === "dynamic" || s.type === "longrope" ? s.seq_len : null;
      const args = {type: s.type, dim: s.dim, base, params, seq_len: seqLen};
      const scaled = cached("scaling", args), plain = defaultInvFreq(s.dim, base), original = params.original_max_len ?? Number(s.original);
      const idx = Array.from({length: half}, (_, i) => i);
      linePlot(this.figures.wavelength, [
        {xs: idx, ys: Array.from(plain, (f) => TAU / f), colour: COLOURS[5], dash: "4 3", label: t("scaling.unscaled")},
        {xs: idx, ys: scaled.slice(0, half).map((f) => TAU / f), colour: COLOURS[0], label: t(`scaling.type.${s.type}`)},
      ], {ylog: true, xlabel: t("pair"), ylabel: t("wavelength"), hlines: [{y: original, label: `L₀ = ${original}`}, {y: original * s.factor, label: `s·L₀ = ${original * s.factor}`}],
        marks: [{x: s.pair, y: TAU / scaled[s.pair], colour: COLOURS[1]}]});
      const ratio = scaled.slice(0, half).map((f, i) => f / plain[i]);
      const series = [{xs: idx, ys: ratio, colour: COLOURS[2], label: t("scaling.ratio")}];
      if (s.type === "yarn") {
        const g = yarnGamma({dim: s.dim, base, original_max_len: original, beta_fast: params.beta_fast, beta_slow: params.beta_slow});
        series.push({xs: idx, ys: g.slice(0, half), colour: COLOURS[3], dash: "4 3", label: t("scaling.ramp")});
      }
      linePlot(this.figures.ratio, series, {xlabel: t("pair"), ylabel: "θ′/θ", ymin: 0, ymax: 1.05});
      once(this.extra, `model|${s.model}`, () => this.drawModel(s));  // the strip and warnings: a new model only
      this.drawMeasured(s);
      const rows = [
        {key: "freq", label: "scaling.r.freq", labelArgs: [s.pair], f: "scaling", args, pick: s.pair},
        {key: "wavelength", label: "scaling.r.wavelength", labelArgs: [s.pair], f: "scaling", args, pick: ["wavelength", s.pair]},
        {key: "attention", label: "scaling.r.attention", f: "scaling", args, pick: half},
      ];
      if (s.type === "yarn") {
        rows.push({key: "gamma", label: "scaling.r.gamma", labelArgs: [s.pair], f: "yarn_gamma",
          args: {dim: s.dim, base, original_max_len: original, beta_fast: params.beta_fast, beta_slow: params.beta_slow}, pick: s.pair});
      }
      return rows;
    },
    /* the report's measurements on SmolLM2 beside the formula: its offset-explained share per rotary pair (the
       wavelength plot above, at SmolLM2's preset, has the same pairs) and its perplexity past 8192 tokens per scaling */
    drawMeasured(s) {
      const use = DATA.measured.pair_use, ext = DATA.measured.extension, model = DATA.models[Number(s.model)];
      const smol = model && use && model.name === use.model && s.dim === use.head_dim;
      this.figures.use.parentNode.hidden = !use;
      this.figures.ppl.parentNode.hidden = !ext;
      if (use) {
        once(this.figures.use, `${smol ? s.pair : -1}`, () => {
          const idx = use.mean.map((_, i) => i);
          linePlot(this.figures.use, [
            {xs: idx, ys: use.mean, colour: COLOURS[0], label: t("scaling.use.mean", use.model, use.windows, use.length)},
            {xs: idx, ys: use.low, colour: COLOURS[0], dash: "4 3", width: 1, label: t("scaling.use.band")},
            {xs: idx, ys: use.high, colour: COLOURS[0], dash: "4 3", width: 1},
          ], {xlabel: t("pair"), ylabel: t("scaling.use.y"), ymin: 0,
            marks: smol && s.pair < use.mean.length ? [{x: s.pair, y: use.mean[s.pair], colour: COLOURS[1]}] : []});
          measuredCaption(this.captions.use, t("scaling.fig.use", use.model, use.theta, use.head_dim, use.windows, use.length), use.claim);
        });
      }
      if (ext) {
        once(this.figures.ppl, "ppl", () => {
          const xs = [ext.native_len, ext.long], names = Object.keys(ext.scalings);
          const series = names.map((k, n) => ({xs, ys: [ext.native.value, ext.scalings[k].value], colour: COLOURS[n],
            label: `${t(`scaling.type.${k === "none" ? "default" : k}`)}: ${fmt(ext.scalings[k].value)}`}));
          names.forEach((k, n) => series.push({xs: [ext.long, ext.long], ys: [ext.scalings[k].low, ext.scalings[k].high], colour: COLOURS[n], width: 1}));
          series.push({xs: [ext.native_len, ext.native_len], ys: [ext.native.low, ext.native.high], colour: COLOURS[5], width: 1});
          linePlot(this.figures.ppl, series, {xlabel: t("scaling.ppl.x"), ylabel: t("scaling.ppl.y"),
            vlines: [{x: ext.native_len}], marks: names.map((k, n) => ({x: ext.long, y: ext.scalings[k].value, colour: COLOURS[n]}))});
          measuredCaption(this.captions.ppl, t("scaling.fig.ppl", ext.model, ext.native_len, ext.long, ext.windows, fmt(ext.native.value)), ext.claim);
        });
      }
    },
    drawModel(s) {
      this.extra.replaceChildren();
      const model = DATA.models[Number(s.model)];
      if (!model) { el("p", {class: "note", text: t("scaling.custom_note")}, this.extra); return; }
      const head = el("p", {class: "note"}, this.extra);
      head.textContent = t("scaling.model_note", model.name, model.model_type, model.layers.length);
      el("a", {href: model.source.split(" ")[0], text: lang === "zh" ? model.source_zh : model.source, class: "source"}, el("p", {class: "source"}, this.extra));
      const strip = el("div", {class: "strip", role: "img", "aria-label": t("scaling.strip")}, this.extra);
      model.layers.forEach((g, i) => el("span", {class: `cell g${g % 6}${model.groups[g].rope ? "" : " nope"}`, title: `${i}: ${model.groups[g].text}`}, strip));
      const legend = el("ul", {class: "legend-list"}, this.extra);
      model.groups.forEach((g, i) => {
        const li = el("li", {}, legend);
        el("span", {class: `cell g${i % 6}${g.rope ? "" : " nope"}`}, li);
        el("code", {text: ` ${g.text}`}, li);
      });
      const findings = el("ul", {class: "findings"}, this.extra);
      if (!model.findings.length) el("li", {text: t("scaling.no_findings")}, findings);
      model.findings.forEach((f) => {  // posenc's English sentence, or its Chinese one (the English under a Chinese line where none)
        const li = el("li", {}, findings);
        el("b", {text: `${f.code}: `}, li);
        if (lang === "zh" && !f.message_zh) el("span", {text: t("scaling.finding_en"), class: "note"}, li);
        el("span", {text: lang === "zh" && f.message_zh ? f.message_zh : f.message, lang: lang === "zh" && f.message_zh ? "zh-CN" : "en"}, li);
      });
    },
  }),
  new Panel({
    id: "bias",
    controls: [
      {key: "kind", kind: "select", options: () => ["alibi", "t5", "kerple", "fire", "sandwich"].map((k) => [k, `@bias.kind.${k}`]), value: "alibi"},
      {key: "heads", kind: "range", min: 1, max: 16, value: 8},
      {key: "n", kind: "range", min: 8, max: 512, value: 64},
      {key: "head", kind: "range", min: 0, max: 7, value: 0},
      {key: "i", kind: "range", min: 0, max: 63, value: 40},
      {key: "j", kind: "range", min: 0, max: 63, value: 10},
      {key: "buckets", kind: "range", min: 4, max: 64, step: 2, value: 32},
      {key: "max_distance", kind: "range", min: 8, max: 512, value: 128},
      {key: "bidirectional", kind: "check", value: true},
      {key: "kernel", kind: "select", options: () => [["log", "@bias.kernel.log"], ["power", "@bias.kernel.power"]], value: "log"},
      {key: "r1", kind: "range", min: 0.1, max: 4, step: 0.1, value: 1},
      {key: "r2", kind: "range", min: 0.1, max: 2, step: 0.1, value: 1},
      {key: "c", kind: "range", min: 0.1, max: 10, step: 0.1, value: 1},
      {key: "L", kind: "range", min: 1, max: 512, value: 16},
      {key: "sdim", kind: "range", min: 2, max: 256, step: 2, value: 64},
      {key: "compress", kind: "check", value: true},
    ],
    figureSpecs: [{key: "heads", kind: "canvas", wide: true}, {key: "head", kind: "canvas"}],
    constrain() { const s = this.state; this.setRange("head", s.heads - 1); this.setRange("i", s.n - 1); this.setRange("j", s.n - 1); },
    /* bias[h](i, j) for the chosen kind: `at` one cell, `row` the cells (i, 0..n-1) into out[o..], and the readout */
    formula(s) {
      const d = Math.abs(s.i - s.j), n = s.n;
      const causal = (at, byDistance) => ({at: (h, i, j) => i >= j ? at(h, i, j) : NaN,
        shift: byDistance && ((h) => {  // shift(h)[j - i + n - 1]: the value at (i, j), masked (NaN) above the diagonal
          const values = byDistance(h), out = new Float64Array(2 * n - 1).fill(NaN);
          for (let r = 0; r < n; r++) out[n - 1 - r] = values[r];
          return out;
        }),
        row(h, i, out, o) {  // byDistance(h): the values at distance i - j = 0..n-1, when they depend on it alone
          const values = byDistance && byDistance(h);
          if (values) for (let j = 0; j <= i; j++) out[o + j] = values[i - j];
          else for (let j = 0; j <= i; j++) out[o + j] = at(h, i, j);
          out.fill(NaN, o + i + 1, o + n);  // above the diagonal: masked
        }});
      if (s.kind === "alibi") {
        const slopes = alibi({heads: s.heads});
        const bySlope = slopes.map((m) => tabulate(n, (r) => -m * r));
        return {...causal((h, i, j) => -slopes[h] * (i - j), (h) => bySlope[h]), range: [-slopes[0] * n, 0],
          read: {f: "alibi", args: {heads: s.heads}, pick: s.head, label: "bias.r.slope"}};
      }
      if (s.kind === "t5") {
        const args = {n, buckets: s.buckets, max_distance: s.max_distance, bidirectional: s.bidirectional}, b = cached("t5", args);
        return {at: (h, i, j) => b[j - i + n - 1], row(h, i, out, o) { for (let j = 0; j < n; j++) out[o + j] = b[j - i + n - 1]; }, shift: () => b,
          range: [0, s.buckets - 1], read: {f: "t5", args, pick: s.j - s.i + n - 1, label: "bias.r.bucket"}};
      }
      if (s.kind === "kerple") {
        const args = {n, r1: s.r1, r2: s.r2, kernel: s.kernel}, k = cached("kerple", args);
        return {...causal((h, i, j) => k[i - j], () => k), range: [k[n - 1], 0], read: {f: "kerple", args, pick: d, label: "bias.r.kerple"}};
      }
      if (s.kind === "fire") {  // fireAt's two logarithms, each taken once per distance and once per row
        const args = {n, c: s.c, L: s.L}, top = tabulate(n, (r) => Math.log1p(s.c * r));
        const bottom = tabulate(n, (i) => Math.max(Math.log1p(s.c * Math.max(i, s.L)), 1e-6));
        return {...causal((h, i, j) => top[i - j] / bottom[i]), range: [0, 1], read: {f: "fire", args, pick: s.i * n + s.j, label: "bias.r.fire"},
          sameHeads: true,  // no head parameter: every head's tile is head 0's
          row(h, i, out, o) { const b = bottom[i]; for (let j = 0; j <= i; j++) out[o + j] = top[i - j] / b; out.fill(NaN, o + i + 1, o + n); }};
      }
      const args = {n, dim: s.sdim, heads: s.heads, compress: s.compress}, cell = sandwichCells(args), heads = [];
      const low = -s.sdim;  // sum_i cos - d'/2 over d'/2 frequencies lies in [-d', 0]: the colour scale's range
      return {...causal((h, i, j) => cell(h, i - j), (h) => (heads[h] ??= tabulate(n, (r) => cell(h, r)))),
        range: [low, 0], read: {f: "sandwich", args, pick: s.head * n + d, label: "bias.r.sandwich"}};
    },
    draw(s) {
      for (const key of Object.keys(this.inputs)) {  // only the chosen kind's options are shown
        const owner = {buckets: "t5", max_distance: "t5", bidirectional: "t5", kernel: "kerple", r1: "kerple", r2: "kerple", c: "fire", L: "fire", sdim: "sandwich", compress: "sandwich"}[key];
        const box = this.inputs[key].closest(".control"), hidden = owner !== undefined && owner !== s.kind;
        if (box.hidden !== hidden) box.hidden = hidden;
      }
      const f = this.formula(s), [lo, hi] = f.range, rising = s.kind === "t5" || s.kind === "fire";  // far = high value
      const scale = (v) => Number.isNaN(v) ? -1 : hi > lo ? (rising ? (hi - v) / (hi - lo) : (v - lo) / (hi - lo)) : 1;
      const tile = Math.min(s.n, 64), cols = Math.min(s.heads, 8), rowsOfTiles = Math.ceil(s.heads / cols), gap = 2;
      const W = cols * (tile + gap), H = rowsOfTiles * (tile + gap), step = s.n / tile;
      const options = {alibi: [], t5: [s.buckets, s.max_distance, s.bidirectional], kerple: [s.kernel, s.r1, s.r2],
        fire: [s.c, s.L], sandwich: [s.sdim, s.compress]}[s.kind], key = `${s.kind}|${s.heads}|${s.n}|${options.join("|")}`;
      /* a kind whose value at (i, j) depends on j - i alone gives shift(h) over j - i + n - 1: its colours are made once
         per value and each row of the chosen head's grid is a slice of them; FIRE's rows are made one at a time */
      const shifts = [];
      const shift = f.shift && ((h) => (shifts[h] ??= f.shift(h)));
      once(this.figures.heads, key, () => {  // head h's tile at tile row and column (h / cols, h % cols), cell (y, x) read at (y step, x step)
        const {px, put} = heatCanvas(this.figures.heads, H, W), pixel = pixelOf(sequential), at = Int32Array.from({length: tile}, (_, k) => Math.floor(k * step));
        const n = s.n, cells = new Uint32Array(tile * tile);  // one head's tile, row by row
        px.fill(pixel(NaN));  // the gaps between tiles: grey, as masked cells
        // a kind that depends on j - i alone: the tiles read a few of its 2n - 1 offsets (at[x] - at[y]), each head's
        // colour made once per offset read from its cell at that offset (i = max(0, i - j))
        let offsets = null;
        if (f.shift) {
          const read = new Uint8Array(2 * n - 1);
          for (let y = 0; y < tile; y++) for (let x = 0; x < tile; x++) read[at[x] - at[y] + n - 1] = 1;
          offsets = [];
          for (let r = 0; r < 2 * n - 1; r++) if (read[r]) offsets.push(r);
        }
        const colours = new Uint32Array(2 * n - 1);
        for (let h = 0; h < s.heads; h++) {
          const top = Math.floor(h / cols) * (tile + gap), left = (h % cols) * (tile + gap);
          if (h === 0 || !f.sameHeads) {
            if (offsets) {
              for (const r of offsets) { const i = r < n - 1 ? n - 1 - r : 0; colours[r] = pixel(scale(f.at(h, i, i + r - (n - 1)))); }
              for (let y = 0, o = 0; y < tile; y++) for (let x = 0, c = n - 1 - at[y]; x < tile; x++, o++) cells[o] = colours[at[x] + c];
            } else {
              for (let y = 0, o = 0; y < tile; y++) for (let x = 0; x < tile; x++, o++) cells[o] = pixel(scale(f.at(h, at[y], at[x])));
            }
          }
          for (let y = 0; y < tile; y++) px.set(cells.subarray(y * tile, (y + 1) * tile), (top + y) * W + left);
        }
        put();
      });
      once(this.figures.head, `${key}|${s.head}`, () => {  // the values coloured over [lo, hi] as scale() does
        const n = s.n, {px, put} = heatCanvas(this.figures.head, n, n);
        const pixel = pixelOf(hi > lo ? biasColours(lo, hi, rising) : colourTable(lo - 1, lo + 1, () => SEQUENTIAL(1)));
        if (shift) {
          const colours = Uint32Array.from(shift(s.head), pixel);
          for (let i = 0; i < n; i++) px.set(colours.subarray(n - 1 - i, 2 * n - 1 - i), i * n);
        } else {
          const row = new Float64Array(n);
          for (let i = 0; i < n; i++) {
            f.row(s.head, i, row, 0);
            for (let j = 0, o = i * n; j < n; j++) px[o + j] = pixel(row[j]);
          }
        }
        put();
      });
      this.extra.textContent = t(`bias.note.${s.kind}`);
      return [{key: "value", label: f.read.label, labelArgs: [s.head, s.i, s.j], f: f.read.f, args: f.read.args, pick: f.read.pick}];
    },
  }),
  new Panel({
    id: "precision",
    controls: [
      {key: "base", kind: "select", options: () => BASES, value: "10000"},
      {key: "dim", kind: "range", min: 2, max: 512, step: 2, value: 64},
      {key: "i", kind: "range", min: 0, max: 31, value: 0},
      {key: "log2p", kind: "range", min: 0, max: 20, step: 0.25, value: 14, show: (v) => String(Math.round(Math.pow(2, v)))},
      {key: "dtype", kind: "select", options: () => [["bfloat16", "bfloat16"], ["float16", "float16"]], value: "bfloat16"},
    ],
    figureSpecs: [{key: "error", kind: "svg", wide: true}],
    constrain() { this.setRange("i", this.state.dim / 2 - 1); },
    draw(s) {
      const base = Number(s.base), p = Math.round(Math.pow(2, s.log2p));
      once(this.figures.error, `${s.dim}|${base}|${s.i}|${p}`, () => {  // both formats drawn: the format chosen moves no curve
        const grid = Array.from({length: 161}, (_, k) => Math.round(Math.pow(2, k / 8)));
        const series = ["bfloat16", "float16"].map((dtype, n) => ({xs: grid, colour: COLOURS[n],
          ys: precision({dim: s.dim, base, i: s.i, positions: grid, dtype}).map((e) => Math.max(Math.abs(e), 1e-12)), label: dtype}));
        linePlot(this.figures.error, series, {xlog: true, ylog: true, xlabel: t("position"), ylabel: t("precision.error"), ymin: 1e-12,
          hlines: [{y: Math.PI / 2, label: "π/2"}], vlines: [{x: p}]});
      });
      const limit = 32768, firstArgs = {dim: s.dim, base, dtype: s.dtype, limit};
      return [
        {key: "bf16", label: "precision.r.error", labelArgs: ["bfloat16", p, s.i], f: "precision", args: {dim: s.dim, base, i: s.i, positions: [p], dtype: "bfloat16"}, pick: 0},
        {key: "fp16", label: "precision.r.error", labelArgs: ["float16", p, s.i], f: "precision", args: {dim: s.dim, base, i: s.i, positions: [p], dtype: "float16"}, pick: 0},
        {key: "first", label: "precision.r.first", labelArgs: [s.dtype, limit], f: "first_aliased", args: firstArgs, pick: 0},
      ];
    },
  }),
];

/* --------------------------------------------------------------------------------------------- self-check --- */
function close(a, b) {
  if (a === b) return true;  // equal infinities too
  return Math.abs(a - b) <= TOLERANCE.rel * Math.abs(b) + TOLERANCE.abs;
}

function selfCheck() {
  const cases = DATA.golden.map((g) => ({f: g.f, args: g.args, out: g.out, what: g.f}));
  DATA.models.forEach((m) => m.groups.forEach((g, i) => {
    if (g.rope) {
      cases.push({f: "scaling", what: `${m.name} ${i}`, args: {type: g.rope.type, dim: g.rope.dim, base: g.rope.base, params: g.rope.params, seq_len: null},
        out: [...g.rope.inv_freq, g.rope.attention_factor]});
    }
  }));
  let points = 0;
  for (const c of cases) {
    let got;
    try { got = F[c.f](c.args); } catch (e) { return {ok: false, points, first: {what: c.what, args: c.args, error: String(e)}}; }
    if (got.length !== c.out.length) return {ok: false, points, first: {what: c.what, args: c.args, error: `${got.length} values, posenc ${c.out.length}`}};
    for (let i = 0; i < got.length; i++) {
      const want = c.out[i] === null ? NaN : c.out[i];
      if (!close(got[i], want)) return {ok: false, points, first: {what: c.what, args: c.args, index: i, got: got[i], want}};
      points++;
    }
  }
  return {ok: true, points, cases: cases.length};
}

let check = null;

function showSelfCheck() {
  const box = document.getElementById("selfcheck");
  if (!check) return;
  box.className = check.ok ? "ok" : "bad";
  box.textContent = check.ok ? t("selfcheck.ok", check.points, check.cases)
    : t("selfcheck.bad", check.first.what, JSON.stringify(check.first.args), check.first.index ?? "-", fmt(check.first.got ?? NaN), fmt(check.first.want ?? NaN), check.first.error || "");
}

/* ------------------------------------------------------------------------------------------------- start --- */
function start() {
  const root = document.getElementById("panels");
  PANELS.forEach((p) => p.build(root));
  PANELS.forEach((p) => { if (p.constrain) p.constrain(); });
  document.getElementById("lang-switch").addEventListener("click", () => setLang(lang === "zh" ? "en" : "zh"));
  check = selfCheck();
  setLang(lang);
  window.posencExplore = {
    F, FORMATS, panels: PANELS, check, missing: () => [...missing],
    timings: () => Object.fromEntries(PANELS.map((p) => [p.id, p.lastMs])),
    redraw: (id) => { const p = PANELS.find((x) => x.id === id); p.update(); return p.lastMs; },
    forget: () => {
      memo.clear(); drawTables.clear(); decayStates.clear(); cosTables.clear(); entryDraws.clear();
      if (decayJobs.worker) decayJobs.worker.postMessage("forget");
      document.querySelectorAll("[data-drawn]").forEach((n) => delete n.dataset.drawn);
    },
    /* a promise of the time (performance.now()) every figure computed apart was drawn: now when none is waiting */
    settled: () => new Promise((resolve) => { if (decayJobs.running || decayJobs.next) decayJobs.settled.push(resolve); else resolve(performance.now()); }),
    pending: () => Boolean(decayJobs.running || decayJobs.next),
  };
  document.body.dataset.ready = "1";
}

start();
