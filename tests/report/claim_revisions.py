"""The code each report claim's stored result depends on, as a fingerprint, and the table that pins it.

A claim's measurement is stored under its experiment and ``revision`` (:func:`posenc.report.run.store_config`), so a
change to what the experiment computes must come with a bumped revision, or the store keeps serving the old number.
:func:`fingerprint` hashes the experiment's function, its ``prepare`` step, its page (:mod:`posenc.report.present`), and
everything of :data:`FOLLOWED` they reach by name (helpers, constants, the library's measuring code), transitively; docstrings, comments and formatting do not count.
``claim_revisions.json`` beside this file pins, per claim, the revision and that fingerprint
(``tests/report/test_claim_revisions.py`` compares them), and the code versions the lab and extension stores key by.

After changing an experiment: bump the revision of its claims in the ledger, then rewrite the table::

    .venv/bin/python tests/report/claim_revisions.py

The rewrite refuses a claim whose code changed while its revision did not grow.
"""

from __future__ import annotations

import ast
import hashlib
import importlib
import inspect
import json
import sys
import textwrap
from pathlib import Path
from typing import Any

TABLE = Path(__file__).with_name("claim_revisions.json")
#: the code followed by name: the experiments and their pages (whose rows and setup are stored with the measurement),
#: and the library's measuring code they call, whose results the store keeps under the claim: the probes, the
#: properties, the lab's comparisons of runs, traced runs and embedding statistics, the extension's statistics, the
#: parameter counts and the config reading. The rest of posenc has its own versions (the code versions below) or is
#: what is measured (an encoding's table is tested against its reference, not cached by a claim)
FOLLOWED = ("posenc.report.experiments", "posenc.report.present", "posenc.probe", "posenc.properties",
            "posenc.lab.compare", "posenc.lab.traced", "posenc.lab.embeddings", "posenc.extend.compare_scalings",
            "posenc.model.parameters", "posenc.hf.model_reading")
#: records and registration shared by every experiment (Context, Measurement, Row, the decorator): their classes are
#: not followed, or any change to them would ask every claim for a new revision; their functions are
SHARED = "posenc.report.experiments.base"
#: module -> the constant whose value keys the stored rows that module computes
CODE_VERSIONS = {"posenc.lab.train": "CODE_VERSION", "posenc.extend.run": "CODE_VERSION"}


def _plain(node: ast.AST) -> str:
    """The code of ``node`` without docstrings (comments and layout are not in the tree)."""
    for inner in ast.walk(node):
        body = getattr(inner, "body", None)
        if isinstance(inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module) and body and \
                isinstance(body[0], ast.Expr) and isinstance(getattr(body[0], "value", None), ast.Constant) and \
                isinstance(body[0].value.value, str):
            inner.body = body[1:] or [ast.Pass()]
    return ast.unparse(node)


def _names(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}


def _constant(value: Any) -> str | None:
    try:
        return json.dumps(value, sort_keys=True)
    except (TypeError, ValueError):
        return None


def reached(*functions: Any) -> dict[str, str]:
    """``{qualified name: code}`` of ``functions`` and of every function, class and plain constant (as JSON) of
    :data:`FOLLOWED` that they reach through global names or names imported inside a function, transitively."""
    parts: dict[str, str] = {}
    todo = [inspect.unwrap(f) for f in functions if f is not None]
    while todo:
        fn = todo.pop()
        key = f"{fn.__module__}.{fn.__qualname__}"
        if key in parts:
            continue
        tree = ast.parse(textwrap.dedent(inspect.getsource(fn)))
        for node in tree.body:  # the registration is not the computation (prepare is followed on its own)
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                node.decorator_list = []
        parts[key] = _plain(tree)
        scope = getattr(fn, "__globals__", None) or vars(sys.modules[fn.__module__])
        local = _local_imports(tree)
        for name in sorted(_names(tree)):
            if name in local:  # imported inside the function: the module it names owns it
                owner, value = local[name]
            elif name in scope:
                owner, value = scope.get("__name__", ""), scope[name]
            else:
                continue
            target = inspect.unwrap(value) if callable(value) else value
            module = getattr(target, "__module__", None) or ""
            if (inspect.isfunction(target) or inspect.isclass(target) and module != SHARED) \
                    and module.startswith(FOLLOWED):
                todo.append(target)
            elif owner.startswith(FOLLOWED) and not callable(value) and not inspect.ismodule(value):
                text = _constant(value)
                if text is not None:
                    parts[f"{owner}.{name}"] = text
    return parts


def _local_imports(tree: ast.AST) -> dict[str, tuple[str, Any]]:
    """``{name: (module, value)}`` of the ``from module import name`` statements inside a function: experiments
    import the areas they call inside the function (base.py's rule), so a helper of another experiments module
    reached that way is followed like a global one."""
    found: dict[str, tuple[str, Any]] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            module = importlib.import_module(node.module)
            for alias in node.names:
                if alias.name != "*" and hasattr(module, alias.name):
                    found[alias.asname or alias.name] = (node.module, getattr(module, alias.name))
    return found


def fingerprint(*functions: Any) -> str:
    """SHA-256 (16 hex digits) of what :func:`reached` finds from ``functions``."""
    parts = reached(*functions)
    digest = hashlib.sha256("\n".join(f"{k}\n{parts[k]}" for k in sorted(parts)).encode())
    return digest.hexdigest()[:16]


def current() -> dict[str, Any]:
    """The table as the code stands: per claim its experiment, revision and fingerprint; the code versions."""

    from posenc.report.experiments import get_experiment
    from posenc.report.ledger import LEDGER
    from posenc.report.present import page_of

    claims = {}
    for claim in LEDGER:
        exp = get_experiment(claim.experiment)
        claims[claim.id] = {"experiment": claim.experiment, "revision": claim.revision,
                            "code": fingerprint(exp.fn, exp.prepare, page_of(claim.experiment))}
    versions = {m: getattr(importlib.import_module(m), name) for m, name in CODE_VERSIONS.items()}
    return {"claims": dict(sorted(claims.items())), "code_versions": versions}


def rewrite() -> int:
    now = current()
    old = json.loads(TABLE.read_text()) if TABLE.exists() else {"claims": {}, "code_versions": {}}
    stale = [f"{cid} (revision {row['revision']}, as pinned)" for cid, row in now["claims"].items()
             if cid in old["claims"] and row["code"] != old["claims"][cid]["code"]
             and row["revision"] <= old["claims"][cid]["revision"]]
    if stale:
        print("the code of these claims' experiments changed, but their revision did not grow: bump it in the "
              "ledger first, so stored results are computed again:\n  " + "\n  ".join(stale), file=sys.stderr)
        return 1
    TABLE.write_text(json.dumps(now, indent=1) + "\n")
    print(f"wrote {TABLE} ({len(now['claims'])} claims)")
    return 0


if __name__ == "__main__":
    sys.exit(rewrite())
