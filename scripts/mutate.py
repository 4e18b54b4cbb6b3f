"""Mutation testing of the modules where a silent bug would corrupt results (``make mutate``).

mutmut (https://github.com/boxed/mutmut) plants one small change at a time in the source (``<`` for ``<=``, ``+1``,
a swapped ``and``/``or``, a dropped argument...) and runs the tests that reach the changed function; a change that no
test notices ("survived") is a blind spot or an equivalent change. The whole set of mutants of the default modules
is several thousand, hours on 2 cores, so this script draws a seeded random sample of them and reports the mutation
score (killed / checked) with a 95% Wilson interval, per module and overall, and every surviving change as a diff.

Steps (each says how long it took):

1. check the request: module names exist, the tree has no uncommitted changes (the mutants are made from the last
   commit, so uncommitted changes would not be what is tested), the output folder is writable;
2. export the last commit into ``WORK`` (``.mutate/work``; nothing in the checkout is touched) and write mutmut's
   settings there: only the chosen modules are mutated, and the tests mirroring them (:data:`TESTS`) are run;
3. generate every mutant and trace which tests reach which function (mutmut's stats run);
4. sample ``--sample`` of the mutants (seed ``--seed``) and run them with ``--workers`` processes;
5. write ``OUT/summary.json`` and ``OUT/summary.md`` (score, intervals, surviving diffs).

Usage::

    python scripts/mutate.py                      # the default modules, 400 mutants, 2 workers
    python scripts/mutate.py posenc.encodings.alibi --sample 0   # every mutant of one module
    python scripts/mutate.py --every-package --per-module 60 --seed 2026   # 60 of each package of src/posenc
    python scripts/mutate.py --since 2026-11-25 --sample 150 --seed 7  # 150 of the modules changed since a date

With ``--since`` the sample is drawn before the mutants are generated: a first pass counts each changed file's
mutants (libcst's parse and mutation search, a third of generating them), the sample is drawn from that list, and
mutmut then generates only the sampled mutants and traces only the tests of the files they are in.
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import time
import tomllib
from io import BytesIO
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SRC = ROOT / "src"

#: module -> the test paths that check it (the mirror layout, plus the reference comparisons that exercise it)
TESTS: dict[str, tuple[str, ...]] = {
    "posenc.encodings": ("tests/encodings", "tests/test_registry.py", "tests/hf/test_config_rotary.py", "tests/model"),
    "posenc.kernels": ("tests/kernels",),
    "posenc.properties": ("tests/properties",),
    "posenc.probe": ("tests/probe",),
    "posenc.corpora": ("tests/test_corpora.py",),
    "posenc.lab.train": ("tests/lab",),
    "posenc.lab.evaluate": ("tests/lab",),
    "posenc.lab.sweep": ("tests/lab",),
    "posenc.lab.string_tasks": ("tests/lab",),
    "posenc.store": ("tests/test_store.py", "tests/lab/test_sweep_resume.py"),
    "posenc.stats": ("tests/test_stats.py",),
    "posenc.report.verdict": ("tests/report/test_verdict_ledger.py",),
}
DEFAULT_MODULES = tuple(TESTS)
#: ``--every-package``: each subpackage of ``src/posenc``, and ``posenc`` itself for its top-level modules (a mutant
#: belongs to the longest requested name, so ``posenc`` keeps only the modules no subpackage holds); with
#: ``--per-module`` each is sampled on its own
PACKAGE_TESTS: dict[str, tuple[str, ...]] = {
    "posenc": ("tests",),
    "posenc.cli": ("tests/cli",),
    "posenc.encodings": TESTS["posenc.encodings"],
    "posenc.explore": ("tests/explore", "tests/cli/test_explore.py"),
    "posenc.extend": ("tests/extend",),
    "posenc.hf": ("tests/hf", "tests/test_inspection.py", "tests/test_inspection_silent.py"),
    "posenc.kernels": TESTS["posenc.kernels"],
    "posenc.lab": ("tests/lab",),
    "posenc.model": ("tests/model", "tests/encodings"),
    "posenc.plots": ("tests/plots", "tests/report"),
    "posenc.probe": TESTS["posenc.probe"],
    "posenc.properties": TESTS["posenc.properties"],
    "posenc.report": ("tests/report",),
}
#: modules inside the default packages that a default run leaves out, and why; named on the command line they run
LEFT_OUT: dict[str, str] = {
    "posenc.kernels.triton_rope": "Triton does not install on this machine (CPU-only, no wheel), so every test that "
                                  "reaches the kernel skips and every mutant would survive untested; run it where "
                                  "Triton is installed (TRITON_INTERPRET=1 on a CPU)",
    "posenc.kernels.bench": "the speed benchmark (`posenc bench`): it times providers and formats a table; what it "
                            "runs is checked against the reference by the kernel tests, and its numbers are timings",
}
#: tests mutmut cannot run, and why; each is left out of every mutation run (the fast suite runs them)
NOT_UNDER_MUTMUT: dict[str, str] = {
    "tests/lab/test_sweep_interrupt.py::test_ctrl_c_stops_the_pool_keeps_finished_runs_and_says_how_to_resume":
        "sends Ctrl-C to a real pool of spawned worker processes: under mutmut's run of the unmodified code a worker "
        "dies ('a worker process of sweep grid died', exit 2 where 130 is expected) while the same test passes "
        "outside it, so with it in no mutant of the lab could be judged",
}
#: the tests of this script: they name posenc's modules as examples, not to test them, and read git, which the
#: exported copy mutmut runs in has not (under mutmut on 2026-11-29 `test_the_modules_changed_since_a_date_are_named_as_
#: files_that_exist` failed on the unmutated code and stopped the trace), so no module's tests include them
SCRIPT_TESTS = ("tests/test_mutate_script.py", "tests/test_mutate_since.py")
PYTEST_ARGS = ["-m", "not slow and not browser and not ray", "-p", "no:xdist", "-p", "no:cacheprovider", "-q", "-x",
               *[arg for test in NOT_UNDER_MUTMUT for arg in ("--deselect", test)]]
# the tests marked ray stay out: a Ray cluster's processes outlive the test that started them, and mutmut, which
# waits for any child process, stops on the first one it did not start (tried 2026-11-26 on posenc.lab: "KeyError"
# in mutmut's wait_for_result, every mutant left unchecked)
# mutmut's exit-code meanings: its own table (mutmut/stats.py), so a code it adds (SIGXCPU, -24, is its time limit)
# is read as mutmut reads it; anything it does not know is "suspicious" and not scored


#: surviving mutants judged equivalent (no input can tell them from the code), each with why; matched by function
#: and change, not by number (numbers move when a function changes or with ``--since``'s draw)
EQUIVALENT = ROOT / "scripts" / "equivalent_mutants.toml"


def load_equivalents(path: Path = EQUIVALENT) -> list[dict]:
    """The entries of ``path``: each ``function`` (mutmut's name without the number, ``posenc.m.x_f`` or
    ``posenc.m.xǁClassǁmethod``), ``diff`` (the removed and added lines, as ``mutmut show`` prints them) and
    ``why``. A missing file is an empty list; an entry without one of the three is refused, naming it."""
    if not path.is_file():
        return []
    entries = tomllib.loads(path.read_text()).get("mutant", [])
    for i, e in enumerate(entries, 1):
        missing = [k for k in ("function", "diff", "why") if not e.get(k)]
        if missing or not isinstance(e["diff"], list):
            lacks = ", ".join(missing) or "a list of diff lines"
            raise UsageError(f"{path.name}: mutant {i} ({e.get('function', '?')}) lacks {lacks}; each needs "
                             "function, diff (a list of '-' and '+' lines) and why")
    return entries


def _lines(diff: list[str]) -> list[str]:
    return [line[:1] + line[1:].strip() for line in diff]


def equivalent_reason(mutant: str, diff: list[str], entries: list[dict]) -> str | None:
    """Why ``mutant`` (its ``diff``) is equivalent, from the listed ``entries``; ``None`` when it is not listed."""
    function = mutant.partition("__mutmut_")[0]
    for e in entries:
        if e["function"] == function and _lines(e["diff"]) == _lines(diff):
            return e["why"]
    return None


def status_of(code: int | None) -> str:
    from mutmut.stats import status_by_exit_code

    return status_by_exit_code[code]


class UsageError(Exception):
    """A request that cannot run; the message says what was given and what fits."""


def module_path(name: str, src: Path = SRC) -> Path:
    """``posenc.a.b`` -> ``src/posenc/a/b`` (a package folder) or ``src/posenc/a/b.py``, in ``src`` (default the
    checkout's; the folder mutmut runs in has its own copy of the last commit, which others' uncommitted moves in the
    checkout do not change)."""
    base = src.joinpath(*name.split("."))
    if base.is_dir() and (base / "__init__.py").exists():
        return base
    if base.with_suffix(".py").is_file():
        return base.with_suffix(".py")
    known = sorted(".".join(p.relative_to(src).with_suffix("").parts).removesuffix(".__init__")
                   for p in (src / "posenc").rglob("*.py"))
    close = difflib.get_close_matches(name, known, n=3)
    hint = f" Did you mean {', '.join(close)}?" if close else ""
    raise UsageError(f"no module {name!r} in src/ (expected a dotted name such as posenc.encodings or "
                     f"posenc.lab.train).{hint}")


def tests_for(name: str) -> tuple[str, ...]:
    """The tests of ``name``: its own entry (:data:`TESTS`, then :data:`PACKAGE_TESTS`), for a top-level module
    without one the test files that name it (:func:`tests_naming`), the entry of its nearest listed package, or its
    mirror folder."""
    parts = name.split(".")
    if len(parts) == 2 and name not in TESTS and (SRC / "posenc" / f"{parts[1]}.py").is_file():
        return tests_naming(name)  # a top-level module without an entry of its own
    for k in range(len(parts), 0, -1):
        for table in (TESTS, PACKAGE_TESTS):
            if ".".join(parts[:k]) in table:
                return table[".".join(parts[:k])]
    mirror = ROOT / "tests" / Path(*parts[1:2])
    if mirror.is_dir():
        return (str(mirror.relative_to(ROOT)),)
    raise UsageError(f"no tests known for {name!r}: add it to TESTS in scripts/mutate.py")


def tests_naming(name: str) -> tuple[str, ...]:
    """The test files that name the top-level module ``name`` (``posenc.stats`` or ``from posenc import stats``),
    for the modules outside every subpackage, whose mirror folder would be the whole of ``tests``. A module no test
    names gets none: its mutants count as reached by no test."""
    short = name.split(".")[-1]
    pattern = re.compile(rf"\b{re.escape(name)}\b|from posenc import [^\n]*\b{re.escape(short)}\b")
    if short == "__init__":  # the package's own names: posenc.build, posenc.available, ...
        pattern = re.compile(r"^import posenc\b|^from posenc import", re.MULTILINE)
    found = sorted(str(p.relative_to(ROOT)) for p in (ROOT / "tests").rglob("test_*.py")
                   if str(p.relative_to(ROOT)) not in SCRIPT_TESTS and pattern.search(p.read_text(errors="replace")))
    return tuple(found)  # none: its mutants reach no test and count as surviving


def changed_since(date: str) -> list[str]:
    """The modules of ``src/posenc`` whose source changed in git since ``date`` and still exist at the last commit,
    as dotted names of files (a package's ``__init__.py`` as ``posenc.x.__init__``), without :data:`LEFT_OUT`."""
    if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", date):
        raise UsageError(f"--since takes a date as YYYY-MM-DD, got {date!r} (for example --since 2026-11-25)")
    # from the start of that day: a bare date means that day at the current time of day to git
    names = git("log", f"--since={date} 00:00:00", "--name-only", "--pretty=format:", "--", "src/posenc").split()
    tracked = set(git("ls-tree", "-r", "--name-only", "HEAD", "--", "src/posenc").split())
    files = sorted({n for n in names if n.endswith(".py") and n in tracked})
    mods = [".".join(Path(f).relative_to("src").with_suffix("").parts) for f in files]
    mods = [m for m in mods if m not in LEFT_OUT]
    if not mods:
        raise UsageError(f"no module of src/posenc changed since {date} (git log --since {date} -- src/posenc): "
                         "give an earlier date")
    return mods


def check_clean() -> None:
    out = subprocess.run(["git", "status", "--porcelain", "--", "src", "tests", "pyproject.toml"], cwd=ROOT,
                         capture_output=True, text=True, check=True).stdout.rstrip()
    if out:
        files = ", ".join(line[3:] for line in out.splitlines()[:6])
        raise UsageError(f"the tree has uncommitted changes ({files}{', ...' if out.count(chr(10)) >= 6 else ''}). "
                         "The mutants are made from the last commit, so these changes would not be tested and a "
                         "score would describe other code: commit or stash them, then run again.")


def check_writable(folder: Path) -> None:
    """The output folder can be made and written (posenc's own check for every command's ``--out``); then made."""
    from posenc.cli.paths import output_dir
    from posenc.errors import PosencError

    try:
        output_dir(folder, "--out").mkdir(parents=True, exist_ok=True)
    except PosencError as e:
        raise UsageError(str(e)) from e


def export_head(work: Path) -> None:
    """The last commit's files into ``work`` (``git archive``), replacing what was there."""
    if work.exists():
        shutil.rmtree(work)
    work.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", "HEAD"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(work, filter="data")


def left_out(modules: list[str]) -> list[str]:
    """The :data:`LEFT_OUT` modules inside a requested package that were not named themselves."""
    return [m for m in LEFT_OUT if m not in modules and any(m.startswith(p + ".") for p in modules)]


#: what mutmut copies beside src/ and tests/ into the folder it runs the tests in (files some tests read or run)
ALSO_COPY = ("docs/", "README.md", "scripts/", "benchmarks/")


def write_settings(work: Path, modules: list[str], tests: list[str]) -> None:
    globs = []
    src = work / "src" if (work / "src").is_dir() else SRC  # the exported commit's (the checkout's before export)
    for m in modules:
        path = module_path(m, src).relative_to(src.parent)
        globs.append(f"{path}/*" if path.suffix != ".py" else str(path))
    globs = sorted(set(globs))
    skip = [str(module_path(m, src).relative_to(src.parent)) for m in left_out(modules)]
    lines = ["", "[tool.mutmut]", 'source_paths = ["src/"]', f"only_mutate = {json.dumps(globs)}",
             f"do_not_mutate = {json.dumps(skip)}",
             f"pytest_add_cli_args = {json.dumps(PYTEST_ARGS)}",
             f"pytest_add_cli_args_test_selection = {json.dumps(tests)}",
             # tests that read files beside src/ and tests/ run in mutmut's copy too: the docs (the presets' run
             # counts in docs/lab.md), the README (its commands), the scripts and benchmarks some tests run
             f"also_copy = {json.dumps(list(ALSO_COPY))}",
             # a raise statement is not mutated (the condition before it is): its message is prose, not a result
             'do_not_mutate_patterns = ["^\\\\s*raise "]', ""]
    with open(work / "pyproject.toml", "a") as f:
        f.write("\n".join(lines))


#: one thread per mutant process. mutmut forks each mutant from a process that has already run the tests; a torch or
#: BLAS thread pool started there does not survive the fork, and a child that uses it waits forever (until mutmut's
#: time limit, which would then count the mutant as killed). With one thread no pool is started. The workers run
#: side by side, so this also keeps them from oversubscribing the cores.
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}


