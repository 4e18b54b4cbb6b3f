"""Passkey prompts (built with a real tokenizer) and greedy decoding with the KV cache."""

from __future__ import annotations

import pytest
import torch
from extend_models import NATIVE, tiny_llama
from transformers import AutoTokenizer

from posenc import PosencError
from posenc.extend import patch_model, scaled_rope
from posenc.extend.passkey import build_passkey_prompt, cache_kwargs, greedy_decode, passkey_key, passkey_trial


@pytest.fixture(scope="module")
def tokenizer():
    from posenc.pretrained import minilm_dir

    return AutoTokenizer.from_pretrained(minilm_dir())


@pytest.mark.parametrize("depth", [0.0, 0.5, 1.0])
def test_prompt_hides_the_key_at_its_depth_within_the_length(tokenizer, depth):
    prompt = build_passkey_prompt(tokenizer, 400, depth, key=48213, answer_tokens=8)
    assert prompt.ids.numel() <= 400 - 8
    text = tokenizer.decode(prompt.ids)
    assert text.count("48213") == 2  # "The pass key is K. Remember it. K is the pass key."
    assert text.endswith("what is the pass key? the pass key is")  # MiniLM's tokenizer lower-cases
    relative = prompt.needle_at / prompt.ids.numel()
    assert abs(relative - depth) < 0.2


# MiniLM's tokenizer (no BOS token): intro 29 tokens, filler 24, needle with a 5-digit key 19, question 10. At 400
# tokens with 8 for the answer: 400 - 8 - 29 - 19 - 10 = 334 tokens for fillers, 334 // 24 = 13 repeats (312 tokens),
# so the prompt takes 29 + 19 + 10 + 312 = 370 tokens, and the needle starts after the intro and round(depth * 13)
# fillers: 29 + 24 * before.
@pytest.mark.parametrize(("depth", "before"), [(0.0, 0), (0.25, 3), (0.3, 4), (0.5, 6), (0.75, 10), (1.0, 13)])
def test_needle_follows_round_depth_times_the_fillers_that_fit(tokenizer, depth, before):
    # 0.25 * 13 = 3.25 -> 3; 0.3 * 13 = 3.9 -> 4; 0.5 * 13 = 6.5 -> 6 (Python rounds half to even); 9.75 -> 10
    prompt = build_passkey_prompt(tokenizer, 400, depth, key=48213, answer_tokens=8)
    assert prompt.ids.numel() == 370
    assert prompt.needle_at == 29 + 24 * before
    text = tokenizer.decode(prompt.ids)
    head, _, tail = text.partition("the pass key is 48213")
    assert head.count("the grass is green") == before and tail.count("the grass is green") == 13 - before


def test_needle_moves_with_depth(tokenizer):
    positions = [build_passkey_prompt(tokenizer, 600, d, key=11111).needle_at for d in (0.0, 0.25, 0.5, 0.75, 1.0)]
    assert positions == sorted(positions) and positions[0] < positions[-1]


def test_keys_are_reproducible_five_digit_numbers():
    assert passkey_key(4096, 0.5, 0) == passkey_key(4096, 0.5, 0)
    keys = {passkey_key(4096, d, t) for d in (0.25, 0.75) for t in range(5)}
    assert len(keys) == 10 and all(10000 <= k <= 99999 for k in keys)


def test_prompt_too_long_for_the_length_is_refused(tokenizer):
    with pytest.raises(PosencError, match="use a longer length"):
        build_passkey_prompt(tokenizer, 40, 0.5, key=12345)
    with pytest.raises(PosencError, match="depth"):
        build_passkey_prompt(tokenizer, 400, 1.5, key=12345)


def test_greedy_decode_equals_argmax_of_full_passes():
    model = patch_model(tiny_llama(), scaled_rope(tiny_llama().config, "yarn", 2.0, native_len=NATIVE))
    prompt = torch.randint(0, 128, (NATIVE + 10,), generator=torch.Generator().manual_seed(5))
    got = greedy_decode(model, prompt, max_new_tokens=5)
    seq = prompt.tolist()
    with torch.no_grad():
        for _ in range(5):
            seq.append(int(model(torch.tensor([seq])).logits[0, -1].argmax()))
    assert got == seq[-5:]


# answers a stub decoder gives, with what a reader finds in them (written by hand, not by the parser's rule)
ANSWERS = [
    ("48213. remember", 48213, True),
    ("48 213", 48, False),  # the first run of digits only: a space ends it
    ("the key", None, False),  # no digits at all
    ("12345 48213", 12345, False),  # the key, but after another number
    ("048213", 48213, True),  # a leading zero reads as the same integer
    ("482130", 482130, False),  # the key followed by one more digit is another number
]


