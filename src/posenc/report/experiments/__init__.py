"""One function per experiment, registered by name; the claims (:mod:`posenc.report.claims`) name which experiment
tests which claim.

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
from posenc.report.experiments.base import EXPERIMENTS, Context, experiment, get_experiment
from posenc.report.measurement import Measurement, Row

__all__ = ["Context", "EXPERIMENTS", "Measurement", "Row", "experiment", "get_experiment"]