def mutmut(work: Path, *args: str, log: Path, plan: Path | None = None) -> int:
    """mutmut's command in ``work``; with ``plan`` (``--since``), through :func:`mutmut_with_plan`."""
    exe = [str(Path(sys.executable).parent / "mutmut")]
    if plan is not None:
        exe = [sys.executable, str(Path(__file__).resolve()), "__mutmut__", str(plan.resolve())]
    with open(log, "a") as out:
        return subprocess.run([*exe, *args], cwd=work, stdout=out, stderr=subprocess.STDOUT,
                              env={**os.environ, **ONE_THREAD}).returncode


def trace_failure(log: Path) -> str:
    """The failing part of mutmut's log when its run of the tests on the unmutated code (the stats run) failed;
    ``""`` when it passed. mutmut exits 0 either way, so its log is the only sign."""
    text = log.read_text(errors="replace")
    if "failed to collect stats" not in text:
        return ""
    lines = [ln for ln in text.splitlines() if ln.startswith(("ERROR", "FAILED", "E  "))]
    return "\n".join(lines[:8]) or text.strip().splitlines()[-1]


def read_meta(work: Path) -> dict[str, tuple[int | None, float]]:
    """``{mutant: (exit code or None, estimated seconds)}`` from mutmut's ``.meta`` files."""
    found = {}
    for meta in (work / "mutants").rglob("*.meta"):
        data = json.loads(meta.read_text())
        est = data.get("estimated_time_of_tests_by_mutant") or data.get("estimated_durations_by_key", {})
        for key, code in data["exit_code_by_key"].items():
            found[key] = (code, float(est.get(key, 0.0)))
    return found


