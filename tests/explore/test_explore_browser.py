"""The explorer in headless Chromium, opened from a file with the network off: every control of every panel moved by
keyboard events (End, Home, arrows, Space), every number the page then shows compared with posenc's own computation
(:func:`posenc.explore.golden.evaluate` at the arguments the page used) to 1e-6 relative; the self-check passes; the
language switch changes every text and the URL.

Chromium missing is a failure with the install command, never a silent skip: the set-up installs it.
"""

from __future__ import annotations

import json
import math

import pytest

from posenc.explore import write_explorer
from posenc.explore.golden import evaluate

pytestmark = pytest.mark.browser

PANELS = ("naive", "sinusoid", "rotation", "rope", "scaling", "bias", "precision")


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    return write_explorer(tmp_path_factory.mktemp("explore"), lang="zh")


@pytest.fixture(scope="module")
def driver(page):
    try:
        from explore_browser import chromium, find_browser

        find_browser()
    except (ImportError, RuntimeError) as exc:
        pytest.fail(f"browser test cannot run: {exc}")
    with chromium() as driver:
        yield driver


def _pick(values: list[float], spec) -> float:
    """What a readout shows of a formula's values (the page's ``pick``, written again here)."""
    if isinstance(spec, int):
        return values[spec]
    kind, *rest = spec
    if kind == "sub":
        return values[rest[0]] - values[rest[1]]
    if kind == "wavelength":
        return 2 * math.pi / values[rest[0]] if values[rest[0]] else math.inf  # a pair that never turns
    if kind == "flips":
        a, b, width = rest
        return float(sum(values[a * width + j] != values[b * width + j] for j in range(width)))
    raise AssertionError(f"unknown pick {spec!r}")


class Checker:
    """Reads a panel's numbers and compares each with posenc; counts what it compared and which controls moved."""

    def __init__(self, driver):
        self.driver, self.compared, self.moved, self._cache = driver, 0, {}, {}

    def posenc(self, f: str, args: dict) -> list[float]:
        key = (f, json.dumps(args, sort_keys=True))
        if key not in self._cache:
            self._cache[key] = evaluate(f, args)
        return self._cache[key]

    def check(self, panel: str, context: str, control=None) -> str | None:
        """Compare every number of the panel with posenc; return the control's value."""
        from explore_browser import readouts

        value, rows = readouts(self.driver, panel, control)
        assert rows, f"panel {panel} shows no numbers ({context})"
        for row in rows:
            shown = float(row["text"])
            want = _pick(self.posenc(row["f"], row["args"]), row["pick"])
            ok = shown == want or abs(shown - want) <= 1e-6 * abs(want) + 1e-12
            assert ok, (f"panel {panel}, {row['key']} after {context}: the page shows {row['text']}, posenc computes "
                        f"{want!r} ({row['f']} at {row['args']}, {row['pick']})")
            self.compared += 1
        return value

    def controls(self, panel: str):
        from selenium.webdriver.common.by import By

        return [c for c in self.driver.find_elements(By.CSS_SELECTOR, f"#panel-{panel} [data-key]:not(output)")
                if c.is_displayed()]

    def move(self, panel: str, control) -> None:
        """End, Home, a step up (a range: its extremes, then left light for the next control's redraws); every option
        in turn (a select); Space twice (a checkbox)."""
        from selenium.webdriver.common.keys import Keys

        key, kind = control.get_attribute("data-key"), control.tag_name
        if kind == "select":
            count = len(control.find_elements("tag name", "option"))
            presses = [Keys.HOME] + [Keys.ARROW_DOWN] * (count - 1)
        elif control.get_attribute("type") == "checkbox":
            presses = [Keys.SPACE, Keys.SPACE]
        else:
            presses = [Keys.END, Keys.HOME, Keys.ARROW_RIGHT]
        values = set()
        for press in presses:
            control.send_keys(press)
            values.add(self.check(panel, f"{key} <- {press!r}", control))
        self.moved.setdefault(panel, {})[key] = len(values)


