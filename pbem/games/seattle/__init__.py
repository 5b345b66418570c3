"""The Battle of Seattle (Brian Train): data foundation (map and tables; see docs/games/seattle.md).

No engine yet: the game is not registered and there is no ``RULES`` object.
"""