def draw(mine: list[str], modules: list[str], sample: int, per_module: int, seed: int) -> list[str]:
    """The mutants to run: all of ``mine`` (``sample`` 0), ``sample`` of them at random, or with ``per_module``,
    that many of each module's own (all where it has fewer), each module drawn with its own seeded generator so one
    module's count does not move another's draw."""
    if per_module:
        drawn = []
        for mod in modules:
            own = [m for m in mine if owner(m, modules) == mod]
            drawn += own if per_module >= len(own) else random.Random(f"{seed}/{mod}").sample(own, per_module)
        return sorted(drawn)
    if sample == 0 or sample >= len(mine):
        return mine
    return sorted(random.Random(seed).sample(mine, sample))


def count_mutants(files: list[str]) -> dict[str, dict[str, int]]:
    """``{file module: {function key: mutants}}`` in mutmut's own order (run in its folder, so its settings, such as
    the raise statements left alone, apply). Only libcst's parse and mutation search: a third of generating them."""
    from mutmut.mutation.file_mutation import create_mutations

    counts: dict[str, dict[str, int]] = {}
    for f in files:
        path = module_path(f, Path.cwd() / "src").relative_to(Path.cwd())  # run in mutmut's folder
        module, mutations, _, _ = create_mutations(str(path), path.read_text())
        keys = function_keys(module)
        per: dict[str, int] = {}
        for m in mutations:
            if m.contained_by_top_level_function in keys:
                key = keys[m.contained_by_top_level_function]
                per[key] = per.get(key, 0) + 1
        counts[f] = per
    return counts


