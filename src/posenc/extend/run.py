"""``run_extend``: perplexity and passkey retrieval of a pretrained RoPE model by length and RoPE scaling.

Steps, in order (nothing is loaded until it is needed):

1. read the model's config only, refuse a model without RoPE, and estimate the memory of the longest length
   (:mod:`posenc.extend.memory`): a length that does not fit is refused before the weights are loaded;
2. plan the work (:mod:`posenc.extend.plan`) and print the plan;
3. skip every job the results store already holds (kind ``extend.window`` / ``extend.passkey``, keyed by model,
   dtype, text, length, offset or depth, and the RoPE's frequency fingerprint), so a re-run computes only what is
   missing; if nothing is missing the model is not even loaded;
4. load the model, patch posenc's attention into it (:mod:`posenc.extend.patch`) and run the missing jobs, grouped by
   frequencies so each group only swaps the encoding, with a progress bar; passkey trials of one length and depth
   follow each other and share the cached text before the needle (:class:`~posenc.extend.passkey.SharedPrefix`);
5. read every number back from the store, with a 95% interval beside each (perplexity: percentile bootstrap over
   windows; passkey accuracy: Wilson over trials), and write ``extend.json`` (all numbers), ``extend.md`` (the
   tables), ``extend.png`` (perplexity against length, one line per scaling) and ``extend-passkey.png`` (passkey
   accuracy by depth and length, one panel per scaling).

Timing and memory: every job stores its wall time and the process's peak resident memory after it
(``resource.getrusage``; on CUDA the peak allocated device memory). Lengths run from short to long, so the peak
after a length's jobs is the peak needed up to that length.

Device and precision: ``device`` (:func:`posenc.device.resolve_device`; ``auto`` picks CUDA, else MPS, else the CPU)
and ``dtype`` (the model's weights: float32, bfloat16 or float16) are checked before the config is read. The dtype is
part of every job's store key; the device is not (a window computed on a GPU answers for the CPU too) and is
recorded in each row's ``setup`` column. The result's ``setup`` says where this call computed its missing jobs
(``{"device", "dtype"}``) and ``setups`` lists every distinct setup of the rows it read.
"""

from __future__ import annotations

import dataclasses
import json
import os
import resource
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from posenc.device import DTYPES as _DTYPES
from posenc.device import resolve_device, resolve_dtype, setup
from posenc.errors import PosencError
from posenc.extend.factors import scaling_spec
from posenc.extend.memory import GB, check_fits
from posenc.extend.passkey import SharedPrefix, build_passkey_prompt, passkey_key, passkey_trial
from posenc.extend.patch import FixedLengthRope, check_rope_model, native_length, patch_model, scaled_rope, set_encoding
from posenc.extend.perplexity import WindowNLL, decode_nll, encode_nll, protocol_ppl, token_nll
from posenc.extend.plan import MAX_NEW_TOKENS, ExtendConfig, Plan, extend_config, make_plan
from posenc.stats import bootstrap, wilson
from posenc.store import ResultStore, config_hash

__all__ = ["run_extend", "to_markdown", "WINDOW_KIND", "PASSKEY_KIND"]

WINDOW_KIND = "extend.window"
PASSKEY_KIND = "extend.passkey"
_PROMPT_VERSION = 1
#: the version of this module's measuring code, stored with every row (a row of another version is recomputed).
#: 2: the frequencies go in through transformers' RoPE registry and the KV cache is checked to grow; rows of version 1
#: computed under transformers 5.24 decoded passkeys with the cache ignored
CODE_VERSION = 2


def _peak_memory_bytes(device: torch.device) -> int:
    if device.type == "cuda":
        return int(torch.cuda.max_memory_allocated(device))
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024  # Linux reports KiB


def _progress(total: int, enabled: bool, desc: str):
    """A bar on a terminal, plain lines in a log or a pipe (:mod:`posenc.progress`)."""
    from posenc.progress import progress as progress_bar

    return progress_bar(total=total, desc=desc, disable=not enabled, unit="job")


