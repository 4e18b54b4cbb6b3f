"""The commands built on a settings dataclass: every field is an option with its help and default, and the command
passes exactly the settings it was given on to the library (the work function is replaced, so nothing runs)."""

from __future__ import annotations

import inspect
from dataclasses import MISSING, fields, is_dataclass
from types import SimpleNamespace

import pytest
import torch

from posenc.cli import app, main
from posenc.device import Placement, resolve_device
from posenc.extend import ExtendConfig
from posenc.kernels.bench import BenchConfig
from posenc.lab import RunConfig
from posenc.model import ModelConfig
from posenc.probe.run import ProbeConfig
from posenc.report.config import ReportConfig

#: command -> (its settings dataclass, fields it leaves off the command line, command-line defaults of its own)
SETTINGS = {
    "extend": (ExtendConfig, set(), {}),
    "train": (RunConfig, set(), {}),
    "probe": (ProbeConfig, set(), {}),
    "bench": (BenchConfig, set(), {"device": "auto"}),
    # --no-progress is the command's own option; the reference runs' folder is the API's only
    "report": (ReportConfig, {"progress", "references"}, {"quick": False}),
}


class Reached(Exception):
    """Raised by a stand-in work function, carrying what it was called with."""


def _stop(*args, **kwargs):
    raise Reached(args, kwargs)


def _callback(command: str):
    return next(info.callback for info in app.registered_commands if info.name == command)


def _leaves(cls) -> list:
    """``(field, its class)`` for every field of ``cls``, a field whose default is a settings dataclass replaced by
    that dataclass's fields (RunConfig's model)."""
    out = []
    for f in fields(cls):
        default = f.default_factory() if f.default_factory is not MISSING else None
        out += [(g, type(default)) for g in fields(default)] if is_dataclass(default) else [(f, cls)]
    return out


def test_the_fields_of_a_nested_settings_dataclass_are_options_gathered_back_into_it():
    from posenc.cli.settings import CommandSettings, derive_options

    options = derive_options(RunConfig)
    assert [name for name in options][:4] == ["task", "encoding", "encoding_options", "d_model"]
    assert options["d_model"].option == "--d-model" and options["d_model"].info.default == 64
    assert options["n_kv_heads"].info.help.startswith("key/value heads")  # ModelConfig's docstring
    given = {"encoding": "alibi", "d_model": 32, "steps": 3}
    settings = CommandSettings(RunConfig, options, {name: given.get(name) for name in options}, frozenset(given))
    built = settings.build()
    assert built.model == ModelConfig(encoding="alibi", d_model=32) and built.steps == 3
    untouched = CommandSettings(RunConfig, options, {name: None for name in options}, frozenset({"steps"}))
    assert untouched.build(steps=4).model == ModelConfig()  # no model option given: the model's defaults


@pytest.mark.parametrize("command", list(SETTINGS))
def test_every_field_is_an_option_with_help_and_the_dataclass_default(command):
    cls, left_out, cli_defaults = SETTINGS[command]
    callback = _callback(command)
    assert callback.settings_class is cls
    options = callback.settings_options
    leaves = _leaves(cls)
    assert set(options) == {f.name for f, _ in leaves} - left_out
    params = inspect.signature(callback).parameters
    for f, owner in leaves:
        if f.name in left_out:
            continue
        spec = options[f.name]
        assert params[f.name].default is spec.info  # what typer builds the option from
        assert spec.info.help, f"{owner.__name__}.{f.name} has no entry in the class docstring's Attributes section"
        default = cli_defaults.get(f.name, f.default if f.default is not MISSING else f.default_factory())
        shown = spec.info.default
        if isinstance(default, tuple | list) and isinstance(shown, str):  # comma-separated
            shown = [type(default[0])(part) for part in shown.split(",")] if shown else []
        if isinstance(default, dict) or (isinstance(default, tuple | list) and not default):
            assert shown in (None, []), f.name
        else:
            assert shown == (list(default) if isinstance(default, tuple | list) else default), f.name


def test_run_extend_takes_one_config_and_refuses_unknown_settings():
    from posenc.errors import PosencError
    from posenc.extend import extend_config

    config = ExtendConfig(model="smollm2", lengths=(4096,), trials=3)
    assert extend_config(config) is config
    assert extend_config(config, trials=5) == ExtendConfig(model="smollm2", lengths=(4096,), trials=5)
    assert extend_config("smollm2", lengths=[4096], trials=3) == config  # lists are taken for tuples
    with pytest.raises(PosencError, match=r"unknown extend setting\(s\) trails; .*trials"):
        extend_config("smollm2", trails=3)
    with pytest.raises(PosencError, match=r"model is given twice: 'smollm2' as the first argument and model='other'; pass one"):
        extend_config("smollm2", model="other")
    with pytest.raises(PosencError, match=r"must be an ExtendConfig or a model name \(e\.g\. 'smollm2'\), got int 4096"):
        extend_config(4096)