def function_keys(module) -> dict:
    """libcst node -> mutmut's key of each top-level function and method (``x_f``, ``xǁClassǁmethod``)."""
    import libcst as cst
    from mutmut.mutation.trampoline_templates import mangle_function_name

    keys = {}
    for stmt in module.body:
        if isinstance(stmt, cst.FunctionDef):
            keys[stmt] = mangle_function_name(name=stmt.name.value, class_name=None)
        elif isinstance(stmt, cst.ClassDef) and isinstance(stmt.body, cst.IndentedBlock):
            for method in stmt.body.body:
                if isinstance(method, cst.FunctionDef):
                    keys[method] = mangle_function_name(name=method.name.value, class_name=stmt.name.value)
    return keys


def mutant_prefix(file_module: str, key: str) -> str:
    """mutmut's name of a function's mutants without the number (``posenc.x.__init__`` is ``posenc.x``)."""
    return f"{file_module.removesuffix('.__init__')}.{key}__mutmut_"


def plan_sample(counts: dict[str, dict[str, int]], sample: int, seed: int) -> dict:
    """Draw ``sample`` of every counted mutant (each named ``file:function:n``, n its place in the function in
    mutmut's order), and name each as mutmut will when only the drawn ones are generated (numbered 1.. within their
    function): ``{"keep": {file: {function: [n...]}}, "names": {mutmut name: file:function:n}}``."""
    every = [f"{f}:{k}:{i}" for f in sorted(counts) for k in sorted(counts[f]) for i in range(1, counts[f][k] + 1)]
    drawn = every if sample == 0 or sample >= len(every) else random.Random(seed).sample(every, sample)
    keep: dict[str, dict[str, list[int]]] = {}
    for d in drawn:
        f, k, i = d.rsplit(":", 2)
        keep.setdefault(f, {}).setdefault(k, []).append(int(i))
    names = {}
    for f, funcs in keep.items():
        for k, idx in funcs.items():
            idx.sort()
            names.update({f"{mutant_prefix(f, k)}{j}": f"{f}:{k}:{i}" for j, i in enumerate(idx, 1)})
    return {"keep": keep, "names": dict(sorted(names.items())), "total": len(every)}


def keep_drawn(search, keep: dict[str, dict[str, list[int]]]):
    """mutmut's mutation search ``search`` (``create_mutations``) keeping only the drawn mutants: ``keep`` maps a
    source path (``src/posenc/m.py``) to ``{function key: [n, ...]}``, n a mutant's place in its function in the
    search's order (what :func:`count_mutants` counted)."""
    def create_kept(filename, code, *rest):
        module, mutations, ignored_classes, ignored_functions = search(filename, code, *rest)
        wanted, keys, seen, kept = keep.get(str(filename), {}), function_keys(module), {}, []
        for m in mutations:
            key = keys.get(m.contained_by_top_level_function)
            if key is None:
                continue
            seen[key] = seen.get(key, 0) + 1
            if seen[key] in wanted.get(key, ()):
                kept.append(m)
        return module, kept, ignored_classes, ignored_functions

    return create_kept


