"""Each labelled term of the four-term split against its own hand computation (not only their sum).

The sum of the parts equals the model's logits whatever the labels, so a split that swapped word-position and
position-word (or word-word and position-position) would pass every sum test. Here each term is recomputed with
numpy from the model's weights alone, term by term, and compared with the term carrying that label.

By hand, for a BERT layer 0 (LayerNorm over ``x_i = e_i + p_i + t_i``, ``sigma_i = sqrt(var(x_i) + eps)``):

    E_i = gamma (e_i - mean e_i) / sigma_i,   P_i = gamma (p_i - mean p_i) / sigma_i,
    R_i = gamma (t_i - mean t_i) / sigma_i + beta
    ww[h, i, j] = (W_q^h E_i) . (W_k^h E_j) / sqrt(Dh)       wp: (W_q^h E_i) . (W_k^h P_j)
    pw[h, i, j] = (W_q^h P_i) . (W_k^h E_j) / sqrt(Dh)       pp: (W_q^h P_i) . (W_k^h P_j)

(query first: ``wp`` is the word of the query against the position of the key).
"""

import numpy as np
import torch
from transformers import BertConfig, BertModel

from posenc.probe.decompose import FOUR, four_term_split

VOCAB, WIDTH, HEADS = 90, 24, 3


def _random_bert(seed: int) -> BertModel:
    torch.manual_seed(seed)
    config = BertConfig(vocab_size=VOCAB, hidden_size=WIDTH, num_hidden_layers=1, num_attention_heads=HEADS,
                        intermediate_size=32, max_position_embeddings=40, type_vocab_size=2)
    model = BertModel(config).eval()
    with torch.no_grad():  # position rows as large as word rows, so every term is of the same order
        model.embeddings.position_embeddings.weight.normal_(0, 1.0)
        model.embeddings.word_embeddings.weight.normal_(0, 1.0)
        model.embeddings.token_type_embeddings.weight.normal_(0, 0.5)
        model.embeddings.LayerNorm.weight.uniform_(0.5, 1.5)
        model.embeddings.LayerNorm.bias.normal_(0, 0.3)
        attention = model.encoder.layer[0].attention.self
        attention.query.bias.normal_(0, 0.5)
        attention.key.bias.normal_(0, 0.5)
    return model


def _hand_terms(model: BertModel, ids: np.ndarray) -> dict[str, np.ndarray]:
    """The five parts ``[H, T, T]`` from the weights, in float64 numpy, one head at a time."""
    emb = model.embeddings

    def weight(module):
        return module.weight.detach().double().numpy()

    T = len(ids)
    e = weight(emb.word_embeddings)[ids]  # [T, D]
    p = weight(emb.position_embeddings)[:T]  # BERT's position ids are 0..T-1
    t = np.repeat(weight(emb.token_type_embeddings)[:1], T, axis=0)  # token type 0 everywhere
    gamma, beta = weight(emb.LayerNorm), emb.LayerNorm.bias.detach().double().numpy()
    x = e + p + t
    sigma = np.sqrt(x.var(axis=1, keepdims=True) + emb.LayerNorm.eps)  # [T, 1]
    E = gamma * (e - e.mean(axis=1, keepdims=True)) / sigma
    P = gamma * (p - p.mean(axis=1, keepdims=True)) / sigma
    R = gamma * (t - t.mean(axis=1, keepdims=True)) / sigma + beta
    attention = model.encoder.layer[0].attention.self
    wq, wk = weight(attention.query), weight(attention.key)  # [D, D]: output rows h*Dh .. (h+1)*Dh - 1 are head h
    bq, bk = (attention.query.bias.detach().double().numpy(), attention.key.bias.detach().double().numpy())
    dh = WIDTH // HEADS
    out = {name: np.zeros((HEADS, T, T)) for name in ("ww", "wp", "pw", "pp", "rest")}
    for h in range(HEADS):
        rows = slice(h * dh, (h + 1) * dh)

        def q(v, bias=False, rows=rows):
            return v @ wq[rows].T + (bq[rows] if bias else 0.0)  # [T, Dh]

        def k(v, bias=False, rows=rows):
            return v @ wk[rows].T + (bk[rows] if bias else 0.0)

        scale = 1.0 / np.sqrt(dh)
        out["ww"][h] = q(E) @ k(E).T * scale
        out["wp"][h] = q(E) @ k(P).T * scale
        out["pw"][h] = q(P) @ k(E).T * scale
        out["pp"][h] = q(P) @ k(P).T * scale
        full_q, full_k = q(E) + q(P) + q(R, True), k(E) + k(P) + k(R, True)
        out["rest"][h] = full_q @ full_k.T * scale - out["ww"][h] - out["wp"][h] - out["pw"][h] - out["pp"][h]
    return out


def test_each_labelled_term_equals_its_hand_computation():
    for seed, length in ((0, 9), (1, 17)):
        model = _random_bert(seed)
        ids = torch.randint(0, VOCAB, (length,), generator=torch.Generator().manual_seed(seed))
        split = four_term_split(model, ids)
        hand = _hand_terms(model, ids.numpy())
        for name in (*FOUR, "rest"):
            got = split.terms[name].numpy()
            assert got.shape == (HEADS, length, length), name
            np.testing.assert_allclose(got, hand[name], rtol=1e-9, atol=1e-9 * np.abs(hand[name]).max(),
                                       err_msg=f"term {name!r}")
        # the check has teeth: the four hand terms differ from one another (a swap of two labels cannot pass)
        for a in FOUR:
            for b in FOUR:
                if a < b:
                    gap = np.linalg.norm(hand[a] - hand[b]) / max(np.linalg.norm(hand[a]), np.linalg.norm(hand[b]))
                    assert gap > 0.2, (a, b, gap)
        # and the hand parts add up to the model's own logits, as the split's do
        total = sum(hand.values())
        assert np.linalg.norm(total - split.reference.numpy()) <= 1e-4 * np.linalg.norm(total)


def test_word_position_is_query_word_against_key_position():
    """A head that reads the query's word only and the key's position only: every logit is ``wp``, the other three
    terms are zero. Words live in channels 0..11 and positions in 12..23, each row with mean 0 (so LayerNorm's
    centring leaves every part in its own channels); the query projection reads channels 0..11, the key 12..23."""
    model = _random_bert(2)
    half = WIDTH // 2
    with torch.no_grad():
        emb = model.embeddings
        words, positions = emb.word_embeddings.weight, emb.position_embeddings.weight
        words[:, half:] = 0.0
        words[:, :half] -= words[:, :half].mean(dim=1, keepdim=True)
        positions[:, :half] = 0.0
        positions[:, half:] -= positions[:, half:].mean(dim=1, keepdim=True)
        emb.token_type_embeddings.weight.zero_()
        emb.LayerNorm.bias.zero_()
        emb.LayerNorm.weight.fill_(1.0)
        attention = model.encoder.layer[0].attention.self
        attention.query.bias.zero_()
        attention.key.bias.zero_()
        attention.query.weight[:, half:] = 0.0  # queries read the word channels only
        attention.key.weight[:, :half] = 0.0  # keys read the position channels only
    ids = torch.randint(0, VOCAB, (12,), generator=torch.Generator().manual_seed(3))
    split = four_term_split(model, ids)
    wp = float(split.terms["wp"].norm())
    assert wp > 1e-2
    for name in ("ww", "pw", "pp", "rest"):
        assert float(split.terms[name].norm()) < 1e-6 * wp, name
    torch.testing.assert_close(split.terms["wp"], split.reference, rtol=1e-5, atol=1e-5 * wp)
