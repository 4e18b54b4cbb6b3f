"""One function per experiment, registered by name; the ledger names which experiment tests which claim.

Importing this package registers every experiment. Each module imports the posenc area it needs inside its
functions, so an area that is missing or broken fails only its own claims.
"""

from posenc.report.experiments import (  # noqa: F401  (registers experiments)
    extension,
    models,
    pretrained,
    seed_tables,
    seed_training,
    tables,
    training,
)
from posenc.report.experiments.base import EXPERIMENTS, Context, Measurement, Row, experiment, get_experiment

__all__ = ["Context", "EXPERIMENTS", "Measurement", "Row", "experiment", "get_experiment"]
