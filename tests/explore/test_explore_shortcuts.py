"""The explorer's redraw shortcuts give the numbers of the formulas they stand in for, in headless Chromium (a page
opened from a file, the network off):

- RoPE's readouts at one distance (``decayEntry``) are the float64 bits of ``ropeDecay``'s whole curve at that
  distance, for draws that fill four-wide blocks and draws that do not;
- the decay curve computed in the worker is ``ropeDecay``'s curve computed on the page, bit for bit, and the figure
  says "computing…" until it is drawn;
- the sinusoid's dot figure reads PE[p]·PE[q] as g[|p − q|] with g[r] = Σᵢ cos(r wᵢ) summed from its heatmap's rows:
  equal to the dot products of the rows (``sinusoidDot``) to 1e-12 of d;
- the sinusoid's heatmap keeps its rows across redraws at the same d and base: the pixels of one made anew;
- the precision panel's search for the first aliased row (``aliasedRow``: each frequency asked for its next row) is
  the walk over every row and every frequency, and posenc's ``first_aliased_position``.
"""

from __future__ import annotations

import pytest

from posenc.explore import write_explorer

pytestmark = pytest.mark.browser

#: (dim, base, positions, samples, seed): samples 1, 3, 5, 7 leave a tail past the four-wide blocks, 8 and 50 do not
DECAY_CASES = [(4, 10000, 16, 1, 1), (8, 100, 33, 3, 2), (16, 500000, 40, 5, 7), (64, 10000, 64, 8, 3),
               (30, 1000, 17, 7, 11), (128, 1000000, 48, 50, 1)]


@pytest.fixture(scope="module")
def driver(tmp_path_factory):
    try:
        from explore_browser import chromium, find_browser, open_page

        find_browser()
    except (ImportError, RuntimeError) as exc:
        pytest.fail(f"browser test cannot run: {exc}")
    page = write_explorer(tmp_path_factory.mktemp("explore"), lang="en")
    with chromium() as driver:
        open_page(driver, page)
        driver.set_script_timeout(60)
        yield driver


def test_the_readouts_at_one_distance_are_the_whole_curves_bits(driver):
    wrong = driver.execute_script("""
      const out = [];
      for (const [dim, base, n, samples, seed] of arguments[0]) {
        const a = {dim, base, n, samples, seed}, whole = ropeDecay(a);
        for (let k = 0; k < 2 * n; k++) if (!Object.is(decayEntry(a, k), whole[k])) out.push([a, k, decayEntry(a, k), whole[k]]);
      }
      return out;""", DECAY_CASES)
    assert wrong == []


def test_the_workers_curve_is_the_pages_bit_for_bit(driver):
    got = driver.execute_async_script("""
      const [cases, done] = arguments, results = [];
      const next = (i) => {
        if (i === cases.length) return done(results);
        const [dim, base, n, samples, seed] = cases[i], a = {dim, base, n, samples, seed};
        requestDecay(a, (values) => {
          const here = ropeDecay(a);
          results.push({worker: values instanceof Float64Array, same: values.length === here.length && here.every((v, k) => Object.is(v, values[k]))});
          next(i + 1);
        });
      };
      window.posencExplore.forget();
      next(0);""", DECAY_CASES)
    assert all(r["same"] for r in got), got
    assert all(r["worker"] for r in got), "the curves did not come from the worker"


def test_the_decay_figure_says_computing_until_it_is_drawn(driver):
    got = driver.execute_async_script("""
      const done = arguments[0], p = window.posencExplore.panels.find(p => p.id === 'rope');
      const figure = document.getElementById('cap-rope-decay').closest('figure'), note = figure.querySelector('.busy');
      window.posencExplore.forget();
      p.inputs.dim.value = 512; p.inputs.positions.value = 512; p.inputs.seed.value = 42; p.update('seed');
      const during = {shown: !note.hidden, text: note.textContent, busy: figure.querySelector('svg').getAttribute('aria-busy'),
                      pending: window.posencExplore.pending()};
      window.posencExplore.settled().then(() => done({during, after: {shown: !note.hidden, busy: figure.querySelector('svg').getAttribute('aria-busy'),
        paths: figure.querySelectorAll('path').length, drawn: figure.querySelector('svg').dataset.drawn}}));""")
    assert got["during"] == {"shown": True, "text": "computing…", "busy": "true", "pending": True}
    after = got["after"]
    assert not after["shown"] and after["busy"] == "false" and after["paths"] >= 3
    assert '"dim":512' in after["drawn"] and '"seed":42' in after["drawn"]


