"""Documents made from journals: pure, journal lines in, text or rulings out.

- ``replay``: a journal through one engine per table, rulings out in order.
- ``record``: the director's record (rulings and what was decided of them).
- ``report``: the record as a printable HTML page.
- ``export``: boards as PBN 2.1 or BBO LIN.
- ``dd``: double-dummy analysis of a position (the optional ``dd`` extra).
"""
