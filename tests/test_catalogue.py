"""The catalogue of kinds and options: one entry for every Kind and Option, served as is."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tablesense.contract import catalogue
from tablesense.contract.vocab import KINDS, OPTIONS

STATIC = Path(catalogue.__file__).resolve().parents[1] / "static"


def test_every_kind_and_option_has_an_entry_and_nothing_else() -> None:
    assert list(catalogue.KINDS) == list(KINDS)
    assert list(catalogue.OPTIONS) == list(OPTIONS)
    assert not set(catalogue.DAEMON_KINDS) & set(KINDS)


def test_entries_say_something() -> None:
    for name, k in [*catalogue.KINDS.items(), *catalogue.DAEMON_KINDS.items()]:
        assert k.label and k.label[0].isupper(), name
        assert len(k.help) > 20 and k.help.endswith("."), name
    for name, o in catalogue.OPTIONS.items():
        assert o.label and len(o.help) > 20 and o.help.endswith("."), name
        assert o.needs in (None, "card", "suit", "seat"), name
        assert not (o.required and o.needs is None), name


def test_served_document_matches_the_module() -> None:
    doc = json.loads(json.dumps(catalogue.as_json()))
    assert set(doc["kinds"]) == set(KINDS) | set(catalogue.DAEMON_KINDS)
    assert doc["options"]["call-suit"] == {"label": "Call a suit", "needs": "suit",
                                           "required": True,
                                           "help": catalogue.OPTIONS["call-suit"].help}


def test_the_page_hard_codes_no_kind_or_option() -> None:
    js = (STATIC / "dashboard.js").read_text()
    for name in [*KINDS, *OPTIONS]:
        if name in ("claim", "revoke", "redeal"):  # plain words, checked as quoted strings
            assert f'"{name}"' not in js, name
            continue
        # "reader-offline" is a daemon alert the page closes when the reader is back
        if name == "reader-offline":
            continue
        assert not re.search(rf"[\"']{re.escape(name)}[\"']", js), name
