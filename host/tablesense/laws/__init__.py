"""Law codes: one class per code, a registry by id (python-chess variants style).

>>> sorted(CODES)
['american-1907', 'auction-1913', 'auction-1929', 'duplicate-2017', 'portland-1904']
>>> find_code(DEFAULT_CODE).title
'WBF Laws of Duplicate Bridge 2017'
"""

from __future__ import annotations

from typing import Any

from tablesense.engine.code import UnknownCode
from tablesense.engine.code import find_code as _find
from tablesense.laws.american1907 import American1907
from tablesense.laws.auction1913 import Auction1913
from tablesense.laws.auction1929 import Auction1929
from tablesense.laws.base import LawCode
from tablesense.laws.duplicate2017 import Duplicate2017
from tablesense.laws.portland1904 import Portland1904
from tablesense.laws.rules2017 import RULES_2017

Duplicate2017.rules = RULES_2017  # its rule table lives beside the registry

DEFAULT_CODE = "duplicate-2017"
CODES: dict[str, type[LawCode[Any]]] = {
    cls.id: cls for cls in (Duplicate2017, Portland1904, American1907, Auction1929, Auction1913)}


def find_code(code_id: str) -> LawCode[Any]:
    """The law code registered under ``code_id``; UnknownCode names the known ones."""
    code = _find(CODES, code_id)
    assert isinstance(code, LawCode)
    return code


def code_error(code_id: str | None) -> str | None:
    """Why ``code_id`` names no registered code (for a command's ``--code``); None if it
    does, or if no code was given."""
    if code_id is None:
        return None
    try:
        find_code(code_id)
    except UnknownCode as exc:
        return str(exc)
    return None


__all__ = ["CODES", "DEFAULT_CODE", "LawCode", "UnknownCode", "code_error", "find_code"]