class _Runner:
    """Holds the loaded model and the token stream while missing jobs run."""

    def __init__(self, cfg: ExtendConfig, text: str, plan: Plan):
        from posenc.pretrained import load_model

        self.device = torch.device(cfg.device)
        loaded = load_model(cfg.model, dtype=_DTYPES[cfg.dtype], attn_implementation="sdpa")
        self.model = loaded.model.to(self.device)
        self.tokenizer = loaded.tokenizer
        self.source = loaded.source
        self.cfg = cfg
        self.patched = False
        needed = max([j.offset + j.length for j in plan.windows] or [0])
        self.ids = self._tokenize(text, needed) if needed else None

    def _tokenize(self, text: str, needed: int) -> torch.Tensor:
        chars = needed * 6
        while True:
            ids = self.tokenizer(text[:chars], add_special_tokens=False)["input_ids"]
            usable = ids[:-16] if chars < len(text) else ids  # the last tokens of a cut may merge differently
            if len(usable) >= needed or chars >= len(text):
                break
            chars *= 2
        if len(usable) < needed:
            raise PosencError(f"the text has {len(usable)} tokens but the plan needs {needed} (windows x length); "
                              f"use fewer windows or shorter lengths, or a longer --text")
        return torch.tensor(usable, dtype=torch.long)

    def use(self, encoding) -> None:
        if self.patched:
            set_encoding(self.model, encoding)
        else:
            patch_model(self.model, encoding)
            self.patched = True


def _store_keys(cfg: ExtendConfig, corpus: str) -> tuple[dict, dict]:
    base = {"model": cfg.model, "dtype": cfg.dtype}
    return {**base, "corpus": corpus}, {**base, "prompt": _PROMPT_VERSION, "max_new_tokens": MAX_NEW_TOKENS}


