"""The four-term split adds up to the model's own layer-0 logits (relative error <= 1e-4)."""

import pytest
import torch
from transformers import BertConfig, BertModel, LlamaConfig, LlamaModel

from posenc.errors import PosencError
from posenc.probe.corpus import shakespeare_text
from posenc.probe.decompose import TERMS, four_term_split


def test_minilm_parts_add_up_on_shakespeare(minilm):
    ids = minilm.tokenizer(shakespeare_text(3000), return_tensors="pt", truncation=True, max_length=256).input_ids[0]
    split = four_term_split(minilm.model, ids)
    assert set(split.terms) == set(TERMS)
    assert split.terms["pp"].shape == (12, ids.numel(), ids.numel())
    assert split.relative_error <= 1e-4
    shares = split.variance_shares()
    assert len(shares) == 12 and all(s["ww"] >= 0 and s["pp"] >= 0 for s in shares)


def _tiny_bert(**overrides):
    config = BertConfig(vocab_size=120, hidden_size=48, num_hidden_layers=2, num_attention_heads=4,
                        intermediate_size=96, max_position_embeddings=64, type_vocab_size=2, **overrides)
    model = BertModel(config).eval()
    with torch.no_grad():  # non-trivial LayerNorm and biases, so the remainder has work to do
        norm = model.embeddings.LayerNorm
        norm.weight.uniform_(0.5, 1.5)
        norm.bias.normal_(0, 0.3)
        attention = model.encoder.layer[0].attention.self
        attention.query.bias.normal_(0, 0.5)
        attention.key.bias.normal_(0, 0.5)
        model.embeddings.token_type_embeddings.weight.normal_(0, 0.5)
    return model


def test_tiny_random_bert_parts_add_up():
    model = _tiny_bert()
    ids = torch.randint(0, 120, (40,))
    split = four_term_split(model, ids)
    assert split.relative_error <= 1e-4
    # the reference is the model's own computation: its softmax is the attention the model returns
    model.set_attn_implementation("eager")
    with torch.no_grad():
        weights = model(ids[None], output_attentions=True).attentions[0][0]  # [H, T, T]
    torch.testing.assert_close(split.reference.softmax(-1).float(), weights, atol=1e-5, rtol=1e-4)


def test_without_the_remainder_the_parts_do_not_add_up():
    """The remainder (LayerNorm bias, token type, projection biases) is a real part, not a rounding term."""
    split = four_term_split(_tiny_bert(), torch.randint(0, 120, (30,)))
    four = split.terms["ww"] + split.terms["wp"] + split.terms["pw"] + split.terms["pp"]
    error = float(torch.linalg.norm(four - split.reference) / torch.linalg.norm(split.reference))
    assert error > 1e-2


def test_llama_is_refused():
    model = LlamaModel(LlamaConfig(vocab_size=50, hidden_size=16, intermediate_size=32, num_hidden_layers=1,
                                   num_attention_heads=2))
    with pytest.raises(PosencError, match="BERT-style encoder"):
        four_term_split(model, torch.arange(10))
