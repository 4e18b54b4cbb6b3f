"""``posenc report``'s own checks (posenc.cli.report), before any experiment: ``--claim`` ids, ``--address`` with and
without the Ray executor, and ``--store`` left out; the report itself is replaced, so nothing runs."""

import pytest

from posenc.cli import main


class Reached(Exception):
    """Raised by the stand-in for run_report, carrying its config."""


@pytest.fixture
def stopped(monkeypatch, tmp_path):
    seen = {}

    def check_setup(device, dtype, executor, address):
        seen["setup"] = (device, dtype, executor, address)
        return {"device": "cpu"}

    def run_report(config):
        raise Reached(config)

    monkeypatch.setattr("posenc.report.run.check_setup", check_setup)
    monkeypatch.setattr("posenc.report.run.run_report", run_report)
    monkeypatch.chdir(tmp_path)
    return seen


def _reached(argv):
    with pytest.raises(Reached) as caught:
        main(argv)
    return caught.value.args[0]


def test_address_applies_to_ray_only(stopped, capsys):
    assert main(["report", "--address", "10.0.0.1:6379"]) == 2
    assert capsys.readouterr().err == ("error: --address 10.0.0.1:6379 applies to the Ray executor; add --executor "
                                       "ray, or leave --address out to run here\n")
    assert "setup" not in stopped  # refused before the setup is checked
    config = _reached(["report", "--address", "10.0.0.1:6379", "--executor", "ray"])
    assert stopped["setup"] == ("auto", "float32", "ray", "10.0.0.1:6379")
    assert (config.executor, config.address) == ("ray", "10.0.0.1:6379")
    config = _reached(["report", "--executor", "ray"])  # --address left out: auto
    assert config.address == "auto"


def test_an_unknown_claim_with_a_close_id_is_named_with_it(stopped, capsys):
    assert main(["report", "--claim", "sin-bounded", "--claim", "word-ordr"]) == 2  # the second one is wrong
    err = capsys.readouterr().err
    assert err.startswith("error: unknown claim 'word-ordr' for --claim; valid claims are: ")
    assert "sin-bounded" in err and err.rstrip().endswith("Did you mean 'word-order'?")


def test_an_unknown_claim_with_nothing_close_says_only_the_known_ones(stopped, capsys):
    assert main(["report", "--claim", "zzzz"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: unknown claim 'zzzz' for --claim; valid claims are: ") and "Did you mean" not in err
    assert list(stopped) == ["setup"]  # the claims are checked after the setup, before the report


def test_store_left_out_is_none_and_given_is_checked(stopped, tmp_path, capsys):
    assert _reached(["report", "--claim", "sin-bounded"]).store_path is None
    assert _reached(["report", "--store", "s.sqlite"]).store_path == "s.sqlite"
    assert main(["report", "--store", str(tmp_path)]) == 2
    assert f"error: --store {tmp_path} is a folder, not a file" in capsys.readouterr().err
