"""Tests of Corteo: the city and the tables."""