@pytest.mark.parametrize(("answer", "found", "correct"), ANSWERS)
def test_trial_reads_the_first_number_of_a_known_answer(tokenizer, monkeypatch, answer, found, correct):
    """A decoder stub returns the tokens of a known answer, so what the trial must find is known in advance."""
    import posenc.extend.passkey as passkey

    prompt = build_passkey_prompt(tokenizer, 300, 0.5, key=48213)
    answer_ids = tokenizer(answer, add_special_tokens=False)["input_ids"]
    monkeypatch.setattr(passkey, "greedy_decode", lambda model, ids, max_new_tokens=8, cache=None: answer_ids)
    result = passkey_trial(tiny_llama(vocab_size=tokenizer.vocab_size), tokenizer, prompt, max_new_tokens=4)
    assert result == {"key": 48213, "answer": answer, "found": found, "correct": correct,
                      "prompt_tokens": prompt.ids.numel(), "needle_at": prompt.needle_at}


def test_trial_decodes_what_the_model_answers(tokenizer):
    """Without a stub: the answer is the model's own greedy continuation of the prompt, decoded to text."""
    prompt = build_passkey_prompt(tokenizer, 300, 0.5, key=48213)
    model = tiny_llama(vocab_size=tokenizer.vocab_size)
    seq = prompt.ids.tolist()
    with torch.no_grad():
        for _ in range(4):
            seq.append(int(model(torch.tensor([seq])).logits[0, -1].argmax()))
    result = passkey_trial(model, tokenizer, prompt, max_new_tokens=4)
    assert result["answer"] == tokenizer.decode(seq[-4:], skip_special_tokens=True)


def test_decoding_after_a_cached_prefix_equals_decoding_the_whole_prompt():
    from transformers import DynamicCache

    model = patch_model(tiny_llama(), scaled_rope(tiny_llama().config, "yarn", 2.0, native_len=NATIVE))
    prompt = torch.randint(0, 128, (NATIVE + 30,), generator=torch.Generator().manual_seed(6))
    cache = DynamicCache()
    with torch.no_grad():
        model.model(input_ids=prompt[None, :70], use_cache=True, **cache_kwargs(model.model, cache))  # past the native 64
    assert greedy_decode(model, prompt[70:], 6, cache=cache) == greedy_decode(model, prompt, 6)
    assert cache.get_seq_length() == NATIVE + 30 + 5  # extended in place: the prompt and all but the last answer


@pytest.mark.parametrize("depth", [0.0, 0.5, 1.0])
def test_shared_prefix_gives_the_answers_of_full_prompts(tokenizer, depth):
    """Keys of different token counts move the needle's neighbours; the cache keeps only the common prefix."""
    from posenc.extend.passkey import SharedPrefix

    model = tiny_llama(vocab_size=tokenizer.vocab_size)
    patch_model(model, scaled_rope(model.config, "yarn", 2.0, native_len=NATIVE))
    shared = SharedPrefix(model)
    keys = [10000, 48213, 12121]  # the needle takes 7, 8, then 7 tokens again
    prompts = [build_passkey_prompt(tokenizer, 2 * NATIVE, depth, key, 2) for key in keys]
    for prompt in prompts:
        alone = passkey_trial(model, tokenizer, prompt, 2)
        reused = passkey_trial(model, tokenizer, prompt, 2, shared=shared)
        assert reused == alone
        assert shared.cache.get_seq_length() == len(shared.ids) <= prompt.needle_at


def test_shared_prefix_runs_the_text_before_the_needle_on_the_models_device(monkeypatch):
    """The prefix goes to the device of the model's weights (a GPU in a CUDA run). No accelerator is needed to see
    it: a model whose one weight is on the meta device, and stand-ins for the forward pass and the decoding that
    record where their tokens are."""
    from posenc.extend import passkey
    from posenc.extend.passkey import PasskeyPrompt, SharedPrefix

    seen = []
    monkeypatch.setattr(passkey, "_forward_cached", lambda model, tokens, cache: seen.append(tokens))
    monkeypatch.setattr(passkey, "greedy_decode", lambda model, ids, max_new_tokens, cache: [7])
    model = torch.nn.Linear(1, 1, device="meta")
    prompt = PasskeyPrompt(ids=torch.arange(10), key=12345, needle_at=6, depth=0.5)
    assert SharedPrefix(model).answer(prompt, 2) == [7]
    # one forward pass over the 6 tokens before the needle (a meta tensor keeps its shape, not its values)
    assert [(t.device.type, tuple(t.shape)) for t in seen] == [("meta", (1, 6))]


