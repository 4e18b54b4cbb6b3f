"""Time the explorer's redraw per control in headless Chromium, at d_model 512 and 512 positions.

Run by hand (never a timed test; it needs Debian's chromium and chromedriver):
    .venv/bin/python benchmarks/bench_explore.py [--redraws 40] [--page explore/explore.html] [--panel rope]

Each panel is first set to its largest work at width 512 and 512 positions (the sinusoid's d_model and positions,
RoPE's head_dim and positions, the scalings' rotary width, the bias panel's positions, the precision panel's
head_dim); then every control in turn is moved ``--redraws`` times by setting its value and dispatching the ``input``
event a person's key press dispatches: a slider walks one step at a time from where it is (as dragging it does: each
redraw computes what the new value changes and reuses the rest), a select goes through its options, a checkbox
toggles; a value seen before is computed again with the page's caches emptied (the worker's too).

Each control is moved twice. First the redraws run back to back: each is timed in the page with ``performance.now()``
around the event's handler (every formula, figure and readout the handler draws) plus a forced layout read
(``document.body.offsetHeight``); the median, the 90th percentile and the minimum are printed, the median also as a
multiple of a fixed JS kernel (2^20 ``Math.sin``, timed in the page before each panel, which moves less with the
machine's load than the milliseconds do), and "CPU ms": the CPU time of the page's main thread per redraw (Chromium's
``TaskDuration`` in thread ticks, over the redraws and the move back): the time the handlers ran on a core, not the
time they waited for one, which is what a loaded machine adds to the milliseconds. Then each redraw waits for the
next painted frame: "frame CPU" is the main thread's CPU per redraw with that frame's style, layout and paint. A
figure computed apart (RoPE's decay curve, in a worker) is waited for as well: "drawn ms" is the median time from the
event until it was drawn, and its drawing is in "frame CPU". The goal: every handler under 16 ms (one frame at 60 Hz).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / "tests" / "explore"),
                str(Path(__file__).resolve().parents[1] / "tests")]  # explore_browser, and the headless it uses

from explore_browser import chromium, open_page  # noqa: E402

#: per panel, the settings of the largest work at width 512 and 512 positions
LARGEST = {
    "naive": {"n": 512, "bits": 16},
    "sinusoid": {"d": 512, "n": 512},
    "rotation": {"d": 128},
    "rope": {"dim": 512, "positions": 512},
    "scaling": {"dim": 512},
    "bias": {"n": 512, "heads": 16},
    "precision": {"dim": 512},
}

#: the values one control takes, `redraws` of them: a slider walked down from where it is, one step a redraw, wrapping
#: to its top; a select's options in turn; a checkbox toggled. Kept in the page with the control's starting value.
_VALUES = """
const [panelId, key, redraws] = arguments;
const panel = window.posencExplore.panels.find(p => p.id === panelId), input = panel.inputs[key];
let values;
if (input.type === 'checkbox') values = [true, false];
else if (input.tagName === 'SELECT') values = Array.from(input.options).map(o => o.value);
else {
  const v = Number(input.value), step = Number(input.step) || 1, low = Number(input.min), high = Number(input.max);
  const count = Math.round((high - low) / step) + 1, at = Math.round((v - low) / step);
  values = Array.from({length: Math.min(count, redraws + 1)}, (_, i) => String(low + ((at - i) % count + count) % count * step));
}
window.benchControl = {input, values, redraws};
"""

#: moves the control through its values, one redraw each: the value set (a value seen before: computed again with
#: every cache emptied), the ``input`` event a key press dispatches and a forced layout, timed in the page. Without
#: ``frames`` the redraws run back to back in one task (the handlers' own work); with it, each redraw waits until every
#: figure computed apart (RoPE's decay, in its worker) is drawn and the next frame is painted, and the time from the
#: event until that figure was drawn is kept too. Returns [handler ms per redraw, drawn ms per redraw that waited].
_TIME = """
const [frames, done] = [arguments[0], arguments[arguments.length - 1]], {input, values, redraws} = window.benchControl;
const explore = window.posencExplore, times = [], drawn = [];
const frame = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
(async () => {
  for (let i = 0; i < redraws; i++) {
    const value = values[(i + 1) % values.length];
    if (input.type === 'checkbox') input.checked = value; else input.value = value;
    if (i + 1 >= values.length) explore.forget();
    const start = performance.now();
    input.dispatchEvent(new Event('input'));
    void document.body.offsetHeight;
    times.push(performance.now() - start);
    if (frames) {
      const pending = explore.pending(), at = await explore.settled();
      if (pending) drawn.push(at - start);
      await frame();
    }
  }
  if (input.type === 'checkbox') input.checked = values[0]; else input.value = values[0];
  input.dispatchEvent(new Event('input'));  // back where it was
  await explore.settled();
  await frame();
  done([times, drawn]);
})();
"""

#: a fixed amount of work, to read the benchmark's numbers against the machine's load
_KERNEL = """
const times = [];
for (let r = 0; r < 5; r++) {
  const start = performance.now();
  let s = 0;
  for (let i = 0; i < 1 << 20; i++) s += Math.sin(i * 1e-3);
  times.push(performance.now() - start + (s > 1e9 ? 1 : 0));
}
return times.sort((a, b) => a - b)[2];
"""

_SET = """
const [panelId, settings] = arguments;
const panel = window.posencExplore.panels.find(p => p.id === panelId);
document.getElementById(`panel-${panelId}`).scrollIntoView();  // in view: its redraw is laid out and painted
for (const [key, value] of Object.entries(settings)) { panel.inputs[key].value = String(value); panel.update(key); }
return Object.fromEntries(Object.keys(settings).map(k => [k, panel.inputs[k].value]));
"""


#: the scaling panel at the SmolLM2-135M preset, scrolled to its figures
_MEASURED = """
const p = window.posencExplore.panels.find(p => p.id === 'scaling');
p.inputs.model.value = String([...p.inputs.model.options].findIndex(o => o.textContent === 'SmolLM2-135M') - 1);
p.update('model');
document.getElementById('cap-scaling-wavelength').closest('figure').scrollIntoView();
"""


def _task_seconds(driver) -> float:
    """The renderer's main thread's CPU time so far (Chromium's ``TaskDuration`` metric in thread ticks): the time it
    ran, not the time it waited for a core, so the difference over a control's redraws reads the same under load."""
    metrics = driver.execute_cdp_cmd("Performance.getMetrics", {})["metrics"]
    return next(m["value"] for m in metrics if m["name"] == "TaskDuration")


def screenshots(page: Path, folder: Path) -> None:
    """``explore-{zh,en}-{1280,390}.png``: the top of the page (header, self-check, the first panels); and
    ``explore-measured-{zh,en}-1280.png``: the scaling panel at SmolLM2's preset with the report's measurements."""
    from PIL import Image

    folder.mkdir(parents=True, exist_ok=True)
    for width, height, mobile in ((1280, 1800, False), (390, 2000, True)):
        with chromium(width, height) as driver:
            driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {"width": width, "height": height,
                                                                          "deviceScaleFactor": 1, "mobile": mobile})
            for lang in ("zh", "en"):
                open_page(driver, page, lang=lang)
                path = folder / f"explore-{lang}-{width}.png"
                driver.save_screenshot(str(path))
                Image.open(path).convert("RGB").quantize(128).save(path, optimize=True)
                print(f"saved {path} ({path.stat().st_size / 1024:.0f} KiB)")
                if width == 1280:  # the scaling panel at SmolLM2's preset, the report's measurements beside
                    driver.execute_script(_MEASURED)
                    path = folder / f"explore-measured-{lang}-1280.png"
                    driver.save_screenshot(str(path))
                    Image.open(path).convert("RGB").quantize(128).save(path, optimize=True)
                    print(f"saved {path} ({path.stat().st_size / 1024:.0f} KiB)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redraws", type=int, default=40, help="redraws per control (default 40)")
    parser.add_argument("--page", type=Path, default=None, help="an explore.html (default: write one now)")
    parser.add_argument("--screenshots", type=Path, default=None, help="also save the page's top in zh and en at "
                        "1280 px and at a phone's 390 px into this folder (PNG, 128 colours)")
    parser.add_argument("--panel", action="append", choices=list(LARGEST), default=None,
                        help="time only this panel (repeatable; default: every panel)")
    args = parser.parse_args()
    if args.redraws < 2:
        parser.error(f"--redraws must be at least 2, got {args.redraws}")
    page = args.page
    if page is None:
        from posenc.explore import write_explorer

        page = write_explorer(Path(tempfile.mkdtemp(prefix="posenc-bench-explore-")))
    print(f"page {page} ({page.stat().st_size / 1024:.0f} KiB), {args.redraws} redraws per control")
    if args.screenshots is not None:
        screenshots(page, args.screenshots)
    print(f"{'panel':<10} {'control':<18} {'median ms':>10} {'p90 ms':>8} {'min ms':>8} {'median/kernel':>14} "
          f"{'CPU ms':>8} {'frame CPU':>9} {'drawn ms':>9}")
    worst, kernels, cpu_worst, frame_worst, done_worst = {}, [], {}, {}, {}
    with chromium() as driver:
        open_page(driver, page)
        driver.set_script_timeout(120)
        driver.execute_cdp_cmd("Performance.enable", {"timeDomain": "threadTicks"})  # the renderer thread's CPU time
        for panel, settings in LARGEST.items():
            if args.panel and panel not in args.panel:
                continue
            before = _task_seconds(driver)
            kernels.append(driver.execute_script(_KERNEL))  # again per panel: the load moves during a run
            kernel_cpu = (_task_seconds(driver) - before) * 1000 / 5
            print(f"{panel:<10} {'(kernel)':<18} {kernels[-1]:>10.2f} {'':>8} {'':>8} {'':>14} {kernel_cpu:>8.2f}  "
                  f"load average {os.getloadavg()[0]:.1f}")
            applied = driver.execute_script(_SET, panel, settings)
            keys = driver.execute_script("return Object.keys(window.posencExplore.panels.find(p => p.id === "
                                         "arguments[0]).inputs);", panel)
            for key in keys:
                driver.execute_script(_SET, panel, settings)  # a preset chosen by the last control sets its width
                times, cpu, frame_cpu, done = _move(driver, panel, key, args.redraws)
                median, p90 = statistics.median(times), times[int(0.9 * (len(times) - 1))]
                worst[panel] = max(worst.get(panel, 0.0), median)
                cpu_worst[panel] = max(cpu_worst.get(panel, 0.0), cpu)
                frame_worst[panel] = max(frame_worst.get(panel, 0.0), frame_cpu)
                later = ""
                if done:  # a figure computed apart: the time until it is drawn
                    done_worst[panel] = max(done_worst.get(panel, 0.0), statistics.median(done))
                    later = f" {statistics.median(done):>9.2f}"
                print(f"{panel:<10} {key:<18} {median:>10.2f} {p90:>8.2f} {times[0]:>8.2f} {median / kernels[-1]:>14.3f} "
                      f"{cpu:>8.2f} {frame_cpu:>9.2f}{later}")
            print(f"{panel:<10} {'(settings)':<18} {applied}")
        print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end; the fixed JS kernel "
              f"(2^20 sines, median of 5) took {min(kernels):.1f}-{max(kernels):.1f} ms in this page")
    print("slowest median per panel: " + ", ".join(f"{p} {m:.1f} ms" for p, m in worst.items()))
    print("most CPU per redraw per panel: " + ", ".join(f"{p} {m:.1f} ms" for p, m in cpu_worst.items()))
    print("most CPU per redraw with its painted frame: " + ", ".join(f"{p} {m:.1f} ms" for p, m in
                                                                              frame_worst.items()))
    if done_worst:
        print("figures computed apart, slowest median until drawn: " + ", ".join(f"{p} {m:.1f} ms" for p, m in
                                                                                 done_worst.items()))
    over = [p for p, m in worst.items() if m >= 16]
    print("every median under 16 ms" if not over else f"over 16 ms: {', '.join(over)}")
    heavy = [p for p, m in cpu_worst.items() if m >= 16]
    print("every redraw under 16 ms of CPU" if not heavy else f"over 16 ms of CPU: {', '.join(heavy)}")
    return 0 if not over else 1


def _move(driver, panel: str, key: str, redraws: int):
    """Moves one control `redraws` times, twice: back to back (the handlers' milliseconds, sorted, and the page
    thread's CPU ms per redraw), then each redraw followed by its painted frame (the page thread's CPU ms per redraw
    with the frame's style, layout and paint and the drawing of any figure computed apart, and the milliseconds until
    such a figure was drawn)."""
    driver.execute_script(_VALUES, panel, key, redraws)
    before = _task_seconds(driver)
    times, _ = driver.execute_async_script(_TIME, False)
    cpu = (_task_seconds(driver) - before) * 1000 / (redraws + 1)  # and the redraw back
    before = _task_seconds(driver)
    _, drawn = driver.execute_async_script(_TIME, True)
    frame_cpu = (_task_seconds(driver) - before) * 1000 / (redraws + 1)
    return sorted(times), cpu, frame_cpu, drawn


if __name__ == "__main__":
    sys.exit(main())
