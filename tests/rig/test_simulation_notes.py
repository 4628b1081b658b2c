"""iTaSC's Simulation mode where the solve cannot step in time says so: a pinned (whole-body)
solve's every report names the setting, as a forced geometric method's does."""
import dataclasses

import numpy as np

from rig.formats.rigfile import load_rig
from rig.simulation import TimeStep
from tests.rig.test_whole_body import drag


def test_a_pinned_solve_in_simulation_mode_says_it_does_not_step_in_time():
    rig = load_rig("assets/humanoid.json")
    rig.solver = dataclasses.replace(rig.solver, itasc_mode="simulation")
    rig.time_step = TimeStep(1.0 / 30.0)
    _, _, reports, _ = drag(rig, np.array([0.5, 1.3, 0.2]))
    assert reports and all(r.notes == ("simulation: priority jumps to its answer (only dls and sdls step in time)",)
                           for r in reports)
    rig.solver = dataclasses.replace(rig.solver, itasc_mode="animation")
    assert all(r.notes == () for r in drag(rig, np.array([0.5, 1.3, 0.2]))[2])