def test_every_control_of_every_panel_matches_posenc(driver, page):
    from explore_browser import open_page, severe_logs

    open_page(driver, page)
    check = driver.execute_script("return window.posencExplore.check")
    assert check["ok"], f"the page's self-check failed: {check}"
    assert "自检通过" in driver.find_element("id", "selfcheck").text
    checker = Checker(driver)
    expected_keys = {}
    for panel in PANELS:
        expected_keys[panel] = set(driver.execute_script(
            "return Array.from(document.querySelectorAll(arguments[0])).map(c => c.dataset.key);",
            f"#panel-{panel} [data-key]:not(output)"))
        checker.check(panel, "loading")
        if panel == "bias":  # each kind shows its own options: move them under their kind, the shared ones once
            from selenium.webdriver.common.keys import Keys

            kinds = driver.find_element("id", "ctl-bias-kind")
            names = [o.get_attribute("value") for o in kinds.find_elements("tag name", "option")]
            for n, name in enumerate(names):
                kinds.send_keys(Keys.HOME, *[Keys.ARROW_DOWN] * n)
                assert kinds.get_attribute("value") == name
                checker.check(panel, f"kind {name}")
                for control in checker.controls(panel):
                    if control.get_attribute("data-key") not in {"kind", *checker.moved.get(panel, {})}:
                        checker.move(panel, control)
            checker.moved[panel]["kind"] = len(names)
        elif panel == "scaling":  # every model in turn, its layer groups and every control under the last one
            from selenium.webdriver.common.keys import Keys

            models = driver.find_element("id", "ctl-scaling-model")
            group = driver.find_element("id", "ctl-scaling-group")
            for n in range(len(models.find_elements("tag name", "option"))):
                models.send_keys(Keys.ARROW_DOWN if n else Keys.HOME)
                checker.check(panel, f"model {models.get_attribute('value')}")
                checker.move(panel, group)
            for control in checker.controls(panel):
                checker.move(panel, control)
        else:
            for control in checker.controls(panel):
                checker.move(panel, control)
    for panel, keys in expected_keys.items():
        assert set(checker.moved.get(panel, {})) == keys, f"panel {panel}: controls never moved: " \
                                                            f"{sorted(keys - set(checker.moved.get(panel, {})))}"
        stuck = [k for k, n in checker.moved[panel].items() if n < 2 and k != "group"]
        assert not stuck, f"panel {panel}: the keyboard did not change {stuck}"
    assert checker.compared > 500
    assert severe_logs(driver) == []


def test_the_language_switch_changes_every_text_and_the_url(driver, page):
    from explore_browser import open_page
    from selenium.webdriver.common.keys import Keys

    open_page(driver, page, lang="en")
    texts = {"en": driver.execute_script("return Array.from(document.querySelectorAll('[data-i18n]'))"
                                         ".map(e => e.textContent);")}
    assert driver.title == "posenc positional-encoding explorer"
    assert "Self-check passed" in driver.find_element("id", "selfcheck").text
    switch = driver.find_element("id", "lang-switch")
    switch.send_keys(Keys.ENTER)  # a button: Enter presses it
    assert "lang=zh" in driver.current_url
    texts["zh"] = driver.execute_script("return Array.from(document.querySelectorAll('[data-i18n]'))"
                                        ".map(e => e.textContent);")
    assert driver.title == "posenc 位置编码探索器"
    assert len(texts["zh"]) == len(texts["en"]) > 100
    assert all(t.strip() for t in texts["zh"] + texts["en"]), "a text is empty in one language"
    changed = sum(a != b for a, b in zip(texts["zh"], texts["en"], strict=True))
    assert changed / len(texts["zh"]) > 0.8  # labels such as d_model or ALiBi may read the same in both
    assert driver.execute_script("return window.posencExplore.missing()") == []
    links = driver.execute_script("return Array.from(document.querySelectorAll('a[data-report]')).map(a => a.href);")
    assert links and all("index.html?lang=zh" in href for href in links)
    assert any(href.endswith("#claim-rope-relative-explicit") for href in links)
    switch.send_keys(Keys.SPACE)  # Space presses a button too
    assert "lang=en" in driver.current_url and "Self-check passed" in driver.find_element("id", "selfcheck").text
    assert driver.find_element("css selector", "html").get_attribute("lang") == "en"