def run_extend(config: ExtendConfig | str | None = None, *, store_path: str | os.PathLike | None = "runs/extend.sqlite",
               out_dir: str | os.PathLike | None = None, progress: bool = True, plan_only: bool = False, echo=print,
               **settings: Any) -> dict[str, Any]:
    """Perplexity (both protocols) and passkey accuracy by length x scaling; returns every number as a dict.

    What runs is one :class:`~posenc.extend.plan.ExtendConfig`: pass it whole, or a model name with any of its fields
    as keywords (``run_extend("smollm2", lengths=[4096, 12288], scalings=["none", "yarn"], trials=20)``), or a
    config and keywords that replace some of its fields (:func:`~posenc.extend.plan.extend_config`). Its fields:
    ``model`` (``"smollm2"``, a model folder, a ``.gguf`` file or a cached hub id of a Llama-family model),
    ``lengths`` (tokens; default 2k, 4k, 8k, 16k; quick: 4k, 8k, 12k), ``scalings`` (any of none, linear, ntk,
    dynamic, yarn, llama3), ``protocols`` (``"nonoverlap"`` and / or ``"sliding"``, see
    :mod:`posenc.extend.perplexity`; ``()`` runs the passkey alone), ``passkey``, ``factor`` (default
    ``max(1, L / L0)``), ``windows``, ``stride_fraction``, ``depths``, ``trials``, ``quick``, ``device`` (``"auto"``:
    CUDA, else MPS, else the CPU; checked before anything is read), ``dtype`` (the weights, part of the store keys),
    ``text`` (a UTF-8 file instead of the Shakespeare plays), ``max_memory_gb`` (default: the memory available now)
    and ``seed`` (of the passkeys).

    Args:
        config: an :class:`ExtendConfig`, or the model (default: ``settings``' ``model``, else smollm2).
        store_path: the SQLite results store; ``None`` keeps results in memory only.
        out_dir: write ``extend.json``, ``extend.md`` and ``extend.png`` there (``None``: write nothing).
        progress: show a progress bar.
        plan_only: print the plan and what the store already holds, compute nothing, return the plan.
        echo: where to print the plan and notes (``None`` for silence).
        **settings: fields of :class:`ExtendConfig`; an unknown name is refused with the list of fields.

    Returns:
        ``{"config", "setup", "setups", "plan", "native_len", "factors",
        "ppl": {protocol: {scaling: {length: {...}}}},
        "passkey": {scaling: {length: {...}}}, "timing": {length: {...}}, "jobs", "estimate_s", "wall_s",
        "files"}``. A perplexity cell holds ``window_nll`` (each window's mean loss, the units of its interval) and
        ``ppl_interval`` (95% percentile bootstrap over windows; ``None`` from fewer than 3 windows); a passkey cell holds
        ``correct``, ``n`` and ``interval`` (95% Wilson), overall and per depth (``by_depth_counts``). A
        non-overlapping cell past the native length also holds ``window_nll_within_native``: each window's mean loss
        over its first ``native_len`` tokens (for the unscaled model, by causality, exactly the loss of the
        native-length window at that offset).
    """
    say = echo or (lambda *_: None)
    cfg = extend_config(config, **settings)
    target = resolve_device(cfg.device)
    precision = resolve_dtype(cfg.dtype, target)
    cfg = dataclasses.replace(cfg, device=str(target),
                              dtype=next(name for name, d in _DTYPES.items() if d == precision))
    started = time.time()
    from posenc.pretrained import model_config  # looked up here, so a stand-in for the hub reaches it

    hf_config = model_config(cfg.model)
    check_rope_model(hf_config)
    native = native_length(hf_config)
    limit = int(cfg.max_memory_gb * GB) if cfg.max_memory_gb else None
    estimates = check_fits(hf_config, list(cfg.lengths), _DTYPES[cfg.dtype], kv_cache=bool(cfg.passkey),
                           device=cfg.device, limit_bytes=limit)

    def build_rope(scaling: str, s: float):
        return scaled_rope(hf_config, scaling, s, native)

    plan = make_plan(cfg, native, build_rope)
    say(plan.describe(hf_config))

    from posenc.corpora import load_text

    corpus_text = load_text(cfg.text)
    corpus = f"{'shakespeare' if cfg.text is None else Path(cfg.text).name}:" \
             f"{config_hash({'text': corpus_text})[:16]}"
    window_base, passkey_base = _store_keys(cfg, corpus)
    store = ResultStore(store_path) if store_path is not None else None
    memory: dict[tuple[str, str], dict] = {}
    here = setup(target, precision)
    setups: dict[str, dict] = {}  # every distinct setup of the rows read back

    def key_window(job) -> dict:
        return {**window_base, "length": job.length, "offset": job.offset, "rope": job.rope}

    def key_passkey(job) -> dict:
        return {**passkey_base, "length": job.length, "depth": job.depth, "trial": job.trial, "rope": job.rope,
                "key": passkey_key(job.length, job.depth, job.trial, cfg.seed)}

    def lookup(kind: str, key: dict) -> dict | None:
        if store is not None:
            record = store.get(kind, key, code=CODE_VERSION)
            if record is None or record.status != "done":
                return None
            if record.setup:
                setups.setdefault(json.dumps(record.setup, sort_keys=True), record.setup)
            return {**record.metrics, "wall_s": record.wall_s}
        found = memory.get((kind, config_hash(key)))
        if found is not None:
            setups.setdefault(json.dumps(here, sort_keys=True), here)
        return found

    def save(kind: str, key: dict, metrics: dict, wall_s: float) -> None:
        if store is not None:
            store.put(kind, key, 0, metrics, wall_s, setup=here, code=CODE_VERSION)
        memory[(kind, config_hash(key))] = {**metrics, "wall_s": wall_s}

    missing_w = [j for j in plan.windows if lookup(WINDOW_KIND, key_window(j)) is None]
    missing_p = [j for j in plan.passkeys if lookup(PASSKEY_KIND, key_passkey(j)) is None]
    say(f"store: {len(plan.windows) - len(missing_w)} of {len(plan.windows)} windows and "
        f"{len(plan.passkeys) - len(missing_p)} of {len(plan.passkeys)} passkey prompts already done"
        + (f" ({store.path})" if store is not None else ""))
    if plan_only:
        return {"plan": plan.describe(hf_config), "estimate_s": plan.estimate_seconds(hf_config),
                "jobs": {"windows": len(plan.windows), "passkeys": len(plan.passkeys),
                         "missing": len(missing_w) + len(missing_p)}}
    source = None
    if missing_w or missing_p:
        runner = _Runner(cfg, corpus_text, plan)
        source = runner.source
        by_rope: dict[str, tuple[str, float]] = {}
        for (scaling, n), fingerprint in plan.ropes.items():
            by_rope.setdefault(fingerprint, (scaling, plan.factors[n]))
        # passkey trials of one length, frequency set and depth in a row: they share the text before the needle
        jobs = sorted([("w", j) for j in missing_w] + [("p", j) for j in missing_p],
                      key=lambda kj: (kj[1].length, kj[1].rope, kj[0], getattr(kj[1], "depth", 0.0),
                                      getattr(kj[1], "trial", 0), getattr(kj[1], "offset", 0)))
        bar = _progress(len(jobs), progress, "extend")
        current = None
        shared = SharedPrefix(runner.model)
        for kind, job in jobs:
            if (job.rope, job.length, kind) != current:
                scaling, s = by_rope[job.rope]
                encoding = build_rope(scaling, s)
                if encoding.scaling.length_dependent:  # a window, or a prompt's prefill and decoding, at one length
                    encoding = FixedLengthRope(encoding, job.length)
                runner.use(encoding)
                shared.reset()  # cached keys were rotated by the previous encoding
                current = (job.rope, job.length, kind)
            bar.set_postfix_str(f"{job.length} tok, {'/'.join(job.scalings)}")
            t0 = time.time()
            if kind == "w":
                ids = runner.ids[job.offset:job.offset + job.length]
                nll = token_nll(runner.model, ids)
                metrics = {"nll_b64": encode_nll(nll), "mean_nll": float(nll.double().mean()),
                           "peak_bytes": _peak_memory_bytes(runner.device), "source": source}
                save(WINDOW_KIND, key_window(job), metrics, time.time() - t0)
            else:
                key = passkey_key(job.length, job.depth, job.trial, cfg.seed)
                prompt = build_passkey_prompt(runner.tokenizer, job.length, job.depth, key, MAX_NEW_TOKENS)
                result = passkey_trial(runner.model, runner.tokenizer, prompt, MAX_NEW_TOKENS, shared=shared)
                metrics = {**result, "peak_bytes": _peak_memory_bytes(runner.device), "source": source}
                save(PASSKEY_KIND, key_passkey(job), metrics, time.time() - t0)
            bar.update(1)
        bar.close()
        del runner

    setups.clear()  # the lookups above only counted; _collect reads every row
    result = _collect(cfg, plan, lookup, key_window, key_passkey, estimates)
    result["setup"] = here
    result["setups"] = list(setups.values())
    result["jobs"] = {"windows": len(plan.windows), "passkeys": len(plan.passkeys),
                      "computed": len(missing_w) + len(missing_p),
                      "cached": len(plan.windows) + len(plan.passkeys) - len(missing_w) - len(missing_p)}
    result["model_source"] = source
    result["estimate_s"] = plan.estimate_seconds(hf_config)
    result["wall_s"] = time.time() - started
    result["files"] = _write(result, out_dir) if out_dir is not None else {}
    return result


