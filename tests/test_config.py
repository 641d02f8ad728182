"""The daemon's TOML config: validated on load, every error names file and key."""

from __future__ import annotations

from pathlib import Path

import pytest

from tablesense.cli import main
from tablesense.daemon.config import ConfigError, load_config

REPO = Path(__file__).resolve().parent.parent


def write(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "config.toml"
    p.write_text(text)
    return p


def error(tmp_path: Path, text: str) -> str:
    with pytest.raises(ConfigError) as info:
        load_config(write(tmp_path, text))
    return str(info.value)


def test_the_example_config_loads() -> None:
    cfg = load_config(REPO / "examples" / "tablesense.toml")
    assert cfg.broker.base == "tablesense" and cfg.broker.max_inflight == 20
    assert cfg.broker.password == "change-me-daemon"
    assert cfg.tables["1"].readers["N"].serial == "E6614103E7452D2F"
    assert cfg.tables["2"].readers["N"].port == "socket://127.0.0.1:7001"
    assert cfg.link.usb_vid == 0x2E8A and cfg.journal.fsync == "event"
    assert cfg.journal.dir == (REPO / "examples" / "journal")
    assert cfg.dashboard_port == 8080


def test_defaults_and_relative_paths(tmp_path: Path) -> None:
    cfg = load_config(write(tmp_path, 'version = 1\n[tables.7.readers.S]\nport = "loop://"\n'))
    assert cfg.broker.port == 1883 and cfg.link.heartbeat_timeout_ms == 3500
    assert cfg.journal.dir == tmp_path / "journal"
    assert cfg.outbox == tmp_path / "journal" / "outbox.sqlite"
    assert cfg.tables["7"].code is None


@pytest.mark.parametrize(("text", "message"), [
    ('version = 1\n[tables.3.readers.N]\nserial = 12\n',
     "config.toml: tables.3.readers.N.serial: expected a string, got 12"),
    ('[broker]\nport = 1\n',
     "config.toml: version: missing (this daemon reads version = 1)"),
    ('version = 2\n', "config.toml: version: unsupported version 2"),
    ('version = 1\n[broker]\nport = 70000\n',
     "config.toml: broker.port: expected an integer from 1 to 65535, got 70000"),
    ('version = 1\n[broker]\nport = "1883"\n',
     "config.toml: broker.port: expected an integer, got '1883'"),
    ('version = 1\n[broker]\nhots = "x"\n', "config.toml: broker.hots: unknown key"),
    ('version = 1\n[journal]\nfsync = "sometimes"\n',
     "config.toml: journal.fsync: expected one of always, event, interval, never, got 'sometimes'"),
    ('version = 1\n[tables.1.readers.X]\nport = "loop://"\n',
     "config.toml: tables.1.readers.X: not a seat"),
    ('version = 1\n[tables.1.readers.N]\nport = "loop://"\nserial = "A"\n',
     "config.toml: tables.1.readers.N: give exactly one of serial"),
    ('version = 1\n[tables.1.readers.N]\nserial = "A"\n[tables.2.readers.E]\nserial = "A"\n',
     "config.toml: tables.2.readers.E: 'A' is already used by tables.1.readers.N"),
    ('version = 1\n[broker]\npassword = "x"\n',
     "config.toml: broker.username: a password needs a username"),
    ('version = 1\n[broker.tls]\ncert = "c.pem"\n', "config.toml: broker.tls.key: cert and key"),
    ('version = 1\n[dashboard]\nport = 8080\nusername = "d"\npassword = "x"\n',
     "config.toml: dashboard.password: the dashboard asks each director for his password"),
    ('version = 1\n[broker.tls]\ninsecure = "yes"\n',
     "config.toml: broker.tls.insecure: expected true or false, got 'yes'"),
    ('version = 1\n[readers]\nbackoff_initial_ms = 500\nbackoff_max_ms = 100\n',
     "config.toml: readers.backoff_max_ms: must be at least backoff_initial_ms (500), got 100"),
    ('version = 1\ntables = 3\n', "config.toml: tables: expected a table, got an integer"),
    ('version = 1\n[broker\n', "config.toml: not valid TOML"),
])
def test_errors_name_file_key_and_problem(tmp_path: Path, text: str, message: str) -> None:
    assert error(tmp_path, text).startswith(message)


def test_missing_file_and_cli_check(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(ConfigError, match="cannot read"):
        load_config(tmp_path / "absent.toml")
    bad = write(tmp_path, 'version = 1\n[tables.3.readers.N]\nserial = 12\n')
    assert main(["run", "--config", str(bad)]) == 2
    assert "config.toml: tables.3.readers.N.serial: expected a string, got 12" in \
        capsys.readouterr().err


def test_tracker_thresholds_are_configured_and_checked() -> None:
    from tablesense.daemon.config import ConfigError, load_config, parse_config
    from tablesense.engine.sensing import Tuning

    example = load_config(Path(__file__).parent.parent / "examples" / "tablesense.toml")
    assert example.tracker == Tuning()
    cfg = parse_config({"version": 1, "tracker": {"min_dwell_ms": 250, "min_conf": 0.5}},
                       source="t.toml")
    assert (cfg.tracker.min_dwell_ms, cfg.tracker.min_conf) == (250, 0.5)
    with pytest.raises(ConfigError, match=r"t.toml: tracker.min_conf: expected a number from 0"):
        parse_config({"version": 1, "tracker": {"min_conf": 2}}, source="t.toml")
    with pytest.raises(ConfigError, match=r"t.toml: tracker.dwell: "):
        parse_config({"version": 1, "tracker": {"dwell": 1}}, source="t.toml")
