"""Work becomes time in posenc/resources.py alone, through what is measured on the machine (its rate, the cost of a
lab call) and the defaults kept there. No other module defines a rate or a time per unit of work; the few constants
in seconds elsewhere are waits and thresholds, listed here."""

import ast
import re
from pathlib import Path

import posenc

SRC = Path(posenc.__file__).parent
#: a name that says seconds, a rate or operations per second
TIME_NAME = re.compile(r"(^|_)(S|SECONDS|RATE|FLOPS_PER\w*|PER_SECOND|S_PER\w*)$|_S_|FLOPS_PER")
#: constants in seconds that are not the cost of work: how long to wait, how often to poll or print, when to warn
WAITS = {
    ("cluster.py", "RAY_CONNECT_TIMEOUT_S"), ("cluster.py", "PARENT_POLL_S"), ("cluster.py", "STOP_GRACE_S"),
    ("progress.py", "PLAIN_INTERVAL_S"), ("cli/check.py", "SLOW_S"), ("cli/lab.py", "SLOW_S"), ("store.py", "WAIT_S"),
}


def _numeric_constants(path: Path):
    for node in ast.parse(path.read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else [node.target] if isinstance(node, ast.AnnAssign) \
            else []
        value = getattr(node, "value", None)
        names = [t for target in targets for t in (target.elts if isinstance(target, ast.Tuple) else [target])]
        values = value.elts if isinstance(value, ast.Tuple) else [value] * len(names)
        for name, v in zip(names, values, strict=False):
            if isinstance(name, ast.Name) and isinstance(v, ast.Constant) and isinstance(v.value, (int, float)):
                yield name.id, node.lineno


def test_no_module_but_resources_defines_a_rate():
    found = []
    for path in sorted(SRC.rglob("*.py")):
        where = path.relative_to(SRC).as_posix()
        if where == "resources.py":
            continue
        found += [f"{where}:{line} {name}" for name, line in _numeric_constants(path)
                  if TIME_NAME.search(name) and (where, name) not in WAITS]
    assert not found, ("constants that turn work into time outside posenc/resources.py (count the work and call "
                       f"posenc.resources.seconds instead): {found}")


def test_the_scan_sees_a_rate():
    # the rule can fail: the constants it would have caught before the cost model
    source = "FLOPS_PER_THREAD = 9.3e10\nSTEP_BASE_S = 0.9e-3\nWORKER_START_S = 8.0\n_DECODE_S_PER_TOKEN = 4.7e-5\n" \
             "PAIR_SECONDS, PAIR_CHANNEL_SECONDS = 5e-8, 3e-10\nSTEP_OPERATIONS = 80\n"
    names = [name for name, _ in _numeric_constants_of(source) if TIME_NAME.search(name)]
    assert names == ["FLOPS_PER_THREAD", "STEP_BASE_S", "WORKER_START_S", "_DECODE_S_PER_TOKEN", "PAIR_SECONDS",
                     "PAIR_CHANNEL_SECONDS"]


def _numeric_constants_of(source: str):
    import tempfile

    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as fh:
        fh.write(source)
    return list(_numeric_constants(Path(fh.name)))
