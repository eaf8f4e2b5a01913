"""Evaluation methods: one module per method (turn policy, prompts, rubric)."""
