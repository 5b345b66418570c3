"""Tests of Block Mania / Mega Mania."""
