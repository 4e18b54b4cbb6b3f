"""The former name of :mod:`posenc.pretrained` (finding and loading pretrained models, offline), kept so that
``from posenc.hub import load_model`` still works; new code imports :mod:`posenc.pretrained`."""

from posenc.pretrained import *  # noqa: F403
from posenc.pretrained import __all__  # noqa: F401
