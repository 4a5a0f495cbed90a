"""Smoke test of sweep/examples/green/lagrangian_rl.py's learner (no simulation, < 1 s): on a
table of outcomes where the most valuable action breaks the carbon budget every day, dual ascent
raises lambda and the learned policy picks the best action within the budget."""
import importlib.util
import os

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _example():
    path = os.path.join(ROOT, "sweep", "examples", "green", "lagrangian_rl.py")
    spec = importlib.util.spec_from_file_location("lagrangian_rl", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_lagrangian_learner_keeps_to_the_budget():
    rl = _example()
    days = 8
    features = np.column_stack([np.linspace(0.5, 1.5, days), np.ones(days)])
    # Actions: 0 the most valuable and over the budget (carbon 12), 1 within it at a small cost
    # in value, 2 within it at a large cost. The best policy for E[carbon] <= 10 mixes 0 and 1
    # half and half: value -1.25.
    value = np.tile([-1.0, -1.5, -4.0], (days, 1))
    carbon = np.tile([12.0, 8.0, 5.0], (days, 1))
    weights, lam = rl.train(features, value, carbon, budget=10.0, epochs=3000)
    v, c, over, share = rl.evaluate(rl.policy(features, weights), value, carbon, 10.0)
    assert lam > 0.0
    assert c <= 10.5 and over <= 0.5, (v, c)
    assert v >= -1.6, (v, c)  # far from action 2's -4: it does not over-satisfy the budget
