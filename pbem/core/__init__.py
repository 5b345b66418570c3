"""Pure building blocks shared by every game: no I/O, no clock, no randomness."""
