"""Bad input to every command, the second and third rounds: each case ends in exit status 2 with a one-line error that
names the value given, and nothing is computed or written.

``issue-*`` cases are the second round's findings (each answered with a traceback, a silent wrong answer, or work
that should not have started); ``r3-*`` cases are a further round tried the same way. The commands run in this
process through :func:`posenc.cli.main`, which is what the ``posenc`` entry point calls; every case fails before any
work, so the table stays fast. ``{tmp}`` in an argument is the test's own folder, where the files a case needs are
written first (:func:`_files`).
"""

import json

import pytest
from one_line_error import check_one_line_error

STORE = ["--store", "{tmp}/runs.sqlite", "--limit", "0"]  # a sweep that got past its checks would run nothing

CASES = [
    # -- repeated options: one rule, an error (issue) --------------------------------------------------------------
    ("issue-show-o-twice", ["show", "rope", "-o", "base=1000", "-o", "base=2000"],
     ["-o gives base twice", "'base=1000'", "'base=2000'", "give each key once"]),
    ("issue-check-length-twice", ["check", "rope", "--length", "16", "--length", "32"],
     ["option --length was given 2 times", "--length 16", "--length 32", "give it once"]),
    ("issue-train-set-twice", ["train", "--set", "lr=1e-3", "--set", "lr=2e-3"],
     ["--set gives lr twice", "'lr=1e-3'", "'lr=2e-3'"]),
    ("issue-train-option-and-set", ["train", "--lr", "1e-3", "--set", "lr=1e-3"],
     ["--lr and --set lr both set lr", "set it once"]),
    ("issue-sweep-flag-both-ways", ["sweep", "--preset", "quick", "--progress", "--no-progress", *STORE],
     ["option --progress was given 2 times", "--no-progress"]),
    ("issue-extend-lengths-twice", ["extend", "--lengths", "4k", "--lengths", "8k", "--plan"],
     ["option --lengths was given 2 times", "--lengths 4k", "--lengths 8k"]),
    # -- empty items, warm-up past the steps, an empty grid file (issue) -------------------------------------------
    ("issue-empty-item", ["train", "--eval-lengths", "10,,20"],
     ["--eval-lengths '10,,20' has an empty item", "e.g. --eval-lengths 10,20,40"]),
    ("issue-trailing-comma", ["train", "--eval-lengths", "10,20,"], ["--eval-lengths '10,20,' has an empty item"]),
    ("issue-extend-empty-item", ["extend", "--lengths", "4k,,8k", "--plan"],
     ["--lengths '4k,,8k' has an empty item", "e.g. --lengths 2k,4k,8k"]),
    ("issue-warmup-past-steps", ["train", "--warmup", "600", "--steps", "10"],
     ["warmup (600) exceeds steps (10)", "--warmup 10"]),
    ("issue-sweep-set-steps-below-warmup", ["sweep", "--preset", "quick", "--set", "steps=10", *STORE],
     ["warmup (100) exceeds steps (10)", "--set warmup=10"]),
    ("issue-empty-grid-file", ["sweep", "--grid", "{tmp}/empty.json", *STORE],
     ["empty.json sets no run ({})", "non-empty \"base\" or \"grid\""]),
    # -- tracebacks where a message belongs (issue) ---------------------------------------------------------------
    ("issue-grid-file-list", ["sweep", "--grid", "{tmp}/list.json", *STORE],
     ["list.json holds a JSON list, not an object", "one JSON object such as"]),
    ("issue-grid-file-binary", ["sweep", "--grid", "{tmp}/binary.json", *STORE],
     ["binary.json is not UTF-8 text (byte 0 is 0xff)"]),
    ("issue-grid-file-folder", ["sweep", "--grid", "{tmp}/folder.json", *STORE], ["folder.json is a folder, not a file"]),
    ("issue-probe-seed", ["probe", "minilm", "--seed", "-1"], ["seed must be an integer in 0..4294967295, got -1"]),
    ("issue-train-seed-beyond-64-bits", ["train", "--seed", str(2 ** 70)],
     [f"--seed must be an integer in 0..4294967295, got {2 ** 70}"]),
    ("issue-bench-only-unknown", ["bench", "--only", "nosuch"],
     ["--only 'nosuch' names no provider", "providers are: posenc:cpp"]),
    ("issue-extend-threads-rule", ["extend", "--threads", "-1", "--plan"],
     ["--threads must be an integer >= 0 (0: torch's own choice", "got -1"]),
    ("issue-check-json-no-folder", ["check", "rope", "--json", "{tmp}/nowhere/x.json"],
     ["nowhere does not exist", "posenc creates no folder for a file", "mkdir -p"]),
    ("issue-probe-unknown-name", ["probe", "nosuch_model"],
     ["model 'nosuch_model' not found", "not in the local Hugging Face cache",
      "fetch it once with 'posenc probe nosuch_model --download'"]),
    ("issue-extend-unknown-name", ["extend", "nobody/nosuch", "--plan"],
     ["model 'nobody/nosuch' not found", "'posenc probe nobody/nosuch --download'"]),
    ("inspect-unknown-name", ["inspect", "nobody/nosuch"],  # inspect has no --download: the hint names probe's
     ["model 'nobody/nosuch' not found", "'posenc probe nobody/nosuch --download'"]),
    ("issue-claim-typo", ["report", "--claim", "sin-bounde", "--out", "{tmp}/report"],
     ["unknown claim 'sin-bounde'", "Did you mean 'sin-bounded'?"]),
    ("issue-set-without-value", ["train", "--set", "lr"], ["--set 'lr' is not of the form KEY=VALUE", "--set lr=3e-3"]),
    ("issue-plot-dims-too-narrow", ["plot", "rope", "--kind", "dims", "--d-model", "8", "--out", "{tmp}/x.png"],
     ["dims must be indices in 0..7", "got [2, 6, 12]", "--d-model 13 or more"]),
    ("issue-plot-kind-for-nope", ["plot", "nope", "--kind", "dims", "--out", "{tmp}/x.png"],
     ["cannot draw 'dims': nope has no position information", "nope draws as --kind heatmap"]),
    ("issue-plot-kind-for-alibi", ["plot", "alibi", "--kind", "positions", "--out", "{tmp}/x.png"],
     ["cannot draw 'positions'", "alibi draws as --kind heatmap, decay"]),
    ("issue-flag-option-string", ["show", "t5", "-o", "bidirectional=no", "--out", "{tmp}/x.png"],
     ["option bidirectional is a flag", "got 'no'", "-o bidirectional=false"]),
    ("issue-base-inf", ["show", "rope", "-o", "base=Infinity", "--out", "{tmp}/x.png"],
     ["RoPE base must be a finite number > 1, got inf"]),
    ("issue-yarn-inverted", ["check", "rope", "--length", "64", "--d-model", "16", "-o",
                             'scaling={"type": "yarn", "factor": 4, "original_max_len": 2048, "beta_fast": 1, '
                             '"beta_slow": 32}'], ["beta_fast (1) must exceed beta_slow (32)"]),
    # -- r3: list and show ----------------------------------------------------------------------------------------
    ("r3-list-json-no-folder", ["list", "--json", "{tmp}/nowhere/x.json"], ["nowhere does not exist"]),
    ("r3-list-json-suffix", ["list", "--json", "{tmp}/x.txt"], ["--json must end in .json, got 'x.txt'"]),
    ("r3-show-length-0", ["show", "rope", "--length", "0", "--out", "{tmp}/x.png"],
     ["--length, --d-model and --n-heads must be positive, got 0, 64, 8"]),
    ("r3-show-o-empty-key", ["show", "rope", "-o", "=5", "--out", "{tmp}/x.png"],
     ["-o '=5' is not of the form KEY=VALUE"]),
    ("r3-show-o-size", ["show", "rope", "-o", "head_dim=32", "--out", "{tmp}/x.png"],
     ["['head_dim'] are sizes this command sets itself", "--d-model instead of -o head_dim"]),
    ("r3-show-out-no-folder", ["show", "rope", "--out", "{tmp}/nowhere/x.png"], ["nowhere does not exist"]),
    ("r3-show-unknown-option", ["show", "rope", "-o", "hed_dim=8", "--out", "{tmp}/x.png"],
     ["unknown option(s) 'hed_dim'", "Did you mean 'head_dim'"]),
    ("r3-show-integer-start", ["show", "integer", "-o", "start=abc", "--out", "{tmp}/x.png"],
     ["integer: start must be a finite number", "got 'abc'"]),
    ("r3-show-t5-max-distance", ["show", "t5", "-o", "max_distance=12.5", "--out", "{tmp}/x.png"],
     ["max_distance must be a positive integer", "got 12.5"]),
    ("r3-show-alibi-slopes", ["show", "alibi", "--n-heads", "2", "-o", "slopes=abc", "--out", "{tmp}/x.png"],
     ["ALiBi slopes must be a list of numbers", "got 'abc'"]),
    ("r3-show-xpos-gamma", ["show", "xpos", "-o", "gamma=0", "--out", "{tmp}/x.png"],
     ["xpos gamma must be a finite number > 0, got 0"]),
    ("r3-show-randomized-seed", ["show", "randomized", "-o", "seed=-1", "--out", "{tmp}/x.png"],
     ["randomized: seed must be an integer in 0..4294967295, got -1"]),
    ("r3-show-learned-init", ["show", "learned", "-o", "init_std=-1", "--out", "{tmp}/x.png"],
     ["init_std must be a finite number >= 0, got -1"]),
    ("r3-show-llama3-factor", ["show", "rope", "-o", 'scaling={"type": "llama3", "factor": 8, "low_freq_factor": -1}',
                               "--out", "{tmp}/x.png"], ["llama3 scaling: low_freq_factor must be a finite number > 0, got -1"]),
    ("r3-show-longrope-zero", ["show", "rope", "--d-model", "4", "-o",
                               'scaling={"type": "longrope", "short_factor": [1, 0], "long_factor": [1, 1]}',
                               "--out", "{tmp}/x.png"], ["longrope short_factor must hold finite numbers > 0", "[0]"]),
    ("r3-show-yarn-truncate", ["show", "rope", "-o", 'scaling={"type": "yarn", "factor": 4, "truncate": "yes"}',
                               "--out", "{tmp}/x.png"], ["yarn scaling: truncate must be True or False, got 'yes'"]),
    # -- r3: check and plot ---------------------------------------------------------------------------------------
    ("r3-check-length-4", ["check", "rope", "--length", "4"], ["length must be an integer >= 8", "got 4"]),
    ("r3-check-odd-width", ["check", "rope", "--d-model", "7"], ["d_model must be an even integer >= 2", "got 7"]),
    ("r3-check-threads", ["check", "rope", "--threads", "-1"], ["--threads must be an integer >= 0", "got -1"]),
    ("r3-check-all-with-options", ["check", "--all", "-o", "base=5"], ["-o options apply to one encoding"]),
    ("r3-check-name-and-all", ["check", "rope", "--all"], ["pass an encoding name or --all, not both", "'rope'"]),
    ("r3-check-heads", ["check", "alibi", "--n-heads", "0"], ["--n-heads must be a positive integer, got 0"]),
    ("r3-check-quiet-twice", ["check", "rope", "-q", "--quiet"], ["option --quiet was given 2 times (-q, --quiet)"]),
    ("r3-plot-rotation-narrow", ["plot", "rope", "--kind", "rotation", "--d-model", "8", "--out", "{tmp}/x.png"],
     ["draws channel pair 4", "pairs 0..3", "--d-model 10 or more"]),
    ("r3-plot-unknown-kind", ["plot", "rope", "--kind", "pie"], ["unknown figure kind 'pie'", "heatmap"]),
    ("r3-plot-out-suffix", ["plot", "rope", "--out", "{tmp}/x.txt"], ["--out must end in .png"]),
    ("r3-plot-ramp-unscaled", ["plot", "rope", "--kind", "ramp", "--out", "{tmp}/x.png"],
     ["rope uses RoFormer's unscaled frequencies", "rope draws as --kind heatmap"]),
    # -- r3: train -------------------------------------------------------------------------------------------------
    ("r3-train-lr-nan", ["train", "--lr", "nan"], ["RunConfig.lr must be a number > 0, got nan"]),
    ("r3-train-lr-negative", ["train", "--lr", "-1"], ["RunConfig.lr must be a number > 0, got -1.0"]),
    ("r3-train-dropout-1", ["train", "--dropout", "1"], ["RunConfig.model: dropout must be a number in [0, 1), got 1.0",
                                                        "[option --dropout]"]),
    ("r3-train-steps-0", ["train", "--steps", "0"], ["RunConfig.steps must be a positive integer, got 0"]),
    ("r3-train-task", ["train", "--task", "copyy"], ["'copyy'"]),
    ("r3-train-encoding", ["train", "-e", "ropee"], ["unknown encoding 'ropee'", "Did you mean 'rope'?"]),
    ("r3-train-eval-lengths-0", ["train", "--eval-lengths", "0"], ["eval_lengths must be a list of positive integers",
                                                                   "got [0]"]),
    ("r3-train-concat-without-dim", ["train", "-e", "sinusoidal", "-o", "combine=concat"],
     ["combine='concat' needs an explicit dim"]),
    ("r3-train-constant-added", ["train", "-e", "integer"], ["encoding 'integer' added to the token embedding is NoPE",
                                                              "-o combine=concat -o dim=16"]),
    ("r3-train-float16-cpu", ["train", "--dtype", "float16", "--device", "cpu"],
     ["dtype 'float16' cannot train on the CPU"]),
    ("r3-train-protocols", ["train", "--task", "charlm", "--protocols", "bogus"], ["unknown protocol 'bogus'"]),
    ("r3-train-charlm-encoder", ["train", "--task", "charlm", "--fmt", "encoder"], ["use fmt='decoder'"]),
    ("r3-train-min-over-max", ["train", "--min-train-len", "30"], ["min_train_len (30) must be <= train_len (20)"]),
    ("r3-train-max-len-short", ["train", "--max-len", "5"], ["max_len=5 does not fit the training sequences"]),
    ("r3-train-json-no-folder", ["train", "--json", "{tmp}/nowhere/x.json"], ["nowhere does not exist"]),
    ("r3-train-threads", ["train", "--threads", "-2"], ["--threads must be an integer >= 0", "got -2"]),
    ("r3-train-seed-negative", ["train", "--seed", "-5"], ["--seed must be an integer in 0..4294967295, got -5"]),
    ("r3-train-option-size", ["train", "-o", "d_model=8"], ["encoding_options ['d_model'] are model sizes"]),
    ("r3-train-option-bool", ["train", "-e", "t5", "-o", "bidirectional=maybe"],
     ["option bidirectional is a flag", "got 'maybe'"]),
    ("r3-train-device", ["train", "--device", "gpu"], ["unknown device 'gpu'"]),
    # -- r3: sweep -------------------------------------------------------------------------------------------------
    ("r3-sweep-address-without-ray", ["sweep", "--preset", "quick", "--address", "10.0.0.1:6379", *STORE],
     ["--address 10.0.0.1:6379 applies to the Ray executor", "add --executor ray"]),
    ("r3-sweep-preset-typo", ["sweep", "--preset", "quik", *STORE], ["unknown preset or sweep file 'quik'",
                                                                     "Did you mean 'quick'?"]),
    ("r3-sweep-both", ["sweep", "--preset", "quick", "--grid", "{tmp}/list.json", *STORE],
     ["pass exactly one of --preset"]),
    ("r3-sweep-grid-missing", ["sweep", "--grid", "{tmp}/missing.json", *STORE], ["missing.json does not exist"]),
    ("r3-sweep-grid-empty-file", ["sweep", "--grid", "{tmp}/zero.json", *STORE], ["zero.json is not valid JSON"]),
    ("r3-sweep-grid-negative-seed", ["sweep", "--grid", "{tmp}/negative-seed.json", *STORE],
     ["seeds must be a non-empty list of integers in 0..4294967295", "got [-1]"]),
    ("r3-sweep-grid-repeated-seed", ["sweep", "--grid", "{tmp}/repeated-seed.json", *STORE],
     ["seeds lists a seed twice ([0, 0])"]),
    ("r3-sweep-grid-base-string", ["sweep", "--grid", "{tmp}/base-string.json", *STORE],
     ["base must be a JSON object of settings, got 'copy'"]),
    ("r3-sweep-metric", ["sweep", "--preset", "quick", "--metric", "bogus", *STORE], ["unknown metric 'bogus'"]),
    ("r3-sweep-set-axis", ["sweep", "--preset", "quick", "--set", "encoding=rope", *STORE],
     ["varies ['encoding'] in its grid"]),
    ("r3-sweep-set-unknown", ["sweep", "--preset", "quick", "--set", "nosuch=1", *STORE],
     ["unknown run setting(s) ['nosuch']"]),
    ("r3-sweep-workers-0", ["sweep", "--preset", "quick", "--workers", "0", *STORE],
     ["--workers must be an integer >= 1, got 0"]),
    ("r3-sweep-threads", ["sweep", "--preset", "quick", "--threads", "-1", *STORE],
     ["--threads must be an integer >= 0", "got -1"]),
    ("r3-sweep-limit", ["sweep", "--preset", "quick", "--store", "{tmp}/runs.sqlite", "--limit", "-1"],
     ["--limit must be an integer >= 0, got -1"]),
    ("r3-sweep-float16-cpu", ["sweep", "--preset", "quick", "--dtype", "float16", "--device", "cpu", *STORE],
     ["dtype 'float16' cannot train on the CPU"]),
    ("r3-sweep-executor", ["sweep", "--preset", "quick", "--executor", "dask", *STORE], ["unknown executor 'dask'"]),
    ("r3-sweep-store-folder", ["sweep", "--preset", "quick", "--store", "{tmp}", "--limit", "0"],
     ["is a folder, not a file"]),
    ("r3-sweep-json-suffix", ["sweep", "--preset", "quick", "--json", "{tmp}/x.txt", *STORE],
     ["--json must end in .json, got 'x.txt'"]),
    # -- r3: probe -------------------------------------------------------------------------------------------------
    ("r3-probe-window-small", ["probe", "minilm", "--window", "10"], ["window must be an integer >= 32 tokens, got 10"]),
    ("r3-probe-window-large", ["probe", "minilm", "--window", "100000"],
     ["--window 100000 exceeds the model's 512 positions"]),
    ("r3-probe-pairs", ["probe", "minilm", "--n-pairs", "5"], ["n_pairs must be an integer >= 100, got 5"]),
    ("r3-probe-windows", ["probe", "minilm", "--windows", "0"], ["windows must be a positive integer, got 0"]),
    ("r3-probe-only", ["probe", "minilm", "--only", "nosuch"], ["unknown probe(s) ['nosuch']"]),
    ("r3-probe-text", ["probe", "minilm", "--text", "{tmp}/missing.txt"], ["missing.txt does not exist"]),
    ("r3-probe-folder", ["probe", "{tmp}/no-model"], ["no-model does not exist"]),
    ("r3-probe-gguf-missing", ["probe", "{tmp}/model.gguf"], ["model.gguf does not exist"]),
    ("r3-probe-not-a-model", ["probe", "{tmp}/list.json"], ["list.json is a file but not a .gguf file"]),
    ("r3-probe-dtype", ["probe", "minilm", "--dtype", "float8"], ["unknown dtype 'float8'"]),
    # -- r3: extend ------------------------------------------------------------------------------------------------
    ("r3-extend-lengths-short", ["extend", "--lengths", "16", "--plan"], ["lengths must be integers >= 64 tokens, got 16"]),
    ("r3-extend-scaling", ["extend", "--scalings", "bogus", "--plan"], ["unknown scaling 'bogus'"]),
    ("r3-extend-nothing-to-run", ["extend", "--protocols", "none", "--no-passkey", "--plan"],
     ["nothing to run: no perplexity protocol and no passkey"]),
    ("r3-extend-depth", ["extend", "--depths", "1.5", "--plan"], ["passkey depths must be numbers in [0, 1], got 1.5"]),
    ("r3-extend-trials", ["extend", "--trials", "0", "--plan"], ["trials must be a positive integer, got 0"]),
    ("r3-extend-stride", ["extend", "--stride-fraction", "0", "--plan"], ["stride_fraction must be in (0, 1], got 0.0"]),
    ("r3-extend-factor", ["extend", "--factor", "0.5", "--plan"], ["--factor must be a number >= 1, got 0.5"]),
    ("r3-extend-seed", ["extend", "--seed", "-1", "--plan"], ["seed must be an integer in 0..4294967295, got -1"]),
    ("r3-extend-memory", ["extend", "--max-memory-gb", "-1", "--plan"],
     ["max_memory_gb must be a number > 0", "got -1.0"]),
    ("r3-extend-windows", ["extend", "--windows", "0", "--plan"], ["windows must be a positive integer, got 0"]),
    ("r3-extend-bert", ["extend", "minilm", "--plan"], ["model type 'bert' uses 'learned' positions"]),
    ("r3-extend-text", ["extend", "--text", "{tmp}/missing.txt", "--plan"], ["missing.txt does not exist"]),
    # -- r3: bench -------------------------------------------------------------------------------------------------
    ("r3-bench-seq-len", ["bench", "--seq-len", "0"], ["seq_len must be a positive integer, got 0"]),
    ("r3-bench-heads", ["bench", "--q-heads", "3", "--kv-heads", "2"], ["q_heads (3) must be a multiple of kv_heads (2)"]),
    ("r3-bench-rotary", ["bench", "--rotary-dim", "3"], ["rotary_dim must be even and in 2..head_dim (128), got 3"]),
    ("r3-bench-repeats", ["bench", "--repeats", "0"], ["repeats must be an integer >= 1", "got 0"]),
    ("r3-bench-mode", ["bench", "--mode", "bogus"], ["mode must be out-of-place, in-place or backward, got 'bogus'"]),
    ("r3-bench-device", ["bench", "--device", "mps"], ["device 'mps' is not supported by this command"]),
    ("r3-bench-threads", ["bench", "--threads", "-1"], ["threads must be an integer >= 0", "got -1"]),
    ("r3-bench-seed", ["bench", "--seed", "-1"], ["seed must be an integer in 0..4294967295, got -1"]),
    ("r3-bench-json", ["bench", "--json", "{tmp}/nowhere/x.json"], ["nowhere does not exist"]),
    # -- inspect (not in either round) -------------------------------------------------------------------------------
    ("inspect-missing-file", ["inspect", "{tmp}/nothing.json"],
     ["config file {tmp}/nothing.json does not exist", "pass an existing config.json, a model folder"]),
    ("inspect-not-a-config", ["inspect", "{tmp}/list.json"],
     ["list.json holds a JSON list, not an object, so it is not a Hugging Face config", "pass a config.json"]),
    # -- r3: report ------------------------------------------------------------------------------------------------
    ("r3-report-address-without-ray", ["report", "--address", "10.0.0.1:6379", "--out", "{tmp}/report"],
     ["--address 10.0.0.1:6379 applies to the Ray executor"]),
    ("r3-report-seeds", ["report", "--seeds", "0", "--claim", "sin-bounded", "--out", "{tmp}/report"],
     ["seeds must be a whole number >= 1, got 0"]),
    ("r3-report-thresholds", ["report", "--thresholds", "{tmp}/missing.json", "--claim", "sin-bounded",
                              "--out", "{tmp}/report"], ["missing.json does not exist"]),
    ("r3-report-executor", ["report", "--executor", "dask", "--out", "{tmp}/report"], ["unknown executor 'dask'"]),
]


