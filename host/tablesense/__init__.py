"""tablesense: host software for smart bridge tables.

Card readers at each seat report where every card is; the host follows the
board, decides under the law code in force whether a card is exposed, and
publishes each ruling to the tournament director.
"""

__version__ = "0.1.0"
