"""``run_extend``: perplexity and passkey retrieval of a pretrained RoPE model by length and RoPE scaling.

Steps, in order, each a function below (nothing is loaded until it is needed):

0. ``_resolve``: the device and dtype, resolved once on this machine; every later step takes the torch objects;
1. ``_read_model``: read the model's config only, refuse a model without RoPE, and estimate the memory of the
   longest length (:mod:`posenc.extend.memory`): a length that does not fit is refused before the weights are loaded;
2. ``_plan``: plan the work (:mod:`posenc.extend.plan`) and print the plan;
3. ``_missing``: skip every job the results store already holds finished (kind ``extend.window`` /
   ``extend.passkey``, keyed by model, dtype, text, length, offset or depth, and the RoPE's frequency fingerprint;
   :meth:`posenc.store.ResultStore.finished`), so a re-run computes only what is missing; if nothing is missing the
   model is not even loaded;
4. ``_compute``: load the model, patch posenc's attention into it (:mod:`posenc.extend.patch`) and run the missing
   jobs (``_window``, ``_passkey``), each stored the moment it finishes
   (:meth:`posenc.store.ResultStore.get_or_compute`), grouped by frequencies so each group only swaps the encoding,
   with a progress bar; passkey trials of one length and depth follow each other and share the cached text before
   the needle (:class:`~posenc.extend.passkey.SharedPrefix`);
5. ``_collect``: read every number back from the store, with a 95% interval beside each (perplexity: percentile
   bootstrap over windows; passkey accuracy: Wilson over trials); then ``_write`` writes ``extend.json`` (all
   numbers), ``extend.md`` (the tables), ``extend.png`` (perplexity against length, one line per scaling) and
   ``extend-passkey.png`` (passkey accuracy by depth and length, one panel per scaling).

With ``store_path=None`` the rows live in a :class:`~posenc.store.MemoryStore` for the call. Ctrl-C (or an error)
in step 4 keeps every job stored before it; the next run computes only the rest.

Timing and memory: every job stores its wall time and the process's peak resident memory after it
(``resource.getrusage``; on CUDA the peak allocated device memory). Lengths run from short to long, so the peak
after a length's jobs is the peak needed up to that length.

Device and precision: ``device`` (:func:`posenc.device.resolve_device`; ``auto`` picks CUDA, else MPS, else the CPU)
and ``dtype`` (the model's weights: float32, bfloat16 or float16) are resolved once, before the config is read. The
dtype is part of every job's store key; the device is not (a window computed on a GPU answers for the CPU too) and
is recorded in each row's ``setup`` column. The result's ``setup`` says where this call computed its missing jobs
(``{"device", "dtype"}``) and ``setups`` lists every distinct setup of the rows it read.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import resource
import time
from pathlib import Path
from typing import Any

import numpy as np
import torch

from posenc.device import dtype_name, resolve_device, resolve_dtype, setup
from posenc.errors import PosencError
from posenc.extend.factors import scaling_spec
from posenc.extend.memory import GB, check_fits
from posenc.extend.passkey import SharedPrefix, build_passkey_prompt, passkey_key, passkey_trial
from posenc.extend.patch import FixedLengthRope, check_rope_model, native_length, patch_model, scaled_rope, set_encoding
from posenc.extend.perplexity import WindowNLL, decode_nll, encode_nll, protocol_ppl, token_nll
from posenc.extend.plan import MAX_NEW_TOKENS, ExtendConfig, PasskeyJob, Plan, WindowJob, extend_config, make_plan
from posenc.stats import bootstrap, wilson
from posenc.store import MemoryStore, ResultStore, RunRecord, config_hash

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


@dataclasses.dataclass(frozen=True)
class _Where:
    """Where the jobs run and in which precision, resolved once by :func:`run_extend` (every step below takes these,
    never the config's strings)."""

    device: torch.device
    dtype: torch.dtype

    def setup(self) -> dict[str, str]:
        return setup(self.device, self.dtype)


def _resolve(cfg: ExtendConfig) -> tuple[ExtendConfig, _Where]:
    """The config with its device and dtype resolved on this machine (a device it lacks is refused here, before
    anything is read), and the torch objects every later step uses."""
    target = resolve_device(cfg.device)
    precision = resolve_dtype(cfg.dtype, target)
    return dataclasses.replace(cfg, device=str(target), dtype=dtype_name(precision)), _Where(target, precision)


class _Runner:
    """Holds the loaded model and the token stream while missing jobs run."""

    def __init__(self, cfg: ExtendConfig, where: _Where, text: str, plan: Plan):
        from posenc.pretrained import load_model

        self.device = where.device
        loaded = load_model(cfg.model, dtype=where.dtype, attn_implementation="sdpa")
        self.model = loaded.model.to(self.device)
        self.tokenizer = loaded.tokenizer
        self.source = loaded.source
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


@dataclasses.dataclass
class _Model:
    """What step 1 reads: the model's config (never its weights), its native length and the memory estimates."""

    config: Any
    native: int
    estimates: dict

    def rope(self, scaling: str, factor: float):
        return scaled_rope(self.config, scaling, factor, self.native)


@dataclasses.dataclass
class _Jobs:
    """The plan's jobs as rows of the store: the key of each (kinds :data:`WINDOW_KIND`, :data:`PASSKEY_KIND`) and its
    finished row (:meth:`posenc.store.ResultStore.finished`)."""

    store: ResultStore | MemoryStore
    window_base: dict
    passkey_base: dict
    seed: int

    def key(self, kind: str, job: WindowJob | PasskeyJob) -> dict:
        if kind == WINDOW_KIND:
            return {**self.window_base, "length": job.length, "offset": job.offset, "rope": job.rope}
        return {**self.passkey_base, "length": job.length, "depth": job.depth, "trial": job.trial, "rope": job.rope,
                "key": passkey_key(job.length, job.depth, job.trial, self.seed)}

    def row(self, kind: str, job: WindowJob | PasskeyJob) -> RunRecord | None:
        return self.store.finished(kind, self.key(kind, job), code=CODE_VERSION)


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
    cfg, where = _resolve(extend_config(config, **settings))  # the one place device and dtype are resolved
    started = time.time()
    model = _read_model(cfg, where)
    plan = _plan(cfg, model, say)
    from posenc.corpora import load_text

    corpus_text = load_text(cfg.text)
    jobs = _open_jobs(cfg, corpus_text, store_path)
    missing = _missing(plan, jobs, say)
    if plan_only:
        return {"plan": plan.describe(model.config), "estimate_s": plan.estimate_seconds(model.config),
                "jobs": {"windows": len(plan.windows), "passkeys": len(plan.passkeys), "missing": len(missing)}}
    source = _compute(missing, cfg, where, corpus_text, plan, model, jobs, progress) if missing else None
    result, setups = _collect(cfg, plan, jobs, model.estimates)
    result["setup"] = where.setup()
    result["setups"] = setups
    result["jobs"] = {"windows": len(plan.windows), "passkeys": len(plan.passkeys), "computed": len(missing),
                      "cached": len(plan.windows) + len(plan.passkeys) - len(missing)}
    result["model_source"] = source
    result["estimate_s"] = plan.estimate_seconds(model.config)
    result["wall_s"] = time.time() - started
    result["files"] = _write(result, out_dir) if out_dir is not None else {}
    return result


def _read_model(cfg: ExtendConfig, where: _Where) -> _Model:
    """Step 1: the model's config only; a model without RoPE, or a longest length that does not fit in memory, is
    refused before any weight is loaded."""
    from posenc.pretrained import model_config  # looked up here, so a stand-in for the hub reaches it

    hf_config = model_config(cfg.model)
    check_rope_model(hf_config)
    limit = int(cfg.max_memory_gb * GB) if cfg.max_memory_gb else None
    estimates = check_fits(hf_config, list(cfg.lengths), where.dtype, kv_cache=bool(cfg.passkey),
                           device=where.device, limit_bytes=limit)
    return _Model(hf_config, native_length(hf_config), estimates)


def _plan(cfg: ExtendConfig, model: _Model, say) -> Plan:
    """Step 2: the deduplicated jobs (:func:`~posenc.extend.plan.make_plan`), printed."""
    plan = make_plan(cfg, model.native, model.rope)
    say(plan.describe(model.config))
    return plan


def _open_jobs(cfg: ExtendConfig, corpus_text: str, store_path: str | os.PathLike | None) -> _Jobs:
    """The store (a :class:`~posenc.store.MemoryStore` when ``store_path`` is ``None``) and the keys of the jobs:
    model, dtype, the text's name and hash, and each job's own fields."""
    corpus = f"{'shakespeare' if cfg.text is None else Path(cfg.text).name}:" \
             f"{config_hash({'text': corpus_text})[:16]}"
    window_base, passkey_base = _store_keys(cfg, corpus)
    store = ResultStore(store_path) if store_path is not None else MemoryStore()
    return _Jobs(store, window_base, passkey_base, cfg.seed)


def _missing(plan: Plan, jobs: _Jobs, say) -> list[tuple[str, WindowJob | PasskeyJob]]:
    """Step 3: the jobs the store does not hold finished, ``(kind, job)``; says how many it holds."""
    missing_w = [(WINDOW_KIND, j) for j in plan.windows if jobs.row(WINDOW_KIND, j) is None]
    missing_p = [(PASSKEY_KIND, j) for j in plan.passkeys if jobs.row(PASSKEY_KIND, j) is None]
    say(f"store: {len(plan.windows) - len(missing_w)} of {len(plan.windows)} windows and "
        f"{len(plan.passkeys) - len(missing_p)} of {len(plan.passkeys)} passkey prompts already done"
        + (f" ({jobs.store.path})" if isinstance(jobs.store, ResultStore) else ""))
    return missing_w + missing_p


def _compute(missing: list[tuple[str, WindowJob | PasskeyJob]], cfg: ExtendConfig, where: _Where, corpus_text: str,
             plan: Plan, model: _Model, jobs: _Jobs, progress: bool) -> str:
    """Step 4: load the model, patch posenc's attention in, and run and store each missing job
    (:meth:`~posenc.store.ResultStore.get_or_compute`); returns where the weights came from.

    Jobs run by length, then frequency set (so a group only swaps the encoding), passkeys before windows; passkey
    trials of one length, frequency set and depth follow each other and share the text before the needle.
    """
    runner = _Runner(cfg, where, corpus_text, plan)
    by_rope: dict[str, tuple[str, float]] = {}
    for (scaling, n), fingerprint in plan.ropes.items():
        by_rope.setdefault(fingerprint, (scaling, plan.factors[n]))
    order = sorted(missing, key=lambda kj: (kj[1].length, kj[1].rope, kj[0] == WINDOW_KIND,
                                            getattr(kj[1], "depth", 0.0), getattr(kj[1], "trial", 0),
                                            getattr(kj[1], "offset", 0)))
    bar = _progress(len(order), progress, "extend")
    current = None
    shared = SharedPrefix(runner.model)
    here = where.setup()
    for kind, job in order:
        if (job.rope, job.length, kind) != current:
            scaling, s = by_rope[job.rope]
            encoding = model.rope(scaling, s)
            if encoding.scaling.length_dependent:  # a window, or a prompt's prefill and decoding, at one length
                encoding = FixedLengthRope(encoding, job.length)
            runner.use(encoding)
            shared.reset()  # cached keys were rotated by the previous encoding
            current = (job.rope, job.length, kind)
        bar.set_postfix_str(f"{job.length} tok, {'/'.join(job.scalings)}")
        measure = _window if kind == WINDOW_KIND else _passkey
        jobs.store.get_or_compute(kind, jobs.key(kind, job), functools.partial(measure, runner, job, cfg.seed, shared),
                                  code=CODE_VERSION, setup=here)
        bar.update(1)
    bar.close()
    return runner.source


def _window(runner: _Runner, job: WindowJob, seed: int, shared: SharedPrefix) -> dict[str, Any]:
    """One window's per-token losses (base64, :func:`~posenc.extend.perplexity.encode_nll`) and their mean."""
    nll = token_nll(runner.model, runner.ids[job.offset:job.offset + job.length])
    return {"nll_b64": encode_nll(nll), "mean_nll": float(nll.double().mean()),
            "peak_bytes": _peak_memory_bytes(runner.device), "source": runner.source}


def _passkey(runner: _Runner, job: PasskeyJob, seed: int, shared: SharedPrefix) -> dict[str, Any]:
    """One passkey trial: the prompt with its needle, the model's answer and whether it is right."""
    key = passkey_key(job.length, job.depth, job.trial, seed)
    prompt = build_passkey_prompt(runner.tokenizer, job.length, job.depth, key, MAX_NEW_TOKENS)
    result = passkey_trial(runner.model, runner.tokenizer, prompt, MAX_NEW_TOKENS, shared=shared)
    return {**result, "peak_bytes": _peak_memory_bytes(runner.device), "source": runner.source}


def _collect(cfg: ExtendConfig, plan: Plan, jobs: _Jobs, estimates) -> tuple[dict[str, Any], list[dict]]:
    """Step 5: read every job back and assemble the tables; also every distinct setup of the rows read."""
    setups: dict[str, dict] = {}

    def read(kind: str, job: WindowJob | PasskeyJob) -> dict[str, Any]:
        record = jobs.row(kind, job)
        if record.setup:
            setups.setdefault(json.dumps(record.setup, sort_keys=True), record.setup)
        return {**record.metrics, "wall_s": record.wall_s}

    windows = {(j.length, j.offset, j.rope): read(WINDOW_KIND, j) for j in plan.windows}
    passkeys = {(j.length, j.depth, j.trial, j.rope): read(PASSKEY_KIND, j) for j in plan.passkeys}
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
            "ppl": ppl, "passkey": pk if cfg.passkey else {}, "timing": timing}, list(setups.values())


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
    from posenc.extend.compare_scalings import passkey_cells
    from posenc.plots.extend import extend_figure, passkey_heatmap

    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    files = {"json": str(folder / "extend.json"), "table": str(folder / "extend.md")}
    if result.get("ppl"):
        files["plot"] = str(folder / "extend.png")
        extend_figure(result).savefig(files["plot"], dpi=120)
    if result.get("passkey"):
        files["passkey_plot"] = str(folder / "extend-passkey.png")
        passkey_heatmap(passkey_cells(result["passkey"]), result.get("native_len")).savefig(files["passkey_plot"], dpi=120)
    Path(files["table"]).write_text(to_markdown(result))
    Path(files["json"]).write_text(json.dumps({**result, "files": files}, indent=2, default=float))
    return files
