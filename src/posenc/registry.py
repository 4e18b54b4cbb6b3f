"""Names to builders: ``posenc.build("rope", head_dim=64)``.

The public face of :mod:`posenc.encodings.catalog`, which holds the table, :data:`ENCODINGS` (a
:class:`posenc.names.Registry`): every family of the package registers at its class with :func:`register`, and an
encoding defined elsewhere joins with the same decorator. Options are the keyword
arguments of the class's ``__init__``; an unknown name or option raises an error that lists the valid ones. A
duplicate name raises.
"""

from __future__ import annotations

from posenc.encodings.catalog import (
    ENCODINGS,
    MODEL_SIZES,
    available,
    build,
    build_for_model,
    get_class,
    options_of,
    register,
)

__all__ = ["register", "build", "build_for_model", "available", "options_of", "get_class", "MODEL_SIZES", "ENCODINGS"]
