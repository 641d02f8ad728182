"""The daemon's TOML configuration: loaded once, validated whole, frozen.

Every error names the file, the dotted key and what is wrong, so that an
operator at a tournament can fix it without reading code::

    config.toml: tables.3.readers.N.serial: expected a string, got 12

Relative paths (journal directory, outbox, TLS files) are taken relative to
the directory of the configuration file, not the working directory, so the
daemon behaves the same however it is started.

>>> cfg = parse_config({"version": 1, "tables": {"3": {"readers": {"N": {"port": "loop://"}}}}},
...                    source="t.toml")
>>> cfg.tables["3"].readers["N"].port
'loop://'
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from tablesense.contract import vocab
from tablesense.contract.handrecords import HandRecordError, HandRecords, load_hand_records
from tablesense.engine.sensing import Tuning
from tablesense.laws import CODES

if TYPE_CHECKING:
    from tablesense.daemon.seating import Movement

CONFIG_VERSION = 1
SEATS: tuple[str, ...] = vocab.SEATS
FSYNC_POLICIES = ("always", "event", "interval", "never")


class ConfigError(ValueError):
    """A configuration that cannot be used; ``str()`` names file, key and problem."""

    def __init__(self, source: str, key: str, problem: str) -> None:
        super().__init__(f"{source}: {key}: {problem}" if key else f"{source}: {problem}")
        self.source = source
        self.key = key
        self.problem = problem


@dataclass(frozen=True)
class TLSConfig:
    ca: Path | None = None
    cert: Path | None = None
    key: Path | None = None
    insecure: bool = False


@dataclass(frozen=True)
class BrokerConfig:
    host: str = "127.0.0.1"
    port: int = 1883
    base: str = "tablesense"
    client_id: str = "tablesense-daemon"
    username: str | None = None
    password: str | None = None
    keepalive: int = 30
    max_inflight: int = 20
    transport: str = "tcp"  # or "websockets"
    tls: TLSConfig | None = None
    protocol: int = 5  # MQTT 5, or 4 (3.1.1) for brokers without v5 (the embedded demo broker)


@dataclass(frozen=True)
class JournalConfig:
    dir: Path = Path("journal")
    fsync: str = "event"
    fsync_interval_ms: int = 200


@dataclass(frozen=True)
class LinkSettings:
    """How every reader link finds its reader and keeps time with it: one type
    for the config's ``[readers]`` and the links.

    The port side (daemon/link.py) takes ``baudrate``, the backoff and the USB
    ids; the protocol (daemon/session.py) the rest: when a silent reader is
    offline, when a gap is asked for again, the CONFIG it sends (``scan_ms``,
    ``debounce_ms``: 0 is the reader's own default) and how often its health is
    published. The last three are not in ``[readers]``: their defaults serve,
    and tests set them.
    """

    baudrate: int = 115200
    heartbeat_timeout_ms: int = 3500
    backoff_initial_ms: int = 200
    backoff_max_ms: int = 5000
    resend_timeout_ms: int = 500
    scan_ms: int = 20
    debounce_ms: int = 0
    health_interval_ms: int = 1000
    usb_vid: int | None = None
    usb_pid: int | None = None


@dataclass(frozen=True)
class ReaderConfig:
    """Where one reader is: a USB serial number (found wherever it is
    plugged in) or a fixed pyserial URL (``/dev/ttyACM0``, ``socket://``...).

    ``seat`` is the reader's name in the config: a seat (``N``), for a reader
    at one seat, or any name (``camera``) for a reader covering several, which
    says which in ``seats``. ``seats`` are the holders the reader may report
    cards of (a frame naming another is dropped); a seat-named reader covers
    its own seat unless ``seats`` says otherwise.

    ``key`` is the reader's signing key (hardware/protocol.md section 2a),
    given in the config as ``key = "<hex>"`` (16 to 64 bytes; the same value
    is in the reader's ``key.txt``).
    """

    seat: str
    serial: str | None = None
    port: str | None = None
    key: bytes | None = field(default=None, repr=False)
    seats: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if not self.seats:
            object.__setattr__(self, "seats", (self.seat,))


@dataclass(frozen=True)
class TableConfig:
    """``require_signed``: the links drop (and count, and alert on) unsigned or
    forged frames. It defaults to on when any reader of the table has a key;
    ``require_signed = false`` accepts unsigned frames too (while keys are
    being rolled out), still checking the signed ones.

    ``code``: the law code every board of the table is played under (the
    default code when absent); ``hands``: the table's own hand records, where
    it plays other boards than the event's (``[event] hands``)."""

    name: str
    code: str | None = None
    readers: dict[str, ReaderConfig] = field(default_factory=dict)
    require_signed: bool = False
    hands: HandRecords | None = None


@dataclass(frozen=True)
class DashboardConfig:
    """The director's dashboard (``[dashboard]``), served by the daemon (daemon/web.py).

    The page itself talks MQTT over WebSockets to the broker: ``broker_url``
    is that URL as a browser sees it, ``{host}`` standing for the host name
    the page was loaded from. The page asks each director (or viewer) for his
    own broker login; the broker's ACL decides who may act
    (examples/mosquitto/acl). ``username`` only pre-fills the form; a
    password is never configured here (it would be handed to every browser).
    ``login = false`` connects without asking (a broker with anonymous access,
    as the demo's).
    """

    port: int = 8080
    bind: str = "127.0.0.1"
    broker_url: str = "ws://{host}:9001"
    username: str | None = None
    login: bool = True


@dataclass(frozen=True)
class FeedsConfig:
    """``[feeds]``: the scorers' board results and the vugraph's play feed
    (daemon/feeds.py). ``lin_delay_s``: the play feed runs this far behind the
    table (a vugraph's secure delay); ``movement``: who sits where
    (daemon/seating.py), inline or from a file."""

    results: bool = True
    lin: bool = True
    lin_delay_s: int = 0
    movement: Movement | None = None


@dataclass(frozen=True)
class Config:
    source: str = "<defaults>"
    version: int = CONFIG_VERSION
    broker: BrokerConfig = field(default_factory=BrokerConfig)
    journal: JournalConfig = field(default_factory=JournalConfig)
    outbox: Path = Path("journal/outbox.sqlite")
    link: LinkSettings = field(default_factory=LinkSettings)
    tables: dict[str, TableConfig] = field(default_factory=dict)
    dashboard_port: int | None = None
    state_interval_ms: int = 250
    dashboard: DashboardConfig | None = None  # None: no dashboard ([dashboard] port absent)
    tracker: Tuning = field(default_factory=Tuning)
    feeds: FeedsConfig = field(default_factory=FeedsConfig)
    # the event's hand records (``[event] hands``, or ``tablesense run --hands``), for the
    # tables that have none of their own
    hands: HandRecords | None = None

    def hands_of(self, table: str) -> HandRecords | None:
        """The hand records a table deals its boards from, if any."""
        t = self.tables.get(table)
        return (t.hands if t is not None and t.hands is not None else None) or self.hands


def load_config(path: str | Path) -> Config:
    """Read and validate ``path``; raise :class:`ConfigError` on any problem."""
    p = Path(path)
    source = p.name
    try:
        raw = p.read_bytes()
    except OSError as exc:
        raise ConfigError(str(p), "", f"cannot read: {exc.strerror or exc}") from exc
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(source, "", f"not valid TOML: {exc}") from exc
    return parse_config(data, source=source, base_dir=p.resolve().parent)


def _typename(value: object) -> str:
    return {bool: "a boolean", int: "an integer", float: "a number", str: "a string",
            list: "a list", dict: "a table"}.get(type(value), type(value).__name__)


def _show(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, str):
        return repr(value)
    return _typename(value)


class _Reader:
    """Walks one TOML table, remembering the dotted key for error messages."""

    def __init__(self, source: str, key: str, data: Any, base_dir: Path) -> None:
        self.source = source
        self.key = key
        self.base_dir = base_dir
        if not isinstance(data, dict):
            self.fail(f"expected a table, got {_typename(data)}")
        self.data: dict[str, Any] = data
        self.used: set[str] = set()

    def sub(self, name: str) -> str:
        return f"{self.key}.{name}" if self.key else name

    def fail(self, problem: str, name: str | None = None) -> None:
        raise ConfigError(self.source, self.sub(name) if name else self.key, problem)

    def table(self, name: str) -> _Reader:
        self.used.add(name)
        return _Reader(self.source, self.sub(name), self.data.get(name, {}), self.base_dir)

    def _get(self, name: str, kind: type | tuple[type, ...], what: str) -> Any:
        self.used.add(name)
        if name not in self.data:
            return None
        value = self.data[name]
        if isinstance(value, bool) and bool not in (kind if isinstance(kind, tuple) else (kind,)):
            self.fail(f"expected {what}, got {_show(value)}", name)
        if not isinstance(value, kind):
            self.fail(f"expected {what}, got {_show(value)}", name)
        return value

    def string(self, name: str, default: str | None = None, *,
               choices: tuple[str, ...] = ()) -> str | None:
        value = self._get(name, str, "a string")
        if value is None:
            return default
        if choices and value not in choices:
            self.fail(f"expected one of {', '.join(choices)}, got {value!r}", name)
        if not value:
            self.fail("must not be empty", name)
        return str(value)

    def integer(self, name: str, default: int | None, lo: int, hi: int) -> int | None:
        value = self._get(name, int, "an integer")
        if value is None:
            return default
        if not lo <= value <= hi:
            self.fail(f"expected an integer from {lo} to {hi}, got {value}", name)
        return int(value)

    def boolean(self, name: str, default: bool) -> bool:
        value = self._get(name, bool, "true or false")
        return default if value is None else bool(value)

    def path(self, name: str, default: Path | None) -> Path | None:
        value = self.string(name)
        if value is None:
            return None if default is None else self.base_dir / default
        return self.base_dir / Path(value).expanduser()

    def finish(self) -> None:
        unknown = sorted(set(self.data) - self.used)
        if unknown:
            self.fail("unknown key", unknown[0])


def _reader_name(name: str) -> bool:
    """A reader's name is a topic level (``<base>/<table>/readers/<name>``)."""
    return bool(name) and len(name) <= 32 and all(c.isascii() and (c.isalnum() or c in "-_")
                                                   for c in name)


def _seats(s: _Reader, name: str) -> tuple[str, ...]:
    """``seats``: the holders a reader covers; a seat-named reader defaults to its seat."""
    value = s._get("seats", list, "a list of seats")
    if value is None:
        return (name,)
    if not value:
        s.fail("must name at least one seat", "seats")
    for v in value:
        if v not in SEATS:
            s.fail(f"expected seats from {', '.join(SEATS)}, got {_show(v)}", "seats")
    if len(set(value)) != len(value):
        s.fail("a seat is named twice", "seats")
    return tuple(x for x in SEATS if x in value)


def _signing_key(s: _Reader) -> bytes | None:
    """``key``: hex of 16..64 bytes (a reader's signing key), or absent."""
    text = s.string("key")
    if text is None:
        return None
    try:
        key = bytes.fromhex(text)
    except ValueError:
        s.fail("expected hex digits (the reader's signing key)", "key")
    if not 16 <= len(key) <= 64:
        s.fail(f"expected 16 to 64 bytes (32 to 128 hex digits), got {len(key)}", "key")
    return key


def parse_config(data: dict[str, Any], *, source: str = "<config>",
                 base_dir: Path | None = None) -> Config:
    """Validate an already-parsed TOML document (as :func:`tomllib.loads` gives)."""
    root = _Reader(source, "", data, base_dir or Path.cwd())
    version = root._get("version", int, "an integer")
    if version is None:
        root.fail("missing (this daemon reads version = 1)", "version")
    if version != CONFIG_VERSION:
        root.fail(f"unsupported version {version} (this daemon reads version = 1)", "version")

    b = root.table("broker")
    tls: TLSConfig | None = None
    if "tls" in b.data:
        t = b.table("tls")
        tls = TLSConfig(ca=t.path("ca", None), cert=t.path("cert", None),
                        key=t.path("key", None), insecure=t.boolean("insecure", False))
        if (tls.cert is None) != (tls.key is None):
            t.fail("cert and key must be given together", "key" if tls.key is None else "cert")
        t.finish()
    else:
        b.used.add("tls")
    base = b.string("base", "tablesense") or "tablesense"
    if any(c in base for c in "#+") or base.startswith("/") or base.endswith("/"):
        b.fail(f"not a usable topic prefix: {base!r}", "base")
    password = _password(b)
    broker = BrokerConfig(
        host=b.string("host", "127.0.0.1") or "127.0.0.1",
        port=b.integer("port", 1883, 1, 65535) or 1883,
        base=base,
        client_id=b.string("client_id", "tablesense-daemon") or "tablesense-daemon",
        username=b.string("username"),
        password=password,
        keepalive=b.integer("keepalive", 30, 5, 3600) or 30,
        max_inflight=b.integer("max_inflight", 20, 1, 1000) or 20,
        transport=b.string("transport", "tcp", choices=("tcp", "websockets")) or "tcp",
        tls=tls,
        protocol=b.integer("protocol", 5, 4, 5) or 5,
    )
    if password is not None and broker.username is None:
        b.fail("a password needs a username", "username")
    b.finish()

    j = root.table("journal")
    jdir = j.path("dir", Path("journal"))
    assert jdir is not None
    journal = JournalConfig(
        dir=jdir,
        fsync=j.string("fsync", "event", choices=FSYNC_POLICIES) or "event",
        fsync_interval_ms=j.integer("fsync_interval_ms", 200, 1, 60_000) or 200,
    )
    j.finish()

    o = root.table("outbox")
    outbox = o.path("path", None) or jdir / "outbox.sqlite"
    o.finish()

    r = root.table("readers")
    hb = r.integer("heartbeat_timeout_ms", 3500, 100, 600_000) or 3500
    b0 = r.integer("backoff_initial_ms", 200, 1, 600_000) or 200
    b1 = r.integer("backoff_max_ms", 5000, 1, 3_600_000) or 5000
    if b1 < b0:
        r.fail(f"must be at least backoff_initial_ms ({b0}), got {b1}", "backoff_max_ms")
    link = LinkSettings(
        baudrate=r.integer("baudrate", 115200, 300, 12_000_000) or 115200,
        heartbeat_timeout_ms=hb, backoff_initial_ms=b0, backoff_max_ms=b1,
        resend_timeout_ms=r.integer("resend_timeout_ms", 500, 10, 60_000) or 500,
        usb_vid=r.integer("usb_vid", None, 0, 0xFFFF),
        usb_pid=r.integer("usb_pid", None, 0, 0xFFFF),
    )
    r.finish()

    tables: dict[str, TableConfig] = {}
    tt = root.table("tables")
    for name in tt.data:
        tt.used.add(name)
        t = tt.table(name)
        if not name or any(c in name for c in "/#+"):
            tt.fail("a table name must be non-empty and free of / # +", name)
        rr = t.table("readers")
        readers: dict[str, ReaderConfig] = {}
        for seat in rr.data:
            rr.used.add(seat)
            named = isinstance(rr.data[seat], dict) and "seats" in rr.data[seat]
            if seat not in SEATS and not (named and _reader_name(seat)):
                rr.fail(f"not a seat (expected one of {', '.join(SEATS)}), nor a reader "
                        "named with letters, digits, - and _ that says which seats it "
                        'covers (seats = ["N", "E", "S", "W"])', seat)
            s = rr.table(seat)
            serial, port = s.string("serial"), s.string("port")
            if (serial is None) == (port is None):
                s.fail("give exactly one of serial (USB serial number) or port (a URL)")
            key = _signing_key(s)
            seats = _seats(s, seat)
            s.finish()
            readers[seat] = ReaderConfig(seat=seat, serial=serial, port=port, key=key,
                                         seats=seats)
        rr.finish()
        keyed = any(rc.key is not None for rc in readers.values())
        require = t.boolean("require_signed", keyed)
        if require:
            for seat, rc in readers.items():
                if rc.key is None:
                    raise ConfigError(source, f"tables.{name}.readers.{seat}.key",
                                      "missing: this table requires signed frames "
                                      "(require_signed)")
        code = t.string("code")
        if code is not None and code not in CODES:
            t.fail(f"unknown law code {code!r} (known: {', '.join(sorted(CODES))})", "code")
        tables[name] = TableConfig(name=name, code=code, readers=readers,
                                   require_signed=require, hands=_hands(t))
        t.finish()
    tt.finish()

    seen: dict[str, str] = {}
    for tname, tcfg in tables.items():
        for seat, rc in tcfg.readers.items():
            ident = rc.serial or rc.port or ""
            where = f"tables.{tname}.readers.{seat}"
            if ident in seen:
                raise ConfigError(source, where, f"{ident!r} is already used by {seen[ident]}")
            seen[ident] = where

    k = root.table("tracker")
    dflt = Tuning()
    min_conf = k._get("min_conf", (int, float), "a number from 0 to 1")
    if min_conf is not None and not 0 <= min_conf <= 1:
        k.fail(f"expected a number from 0 to 1, got {min_conf}", "min_conf")
    tracker = Tuning(
        min_dwell_ms=_or(k.integer("min_dwell_ms", None, 0, 10_000), dflt.min_dwell_ms),
        conflict_ms=_or(k.integer("conflict_ms", None, 0, 60_000), dflt.conflict_ms),
        min_conf=dflt.min_conf if min_conf is None else float(min_conf),
        transit_ms=_or(k.integer("transit_ms", None, 0, 10_000), dflt.transit_ms),
        dropout_ms=_or(k.integer("dropout_ms", None, 0, 60_000), dflt.dropout_ms),
    )
    k.finish()

    e = root.table("event")
    hands = _hands(e)
    e.finish()

    d = root.table("dashboard")
    dashboard_port = d.integer("port", None, 0, 65535)
    dashboard = _dashboard(d, dashboard_port)
    d.finish()
    state_ms = root.integer("state_interval_ms", 250, 0, 60_000)
    feeds = _feeds(root.table("feeds"))
    root.finish()
    return Config(source=source, version=CONFIG_VERSION, broker=broker, journal=journal,
                  outbox=outbox, link=link, tables=tables, dashboard_port=dashboard_port,
                  state_interval_ms=250 if state_ms is None else state_ms, dashboard=dashboard,
                  tracker=tracker, hands=hands, feeds=feeds)


def _hands(r: _Reader) -> HandRecords | None:
    """``hands``: a PBN hand-record file, read and checked now (its errors name the
    config's key and the file's own line and tag)."""
    path = r.path("hands", None)
    if path is None:
        return None
    try:
        return load_hand_records(path)
    except HandRecordError as exc:
        r.fail(str(exc), "hands")
        raise  # (fail raises)


def _feeds(f: _Reader) -> FeedsConfig:
    from tablesense.daemon.seating import load_movement, parse_movement

    movement = None
    if isinstance(f.data.get("movement"), dict):
        f.used.add("movement")
        movement = parse_movement(f.data["movement"], f.source, f.sub("movement") + ".")
    else:
        path = f.path("movement", None)
        if path is not None:
            movement = load_movement(path)
    out = FeedsConfig(results=f.boolean("results", True), lin=f.boolean("lin", True),
                      lin_delay_s=f.integer("lin_delay_s", 0, 0, 3600) or 0, movement=movement)
    f.finish()
    return out


def _or(value: int | None, default: int) -> int:
    return default if value is None else value


def _password(r: _Reader) -> str | None:
    """``password`` or the first line of ``password_file`` (not both)."""
    password = r.string("password")
    password_file = r.path("password_file", None)
    if password_file is not None:
        if password is not None:
            r.fail("give password or password_file, not both", "password_file")
        try:
            password = password_file.read_text().strip()
        except OSError as exc:
            r.fail(f"cannot read {password_file}: {exc.strerror}", "password_file")
    return password


def _dashboard(d: _Reader, port: int | None) -> DashboardConfig | None:
    bind = d.string("bind", "127.0.0.1") or "127.0.0.1"
    url = d.string("broker_url", "ws://{host}:9001") or "ws://{host}:9001"
    if not url.startswith(("ws://", "wss://")):
        d.fail(f"expected a ws:// or wss:// URL, got {url!r}", "broker_url")
    username = d.string("username")
    for key in ("password", "password_file"):
        if key in d.data:
            d.fail("the dashboard asks each director for his password; a password here would "
                   "be handed to every browser that loads the page: remove it", key)
    login = d.boolean("login", True)
    if port is None:
        return None
    return DashboardConfig(port=port, bind=bind, broker_url=url, username=username, login=login)