def _collect(cfg: ExtendConfig, plan: Plan, lookup, key_window, key_passkey, estimates) -> dict[str, Any]:
    """Read every job back and assemble the tables."""
    windows = {(j.length, j.offset, j.rope): lookup(WINDOW_KIND, key_window(j)) for j in plan.windows}
    passkeys = {(j.length, j.depth, j.trial, j.rope): lookup(PASSKEY_KIND, key_passkey(j)) for j in plan.passkeys}
    ppl: dict[str, dict[str, dict[str, Any]]] = {p: {s: {} for s in cfg.scalings} for p in cfg.protocols}
    pk: dict[str, dict[str, Any]] = {s: {} for s in cfg.scalings}
    for n in cfg.lengths:
        for s in cfg.scalings:
            fingerprint = plan.ropes[(s, n)]
            for p in cfg.protocols:
                found = [WindowNLL(o, decode_nll(windows[(n, o, fingerprint)]["nll_b64"])) for o in plan.offsets[(p, n)]]
                stride = plan.strides[n] if p == "sliding" else None
                table = protocol_ppl(found, p, n, stride)
                ppl[p][s][str(n)] = {**table, "stride": stride, "ppl_interval": _ppl_interval(table["window_nll"])}
                if p == "nonoverlap" and n > plan.native_len:  # the part of each window within the native context
                    ppl[p][s][str(n)]["window_nll_within_native"] = [
                        float(w.nll[:plan.native_len - 1].astype(np.float64).mean()) for w in found]
            if cfg.passkey:
                trials = []
                for depth in cfg.depths:
                    for t in range(cfg.trials):
                        r = passkeys[(n, depth, t, fingerprint)]
                        trials.append({"depth": depth, "trial": t, "key": r["key"], "answer": r["answer"],
                                       "correct": bool(r["correct"])})
                by_depth = {str(d): float(np.mean([x["correct"] for x in trials if x["depth"] == d]))
                            for d in cfg.depths}
                counts = {str(d): _passkey_counts([x for x in trials if x["depth"] == d]) for d in cfg.depths}
                pk[s][str(n)] = {"accuracy": float(np.mean([x["correct"] for x in trials])), "by_depth": by_depth,
                                 **_passkey_counts(trials), "by_depth_counts": counts, "trials": trials}
    timing: dict[str, Any] = {}
    for n in cfg.lengths:
        w = [windows[k] for k in windows if k[0] == n]
        p = [passkeys[k] for k in passkeys if k[0] == n]
        timing[str(n)] = {
            "window_s_mean": float(np.mean([x["wall_s"] for x in w])) if w else None,
            "passkey_s_mean": float(np.mean([x["wall_s"] for x in p])) if p else None,
            "peak_gb": max([x.get("peak_bytes", 0) for x in w + p] or [0]) / GB,
            "estimate_gb": estimates[n].total / GB,
        }
    return {"config": {k: (list(v) if isinstance(v, tuple) else v) for k, v in vars(cfg).items()},
            "plan": plan.describe(), "native_len": plan.native_len,
            "factors": {str(n): plan.factors[n] for n in cfg.lengths},
            "windows": {f"{p}:{n}": plan.offsets[(p, n)] for p in cfg.protocols for n in cfg.lengths},
            "strides": {str(n): plan.strides[n] for n in cfg.lengths},
            "scaling_specs": {s: {str(n): scaling_spec(s, plan.factors[n], plan.native_len) for n in cfg.lengths}
                              for s in cfg.scalings},
            "ppl": ppl, "passkey": pk if cfg.passkey else {}, "timing": timing}