def test_every_control_has_a_label(driver, page):
    from explore_browser import open_page

    open_page(driver, page)
    unlabelled = driver.execute_script(
        "return Array.from(document.querySelectorAll('input, select, button')).filter(c => "
        "!(c.labels && c.labels.length && c.labels[0].textContent.trim()) && !c.getAttribute('aria-label'))"
        ".map(c => c.id);")
    assert unlabelled == []


def test_the_reports_measured_curves_sit_beside_the_formulas(driver, page):
    from explore_browser import open_page

    from posenc.explore.measured import measured_curves

    measured = measured_curves()
    if not measured:
        pytest.skip("written outside a checkout: no committed report to draw from")
    open_page(driver, page, lang="en")
    got = driver.execute_script("""
      const p = window.posencExplore.panels.find(p => p.id === 'scaling');
      p.inputs.model.value = String([...p.inputs.model.options].findIndex(o => o.textContent === 'SmolLM2-135M') - 1);
      p.update('model');
      const fig = (k) => document.getElementById(`cap-scaling-${k}`).closest('figure');
      return ['use', 'ppl'].map(k => ({hidden: fig(k).hidden, paths: fig(k).querySelectorAll('path[d^="M"]').length,
        marks: fig(k).querySelectorAll('circle').length, caption: fig(k).querySelector('figcaption').textContent,
        link: fig(k).querySelector('figcaption a').getAttribute('href')}));""")
    use, ppl = got
    assert not use["hidden"] and not ppl["hidden"]
    assert use["paths"] >= 3 and use["marks"] == 1  # mean, smallest and largest window; the chosen pair marked
    assert ppl["paths"] >= 3 and ppl["marks"] == 3  # one line and one mark per scaling
    assert "SmolLM2-135M" in use["caption"] and "16 windows of 128 tokens" in use["caption"]
    assert "8192" in ppl["caption"] and "10240" in ppl["caption"] and "{" not in use["caption"] + ppl["caption"]
    assert use["link"] == "index.html?lang=en#claim-low-dims-position"
    assert ppl["link"] == "index.html?lang=en#claim-pi-yarn"


def test_the_fast_roundings_equal_torchs_at_every_binade(driver, page):
    """bfloat16 and float16 by the float32's bits (the precision search's roundings) against torch, which rounds a
    float64 to float32 and then to the format: float32 values of every binade from 2^-30 to 2^20 (subnormal float16
    included), the halfway points between neighbours in each format, a float64 a hair either side of them, and the
    overflow edges."""
    import torch
    from explore_browser import open_page

    open_page(driver, page, lang="en")
    gen = torch.Generator().manual_seed(0)
    exponents = torch.randint(-30, 21, (6000,), generator=gen).double()
    mantissas = 1 + torch.randint(0, 1 << 23, (6000,), generator=gen).double() / (1 << 23)
    values = (mantissas * 2.0 ** exponents).tolist()
    for bits in (7, 10):  # halfway between two neighbours of each format, and a hair either side
        halves = ((1 + (2 * torch.randint(0, 1 << bits, (800,), generator=gen).double() + 1) / (1 << (bits + 1)))
                  * 2.0 ** torch.randint(-24, 16, (800,), generator=gen).double()).tolist()
        values += halves + [h * (1 + 2.0 ** -40) for h in halves] + [h * (1 - 2.0 ** -40) for h in halves]
    values += [65504.0, 65519.0, 65520.0, 65536.0, 2.0 ** -14, 2.0 ** -24, 2.0 ** -25, 3.0 * 2.0 ** -26, 0.0, 1e30,
               3.3895313892515355e38, 3.3961775292304e38]
    values += [-v for v in values[:500]]
    got = driver.execute_script("const [xs, name] = arguments; return xs.map(x => window.posencExplore.FORMATS[name](x));",
                                values, "bfloat16")
    got16 = driver.execute_script("const [xs, name] = arguments; return xs.map(x => window.posencExplore.FORMATS[name](x));",
                                  values, "float16")
    x = torch.tensor(values, dtype=torch.float64)
    for name, page_values in (("bfloat16", got), ("float16", got16)):
        want = x.to(getattr(torch, name)).double().tolist()
        wrong = [(v, g, w) for v, g, w in zip(values, page_values, want, strict=True)
                 if not (g == w or (g is None and math.isinf(w)))]  # selenium returns an infinity as None
        assert not wrong, f"{name}: {len(wrong)} of {len(values)} roundings differ from torch, e.g. {wrong[:3]}"


