"""The claims posenc tests, as records: one module per module of :mod:`posenc.report.experiments`, each holding the
claims its experiments measure in ``CLAIMS`` (:class:`posenc.report.claim.Claim`: the sentence, the test that decides
it, its null and the reason for its bar). The experiments measure; these records say what a measurement must show.
:mod:`posenc.report.ledger` collects them in the page's order.
"""

from importlib import import_module

#: the claim modules in the order their claims appear on the page: models, tables, the further tutorial checks on
#: tables and configurations, the remaining tutorial claims on mechanisms, MiniLM, the remaining tutorial claims on
#: meaning (MiniLM too), the lab, the tutorial claims that train small models, extension, the research encodings'
#: claims, the claims of the encodings released since 2024
ORDER = ("models", "tables", "tutorial_tables", "tutorial_mechanics", "pretrained", "tutorial_semantics", "training",
         "tutorial_training", "extension", "research", "field")
MODULES = tuple(import_module(f"{__name__}.{name}") for name in ORDER)

__all__ = ["MODULES", "ORDER"]
