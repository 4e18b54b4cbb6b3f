"""Human-readable durations: seconds, minutes, hours, then days from two days on."""

import pytest

from posenc.resources import format_seconds


@pytest.mark.parametrize(("seconds", "text"), [
    (45, "45 s"),  # below 90 s
    (12 * 60, "12 min"),  # 720 s, below 5400 s = 90 min
    (3.5 * 3600, "3.5 h"),  # 12600 s
    (47 * 3600, "47.0 h"),  # 169200 s, just below two days (172800 s)
    (2 * 86400, "2.0 days"),  # 172800 s: two days are written as days
    (2.1 * 86400, "2.1 days"),  # 181440 s, the docstring's example (50.4 h)
    (2.5 * 86400, "2.5 days"),  # 216000 s (60 h)
])
def test_format_seconds_picks_the_unit_by_size(seconds, text):
    assert format_seconds(seconds) == text
