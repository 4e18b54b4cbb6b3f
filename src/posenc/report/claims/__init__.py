"""The claims posenc tests, as data: one TOML file per module of :mod:`posenc.report.experiments`
(``claims/<module>.toml``), each holding the claims its experiments measure: the sentence, the tests that decide it,
its null and the reason for each bar (:class:`posenc.report.claim.Claim`). The experiments measure; these records say
what a measurement must show. :mod:`posenc.report.ledger` collects them in the page's order.

A file holds, besides its claims, up to three tables of names, each optional:

- ``[code]``: names the records read from posenc's code, as ``NAME = "posenc.module.NAME"``: a bar, a length or a
  choice's options that an experiment also reads, so that the record and the measurement cannot drift apart;
- ``[values]``: numbers, prose and lists of tests the records share (a bar several tests use, a reason given often;
  a sentence of 60 characters or more is written once in all the files, ``tests/report/test_claim_files.py`` checks);
- ``[choices.NAME]``: a :class:`~posenc.report.claim.Choice` several claims share;

and ``[[claims]]``: the records, in page order, each with the fields of :class:`~posenc.report.claim.Claim` and its
``[[claims.tests]]`` and ``[[claims.requires]]`` (the fields of :class:`~posenc.report.claim.Test`).

Any string may name a value as ``${NAME}`` (``${NAME:g}`` with a format); a string that is exactly ``${NAME}`` is the
value itself (a number, a tuple of options, a choice, a list of tests); ``$$`` is a dollar sign. A name is defined
once and read from every file (a ``[code]`` line may repeat in each file that reads it).

>>> pi_yarn = next(c for c in claims_of("extension") if c.id == "pi-yarn")
>>> pi_yarn.tests[0].threshold == value("BEATS")
True
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from importlib import import_module, resources
from typing import Any

from posenc.errors import PosencError
from posenc.report.claim import Choice, Claim, Test

#: the claim files in the order their claims appear on the page: models, tables, the further tutorial checks on
#: tables and configurations, the remaining tutorial claims on mechanisms, MiniLM, the remaining tutorial claims on
#: meaning (MiniLM too), the lab, the tutorial claims that train small models, extension, the research encodings'
#: claims, the claims of the encodings released since 2024
ORDER = ("models", "tables", "tutorial_tables", "tutorial_mechanics", "pretrained", "tutorial_semantics", "training",
         "tutorial_training", "extension", "research", "field")

__all__ = ["ORDER", "ClaimFiles", "records", "claims_of", "all_claims", "value"]

_NAME = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::([^}]*))?\}|\$\$")
_TABLES = {"code", "values", "choices", "claims"}


class ClaimFiles:
    """Claim files read: ``files`` maps each file's name (its module, in page order) to its parsed TOML."""

    def __init__(self, files: dict[str, dict[str, Any]]) -> None:
        self.files = files
        self.names: dict[str, tuple[str, str, Any]] = {}
        for file, data in files.items():
            unknown = sorted(set(data) - _TABLES)
            if unknown:
                raise PosencError(f"claim file {file}.toml has tables {unknown}; a claim file holds only "
                                  f"{sorted(_TABLES)}")
            for table in ("code", "values", "choices"):
                for name, raw in data.get(table, {}).items():
                    known = self.names.get(name)
                    if known and not (table == "code" == known[1] and raw == known[2]):
                        raise PosencError(f"{file}.toml [{table}] defines {name}, which {known[0]}.toml "
                                          f"[{known[1]}] defines already: a name is defined once and read from "
                                          f"every file; rename one")
                    self.names.setdefault(name, (file, table, raw))
        self._values: dict[str, Any] = {}
        self._claims: dict[str, tuple[Claim, ...]] = {}

    @classmethod
    def parse(cls, texts: dict[str, str]) -> ClaimFiles:
        """Claim files from their TOML texts, by file name."""
        files = {}
        for name, text in texts.items():
            try:
                files[name] = tomllib.loads(text)
            except tomllib.TOMLDecodeError as error:
                raise PosencError(f"claim file {name}.toml is not valid TOML: {error}") from None
        return cls(files)

    def value(self, name: str) -> Any:
        """The value of a name the files share (from a ``[code]``, ``[values]`` or ``[choices]`` table)."""
        if name not in self._values:
            if name not in self.names:
                raise PosencError(f"the claim files read ${{{name}}}, which no [code], [values] or [choices] table "
                                  f"defines; defined: {', '.join(sorted(self.names)) or 'nothing'}")
            self._values[name] = _CYCLE  # while it is read: a name met again on the way reads itself
            try:
                self._values[name] = self._read(name)
            except BaseException:
                del self._values[name]
                raise
        if self._values[name] is _CYCLE:
            raise PosencError(f"the claim files' value {name} reads itself (through ${{...}}); a value must come "
                              f"to an end")
        return self._values[name]

    def _read(self, name: str) -> Any:
        file, table, raw = self.names[name]
        where = f"{file}.toml [{table}] {name}"
        if table == "choices":
            return self._build(Choice, raw, where)
        if table == "values":
            return self._resolve(raw, where)
        module, _, attribute = raw.rpartition(".") if isinstance(raw, str) else ("", "", "")
        try:
            return getattr(import_module(module), attribute)
        except (ImportError, AttributeError, ValueError):
            raise PosencError(f"{where} = {raw!r} names nothing importable; give 'posenc.module.NAME'") from None

    def _resolve(self, raw: Any, where: str) -> Any:
        """``raw`` with its names filled in: a string that is one ``${NAME}`` alone is that name's value; lists become
        tuples."""
        if isinstance(raw, list):
            return tuple(self._resolve(item, where) for item in raw)
        if not isinstance(raw, str):
            return raw
        whole = _NAME.fullmatch(raw)
        if whole and whole.group(1) and whole.group(2) is None:
            return self.value(whole.group(1))

        def fill(match: re.Match) -> str:
            if match.group(0) == "$$":
                return "$"
            try:
                return format(self.value(match.group(1)), match.group(2) or "")
            except ValueError as error:
                raise PosencError(f"{where}: {match.group(0)}: {error}") from None

        return _NAME.sub(fill, raw)

    def _build(self, kind: type, raw: Any, where: str) -> Any:
        """A :class:`Claim`, :class:`Test` or :class:`Choice` from a table of its fields, names filled in."""
        if not isinstance(raw, dict):
            raise PosencError(f"{where}: expected a table of the fields of a {kind.__name__}, got {raw!r}")
        fields = {key: self._resolve(item, f"{where}.{key}") for key, item in raw.items()}
        if kind is Claim:
            for part in ("tests", "requires"):
                fields[part] = tuple(test if isinstance(test, Test) else self._build(Test, test, f"{where}.{part}")
                                     for test in fields.get(part, ()))
            if isinstance(fields.get("choice"), dict):
                fields["choice"] = self._build(Choice, fields["choice"], f"{where}.choice")
        try:
            return kind(**fields)
        except TypeError as error:
            raise PosencError(f"{where}: {error}; the fields of a {kind.__name__} are those of "
                              f"posenc.report.claim.{kind.__name__}") from None

    def claims_of(self, file: str) -> tuple[Claim, ...]:
        """The claims of one file, in its order."""
        if file not in self.files:
            raise PosencError(f"no claim file {file!r}; the files are {', '.join(self.files)}")
        if file not in self._claims:
            self._claims[file] = tuple(self._build(Claim, raw, f"{file}.toml claim {raw.get('id', i)}")
                                       for i, raw in enumerate(self.files[file].get("claims", ())))
        return self._claims[file]

    def all_claims(self) -> tuple[Claim, ...]:
        """Every claim of every file, file by file."""
        return tuple(claim for file in self.files for claim in self.claims_of(file))


_CYCLE = object()


@cache
def records() -> ClaimFiles:
    """posenc's claim files (``claims/<module>.toml`` for each module of :data:`ORDER`)."""
    folder = resources.files(__name__)
    return ClaimFiles.parse({name: (folder / f"{name}.toml").read_text(encoding="utf-8") for name in ORDER})


def claims_of(module: str) -> tuple[Claim, ...]:
    """The claims of ``claims/<module>.toml`` (``module``: one of :data:`ORDER`), in the file's order."""
    return records().claims_of(module)


def all_claims() -> tuple[Claim, ...]:
    """Every claim of every file, file by file in :data:`ORDER`."""
    return records().all_claims()


def value(name: str) -> Any:
    """The value of a name the claim files share (a bar, a text or a choice that several records read)."""
    return records().value(name)