def mutmut_with_plan(plan_file: str, argv: list[str]) -> int:
    """mutmut's command line, with two changes (``scripts/mutate.py __mutmut__ PLAN ARGS``): a file's mutants are
    only the ones the plan keeps, and mutmut's run of the tests on the unmutated code before the mutants is skipped,
    since its trace (the stats run) has just run the same tests on the same code and stopped the run if one failed."""
    import mutmut.__main__ as mm
    import mutmut.mutation.file_mutation as fm

    plan = json.loads(Path(plan_file).read_text())
    here = Path.cwd()  # mutmut's folder
    keep = {str(module_path(f, here / "src").relative_to(here)): funcs for f, funcs in plan["keep"].items()}
    fm.create_mutations = keep_drawn(fm.create_mutations, keep)
    runner_of = mm.get_mutant_runner

    def without_clean_run(*a, **k):
        runner = runner_of(*a, **k)
        runner.run_clean_tests = lambda tests: 0
        return runner

    mm.get_mutant_runner = without_clean_run
    try:
        mm.cli(argv, standalone_mode=False)
    except SystemExit as e:
        return int(e.code or 0)
    return 0


def owner(mutant: str, modules: list[str]) -> str:
    """The requested module a mutant belongs to (the longest matching name)."""
    return max((m for m in modules if mutant.startswith(m + ".")), key=len, default="?")


def wilson(k: int, n: int) -> tuple[float, float]:
    from posenc.stats import wilson as _wilson

    e = _wilson(k, n)
    return e.low, e.high


def summarize(work: Path, sampled: list[str], modules: list[str], seconds: dict[str, float], args) -> dict:
    meta = read_meta(work)
    by_status: dict[str, list[str]] = {}
    for m in sampled:
        by_status.setdefault(status_of(meta[m][0]), []).append(m)
    per_module = {}
    for mod in modules:
        mine = [m for m in sampled if owner(m, modules) == mod]
        killed = sum(status_of(meta[m][0]) in ("killed", "timeout") for m in mine)
        checked = sum(status_of(meta[m][0]) in ("killed", "timeout", "survived", "no tests") for m in mine)
        low, high = wilson(killed, checked) if checked else (0.0, 1.0)
        per_module[mod] = {"sampled": len(mine), "checked": checked, "killed": killed,
                           "score": killed / checked if checked else None, "interval": [low, high]}
    killed = sum(len(by_status.get(s, [])) for s in ("killed", "timeout"))
    checked = killed + len(by_status.get("survived", [])) + len(by_status.get("no tests", []))
    low, high = wilson(killed, checked) if checked else (0.0, 1.0)
    survivors = {}
    for m in by_status.get("survived", []) + by_status.get("no tests", []):
        shown = subprocess.run([str(Path(sys.executable).parent / "mutmut"), "show", m], cwd=work,
                               capture_output=True, text=True).stdout
        survivors[m] = [ln for ln in shown.splitlines() if ln[:1] in "+-" and ln[:3] not in ("+++", "---")]
    listed = load_equivalents()
    equivalent = {m: why for m, diff in survivors.items() if (why := equivalent_reason(m, diff, listed))}
    judged = checked - len(equivalent)
    low_e, high_e = wilson(killed, judged) if judged else (0.0, 1.0)
    return {"modules": modules, "left_out": {m: LEFT_OUT[m] for m in left_out(modules)},
            "equivalent": equivalent, "score_without_equivalent": killed / judged if judged else None,
            "interval_without_equivalent": [low_e, high_e],
            "sample": len(sampled), "seed": args.seed, "workers": args.workers,
            "per_module_draw": getattr(args, "per_module", 0),
            "total_mutants": len(meta), "score": killed / checked if checked else None, "interval": [low, high],
            "counts": {s: len(v) for s, v in sorted(by_status.items())}, "per_module": per_module,
            "seconds": seconds, "survivors": survivors,
            "note": "score = (killed + timeout) / (killed + timeout + survived + no tests); 95% Wilson interval "
                    "over the sampled mutants"}


