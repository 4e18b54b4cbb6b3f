"""p-RoPE: RoPE on the highest frequencies only (Barbero et al. 2024, "Round and Round We Go! What makes Rotary
Positional Encodings useful?", §5, eq. for p-RoPE).

Of RoFormer's frequencies ``inv_freq_i = base^(-2i/Dh)`` (i = 0..Dh/2-1, highest first) the first ``floor(p Dh / 2)``
are kept and the rest are set to 0, so those pairs never turn and act as a position-free ("semantic") channel::

    theta_{n,i} = n * base^(-2i/Dh)   if i < floor(p Dh / 2),   else 0

``p = 1`` is RoPE, ``p = 0`` is NoPE. The paper reports p = 0.75 as the best of its Gemma-2B runs. Gemma 4 ships the
same frequencies as its rope type ``"proportional"`` (``partial_rotary_factor`` = p), which is the scaling this class
uses (:func:`posenc.encodings.rope_scaling.proportional`), applied through RoPE's rotate hook.
"""

from __future__ import annotations

from posenc.encodings.base import EncodingInfo
from posenc.encodings.catalog import register
from posenc.encodings.rope import RoPE

__all__ = ["PRoPE"]


@register("p_rope")
class PRoPE(RoPE):
    """RoPE with only the ``p`` fraction of highest frequencies (Barbero et al. 2024, arXiv:2410.06205, §5).

    Args:
        head_dim: width of each query/key head ``Dh``.
        p: fraction of the frequencies kept, in [0, 1] (0.75 in the paper).
        base, pairing: as for :class:`posenc.encodings.rope.RoPE`.

    Example::

        >>> import posenc
        >>> posenc.build("p_rope", head_dim=8, p=0.5).inv_freq.tolist()
        [1.0, 0.1, 0.0, 0.0]
    """

    info = EncodingInfo(family="rotary", paper="Barbero et al. 2024, Round and Round We Go (p-RoPE, arXiv:2410.06205)",
                        hooks=("rotate",))

    def __init__(self, head_dim: int = 64, p: float = 0.75, base: float = 10000.0, pairing: str = "half"):
        super().__init__(head_dim=head_dim, base=base, pairing=pairing,
                         scaling={"type": "proportional", "partial_rotary_factor": p})
        self.p = float(p)
