"""Shared test set-up: offline Hugging Face, deterministic seeds, a headless matplotlib, Hypothesis profiles."""

import os
import signal

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("MPLBACKEND", "Agg")
# the tests' Ray clusters are private to this machine: no token (a private ray.init() would otherwise write
# ~/.ray/auth_token, and every cluster started after it would then ask for the token)
os.environ.setdefault("RAY_AUTH_MODE", "disabled")

import pytest  # noqa: E402
import torch  # noqa: E402

from hypothesis_profiles import load_profile  # noqa: E402

HYPOTHESIS_PROFILE = load_profile()  # "ci" unless HYPOTHESIS_PROFILE says otherwise (tests/hypothesis_profiles.py)


def pytest_addoption(parser):
    parser.addoption("--cpu-times", metavar="PREFIX", default=None,
                     help="write the CPU time of each test phase and module collection to PREFIX-<worker>.jsonl and "
                          "sum it by file at the end (tests/cpu_times.py)")


#: the pytest-xdist releases whose --dist loadgroup stops grouping from pytest 9.2 on (pytest-dev/pytest-xdist#1386)
UNGROUPED_FROM = ("9.2", "3.8.0")


def pytest_configure(config):
    if getattr(config.option, "dist", None) == "loadgroup" and not hasattr(config, "workerinput"):
        import xdist
        from packaging.version import Version

        if Version(pytest.__version__) >= Version(UNGROUPED_FROM[0]) and \
                Version(xdist.__version__) <= Version(UNGROUPED_FROM[1]):
            raise _ungrouped("the tests marked xdist_group would run on several workers, two Ray clusters at once "
                             "among them")
    prefix = config.getoption("cpu_times")
    if prefix:
        from cpu_times import CpuTimes

        config.pluginmanager.register(CpuTimes(prefix), "cpu_times")


@pytest.hookimpl(trylast=True)  # after pytest-xdist's worker has written each group into its test's id
def pytest_collection_modifyitems(config, items):
    """Under ``--dist loadgroup`` every test marked ``xdist_group`` must carry its group in its id, which is how
    pytest-xdist sends a group to one worker. Where the installed pytest and pytest-xdist do not do that (pytest 9.2
    with pytest-xdist 3.8: pytest-dev/pytest-xdist#1386), two Ray clusters could start at once and a module's shared
    fixture runs on both workers: the suite stops here instead of running ungrouped (pytest_configure names the
    releases known to do this; this catches any other)."""
    if not getattr(config.option, "loadgroup", False):  # set on an xdist worker under --dist loadgroup
        return
    ungrouped = [item.nodeid for item in items if item.get_closest_marker("xdist_group") and "@" not in item.nodeid]
    if ungrouped:
        raise _ungrouped(f"{len(ungrouped)} tests marked xdist_group kept ids without their group, e.g. {ungrouped[0]}")


def _ungrouped(what: str) -> pytest.UsageError:
    import xdist

    return pytest.UsageError(f"--dist loadgroup does not group tests with pytest {pytest.__version__} and "
                             f"pytest-xdist {xdist.__version__} ({what}; pytest-dev/pytest-xdist#1386): install the "
                             f"versions of constraints.txt (make setup), or run without -n")


@pytest.fixture(scope="session")
def minilm():
    """MiniLM (the offline package), loaded once per session."""
    from posenc.pretrained import load_model

    return load_model("minilm")


@pytest.fixture(scope="session")
def tiny_llama(minilm):
    """A randomly initialised two-layer causal Llama (RoPE, grouped-query attention) with MiniLM's tokenizer, shared
    by the probe and report tests (read-only: a test that changes it works on a copy)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    from posenc.pretrained import LoadedModel

    config = LlamaConfig(vocab_size=minilm.tokenizer.vocab_size, hidden_size=32, intermediate_size=64,
                         num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                         max_position_embeddings=256, tie_word_embeddings=True)
    torch.manual_seed(0)
    model = LlamaForCausalLM(config).eval()
    return LoadedModel(model=model, tokenizer=minilm.tokenizer, config=config, name="tiny-llama", source="test")


@pytest.fixture(autouse=True)
def _seed():
    torch.manual_seed(0)
    yield


@pytest.fixture
def ctrl_c_interrupts():
    """Ctrl-C as a terminal delivers it, whatever this test process inherited: a process started in the background
    by a non-interactive shell (``cmd &``) inherits SIGINT ignored, and so would every process it starts."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)