def write_summary(out: Path, s: dict) -> None:
    (out / "summary.json").write_text(json.dumps(s, indent=1))
    pct = lambda x: "-" if x is None else f"{100 * x:.1f}%"  # noqa: E731
    lines = ["# Mutation testing summary", "",
             f"{s['sample']} mutants sampled (seed {s['seed']}"
             + (f", {s['per_module_draw']} of each module" if s.get("per_module_draw") else "")
             + f") of {s['total_mutants']} in {', '.join(s['modules'])}.",
             *[f"Left out: {m} ({why})." for m, why in s.get("left_out", {}).items()],
             *([f"Source at {s['commit'][:10]}; its {s['again']['rerun']} surviving mutants run again against the "
                f"tests at {s['again']['tests_at'][:10]} (score before: {pct(s['again']['score_before'])})."]
               if "again" in s else []),
             f"Score {pct(s['score'])} [{pct(s['interval'][0])}, {pct(s['interval'][1])}] (95% Wilson). "
             f"Counts: {', '.join(f'{k} {v}' for k, v in s['counts'].items())}.",
             *([f"Without the {len(s['equivalent'])} survivors listed as equivalent in scripts/"
                f"equivalent_mutants.toml: {pct(s['score_without_equivalent'])} "
                f"[{pct(s['interval_without_equivalent'][0])}, {pct(s['interval_without_equivalent'][1])}]."]
               if s.get("equivalent") else []),
             "Seconds: " + ", ".join(f"{k} {v:.0f}" for k, v in s["seconds"].items()) + ".", "",
             "| module | sampled | checked | killed | score | 95% interval |", "|---|---|---|---|---|---|"]
    for mod, r in s["per_module"].items():
        lines.append(f"| {mod} | {r['sampled']} | {r['checked']} | {r['killed']} | {pct(r['score'])} | "
                     f"{pct(r['interval'][0])} to {pct(r['interval'][1])} |")
    lines += ["", "## Surviving mutants", ""]
    for m, diff in s["survivors"].items():
        why = s.get("equivalent", {}).get(m)
        lines += [f"- `{m}`" + (f" (equivalent: {why})" if why else ""), "  ```diff", *[f"  {d}" for d in diff],
                  "  ```"]
    (out / "summary.md").write_text("\n".join(lines) + "\n")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("modules", nargs="*", help=f"dotted module names (default: {' '.join(DEFAULT_MODULES)})")
    p.add_argument("--sample", type=int, default=400, help="mutants to run, drawn at random (0: all); default 400")
    p.add_argument("--per-module", type=int, default=0, help="instead of --sample: this many mutants of each module "
                   "named (all where it has fewer)")
    p.add_argument("--every-package", action="store_true", help="every package of src/posenc (its subpackages, "
                   "and posenc's top-level modules as one), instead of naming modules")
    p.add_argument("--since", metavar="DATE", help="the modules of src/posenc whose source changed in git since DATE "
                   "(YYYY-MM-DD); --sample mutants are drawn from all of theirs before any is generated")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    p.add_argument("--workers", type=int, default=2, help="processes running mutants (default 2)")
    p.add_argument("--out", type=Path, default=ROOT / "mutation-report", help="where the summary goes")
    p.add_argument("--work", type=Path, default=ROOT / ".mutate", help="scratch folder (replaced on every run)")
    p.add_argument("--again", action="store_true", help="run the last run's surviving mutants again against the "
                   "tests committed since (same source, same sample), and score that sample anew")
    args = p.parse_args(argv)
    try:
        if args.sample < 0:
            raise UsageError(f"--sample must be 0 (every mutant) or a positive count, got {args.sample}")
        if args.workers < 1:
            raise UsageError(f"--workers must be at least 1, got {args.workers}")
        if args.per_module < 0:
            raise UsageError(f"--per-module must be a positive count (or 0: off), got {args.per_module}")
        if args.every_package and args.modules:
            raise UsageError(f"--every-package names the modules itself; got modules too ({' '.join(args.modules)}): "
                             "leave one out")
        if args.since and (args.modules or args.every_package or args.per_module):
            raise UsageError("--since chooses the modules itself and draws --sample of all their mutants; got "
                             f"{' '.join(args.modules) or '--every-package' if not args.per_module else '--per-module'}"
                             " too: leave one out")
        modules = list(PACKAGE_TESTS) if args.every_package else list(dict.fromkeys(args.modules or DEFAULT_MODULES))
        if args.since and not args.again:
            modules = changed_since(args.since)
        for m in modules if not args.since else []:  # --since's modules are read from the last commit
            module_path(m)
        tests = sorted({t for m in modules for t in tests_for(m) if (ROOT / t).exists()})
        tests = [t for t in tests if not any(t != u and t.startswith(u + "/") for u in tests)]  # inside another
        check_clean()
        check_writable(args.out)
        work, log = args.work / "work", args.out / "mutmut.log"
        if args.again:
            return run_again(args, work, log)
    except UsageError as e:
        print(f"make mutate: {e}", file=sys.stderr)
        return 2
    if args.since:
        return run_since(args, modules, work, log)

    seconds: dict[str, float] = {}
    log.write_text("")
    t = time.time()
    commit, source = git("rev-parse", "HEAD"), source_of(modules)  # what is exported, before anything can change
    export_head(work)
    write_settings(work, modules, tests)
    seconds["export"] = time.time() - t
    print(f"[mutate] modules: {', '.join(modules)}\n[mutate] tests: {' '.join(tests)}\n[mutate] log: {log}")
    for m in left_out(modules):
        print(f"[mutate] left out: {m} ({LEFT_OUT[m]})")

    # generation and the stats run; a filter that matches nothing stops mutmut right after them
    t = time.time()
    print("[mutate] generating mutants and tracing which tests reach which function ...", flush=True)
    mutmut(work, "run", "--max-children", str(args.workers), "__generate_only__", log=log)
    failed = trace_failure(log)
    if failed:
        print(f"make mutate: the tests failed on the unmutated code, so no mutant can be judged:\n{failed}\n"
              f"Fix them (the whole output is in {log}), then run again.", file=sys.stderr)
        return 1
    meta = read_meta(work)
    mine = sorted(k for k in meta if any(fnmatch.fnmatch(k, m + ".*") for m in modules))
    seconds["generate+trace"] = time.time() - t
    if not mine:
        print(f"make mutate: no mutants were generated (see {log})", file=sys.stderr)
        return 1
    sampled = draw(mine, modules, args.sample, args.per_module, args.seed)
    print(f"[mutate] {len(mine)} mutants, running {len(sampled)} with {args.workers} workers (about 20 min for 400 "
          "on 2 cores) ...", flush=True)

    t = time.time()
    run_mutants(work, sampled, args.workers, log)
    seconds["mutants"] = time.time() - t

    summary = summarize(work, sampled, modules, seconds, args)
    summary.update(commit=commit, src_tree=source, sampled=sampled)
    return report(args.out, summary)


