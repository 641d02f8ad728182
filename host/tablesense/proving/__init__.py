"""The proving harness: how the engine is measured, never part of the product.

No module of the product (the daemon, the engine, the law codes, the readers,
the commands) imports this package; ``tests/test_seam.py`` checks it. The
tests and ``benchmarks/`` use it.

- ``irregular``: whole boards with random irregularities, as a table shows them.
- ``storm``: does one irregular board replay to a sane set of alerts?
- ``honest``: the same boards as honest RFID readers report them.
- ``noise_eval``: the same boards replayed clean and noisy.
"""
