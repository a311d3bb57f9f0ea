"""Grading: an episode's final state and answer against its task, without an LLM.

Takes an episode (``engine``) and a task (``formats``); gives the score (state, required outputs,
refusals read as a person writes them) and whether a refusal on a time rule follows from what the
agent is shown.
"""
