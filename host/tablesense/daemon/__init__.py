"""The host daemon: reader links, journal, rules engine, durable MQTT alerts.

Modules, one owner each: :mod:`.config` (TOML, validated), :mod:`.link` (one
reader port per thread), :mod:`.usb` (finding readers by serial number),
:mod:`.journal_writer` (append-before-act), :mod:`.outbox` (SQLite, nothing
lost), :mod:`.mqtt` (the only paho user), :mod:`.core` (the composition root).
"""
