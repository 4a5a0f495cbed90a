"""Observations: live zero-copy views of the simulator's tables, snapshots made when first read,
and one documented table of field names (README.md)."""
import os
import re

import numpy as np
import pytest

import clustersim
from conftest import ROOT, philly

WAITING = clustersim.PHASES.index("waiting")


def at_a_busy_point(jobs=600, seed=2):
    sim = clustersim.Simulation(philly(jobs, seed=seed, nodes=4))
    fifo = lambda obs: obs.waiting[np.lexsort((obs.waiting, obs.waiting_submit))]  # noqa: E731
    while sim.step():
        obs = sim.observe()
        if len(obs.waiting) > 20 and len(obs.running) > 5:
            return sim, obs
        sim.apply(fifo(obs))
    pytest.fail("no busy decision point")


def test_the_fields_agree_with_each_other():
    sim, obs = at_a_busy_point()
    w, r = obs.waiting, obs.running
    assert np.all(obs.job_phase[w] == WAITING)
    np.testing.assert_array_equal(obs.waiting_gpus, obs.job_gpus[w])
    np.testing.assert_array_equal(obs.waiting_submit, obs.job_submit[w])
    np.testing.assert_array_equal(obs.waiting_age, obs.time - obs.job_submit[w])
    np.testing.assert_array_equal(obs.waiting_duration, obs.job_duration[w])
    np.testing.assert_array_equal(obs.running_gpus, obs.job_gpus[r])
    assert obs.free_gpus == obs.node_free_gpus.sum() == obs.type_free_gpus.sum()
    assert obs.total_gpus - obs.free_gpus == obs.running_gpus.sum() == obs.grant_gpus.sum()
    assert set(obs.grant_job) == set(r)
    assert np.all(obs.running_remaining <= obs.running_duration)
    assert np.all(obs.running_remaining > 0)
    assert [sim.model_names[m] for m in obs.waiting_model] == \
        [sim.model_names[obs.job_model[j]] for j in w]
    assert set(sim.model_names) <= {"resnet50", "resnet18", "transformer", "bert_base", "gnmt", "vgg16",
                                    "mobilenet_v2", "deepspeech", "dlrm", "shufflenet", "alexnet", "m5"}


def test_job_and_node_fields_are_read_only_views_that_follow_the_run():
    sim, obs = at_a_busy_point()
    phase = obs.job_phase
    free = obs.node_free_gpus
    assert not phase.flags.writeable and not phase.flags.owndata
    assert phase.base is not None
    with pytest.raises(ValueError):
        phase[0] = 0
    assert sim.observe().job_phase is phase  # the same view, not a copy per observation
    before = phase.copy()
    started = sim.apply(obs.waiting[np.lexsort((obs.waiting, obs.waiting_submit))])
    assert len(started) > 0 or obs.free_gpus == 0
    while len(started) == 0:  # until something starts
        assert sim.step()
        o = sim.observe()
        started = sim.apply(o.waiting[np.lexsort((o.waiting, o.waiting_submit))])
    assert np.all(phase[started] != WAITING)  # the view shows the change
    assert np.any(phase != before)
    assert free.sum() == sim.observe().free_gpus


def test_a_snapshot_read_after_the_run_moved_on_raises_and_views_outlive_a_reset():
    sim, obs = at_a_busy_point()
    sim.step()
    with pytest.raises(RuntimeError, match="moved on"):
        obs.waiting_gpus
    obs = sim.observe()
    waiting = obs.waiting  # read before: kept
    gpus = obs.job_gpus
    sim.reset(seed=123)
    assert len(waiting) > 0 and gpus.sum() > 0  # still readable: the old run is kept alive
    del sim
    assert gpus.sum() > 0


def test_readme_documents_every_observation_field_in_one_table():
    with open(os.path.join(ROOT, "README.md")) as readme:
        text = readme.read()
    table = text.split("<!-- observation fields -->")[1].split("<!-- end of observation fields -->")[0]
    rows = re.findall(r"^\| `([a-z_]+)` \| ([a-z ]+) \| `([a-z0-9]+)` \|", table, re.M)
    documented = [(name, kind, dtype) for name, kind, dtype in rows]
    fields = [(name, kind, dtype) for name, kind, dtype, _ in clustersim.observation_fields()]
    assert documented == fields, "README.md's observation table differs (python/README.md generator: " \
                                 "python3 -m clustersim.docs)"
