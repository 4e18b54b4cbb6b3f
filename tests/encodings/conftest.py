"""x-transformers, the reference implementation of PoPE and FoX (the ``dev`` extra pins the version compared).

Installed, it is imported as it is. Otherwise, when the folder named by ``POSENC_XT_PATH`` (default
``/tmp/xt-field``) holds a copy installed with ``pip install --target FOLDER x-transformers==2.31.10 einx loguru
torch-einops-utils einops frozendict --no-deps``, that folder goes on the import path; the tests that need it call
``pytest.importorskip("x_transformers")`` and skip when neither has it.
"""

import importlib.util
import os
import sys

if importlib.util.find_spec("x_transformers") is None:
    _side = os.environ.get("POSENC_XT_PATH", "/tmp/xt-field")
    if os.path.isdir(os.path.join(_side, "x_transformers")):
        sys.path.insert(0, _side)
