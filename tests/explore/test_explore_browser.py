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