#: names, code and units a Chinese page keeps in Latin letters are single words or joined by _ . ' ( [ : the
#: English the check looks for is three words in a row, outside <code>, addresses, quoted names and the tutorials'
#: own sentences (a <blockquote>, as the tutorial wrote it)
_ENGLISH = r"[A-Za-z]{2,}(?:[ ,;]+[A-Za-z]{2,}){2,}"
_VISIBLE_TEXT = """
const out = [];
const walk = (node) => { for (const c of node.childNodes) {
  if (c.nodeType === 3) {
    const p = c.parentElement;
    if (p && !p.closest('code, script, style, blockquote') && p.getClientRects().length && c.textContent.trim()) out.push(c.textContent);
  } else if (c.nodeType === 1 && !c.hidden && getComputedStyle(c).display !== 'none') walk(c);
} };
walk(document.body);
document.querySelectorAll('[title], [aria-label], [aria-valuetext]').forEach(e => out.push(e.title || '', e.getAttribute('aria-label') || '', e.getAttribute('aria-valuetext') || ''));
return out;
"""


def test_the_chinese_page_shows_no_english_sentence(driver, page):
    """In Chinese every text the page shows is Chinese, apart from names, code and units: three English words in a
    row anywhere (a label, a caption, a readout, a tooltip, posenc inspect's warnings of every preset, each bias
    kind's note) fail, with the text they are in. A switch back to English shows the English texts again."""
    import re

    from explore_browser import open_page

    open_page(driver, page, lang="zh")
    seen = list(driver.execute_script(_VISIBLE_TEXT))
    models = driver.execute_script("return document.getElementById('ctl-scaling-model').options.length;")
    for n in range(models):
        driver.execute_script("const s = document.getElementById('ctl-scaling-model'); s.selectedIndex = arguments[0];"
                              " s.dispatchEvent(new Event('input'));", n)
        seen += driver.execute_script(_VISIBLE_TEXT)
    for kind in ("alibi", "t5", "kerple", "fire", "sandwich"):
        driver.execute_script("const s = document.getElementById('ctl-bias-kind'); s.value = arguments[0];"
                              " s.dispatchEvent(new Event('input'));", kind)
        seen += driver.execute_script(_VISIBLE_TEXT)
    english = {}
    for text in set(seen):
        bare = re.sub(r"https?://\S+|'[^']*'|\"[^\"]*\"", " ", text)  # addresses and quoted names
        if text.strip() != "English" and (found := re.search(_ENGLISH, bare)):  # the switch names the other language
            english[found.group(0)] = text[:160]
    assert not english, f"English shown on the Chinese page: {english}"
    warnings = driver.execute_script("return Array.from(document.querySelectorAll('#panel-scaling .findings li'))"
                                     ".map(li => li.textContent);")
    assert warnings and all(re.search(r"[\u4e00-\u9fff]", w) for w in warnings)
    cites = driver.execute_script("return Array.from(document.querySelectorAll('cite')).map(c => c.textContent);")
    assert "教程 000，§2.1" in cites and not any("tutorial" in c for c in cites)  # where each quote is from
    driver.find_element("id", "lang-switch").click()
    shown = " ".join(driver.execute_script(_VISIBLE_TEXT))
    assert "kept only in rope_parameters" in shown or "rotates adjacent channel pairs" in shown or "found nothing" in shown
    cites = driver.execute_script("return Array.from(document.querySelectorAll('cite')).map(c => c.textContent);")
    assert "tutorial 000, §2.1" in cites and not any("教程" in c for c in cites)
