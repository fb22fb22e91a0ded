"""Typed gates, steps and results turned into neutral chat messages. Pure."""
