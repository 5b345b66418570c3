"""Fault-injection tests (see conftest.py)."""
