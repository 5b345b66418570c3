"""What several games' packages share, kept once: loading their data files, the plain parts of an engine."""
