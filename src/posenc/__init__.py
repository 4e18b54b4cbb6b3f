"""posenc: positional encodings for Transformers, behind one contract.

    >>> import posenc
    >>> "rope" in posenc.available()
    True
    >>> pe = posenc.build("sinusoidal", dim=8)

Every encoding is an ``nn.Module`` with six hooks (``embed``, ``rotate``, ``bias``, ``score_mod``,
``contextual_bias``, ``query_scale``), each with a default that changes nothing; see :mod:`posenc.encodings.base`
for shapes and why each exists.
"""

from posenc._version import __version__
from posenc.encodings.base import AbsoluteEncoding, EncodingInfo, PositionalEncoding
from posenc.errors import PosencError
from posenc.hf.config import from_hf_config
from posenc.hf.schedule import schedule_from_hf_config
from posenc.registry import available, build, build_for_model, get_class, options_of

__all__ = [
    "available", "build", "build_for_model", "from_hf_config", "get_class", "options_of", "schedule_from_hf_config",
    "PositionalEncoding", "AbsoluteEncoding", "EncodingInfo", "PosencError", "__version__",
]