def test_the_dot_figure_reads_the_column_sums(driver):
    worst = driver.execute_script("""
      let worst = 0;
      const canvas = document.createElement('canvas');
      for (const [d, base, n] of [[4, 10000, 8], [64, 100, 100], [512, 10000, 512], [1024, 1000000, 300]]) {
        const g = waveHeatmap(canvas, defaultInvFreq(d, base), n, true);
        for (const p of [0, 1, n >> 1, n - 1]) {
          const dots = sinusoidDot({d, base, p, n});
          for (let q = 0; q < n; q++) worst = Math.max(worst, Math.abs(g[Math.abs(p - q)] - dots[q]) / d);
        }
      }
      return worst;""")
    assert worst < 1e-12


_PIXELS = """
window.pixelsOf = (c) => Array.from(new Uint32Array(c.getContext('2d').getImageData(0, 0, c.width, c.height).data.buffer));
window.samePixels = (a, b) => { const x = pixelsOf(a), y = pixelsOf(b); return a.width === b.width && a.height === b.height && x.every((v, k) => v === y[k]); };
"""


def test_the_wave_heatmaps_are_the_exact_tables_pixels(driver):
    """The recurrence's heatmaps (the sinusoid's PE and RoPE's cos(p theta_i)) colour every cell as heatmap() colours
    the exact table (Math.sin and Math.cos of p w_i, as posenc's sinusoid and rope_angles give them)."""
    driver.execute_script(_PIXELS)
    same = driver.execute_script("""
      const out = [], fast = document.createElement('canvas'), exact = document.createElement('canvas');
      for (const [d, base, n] of [[4, 10000, 8], [6, 100, 9], [130, 1000000, 300], [512, 10000, 512], [1024, 500000, 97]]) {
        waveHeatmap(fast, defaultInvFreq(d, base), n, true);
        heatmap(exact, n, d, sinusoid({d, base, n}), diverging);
        const pe = samePixels(fast, exact);
        waveHeatmap(fast, defaultInvFreq(d, base), n, false);
        heatmap(exact, n, d / 2, ropeAngles({dim: d, base, n}).map(Math.cos), diverging);
        out.push([d, base, n, pe, samePixels(fast, exact)]);
      }
      return out;""")
    assert all(pe and rope for *_, pe, rope in same), same


def test_the_kept_heatmap_rows_are_the_heatmaps(driver):
    """The sinusoid's heatmap keeps its rows from one redraw to the next at the same d and base: after fewer
    positions, more (rows made anew from a block's start), another d, another base and forget(), its pixels and
    column sums are those waveHeatmap() makes from nothing."""
    driver.execute_script(_PIXELS)
    wrong = driver.execute_script("""
      const kept = document.createElement('canvas'), fresh = document.createElement('canvas'), out = [];
      for (const [d, base, n] of [[512, 10000, 512], [512, 10000, 300], [512, 10000, 77], [512, 10000, 100], [512, 10000, 512],
                                  [510, 10000, 512], [510, 100, 200], [510, 100, 8], [510, 100, 40], [1024, 500000, 300]]) {
        if (n === 40) window.posencExplore.forget();
        const w = defaultInvFreq(d, base), g = keptWaveHeatmap(kept, w, n, `wave|${d}|${base}`), want = waveHeatmap(fresh, w, n, true);
        if (!samePixels(kept, fresh) || !want.every((v, k) => Object.is(v, g[k]))) out.push([d, base, n]);
      }
      return out;""")
    assert wrong == []


def test_the_bias_grids_rows_are_its_cells(driver):
    """The chosen head's grid made from slices of one row of colours per value of j - i (ALiBi, T5, KERPLE, Sandwich)
    or a row at a time (FIRE), and the heads' tiles, are the pixels heatmap() gives the formula's cells one by one."""
    driver.execute_script(_PIXELS)
    wrong = driver.execute_script("""
      const p = window.posencExplore.panels.find(p => p.id === 'bias'), out = [], ref = document.createElement('canvas');
      for (const kind of ['alibi', 't5', 'kerple', 'fire', 'sandwich']) for (const [n, heads, head, both] of [[512, 16, 3, true], [77, 12, 11, false], [8, 1, 0, true]]) {
        p.inputs.kind.value = kind; p.inputs.n.value = n; p.inputs.heads.value = heads; p.update('n');
        p.inputs.head.value = head; p.inputs.bidirectional.checked = both; p.inputs.compress.checked = both; p.update('head');
        const s = p.state, f = p.formula(s), [lo, hi] = f.range, rising = kind === 't5' || kind === 'fire';
        heatmap(ref, n, n, (i, j) => f.at(s.head, i, j), hi > lo ? biasColours(lo, hi, rising) : colourTable(lo - 1, lo + 1, () => SEQUENTIAL(1)));
        if (!samePixels(p.figures.head, ref)) out.push(['head', kind, n, heads, head]);
        const scale = (v) => Number.isNaN(v) ? -1 : hi > lo ? (rising ? (hi - v) / (hi - lo) : (v - lo) / (hi - lo)) : 1;
        const tile = Math.min(n, 64), cols = Math.min(heads, 8), W = cols * (tile + 2), H = Math.ceil(heads / cols) * (tile + 2), step = n / tile;
        heatmap(ref, H, W, (y, x) => {
          const h = Math.floor(y / (tile + 2)) * cols + Math.floor(x / (tile + 2)), ty = y % (tile + 2), tx = x % (tile + 2);
          return h < heads && ty < tile && tx < tile ? scale(f.at(h, Math.floor(ty * step), Math.floor(tx * step))) : NaN;
        }, sequential);
        if (!samePixels(p.figures.heads, ref)) out.push(['tiles', kind, n, heads, head]);
      }
      return out;""")
    assert wrong == []


