"""posenc inspect's findings in Chinese: every preset's finding has its Chinese sentence with the same values; each
template keeps the values its English sentence has; a sentence no template knows is None, never a wrong text."""

from __future__ import annotations

import json
import re

import pytest

from posenc.explore.findings import TEMPLATES, chinese
from posenc.explore.models import model_entries
from posenc.inspection import inspect_model

_FIELD = re.compile(r"\{(\w+)\}")


def _numbers(text: str) -> list[str]:
    return re.findall(r"\d+(?:\.\d+)?(?:e[+-]\d+)?", text)


def test_every_presets_finding_reads_in_chinese_with_its_values():
    seen = 0
    for model in model_entries():
        for finding in model["findings"]:
            zh = finding["message_zh"]
            assert zh, f"{model['name']}: no Chinese for {finding['code']}: {finding['message']!r}"
            assert re.search(r"[\u4e00-\u9fff]", zh) and "{" not in zh
            assert sorted(_numbers(zh)) == sorted(_numbers(finding["message"])), (finding["message"], zh)
            seen += 1
    assert seen >= 8  # each preset warns about something (base kept in rope_parameters, Gemma's local base, ...)


def test_each_template_has_the_same_values_in_both_languages():
    for code, english, zh in TEMPLATES:
        assert set(_FIELD.findall(english)) == set(_FIELD.findall(zh)), f"{code}: {english[:60]}"


def test_a_filled_template_comes_back_filled_in_chinese():
    for code, english, zh in TEMPLATES:
        values = {name: f"V{n}x" for n, name in enumerate(dict.fromkeys(_FIELD.findall(english)))}
        got = chinese(code, english.format(**values))
        assert got == zh.format(**values), f"{code}: {english[:60]}"


@pytest.mark.parametrize("config, code", [
    ({"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32, "num_hidden_layers": 2,
      "partial_rotary_factor": 0.4, "rope_theta": 10000.0}, "partial-rotary"),
    ({"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 2,
      "max_position_embeddings": 4096, "rope_theta": 10000.0,
      "rope_scaling": {"rope_type": "dynamic", "factor": 2.0}}, "dynamic-cache"),
    ({"model_type": "llama", "hidden_size": 256, "num_attention_heads": 4, "num_hidden_layers": 2,
      "max_position_embeddings": 16384, "rope_theta": 10000.0,
      "rope_scaling": {"rope_type": "yarn", "factor": 2.0, "original_max_position_embeddings": 4096}}, "yarn-factor"),
])
def test_posencs_own_sentences_for_other_configs_read_in_chinese(tmp_path, config, code):
    """Warnings the presets do not raise, written by posenc inspect for a config that raises them."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(config))
    findings = [f for f in inspect_model(path).findings if f.code == code]
    assert findings, f"posenc inspect no longer warns {code} here: {[f.code for f in inspect_model(path).findings]}"
    for finding in findings:
        zh = chinese(finding.code, finding.message)
        assert zh and sorted(_numbers(zh)) == sorted(_numbers(finding.message)), (finding.message, zh)


def test_a_sentence_no_template_knows_is_none():
    assert chinese("rope-theta", "a sentence posenc has never written") is None
    message = next(f for f in model_entries()[0]["findings"])["message"]
    assert chinese("pairing", message) is None  # the code must match too
