"""Noise profiles: the shipped ones load, errors name the file and key, and the
clean and club profiles give no false alarm, no missed and no wrong ruling on a
smaller run of the noise benchmark (benchmarks/noise.py runs 1,000 boards)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablesense.proving.noise_eval import evaluate
from tablesense.sim.noise import PROFILES, ProfileError, load_profile


def test_shipped_profiles_load() -> None:
    profiles = {name: load_profile(name) for name in PROFILES}
    assert profiles["clean"].flicker == 0
    assert profiles["hostile"].flicker == pytest.approx(10 * profiles["club"].flicker)


def test_profile_errors_name_file_and_key(tmp_path: Path) -> None:
    bad = tmp_path / "bad.toml"
    bad.write_text('version = 1\nname = "x"\nflicker = 2\n')
    with pytest.raises(ProfileError, match=r"bad.toml: flicker: a rate must be at most 1"):
        load_profile(str(bad))
    bad.write_text('version = 1\nname = "x"\nflickr = 0.1\n')
    with pytest.raises(ProfileError, match=r"bad.toml: flickr: unknown key"):
        load_profile(str(bad))
    with pytest.raises(ProfileError, match=r"nope.toml: cannot read"):
        load_profile(str(tmp_path / "nope.toml"))


@pytest.mark.parametrize("name", ["clean", "club"])
def test_no_false_alarm_and_no_miss(name: str) -> None:
    res = evaluate(load_profile(name), 150, seed=11)
    s = res.summary()
    assert s["true_exposures"] >= 25
    assert (s["false_penalty_alerts"], s["false_director_alerts"], s["missed_exposures"],
            s["wrong_rulings"]) == (0, 0, 0, 0), res.examples
    if name == "club":
        assert sum(s["suppressed"].values()) > 100  # the noise was there, and was handled


def test_hostile_noise_is_really_noisy() -> None:
    """Not a target: the hostile profile must at least exercise every suppression."""
    s = evaluate(load_profile("hostile"), 20, seed=3).summary()
    assert all(n > 0 for n in s["suppressed"].values()), s["suppressed"]
