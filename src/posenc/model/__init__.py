"""The tutorials' model pieces: the input layer and a small Transformer that takes any encoding through its hooks."""

from posenc.model.input import TransformerInput
from posenc.model.transformer import Attention, Block, ModelConfig, Transformer, TransformerConfig

__all__ = ["TransformerInput", "Transformer", "ModelConfig", "TransformerConfig", "Attention", "Block"]
