"""The claim files (posenc/report/claims/*.toml) and their reader: names filled in as the docstring says, every
shared name defined once and read somewhere, and each mistake a clear error naming the file and what fits."""

from __future__ import annotations

import re
from importlib import resources

import pytest

from posenc.errors import PosencError
from posenc.report.claim import Choice, Claim, Test
from posenc.report.claims import ORDER, ClaimFiles, all_claims, claims_of, records, value

ONE_CLAIM = """
[[claims]]
id = "c"
source = "s"
origin = "tutorial"
title = "t"
claim = "a claim"
experiment = "e"
[[claims.tests]]
statistic = "x"
op = ">"
threshold = {threshold}
says = "{says}"
basis = "b"
"""


def _files(**texts: str) -> ClaimFiles:
    return ClaimFiles.parse(texts)


def test_names_are_filled_in_with_their_formats_and_a_lone_name_is_its_value():
    files = _files(a="""
[code]
UNTESTABLE_NULL = "posenc.report.claim.UNTESTABLE_NULL"
[values]
BAR = 0.25
SHARE = "a share of ${BAR:.0%} ($$1 a try)"
""" + ONE_CLAIM.format(threshold='"${BAR}"', says="above ${BAR}: ${SHARE}, not ${UNTESTABLE_NULL}"))
    (claim,) = files.claims_of("a")
    assert claim.tests[0].threshold == 0.25
    assert claim.tests[0].says == "above 0.25: a share of 25% ($1 a try), not none: not testable as written"


def test_a_shared_choice_and_a_shared_list_of_tests_are_one_object_each():
    files = _files(a="""
[values]
OPTIONS = ["x", "y"]
[[values.TESTS]]
statistic = "s"
op = "<"
threshold = 1
says = "says"
basis = "basis"
options = ["x"]
[choices.WHICH]
name = "which"
options = "${OPTIONS}"
headline = "x"
why = "because"
""", b="".join(f"""
[[claims]]
id = "{claim_id}"
source = "s"
origin = "literature"
title = "t"
claim = "c"
experiment = "e"
choice = "${{WHICH}}"
tests = "${{TESTS}}"
""" for claim_id in ("one", "two")))
    one, two = files.claims_of("b")
    assert one.choice is two.choice == Choice("which", ("x", "y"), "x", "because")
    assert one.tests == two.tests == (Test("s", "<", 1, "says", "basis", options=("x",)),)
    assert isinstance(one, Claim) and one.choice.options == ("x", "y")  # lists become tuples


@pytest.mark.parametrize(("texts", "message"), [
    ({"a": ONE_CLAIM.format(threshold='"${NOPE}"', says="s")},
     r"read \$\{NOPE\}, which no \[code\], \[values\] or \[choices\] table defines; defined: nothing"),
    ({"a": "[values]\nX = 1\n", "b": "[values]\nX = 2\n"}, r"b.toml \[values\] defines X, which a.toml \[values\]"),
    ({"a": "[settings]\nX = 1\n"}, r"a.toml has tables \['settings'\]; a claim file holds only"),
    ({"a": "[values\n"}, r"claim file a.toml is not valid TOML"),
    ({"a": '[code]\nX = "posenc.report.claim.NO_SUCH_NAME"\n' + ONE_CLAIM.format(threshold='"${X}"', says="s")},
     r"a.toml \[code\] X = 'posenc.report.claim.NO_SUCH_NAME' names nothing importable"),
    ({"a": '[values]\nX = "${Y}"\nY = "${X}"\n' + ONE_CLAIM.format(threshold=1, says="${X}")},
     r"value X reads itself"),
    ({"a": ONE_CLAIM.format(threshold=1, says="s").replace('basis = "b"', 'basis = "b"\nbar = 2')},
     r"a.toml claim c.tests: .*unexpected keyword argument 'bar'; the fields of a Test are those of"),
    ({"a": ONE_CLAIM.format(threshold=1, says="s").replace('op = ">"', 'op = "="')}, r"op must be '>' or '<'"),
    ({"a": "[values]\nX = 1\n" + ONE_CLAIM.format(threshold=1, says="${X:s}")}, r"\$\{X:s\}: Unknown format code"),
])
def test_each_mistake_names_the_file_and_what_fits(texts, message):
    with pytest.raises(PosencError, match=message):
        files = _files(**texts)
        for name in texts:
            files.claims_of(name)


