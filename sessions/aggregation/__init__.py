"""Statistics over stored judgements: pure functions that turn scores and verdicts into figures."""
