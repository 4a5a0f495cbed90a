"""Bad configs raise clustersim.InputError with the command's FILE:LINE: field text; plans that
cannot be applied raise clustersim.PlanError with the reason and change nothing."""
import subprocess

import pytest

import clustersim


def cli_error(command, *args):
    done = subprocess.run([command, "run", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                          timeout=60)
    assert done.returncode == 2, done.stderr
    prefix = "clustersim: error: "
    assert done.stderr.startswith(prefix), done.stderr
    return done.stderr[len(prefix):].strip()


def test_a_bad_config_file_raises_the_commands_message(tmp_path, clustersim_command):
    config = tmp_path / "bad.toml"
    config.write_text("[cluster]\nnodes = 4\ngpus_per_node = 8\n[workload]\ngenerator = \"philly\"\n\n"
                      "[scheduler]\npolicy = \"fifo\"\nlease_s = -5\n")
    expected = cli_error(clustersim_command, str(config))
    assert f"{config}:9: field 'scheduler.lease_s'" in expected
    with pytest.raises(clustersim.InputError) as raised:
        clustersim.run(config)
    assert str(raised.value) == expected
    assert (raised.value.file, raised.value.line, raised.value.field) == (str(config), 9, "scheduler.lease_s")
    assert isinstance(raised.value, ValueError)
    with pytest.raises(clustersim.InputError) as again:
        clustersim.Simulation(config)
    assert str(again.value) == expected


def test_a_bad_override_and_a_bad_trace_row_raise_the_commands_message(tmp_path, clustersim_command):
    trace = tmp_path / "trace.csv"
    trace.write_text("job_id,submit_time,num_gpus,duration\na,0,2,100\nb,5,two,100\n")
    config = tmp_path / "run.toml"
    config.write_text(f'[cluster]\nnodes = 2\ngpus_per_node = 4\n[workload]\ntrace = "{trace}"\n')
    expected = cli_error(clustersim_command, str(config))
    assert f"{trace}:3: field 'num_gpus'" in expected
    with pytest.raises(clustersim.InputError, match="num_gpus") as raised:
        clustersim.run(str(config))
    assert str(raised.value) == expected

    trace.write_text("job_id,submit_time,num_gpus,duration\na,0,2,100\n")
    expected = cli_error(clustersim_command, str(config), "--set", "scheduler.policy=nope")
    with pytest.raises(clustersim.InputError) as raised:
        clustersim.run(str(config), set={"scheduler.policy": "nope"})
    assert str(raised.value) == expected


def test_a_job_that_can_never_run_names_its_trace_line(tmp_path, clustersim_command):
    trace = tmp_path / "trace.csv"
    trace.write_text("job_id,submit_time,num_gpus,duration\na,0,2,100\nbig,5,64,100\n")
    config = tmp_path / "run.toml"
    config.write_text(f'[cluster]\nnodes = 2\ngpus_per_node = 4\n[workload]\ntrace = "{trace}"\n')
    expected = cli_error(clustersim_command, str(config))
    assert f"{trace}:3: field 'num_gpus'" in expected
    with pytest.raises(clustersim.InputError) as raised:
        clustersim.run(config)
    assert str(raised.value) == expected
    with pytest.raises(clustersim.InputError) as raised:
        clustersim.Simulation(config)
    assert str(raised.value) == expected


def test_a_bad_dict_config_names_the_field():
    workload = {"generator": "philly", "jobs": 10}
    with pytest.raises(clustersim.InputError, match="field 'scheduler.policy'") as raised:
        clustersim.run({"cluster": {"nodes": 2, "gpus_per_node": 4}, "workload": workload,
                        "scheduler": {"policy": "nope"}})
    assert raised.value.field == "scheduler.policy"
    assert str(raised.value).startswith("<config dict>: field 'scheduler.policy': ")
    with pytest.raises(clustersim.InputError, match="field 'cluster.nodes'"):
        clustersim.run({"cluster": {"nodes": object()}, "workload": workload})
    with pytest.raises(clustersim.InputError, match="tpyo"):
        clustersim.run({"cluster": {"nodes": 2, "gpus_per_node": 4, "tpyo": 1}, "workload": workload})
    with pytest.raises(clustersim.InputError, match="missing table"):
        clustersim.Simulation({"cluster": {"nodes": 2, "gpus_per_node": 4}})


def small_simulation():
    """Two nodes of 4 GPUs; a (2 GPUs) and b (4 GPUs) wait at t = 0; c arrives at 5."""
    import os
    import tempfile

    folder = tempfile.mkdtemp()
    trace = os.path.join(folder, "trace.csv")
    with open(trace, "w") as out:
        out.write("job_id,submit_time,num_gpus,duration\na,0,2,100\nb,0,4,100\nc,5,1,10\n")
    sim = clustersim.Simulation({"cluster": {"nodes": 2, "gpus_per_node": 4}, "workload": {"trace": trace}})
    assert sim.step()
    return sim


@pytest.mark.parametrize("plan,reason", [
    ([("start", 0, [(0, 2)]), ("start", 1, [(0, 4)])], "job 'b' gets more of node 0 than is free"),
    ([("start", 0, [(0, 3)])], "job 'a' gets the wrong number of GPUs"),
    ([("stop", 0)], "job 'a' is stopped but not running"),
    ([("start", 2, [(1, 1)])], "job 'c' is not waiting (it is pending)"),
    ([("stop", 2)], "job 'c' is stopped but not running"),
    ([("start", 0, [(7, 2)])], "job 'a' gets an empty grant or one on no node"),
    ([("move", 0, [(0, 2)])], "job 'a' is moved but holds no GPUs (it is waiting)"),
    ([("resize", 0, [(0, 1)])], "job 'a' is resized but holds no GPUs"),
    ([5], "no job 5 (the workload has 3 jobs)"),
    ([0, 0], "job 'a' is named twice"),
    ([2], "job 'c' is not waiting (it is pending)"),
    ([("start", 0), ("start", 1), ("start", 0)], "job 'a' is named twice"),
])
def test_a_plan_that_cannot_be_applied_raises_its_reason_and_changes_nothing(plan, reason):
    sim = small_simulation()
    before = sim.observe()
    free_before = before.free_gpus
    with pytest.raises(clustersim.PlanError) as raised:
        sim.apply(plan)
    assert reason in str(raised.value)
    obs = sim.observe()
    assert obs.free_gpus == free_before == 8  # nothing changed: a plan is applied whole or not at all
    assert len(obs.running) == 0
    assert list(sim.apply([0, 1])) == [0, 1]  # and the simulation goes on


def test_a_start_that_does_not_fit_says_so_and_an_order_skips_it(tmp_path):
    trace = tmp_path / "trace.csv"
    trace.write_text("job_id,submit_time,num_gpus,duration\na,0,4,100\nb,0,4,100\nc,0,4,100\n")
    sim = clustersim.Simulation({"cluster": {"nodes": 2, "gpus_per_node": 4}, "workload": {"trace": str(trace)}})
    with pytest.raises(RuntimeError, match="not at a decision point"):
        sim.apply([0])
    assert sim.step()
    assert list(sim.apply([("start", 0), ("start", 1, [(1, 4)])])) == [0, 1]
    with pytest.raises(clustersim.PlanError, match="job 'c' cannot start now: no placement of 4 GPUs"):
        sim.apply([("start", 2)])
    assert list(sim.apply([2])) == []  # as an order: it waits


def test_a_stalled_run_and_bad_plan_types_raise():
    sim = small_simulation()
    with pytest.raises(TypeError, match="plan"):
        sim.apply("fifo")
    with pytest.raises(TypeError):
        sim.apply([("launch", 0)])
    with pytest.raises(RuntimeError, match="stalled"):
        sim.run(lambda obs: None)  # nothing ever starts
