"""The MQTT topic tree of domain.md ("On MQTT"), under a configurable base.

Only names live here (no paho), so the core and the tests build topics the
same way the publisher does.

>>> t = Topics("tablesense")
>>> t.alert("3"), t.reader("3", "N"), t.bridge_state
('tablesense/3/alert', 'tablesense/3/readers/N', 'tablesense/bridge/state')
>>> t.table_of_cmd("tablesense/3/cmd"), t.table_of_cmd("tablesense/3/alert")
('3', None)
"""

from __future__ import annotations

from dataclasses import dataclass

ONLINE = b'{"state":"online"}'
OFFLINE = b'{"state":"offline"}'


@dataclass(frozen=True)
class Topics:
    base: str = "tablesense"

    @property
    def bridge_state(self) -> str:
        return f"{self.base}/bridge/state"

    @property
    def all_cmds(self) -> str:
        return f"{self.base}/+/cmd"

    def table_state(self, table: str) -> str:
        return f"{self.base}/{table}/state"

    def reader(self, table: str, seat: str) -> str:
        return f"{self.base}/{table}/readers/{seat}"

    def alert(self, table: str) -> str:
        return f"{self.base}/{table}/alert"

    def cmd(self, table: str) -> str:
        return f"{self.base}/{table}/cmd"

    def cmd_response(self, table: str) -> str:
        """Where a command's outcome goes (not fixed by domain.md; an addition)."""
        return f"{self.base}/{table}/cmd/response"

    def table_of_cmd(self, topic: str) -> str | None:
        prefix = f"{self.base}/"
        if not topic.startswith(prefix) or not topic.endswith("/cmd"):
            return None
        table = topic[len(prefix):-len("/cmd")]
        return table if table and "/" not in table and table != "bridge" else None
