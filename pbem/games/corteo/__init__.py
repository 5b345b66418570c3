"""Corteo (Edizioni del No 1979, Mondadori Giochi 1980): data foundation (see docs/games/corteo.md).

The City as a hex map (``city.py``, ``data/city.toml``) and its street guide, the "Pagine Gialle"
(``guide.py``). No engine yet: the game is not registered and there is no ``RULES`` object.
"""
