"""Human-readable durations (seconds, minutes, hours, then days from two days on) and sizes (MB, then GB from one
GB on); one call timed in this thread's CPU time."""

import pytest

from posenc.resources import format_bytes, format_seconds, thread_seconds


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