def run_since(args: argparse.Namespace, files: list[str], work: Path, log: Path) -> int:
    """``--since``: count the changed modules' mutants, draw the sample, generate only the drawn mutants, trace only
    the tests of the files they are in, and run them. Scored per package (a file belongs to its package)."""
    seconds: dict[str, float] = {}
    log.write_text("")
    t = time.time()
    commit, source = git("rev-parse", "HEAD"), source_of(files)
    export_head(work)
    write_settings(work, files, [])
    seconds["export"] = time.time() - t
    print(f"[mutate] {len(files)} modules changed since {args.since}; counting their mutants ...", flush=True)
    t = time.time()
    try:
        counts = counts_for(files, source, work, args.workers, args.work / "counts.json")
    except RuntimeError as e:
        print(f"make mutate: counting the mutants failed:\n{e}", file=sys.stderr)
        return 1
    plan = plan_sample(counts, args.sample, args.seed)
    seconds["count"] = time.time() - t
    chosen = sorted(plan["keep"])
    tests = sorted({t for f in chosen for t in tests_for(f) if (ROOT / t).exists()})
    tests = [t for t in tests if not any(t != u and t.startswith(u + "/") for u in tests)]
    export_head(work)  # fresh settings: only the files holding drawn mutants, only their tests
    write_settings(work, chosen, tests)
    plan_file = args.out / "plan.json"
    plan_file.write_text(json.dumps(plan, indent=1))
    packages = sorted({package_of(f) for f in chosen})
    print(f"[mutate] {plan['total']} mutants; drawn {len(plan['names'])} (seed {args.seed}) in {len(chosen)} "
          f"modules\n[mutate] tests: {' '.join(tests)}\n[mutate] log: {log}", flush=True)
    t = time.time()
    print("[mutate] generating the drawn mutants and tracing which tests reach which function ...", flush=True)
    mutmut(work, "run", "--max-children", str(args.workers), "__generate_only__", log=log, plan=plan_file)
    failed = trace_failure(log)
    if failed:
        print(f"make mutate: the tests failed on the unmutated code, so no mutant can be judged:\n{failed}\n"
              f"Fix them (the whole output is in {log}), then run again.", file=sys.stderr)
        return 1
    seconds["generate+trace"] = time.time() - t
    sampled = sorted(plan["names"])
    missing = [m for m in sampled if m not in read_meta(work)]
    if missing:
        print(f"make mutate: mutmut did not generate {len(missing)} drawn mutants ({', '.join(missing[:5])}); see "
              f"{log}", file=sys.stderr)
        return 1
    print(f"[mutate] running {len(sampled)} with {args.workers} workers ...", flush=True)
    t = time.time()
    run_mutants(work, sampled, args.workers, log, plan=plan_file)
    seconds["mutants"] = time.time() - t
    ns = argparse.Namespace(seed=args.seed, workers=args.workers, per_module=0)
    summary = summarize(work, sampled, packages, seconds, ns)
    summary.update(commit=commit, src_tree=source, sampled=sampled, since=args.since, files=files,
                   drawn_as=plan["names"], total_mutants=plan["total"])
    return report(args.out, summary)


def counts_for(files: list[str], source: dict[str, str], work: Path, workers: int, cache: Path
               ) -> dict[str, dict[str, int]]:
    """Each module's mutants per function (:func:`count_mutants`, run in ``work`` on ``workers`` processes), kept in
    ``cache`` by the source's git object and mutmut's version as each module is counted: a count stopped part way
    keeps what it finished, and a later run counts only modules it has not seen."""
    from importlib.metadata import version

    key = {f: f"{source[f]}:{version('mutmut')}" for f in files}
    known = json.loads(cache.read_text()) if cache.is_file() else {}
    todo = [f for f in files if key[f] not in known]
    if todo:
        proc = subprocess.Popen([sys.executable, str(Path(__file__).resolve()), "__count__", str(workers), *todo],
                                cwd=work, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                env={**os.environ, **ONE_THREAD})
        for line in proc.stdout:
            for f, per in json.loads(line).items():
                known[key[f]] = per
            cache.write_text(json.dumps(known))
        if proc.wait() != 0:
            raise RuntimeError(proc.stderr.read()[-2000:])
    return {f: known[key[f]] for f in files}


def package_of(file_module: str) -> str:
    """The package a module is scored in: its subpackage of posenc, or ``posenc`` for the top-level modules."""
    parts = file_module.split(".")
    return ".".join(parts[:2]) if (SRC / "posenc" / parts[1]).is_dir() else "posenc"


def run_mutants(work: Path, names: list[str], workers: int, log: Path, plan: Path | None = None) -> None:
    """Run mutmut on ``names`` in batches (a command line of thousands of names is too long); a batch mutmut stops
    part way is run again once for the mutants it left."""
    t = time.time()
    for start in range(0, len(names), 200):
        batch = names[start:start + 200]
        code = mutmut(work, "run", "--max-children", str(workers), *batch, log=log, plan=plan)
        left = [m for m in batch if read_meta(work).get(m, (None, 0.0))[0] is None]
        if code != 0 and left:
            print(f"[mutate] mutmut stopped with exit code {code} and {len(left)} mutants unchecked (see {log}); "
                  "running those again", flush=True)
            mutmut(work, "run", "--max-children", str(workers), *left, log=log, plan=plan)
        print(f"[mutate] {min(start + 200, len(names))}/{len(names)} run ({time.time() - t:.0f} s)", flush=True)


def source_of(modules: list[str]) -> dict[str, str]:
    """The git object of each mutated module's source at the last commit: the same objects, the same mutants."""
    return {m: _head_object(m) for m in modules}


