"""One function per experiment, registered by name; the ledger names which experiment tests which claim.

Importing this package registers every experiment. Each module imports the posenc area it needs inside its
functions, so an area that is missing or broken fails only its own claims.
"""

from posenc.report.experiments import (  # noqa: F401  (registers experiments)
    decoder,
    extension,
    field,
    models,
    pretrained,
    research,
    tables,
    training,
    tutorial_mechanics,
    tutorial_semantics,
    tutorial_tables,
    tutorial_training,
)
from posenc.report.experiments.base import EXPERIMENTS, Context, Measurement, Row, experiment, get_experiment

#: the experiment modules in the order their claims appear on the page (each holds its claims in ``CLAIMS``): models,
#: tables, the further seed checks on tables and configurations, the remaining tutorial claims on mechanisms, MiniLM, the
#: remaining tutorial claims on meaning (MiniLM too), the lab, the tutorial claims that train small models, extension, the
#: research encodings' claims, the claims of the encodings released since 2024
MODULES = (models, tables, tutorial_tables, tutorial_mechanics, pretrained, tutorial_semantics, training, tutorial_training, extension,
           research, field)

__all__ = ["Context", "EXPERIMENTS", "MODULES", "Measurement", "Row", "experiment", "get_experiment"]
