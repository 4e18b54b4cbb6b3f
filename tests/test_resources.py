"""Human-readable durations (seconds, minutes, hours, then days from two days on) and sizes (MB, then GB from one
GB on); one call timed in this thread's CPU time; measurements of the machine kept per machine and name; work turned
into time."""

import json

import pytest

from posenc import resources
from posenc.resources import calibrated, format_bytes, format_seconds, machine_key, seconds, thread_seconds


@pytest.mark.parametrize(("seconds", "text"), [
    (45, "45 s"),  # below 90 s
    (89, "89 s"),  # the last whole second written in seconds
    (90, "2 min"),  # 90 s = 1.5 min, written in minutes from 90 s on (1.5 rounds half to even: 2)
    (5399, "90 min"),  # 89.98 min, just below 5400 s
    (5400, "1.5 h"),  # 90 min = 1.5 h, written in hours from 5400 s on
    (12 * 60, "12 min"),  # 720 s, below 5400 s = 90 min
    (3.5 * 3600, "3.5 h"),  # 12600 s
    (47 * 3600, "47.0 h"),  # 169200 s, just below two days (172800 s)
    (2 * 86400, "2.0 days"),  # 172800 s: two days are written as days
    (2.1 * 86400, "2.1 days"),  # 181440 s, the docstring's example (50.4 h)
    (2.5 * 86400, "2.5 days"),  # 216000 s (60 h)
])
def test_format_seconds_picks_the_unit_by_size(seconds, text):
    assert format_seconds(seconds) == text


@pytest.mark.parametrize(("n", "text"), [
    (12 * 1024 ** 2, "12 MB"),
    (1024 ** 3 - 1024 ** 2, "1023 MB"),  # one MB below a GB
    (1024 ** 3, "1.00 GB"),  # exactly one GB is written in GB
    (1.5 * 1024 ** 3, "1.50 GB"),  # two decimals in GB
])
def test_format_bytes_picks_the_unit_by_size(n, text):
    assert format_bytes(n) == text


def test_thread_seconds_times_one_call_in_this_threads_cpu_time():
    calls = []
    assert thread_seconds(lambda: calls.append(1)) >= 0.0 and calls == [1]
    assert thread_seconds(lambda: sum(i * i for i in range(200_000))) > 0.0  # work takes CPU time


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """An empty calibration file and no calibration read in this process yet."""
    monkeypatch.setenv("POSENC_CACHE", str(tmp_path))
    monkeypatch.setattr(resources, "_KEPT", {})
    return tmp_path / "rate.json"


def test_a_calibration_is_measured_once_and_kept_per_machine_and_name(cache):
    calls = []

    def measure():
        calls.append(1)
        return 2.5

    assert calibrated("thing", measure, 1.0) == 2.5
    assert calibrated("thing", measure, 1.0) == 2.5  # this process: read from memory
    kept = json.loads(cache.read_text())
    assert kept == {f"{machine_key()} | thing": 2.5}
    resources._KEPT.clear()  # a new process reads the file and measures nothing
    assert calibrated("thing", measure, 1.0) == 2.5 and calls == [1]
    assert calibrated("other", lambda: 7.0, 1.0) == 7.0  # another name is measured apart and kept beside it
    assert sorted(json.loads(cache.read_text()).values()) == [2.5, 7.0]


@pytest.mark.parametrize("measure", [lambda: 0.0, lambda: -1.0, lambda: float("nan"), lambda: True, lambda: "3",
                                     lambda: 1 / 0])
def test_a_calibration_that_fails_or_gives_no_positive_number_leaves_the_default(cache, measure):
    assert calibrated("thing", measure, 4.0) == 4.0


@pytest.mark.parametrize("text", ["not json", "[1, 2]", '{"x": 1}'])
def test_a_damaged_calibration_file_is_measured_again_and_rewritten(cache, text):
    cache.write_text(text)
    assert calibrated("thing", lambda: 3.0, 1.0) == 3.0
    assert json.loads(cache.read_text())[f"{machine_key()} | thing"] == 3.0


def test_a_calibration_that_cannot_be_kept_is_still_used(cache, tmp_path, monkeypatch):
    blocked = tmp_path / "file"
    blocked.write_text("")
    monkeypatch.setenv("POSENC_CACHE", str(blocked / "below"))  # a directory below a file cannot be made
    assert calibrated("thing", lambda: 3.0, 1.0) == 3.0


def test_the_time_of_work_is_its_arithmetic_at_the_rate_and_its_calls_at_their_cost():
    # by hand: 3e9 operations and 1e7 bytes (40 operations each) on 2 threads at 1e9 per second, and 200 calls of 1 ms
    assert seconds(3e9, memory=1e7, threads=2, rate=1e9, calls=200, per_call=1e-3) == pytest.approx(
        (3e9 + 40 * 1e7) / 2 / 1e9 + 0.2, rel=1e-12)