#: the walk the search stands in for: every row from 1, every frequency, the format's own rounding
_WALK = """
window.aliasWalk = (freqs, dtype, limit) => {
  const round = FORMATS[dtype];
  for (let q = 1; q < limit; q++) {
    let same = true;
    for (const w of freqs) if (round(q * w) !== round((q - 1) * w)) { same = false; break; }
    if (same) return q;
  }
  return -1;
};
"""

#: frequencies no base gives: every angle below the format's smallest step (row 1 aliases), none, zero, float16's
#: overflow (65520 and up: Infinity, so row 2 aliases), the fastest pair alone, and mixes of them
ODD_FREQUENCIES = {"below the smallest step": [1e-9, 3e-42], "far below": [3e-42, 1e-44], "none": [], "zero": [0],
                   "overflow": [1e5, 7e4], "one": [1], "mixed": [1, 1e-9, 0.37], "large": [40000, 3, 0.001]}


def test_the_first_aliased_row_is_the_walks(driver):
    """Every format x bases x head_dims x limits (1, 2, 300, 4096, 32768, and each answer's own row and one past it:
    the row found last), the odd frequency sets, and 40 random sets (log-uniform over 1e-8 .. 1e5, 1 to 60 of them,
    float16's overflow included): the search's row is the walk's."""
    driver.execute_script(_WALK)
    got = driver.execute_script("""
      const [odd] = arguments, sets = Object.entries(odd), out = {cases: 0, wrong: [], answers: {}};
      for (const base of [2, 10, 100, 10000, 500000, 1e6]) for (const dim of [2, 4, 6, 16, 64, 130, 512]) sets.push([`${base}/${dim}`, defaultInvFreq(dim, base)]);
      const random = mulberry32(7);
      for (let r = 0; r < 40; r++) sets.push([`random ${r}`, Array.from({length: 1 + Math.floor(random() * 60)}, () => Math.pow(10, -8 + 13 * random()))]);
      for (const dtype of ['bfloat16', 'float16']) for (const [name, freqs] of sets) {
        const limits = [1, 2, 300, 4096, 32768], walked = aliasWalk(freqs, dtype, 32768);
        if (walked > 1) limits.push(walked, walked + 1);
        out.answers[`${dtype} ${name}`] = walked;
        for (const limit of limits) {
          const want = aliasWalk(freqs, dtype, limit), fast = aliasedRow(Float64Array.from(freqs), dtype, limit);
          out.cases++;
          if (fast !== want) out.wrong.push([dtype, name, limit, fast, want]);
        }
      }
      return out;""", ODD_FREQUENCIES)
    assert got["wrong"] == [] and got["cases"] > 1000
    answers = got["answers"]
    # the sets cover what they are meant to: a first row that aliases, none below the limit, overflow, and the page's
    assert answers["float16 below the smallest step"] == answers["bfloat16 far below"] == 1
    assert answers["float16 overflow"] == 2 and answers["float16 none"] == 1
    assert answers["float16 10000/512"] == -1 and answers["bfloat16 10000/512"] > 1000
    assert answers["float16 one"] == 2049 and answers["bfloat16 one"] == 257  # 2^11 + 1 and 2^8 + 1: w = 1 alone
    assert sum(v == -1 for v in answers.values()) >= 6 and sum(v > 1000 for v in answers.values()) >= 40


def test_the_first_aliased_row_is_posencs(driver):
    """The page's formula (``firstAliased``: posenc's frequencies, the search) against posenc's
    ``first_aliased_position`` in torch, at the precision panel's largest widths and search limit."""
    from posenc.explore.golden import evaluate

    cases = [{"dim": dim, "base": base, "dtype": dtype, "limit": 32768}
             for dtype in ("bfloat16", "float16") for dim in (2, 64, 130, 512) for base in (100.0, 10000.0, 1e6)]
    page = driver.execute_script("return arguments[0].map((a) => firstAliased(a)[0]);", cases)
    want = [evaluate("first_aliased", args)[0] for args in cases]
    assert page == want
    assert -1 in want and any(v > 1000 for v in want)
