"""NoPE: no positional encoding at all (Kazemnejad et al. 2023, "The Impact of Positional Encoding on Length
Generalization in Transformers"). Every hook is the identity; a causal mask alone still lets a decoder infer position,
while an encoder without a mask is permutation-equivariant (tutorial 000: "I love you" vs "you love I")."""

from __future__ import annotations

from posenc.encodings.base import EncodingInfo, PositionalEncoding
from posenc.encodings.catalog import register

__all__ = ["NoPE"]


@register("nope")
class NoPE(PositionalEncoding):
    """No position information (Kazemnejad et al. 2023, arXiv:2305.19466)."""

    info = EncodingInfo(family="none", paper="Kazemnejad et al. 2023, NoPE (arXiv:2305.19466)", hooks=())