def _ppl_interval(window_nll: list[float]) -> list[float] | None:
    """95% percentile-bootstrap interval of ``exp(mean window loss)`` over windows; ``None`` from fewer than
    :data:`~posenc.stats.MIN_UNITS` windows (too few for an interval)."""
    est = bootstrap(window_nll, lambda x: float(np.exp(np.mean(x))), bounds=(1.0, float("inf")))
    return [est.low, est.high] if est.has_interval else None


def _passkey_counts(trials: list[dict]) -> dict[str, Any]:
    """``{"correct", "n", "interval"}``: successes, trials and the 95% Wilson interval of the accuracy."""
    k, n = sum(bool(x["correct"]) for x in trials), len(trials)
    est = wilson(k, n)
    return {"correct": k, "n": n, "interval": [est.low, est.high]}


def to_markdown(result: dict[str, Any]) -> str:
    """The perplexity and passkey tables of a :func:`run_extend` result as markdown."""
    cfg = result["config"]
    lengths = [str(n) for n in cfg["lengths"]]
    native = result["native_len"]
    head = "| scaling | " + " | ".join(f"{n}{'*' if int(n) > native else ''}" for n in lengths) + " |"
    rule = "|---|" + "---|" * len(lengths)
    out = [f"Native length {native} (* = beyond it); factor s per length: "
           + ", ".join(f"{n}: {result['factors'][n]:g}" for n in lengths) + "."]
    names = {"nonoverlap": "non-overlapping windows", "sliding": "sliding window"}
    for protocol, table in result["ppl"].items():
        first = next(iter(table.values()))
        counts = ", ".join(f"{n}: {first[n]['windows']} window(s), {first[n]['tokens']} scored tokens"
                           + (f", stride {first[n]['stride']}" if first[n]["stride"] else "") for n in lengths)
        out += ["", f"Perplexity, {names[protocol]} ({counts}; [95% bootstrap interval over windows])", "", head,
                rule]
        for scaling, row in table.items():
            out.append(f"| {scaling} | " + " | ".join(_ppl_cell(row[n]) for n in lengths) + " |")
    if result.get("passkey"):
        depths = cfg["depths"]
        out += ["", f"Passkey accuracy (depths {depths}, {cfg['trials']} trial(s) each; correct/trials [95% Wilson "
                    f"interval])", "", head, rule]
        for scaling, row in result["passkey"].items():
            out.append(f"| {scaling} | " + " | ".join(_passkey_cell(row[n]) for n in lengths) + " |")
    out += ["", "| length | window forward s | passkey s | peak memory GB | estimate GB |", "|---|---|---|---|---|"]
    for n in lengths:
        t = result["timing"][n]
        out.append(f"| {n} | {_fmt(t['window_s_mean'])} | {_fmt(t['passkey_s_mean'])} | {t['peak_gb']:.2f} | "
                   f"{t['estimate_gb']:.2f} |")
    return "\n".join(out) + "\n"