def test_shared_prefix_belongs_to_one_model(tokenizer):
    from posenc.extend.passkey import SharedPrefix

    prompt = build_passkey_prompt(tokenizer, 300, 0.5, key=48213)
    other = SharedPrefix(tiny_llama(vocab_size=tokenizer.vocab_size))
    with pytest.raises(PosencError, match="another model"):
        passkey_trial(tiny_llama(vocab_size=tokenizer.vocab_size), tokenizer, prompt, 2, shared=other)


def test_decoding_through_a_cache_the_model_ignores_is_an_error_naming_the_version():
    """A model that drops the cache argument (as a replaced attention that swallowed a renamed keyword did) would
    restart every step at position 0: the decoding stops with an error instead of answering."""
    import transformers

    model = tiny_llama()
    forward = model.model.forward

    def drops_the_cache(*args, cache=None, past_key_values=None, **kwargs):
        return forward(*args, **kwargs)

    model.model.forward = drops_the_cache
    with pytest.raises(PosencError, match=rf"grew by 0 tokens for 5 tokens fed.*transformers version "
                                          rf"\({transformers.__version__}\)"):
        greedy_decode(model, torch.arange(5), max_new_tokens=2)


def test_the_cache_grows_by_each_token_decoded():
    from transformers import DynamicCache

    model = patch_model(tiny_llama(), scaled_rope(tiny_llama().config, "none", 1.0))
    cache = DynamicCache()
    greedy_decode(model, torch.arange(7), max_new_tokens=4, cache=cache)
    assert cache.get_seq_length() == 7 + 3  # the prompt, then every answer token but the last was fed back


class _CharTokenizer:
    """One token per character (id = code point), so every length is a count of characters; ``bos``: its BOS id, or
    no ``bos_token_id`` attribute at all."""

    def __init__(self, bos: int | None = None, has_bos_attribute: bool = True):
        if has_bos_attribute:
            self.bos_token_id = bos

    def __call__(self, text, add_special_tokens=False):
        return {"input_ids": [ord(c) for c in text]}


@pytest.mark.parametrize(("tokenizer", "first"), [(_CharTokenizer(bos=0), [0]), (_CharTokenizer(bos=None), []),
                                                  (_CharTokenizer(has_bos_attribute=False), [])],
                         ids=["bos-0", "bos-none", "no-attribute"])
def test_the_prompt_starts_with_the_bos_token_where_the_tokenizer_has_one(tokenizer, first):
    from posenc.extend.passkey import FILLER, INTRO, NEEDLE, QUESTION

    # by characters: 3000 - 8 - BOS - intro - needle (5-digit key) - question leaves room for n fillers
    n = (3000 - 8 - len(first) - len(INTRO) - len(NEEDLE.format(key=12345)) - len(QUESTION)) // len(FILLER)
    prompt = build_passkey_prompt(tokenizer, 3000, 0.0, key=12345)
    assert prompt.ids[:len(first) + 5].tolist() == first + [ord(c) for c in INTRO[:5]]
    assert prompt.needle_at == len(first) + len(INTRO)  # depth 0: right after the intro
    assert prompt.ids.numel() == len(first) + len(INTRO) + len(NEEDLE.format(key=12345)) + n * len(FILLER) + len(
        QUESTION)


def test_a_prompt_with_room_for_exactly_one_filler_is_built_and_one_token_less_is_refused():
    from posenc.extend.passkey import FILLER, INTRO, NEEDLE, QUESTION

    tokenizer = _CharTokenizer()
    fixed = len(INTRO) + len(NEEDLE.format(key=12345)) + len(QUESTION)  # characters = tokens here
    just = 8 + fixed + len(FILLER)  # 8 answer tokens, the fixed parts, one filler
    prompt = build_passkey_prompt(tokenizer, just, 0.5, key=12345)
    assert prompt.ids.numel() == just - 8
    with pytest.raises(PosencError, match=f"needs more than {just - 1} tokens"):
        build_passkey_prompt(tokenizer, just - 1, 0.5, key=12345)


def test_the_prompt_leaves_8_answer_tokens_by_default():
    tokenizer = _CharTokenizer()
    assert torch.equal(build_passkey_prompt(tokenizer, 3000, 0.5, key=12345).ids,
                       build_passkey_prompt(tokenizer, 3000, 0.5, key=12345, answer_tokens=8).ids)
    assert not torch.equal(build_passkey_prompt(tokenizer, 3000, 0.5, key=12345).ids,
                           build_passkey_prompt(tokenizer, 3000, 0.5, key=12345, answer_tokens=120).ids)
