"""The simulated club (``tablesense demo``): robots, simulated readers, the daemon,
a broker and the director's dashboard, in one process.

- ``schedule``: robot boards as a timetable of reader and host steps (pure);
- ``pysim``: a Python simulated camera reader behind a pty (the VM's stand-in);
- ``broker``: the embedded amqtt broker with a WebSocket listener;
- ``club``: starts, drives, reports on and stops all of it.
"""