def _ppl_cell(cell: dict[str, Any]) -> str:
    interval = cell.get("ppl_interval")
    return f"{cell['ppl']:.2f}" + (f" [{interval[0]:.2f}, {interval[1]:.2f}]" if interval else "")


def _passkey_cell(cell: dict[str, Any]) -> str:
    if "n" not in cell:
        return f"{cell['accuracy']:.2f}"
    low, high = cell["interval"]
    return f"{cell['correct']}/{cell['n']} [{low:.2f}, {high:.2f}]"


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.1f}"


def _write(result: dict[str, Any], out_dir: str | os.PathLike) -> dict[str, str]:
    from posenc.plots.extend import extend_figure, passkey_heatmap

    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    files = {"json": str(folder / "extend.json"), "table": str(folder / "extend.md")}
    if result.get("ppl"):
        files["plot"] = str(folder / "extend.png")
        extend_figure(result).savefig(files["plot"], dpi=120)
    if result.get("passkey"):
        files["passkey_plot"] = str(folder / "extend-passkey.png")
        passkey_heatmap(result["passkey"], result.get("native_len")).savefig(files["passkey_plot"], dpi=120)
    Path(files["table"]).write_text(to_markdown(result))
    Path(files["json"]).write_text(json.dumps({**result, "files": files}, indent=2, default=float))
    return files
