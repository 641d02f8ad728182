"""The contract's words (docs/contract.md) as code.

- ``vocab``: every bare string of the contract as a ``Literal`` type.
- ``cards``: seats, cards, suits and calls, with their canonical forms.
- ``events``: the typed events, decoded and validated from journal lines.
- ``journal``: reading journals, with errors that name file, line and field.
- ``catalogue``: the ruling kinds and options the dashboard shows and asks for.
- ``decks``: deck files, which tag is which card of which deck.
"""
