"""The host daemon: reader links, journal, rules engine, durable MQTT alerts.

Modules, one owner each (docs/architecture.md, "From the antenna to the screen"):

- the readers, every link served by one thread (:mod:`.loop`): :mod:`.ports`
  (the only pyserial user), :mod:`.usb` (finding readers by serial number),
  :mod:`.link` (one reader's port), :mod:`.session` (its protocol, no I/O)
  with :mod:`.fastwire`, :mod:`.sequence`, :mod:`.stamps` and :mod:`.trust`;
- the table pipeline: :mod:`.tables` (journal first, then the engine),
  :mod:`.journal_writer` (append-before-act), :mod:`.syncer` (fsyncs off the
  core's thread), :mod:`.dealing`, :mod:`.outbox` (SQLite, nothing lost);
- publishing: :mod:`.mqtt` (the only paho user) on :mod:`.mqttnet`,
  :mod:`.topics`, :mod:`.ledger`, :mod:`.feeds` with :mod:`.seating`,
  :mod:`.claim`;
- the dashboard's server: :mod:`.web`, :mod:`.api`, :mod:`.view`;

and :mod:`.config` (TOML, validated), :mod:`.collector` (the cyclic collector
kept off the alert path), :mod:`.core` (the composition root).
"""
