"""The MQTT topic tree of docs/contract.md ("MQTT"), under a configurable base.

Only names live here (no paho), so the core and the tests build topics the
same way the publisher does.

>>> t = Topics("tablesense")
>>> t.alert("3"), t.reader("3", "N"), t.bridge_state
('tablesense/3/alert', 'tablesense/3/readers/N', 'tablesense/bridge/state')
>>> t.table_of_cmd("tablesense/3/cmd"), t.table_of_cmd("tablesense/3/alert")
('3', None)
>>> t.command_source("tablesense/3/cmd/by/alice"), t.command_source("tablesense/3/cmd")
(('3', 'alice'), ('3', None))

Who sent a command: MQTT 3.1.1 does not tell subscribers the publisher's
login, and anything in the payload (a ``by`` field, an MQTT v5 user property)
is whatever the publisher wrote. So a command may come on
``<base>/<table>/cmd/by/<user>``, and the broker's ACL lets each user write
only under his own name (mosquitto: ``pattern write tablesense/+/cmd/by/%u``,
``%u`` being the login): the topic names the authenticated user, and the
daemon journals the command with ``"by": <user>``. Commands on the plain
``<base>/<table>/cmd`` carry no identity (``by`` absent); a ``by`` in a
payload is never believed, on either topic.
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
    def bridge_daemon(self) -> str:
        """The daemon holding this base (retained; daemon/claim.py)."""
        return f"{self.base}/bridge/daemon"

    def bridge_probe(self, nonce: str) -> str:
        """A marker the claim check sends itself: what came before it was retained."""
        return f"{self.base}/bridge/probe/{nonce}"

    @property
    def all_cmds(self) -> str:
        return f"{self.base}/+/cmd"

    @property
    def all_cmds_by(self) -> str:
        """Commands under the sender's login (see the module docstring)."""
        return f"{self.base}/+/cmd/by/+"

    def cmd_by(self, table: str, user: str) -> str:
        return f"{self.base}/{table}/cmd/by/{user}"

    def table_state(self, table: str) -> str:
        return f"{self.base}/{table}/state"

    def reader(self, table: str, seat: str) -> str:
        return f"{self.base}/{table}/readers/{seat}"

    def alert(self, table: str) -> str:
        return f"{self.base}/{table}/alert"

    def result(self, table: str) -> str:
        """The last board's result, for scorers (retained; daemon/feeds.py)."""
        return f"{self.base}/{table}/result"

    def lin(self, table: str) -> str:
        """The board so far as a LIN line, for a vugraph (retained; daemon/feeds.py)."""
        return f"{self.base}/{table}/lin"

    def alerts(self, table: str) -> str:
        """The table's alerts of the session, retained (daemon/ledger.py)."""
        return f"{self.base}/{table}/alerts"

    def cmd(self, table: str) -> str:
        return f"{self.base}/{table}/cmd"

    def cmd_response(self, table: str) -> str:
        """Where a command's outcome goes (docs/contract.md, "MQTT")."""
        return f"{self.base}/{table}/cmd/response"

    def table_of_cmd(self, topic: str) -> str | None:
        prefix = f"{self.base}/"
        if not topic.startswith(prefix) or not topic.endswith("/cmd"):
            return None
        table = topic[len(prefix):-len("/cmd")]
        return table if table and "/" not in table and table != "bridge" else None

    def command_source(self, topic: str) -> tuple[str, str | None] | None:
        """(table, user) of a command topic; user None for the plain ``cmd`` topic."""
        table = self.table_of_cmd(topic)
        if table is not None:
            return table, None
        prefix = f"{self.base}/"
        parts = topic[len(prefix):].split("/") if topic.startswith(prefix) else []
        if (len(parts) == 4 and parts[1:3] == ["cmd", "by"] and parts[0] and parts[3]
                and parts[0] != "bridge"):
            return parts[0], parts[3]
        return None