@pytest.fixture
def stand_ins(monkeypatch, tmp_path):
    """Replace every command's work function with one that stops and reports its arguments."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("posenc.extend.run_extend", _stop)
    monkeypatch.setattr("posenc.lab.train_run", _stop)
    monkeypatch.setattr("posenc.kernels.bench.run_benchmark", _stop)
    monkeypatch.setattr("posenc.probe.run.run_probe", _stop)
    monkeypatch.setattr("posenc.report.run.run_report", _stop)
    monkeypatch.setattr("posenc.probe.run.check_probe_fits", lambda *args: None)
    monkeypatch.setattr("posenc.pretrained.model_config", lambda spec: SimpleNamespace(max_position_embeddings=512))


def _reached(argv: list[str]):
    with pytest.raises(Reached) as caught:
        main(argv)
    return caught.value.args


def test_extend_passes_its_settings_on(stand_ins):
    (config,), kwargs = _reached(["extend", "smollm2", "--lengths", "4k, 6144", "--scalings", "none, YaRN",
                                  "--protocols", "none", "--depths", "0.5", "--trials", "2", "--factor", "2", "--device",
                                  "cpu", "--stride-fraction", "0.25", "--seed", "3", "--plan"])
    assert config == ExtendConfig(model="smollm2", lengths=(4096, 6144), scalings=("none", "yarn"), protocols=(),
                                  depths=(0.5,), trials=2, factor=2.0, device="cpu", stride_fraction=0.25, seed=3)
    assert config.passkey is True and config.dtype == "float32"
    assert kwargs["plan_only"] is True and str(kwargs["store_path"]) == "runs/extend.sqlite"


def test_report_passes_its_settings_on(stand_ins):
    (config,), kwargs = _reached(["report", "--quick", "--claim", "sin-bounded", "--claim", "word-order", "--seeds",
                                  "4", "--device", "cpu", "--dtype", "bfloat16", "--out", "r", "--store", "s.sqlite",
                                  "--no-progress", "--extended", "--thresholds", "t.json"])
    assert kwargs == {}
    assert config == ReportConfig(out_dir="r", quick=True, store_path="s.sqlite", claims=("sin-bounded", "word-order"),
                                  seeds=4, thresholds="t.json", progress=False, device="cpu", dtype="bfloat16",
                                  extended=True)


def test_report_defaults_differ_from_the_dataclass_in_quick_only(stand_ins):
    (config,), _ = _reached(["report"])
    assert config == ReportConfig(quick=False, device=str(resolve_device("auto")))
    assert config.out_dir == "posenc-report" and config.claims is None and config.progress is True


def test_extend_defaults_are_the_dataclass_defaults(stand_ins):
    (config,), _ = _reached(["extend"])
    # docs/extend.md: SmolLM2 at 2k, 4k, 8k and 16k tokens, passkeys at depths 0.25 and 0.75; --quick: 4k, 8k, 12k
    assert config.model == "smollm2" and config.lengths == (2048, 4096, 8192, 16384)
    assert config.depths == (0.25, 0.75) and config.passkey is True and config.windows is None
    assert config.device == str(resolve_device("auto")) and config.text is None
    assert config == ExtendConfig(device=str(resolve_device("auto")))
    (config,), _ = _reached(["extend", "--quick", "--dtype", "bf16"])
    assert config.lengths == (4096, 8192, 12288) and config.passkey is False and config.dtype == "bfloat16"


def test_extend_list_errors_keep_their_messages(stand_ins, capsys):
    assert main(["extend", "--lengths", "4k,lots"]) == 2
    assert "--lengths must be comma-separated token counts such as 2048,4096 or 2k,4k, got '4k,lots'" in \
        capsys.readouterr().err
    assert main(["extend", "--depths", "0.5,deep"]) == 2
    assert "--depths must be comma-separated numbers such as 0.25,0.75, got '0.5,deep'" in capsys.readouterr().err
    assert main(["extend", "--lengths", "16"]) == 2
    assert "lengths must be integers >= 64 tokens, got 16" in capsys.readouterr().err


def test_train_builds_its_run_config_from_options_and_set(stand_ins):
    (config, seed), kwargs = _reached(["train", "-e", "sinusoidal", "-o", "combine=concat", "-o", "dim=16", "--lr",
                                       "0.003", "--eval-lengths", "4,8", "--protocols", "sliding", "--set", "warmup=5",
                                       "--seed", "2", "--device", "cpu"])
    assert seed == 2 and kwargs["device"] == Placement(torch.device("cpu"), torch.float32)  # resolved once, here
    assert config == RunConfig(model=ModelConfig(encoding="sinusoidal",
                                                 encoding_options={"combine": "concat", "dim": 16}), lr=0.003,
                               eval_lengths=[4, 8], protocols=["sliding"], warmup=5)
    (config, _), _ = _reached(["train"])
    assert config == RunConfig()


def test_train_refuses_an_option_and_set_that_disagree(stand_ins, capsys):
    assert main(["train", "--steps", "5", "--set", "steps=10"]) == 2
    assert "--steps and --set steps both set steps (5 and 10); set it once" in capsys.readouterr().err
    assert main(["train", "--steps", "5", "--set", "steps=5"]) == 2  # twice is an error even with one value
    assert "--steps and --set steps both set steps (5 and 5); set it once" in capsys.readouterr().err
    assert main(["train", "--eval-lengths", "4,x"]) == 2
    assert "--eval-lengths must be comma-separated integers such as 10,20,40, got '4,x'" in capsys.readouterr().err


def test_bench_builds_its_config(stand_ins):
    (cfg,), _ = _reached(["bench", "--seq-len", "8", "--mode", "backward", "--mode", "in-place", "--only", "posenc",
                          "--seed", "3", "--no-compile"])
    assert cfg == BenchConfig(seq_len=8, modes=("backward", "in-place"), only=("posenc",), seed=3, compile=False,
                              device="auto")
    (cfg,), _ = _reached(["bench", "--seq-len", "8"])
    assert cfg == BenchConfig(seq_len=8, device="auto")


def test_probe_settings_start_from_the_quick_ones_with_quick(stand_ins):
    _, kwargs = _reached(["probe", "minilm", "--quick", "--windows", "2"])
    assert kwargs["config"] == ProbeConfig(window=256, windows=2, n_pairs=1000) and kwargs["quick"] is True
    _, kwargs = _reached(["probe", "minilm", "--n-pairs", "500", "--seed", "7"])
    assert kwargs["config"] == ProbeConfig(n_pairs=500, seed=7)


#: (command, option, the default its --help shows), written from each command's documentation
HELP_DEFAULTS = [
    ("extend", "model", "smollm2"), ("extend", "--protocols", "nonoverlap,sliding"),
    ("extend", "--stride-fraction", "0.5"), ("extend", "--trials", "1"), ("extend", "--device", "auto"),
    ("extend", "--dtype", "float32"), ("extend", "--seed", "0"), ("extend", "--threads", "0"),
    ("extend", "--store", "runs/extend.sqlite"), ("extend", "--out", "runs/extend"),
    ("bench", "--batch", "1"), ("bench", "--q-heads", "32"), ("bench", "--kv-heads", "8"), ("bench", "--seq-len", "4096"),
    ("bench", "--head-dim", "128"), ("bench", "--dtype", "float32"), ("bench", "--pairing", "half"),
    ("bench", "--device", "auto"), ("bench", "--mode", "out-of-place, in-place"), ("bench", "--repeats", "21"),
    ("bench", "--warmup", "3"), ("bench", "--compile", "compile"), ("bench", "--seed", "0"),
    ("report", "--out", "posenc-report"), ("report", "--device", "auto"), ("report", "--dtype", "float32"),
    ("report", "--executor", "local"), ("report", "--address", "auto"),
    ("probe", "--windows", "4"), ("probe", "--n-pairs", "2000"), ("probe", "--seed", "0"), ("probe", "--device", "auto"),
    ("probe", "--dtype", "float32"),
    ("train", "--task", "copy"), ("train", "--encoding", "rope"),
]


@pytest.mark.parametrize("command, option, default", HELP_DEFAULTS, ids=[f"{c}{o}" for c, o, _ in HELP_DEFAULTS])
def test_help_shows_each_default(command, option, default, capsys):
    assert main([command, "--help"]) == 0
    lines = [line.strip() for line in capsys.readouterr().out.splitlines()]
    line = next(line for line in lines if line.split(" ")[0].strip(",") == option or line.startswith(f"-e, {option}")
                or line.startswith(f"{option} /"))
    assert line.endswith(f"[default: {default}]"), line


#: options whose default is a rule, not a value: --help says the rule and shows no value
RULE_DEFAULTS = [("extend", "--lengths", "(default 2k,4k,8k,16k; quick: 4k,8k,12k)"),
                 ("extend", "--depths", "(default 0.25,0.75; quick: 0.5)"),
                 ("extend", "--factor", "(default max(1, L / native))"),
                 ("report", "--seeds", "(default: 3 in both modes, the fewest an interval rests on)"),
                 ("report", "--store", "(default: OUT/results.sqlite)"),
                 ("bench", "--rotary-dim", "(default: head_dim)"),
                 ("probe", "--window", "(default 512, or the model's position limit if smaller; quick: 256)")]


@pytest.mark.parametrize("command, option, rule", RULE_DEFAULTS, ids=[f"{c}{o}" for c, o, _ in RULE_DEFAULTS])
def test_help_states_a_default_rule(command, option, rule, capsys):
    assert main([command, "--help"]) == 0
    line = next(line.strip() for line in capsys.readouterr().out.splitlines() if line.strip().startswith(option + " "))
    assert rule in line and "[default:" not in line, line