def test_a_value_that_failed_to_read_fails_again_for_its_own_reason():
    files = _files(a='[code]\nX = "posenc.report.claim.NO_SUCH_NAME"\n')
    for _ in range(2):
        with pytest.raises(PosencError, match="names nothing importable"):
            files.value("X")


def test_an_unknown_file_lists_the_files():
    with pytest.raises(PosencError, match="no claim file 'tutorial'; the files are models, tables"):
        claims_of("tutorial")


def test_posencs_files_hold_the_67_claims_in_order():
    assert [c.id for c in all_claims()] == [c.id for name in ORDER for c in claims_of(name)]
    assert len(all_claims()) == len({c.id for c in all_claims()}) == 67
    assert all(isinstance(t.threshold, (int, float)) for c in all_claims() for t in c.tests + c.requires)


def _posenc_texts() -> dict[str, str]:
    """posenc's claim files as TOML text, by name."""
    return {name: (resources.files("posenc.report.claims") / f"{name}.toml").read_text(encoding="utf-8")
            for name in ORDER}


def test_every_shared_name_is_read_and_code_names_are_the_codes_objects():
    texts = _posenc_texts().values()
    read = {m for text in texts for m in re.findall(r"\$\{([A-Za-z_][A-Za-z0-9_]*)", text)}
    assert set(records().names) <= read, "defined but never read: " + ", ".join(sorted(set(records().names) - read))
    from posenc.report.experiments import tutorial_semantics

    assert value("OUTPUT_BAR") is tutorial_semantics.OUTPUT_BAR
    assert {c.id for c in all_claims() if c.choice is value("HEAD_MODEL")} >= {"positional-heads", "voita-heads"}


#: a string this long written twice in the claim files is one shared value (`[values]`) read by name
REPEATED_TEXT = 60


def _strings(data, where):
    if isinstance(data, dict):
        for key, item in data.items():
            yield from _strings(item, f"{where}.{key}")
    elif isinstance(data, list):
        for i, item in enumerate(data):
            yield from _strings(item, f"{where}[{i}]")
    elif isinstance(data, str):
        yield where, data


def _written_twice(texts: dict[str, str]) -> dict[str, list[str]]:
    """The strings of at least REPEATED_TEXT characters that ``texts`` (claim files' TOML by name) hold more than
    once, each with where it is written."""
    import tomllib

    places: dict[str, list[str]] = {}
    for name, text in texts.items():
        for where, string in _strings(tomllib.loads(text), name):
            if len(string) >= REPEATED_TEXT:
                places.setdefault(string, []).append(where)
    return {string: where for string, where in places.items() if len(where) > 1}


def test_no_sentence_is_written_twice_in_the_claim_files():
    twice = _written_twice(_posenc_texts())
    assert not twice, f"written more than once (make each a [values] name): {twice}"


def test_the_scan_sees_a_sentence_written_twice_and_not_one_read_by_name():
    sentence = "a sentence long enough to count, written out in two records of one file"
    twice = f'[[claims]]\nnull = "{sentence}"\n[[claims]]\nnull = "{sentence}"\n'
    assert _written_twice({"f": twice}) == {sentence: ["f.claims[0].null", "f.claims[1].null"]}
    across = {"f": f'[[claims]]\nnull = "{sentence}"\n', "g": f'[values]\nX = "{sentence}"\n'}
    assert _written_twice(across) == {sentence: ["f.claims[0].null", "g.values.X"]}
    named = f'[values]\nX = "{sentence}"\n[[claims]]\nnull = "${{X}}"\n[[claims]]\nnull = "${{X}}"\n'
    assert _written_twice({"f": named}) == {}
    assert _written_twice({"f": '[[claims]]\nnull = "short"\n[[claims]]\nnull = "short"\n'}) == {}
