"""Use-cases that own the transactions: games, order mail, turns, the outbox."""