def _files(tmp) -> None:
    (tmp / "list.json").write_text("[1, 2]")
    (tmp / "binary.json").write_bytes(b"\xff\xfe{}")
    (tmp / "folder.json").mkdir()
    (tmp / "empty.json").write_text("{}")
    (tmp / "zero.json").write_text("")
    (tmp / "negative-seed.json").write_text(json.dumps({"base": {"steps": 10}, "seeds": [-1]}))
    (tmp / "repeated-seed.json").write_text(json.dumps({"base": {"steps": 10}, "seeds": [0, 0]}))
    (tmp / "base-string.json").write_text(json.dumps({"base": "copy"}))


@pytest.mark.parametrize("argv, fragments", [pytest.param(argv, fragments, id=name) for name, argv, fragments in CASES])
def test_bad_input_is_one_line_naming_the_value(argv, fragments, tmp_path, capsys):
    _files(tmp_path)
    check_one_line_error(argv, fragments, tmp_path, capsys, lambda tmp: sorted(p.name for p in tmp.iterdir()))


def test_the_table_is_large_and_every_command_is_in_it():
    names = [name for name, _, _ in CASES]
    assert len(names) == len(set(names))
    # the rounds as they were filed: 30 findings of the second, 100 cases of the third; and inspect's own
    assert [sum(name.startswith(prefix) for name in names) for prefix in ("issue-", "r3-", "inspect-")] == [30, 100, 3]
    assert len(names) == 133
    commands = {argv[0] for _, argv, _ in CASES}
    assert commands == {"list", "show", "inspect", "check", "plot", "train", "sweep", "probe", "extend", "bench",
                        "report"}