def _head_object(name: str) -> str:
    """The git object of module or package ``name`` at the last commit (``src/posenc/a/b.py`` or the folder
    ``src/posenc/a/b``), read from git, not from the checkout, where others may have moved it since."""
    path = "src/" + "/".join(name.split("."))
    for candidate in (f"{path}.py", path):
        found = subprocess.run(["git", "rev-parse", "--verify", "-q", f"HEAD:{candidate}"], cwd=ROOT,
                               capture_output=True, text=True)
        if found.returncode == 0:
            return found.stdout.strip()
    raise UsageError(f"no module {name!r} at the last commit ({path}.py or {path}/)")


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def run_again(args: argparse.Namespace, work: Path, log: Path) -> int:
    """``--again``: after tests were added, run the last run's surviving mutants once more against the committed
    tests, and score the same sample. Refused when the source changed since (the mutants would be other ones)."""
    previous = args.out / "summary.json"
    if not previous.is_file() or not (work / "mutants").is_dir():
        raise UsageError(f"--again needs a finished run to start from ({previous} and {work / 'mutants'}); run "
                         "`make mutate` first")
    prev = json.loads(previous.read_text())
    changed = changed_since_run(prev)
    if changed:
        raise UsageError(f"the source of {', '.join(changed)} changed since the run in {previous} (commit "
                         f"{prev.get('commit', '?')[:10]}), so its mutants are not this code's: run `make mutate` "
                         "without --again")
    t, tests_at = time.time(), git("rev-parse", "HEAD")  # the tests copied now are the ones this rerun uses
    # mutmut copies the tests into its own folder (mutants/) and never deletes one: a test file renamed since would
    # stay there under its old name beside the new one, and a clash of names stops collection
    shutil.rmtree(work / "tests", ignore_errors=True)
    shutil.rmtree(work / "mutants" / "tests", ignore_errors=True)
    archive = subprocess.run(["git", "archive", "HEAD", "tests"], cwd=ROOT, capture_output=True, check=True).stdout
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(work, filter="data")
    names = list(prev["survivors"])
    print(f"[mutate] again: {len(names)} surviving mutants of the run at {prev['commit'][:10]}, against the tests "
          f"at {tests_at[:10]}", flush=True)
    log.write_text("")
    plan = args.out / "plan.json" if prev.get("since") else None
    run_mutants(work, names, args.workers, log, plan=plan)
    seconds = {**prev["seconds"], "again": time.time() - t}
    summary = summarize(work, prev["sampled"], prev["modules"], seconds,
                        argparse.Namespace(seed=prev["seed"], workers=prev["workers"],
                                           per_module=prev.get("per_module_draw", 0)))
    summary.update(carried_over(prev), again={"tests_at": tests_at, "rerun": len(names),
                                              "score_before": prev["score"], "interval_before": prev["interval"]})
    return report(args.out, summary)


def changed_since_run(prev: dict) -> list[str]:
    """The modules whose source at the last commit is not the source a run's mutants were made of (``["?"]`` when
    the run names none). A ``--since`` run is scored per package and generated per file: the files holding a drawn
    mutant are compared."""
    modules = prev.get("modules", [])
    if prev.get("since"):
        modules = sorted({name.split(":")[0] for name in prev.get("drawn_as", {}).values()})
    return [m for m in modules if prev.get("src_tree", {}).get(m) != source_of([m])[m]] if modules else ["?"]


#: what a ``--since`` run records beyond the others: the date, the files counted, each drawn mutant's place, and the
#: number of mutants drawn from
SINCE_FIELDS = ("since", "files", "drawn_as", "total_mutants")


def carried_over(prev: dict) -> dict:
    """What an ``--again`` summary keeps of the run it scores anew: the commit and source its mutants are of, the
    sample, and a ``--since`` run's fields, so that the next ``--again`` checks the same files and finds the plan
    (without them it compared packages a ``--since`` run does not record, and refused)."""
    return {"commit": prev["commit"], "src_tree": prev["src_tree"], "sampled": prev["sampled"],
            **{key: prev[key] for key in SINCE_FIELDS if key in prev}}


def report(out: Path, summary: dict) -> int:
    write_summary(out, summary)
    sc = summary["score"]
    print(f"[mutate] score {100 * sc:.1f}% [{100 * summary['interval'][0]:.1f}%, {100 * summary['interval'][1]:.1f}%]"
          f" -> {out / 'summary.md'}" if sc is not None else f"[mutate] nothing checked -> {out}")
    if summary.get("equivalent") and summary.get("score_without_equivalent") is not None:
        low, high = summary["interval_without_equivalent"]
        print(f"[mutate] without the {len(summary['equivalent'])} listed as equivalent: "
              f"{100 * summary['score_without_equivalent']:.1f}% [{100 * low:.1f}%, {100 * high:.1f}%]")
    return 0


def count_main(workers: int, files: list[str]) -> int:
    """``scripts/mutate.py __count__ WORKERS FILES...`` in mutmut's folder: each module's counts as a line of JSON
    on standard output, as it is counted."""
    from multiprocessing import Pool

    with Pool(workers) as pool:
        for part in pool.imap_unordered(count_mutants, [[f] for f in files], chunksize=1):
            print(json.dumps(part), flush=True)  # one line per module, as soon as it is counted
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["__count__"]:
        sys.exit(count_main(int(sys.argv[2]), sys.argv[3:]))
    if sys.argv[1:2] == ["__mutmut__"]:
        sys.exit(mutmut_with_plan(sys.argv[2], sys.argv[3:]))
    sys.exit(main())
