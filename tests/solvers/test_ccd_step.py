"""The compiled CCD sweep: one specialisation serves every solve whatever arrays the caller hands
in, and a sweep leaves its input pose as it was."""
import numpy as np

from solvers.ccd import solve_ccd_chain
from solvers.ccd_step import ccd_sweep
from solvers.chain import straight_chain
from solvers.limits import Cone, Hinge, SwingTwistLimit, Twist


def test_one_compiled_sweep_serves_every_solve_from_any_arrays():
    chain = straight_chain([0.3, 0.25, 0.2])
    limits = [Hinge((1.0, 0.0, 0.0), 0.0, 1.2), (Cone(0.4), Twist(-0.3, 0.3)), SwingTwistLimit((-1, -1, -1), (1, 1, 1))]
    strided = np.tile([0.0, 0.0, 0.0, 1.0, 9.0], (3, 1))[:, :4]  # a non-contiguous view
    fortran = np.asfortranarray(np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)))
    read_only = np.tile([0.0, 0.0, 0.0, 1.0], (3, 1))
    read_only.flags.writeable = False
    solves = [
        solve_ccd_chain(chain, strided, [0, 0.4, 0.3], limits, max_iterations=3),
        solve_ccd_chain(chain, fortran, [0, 0.4, 0.3], max_step=0.1, stiffness=[[0.5, 0, 0], [0, 0, 0], [0, 0, 0]]),
        solve_ccd_chain(chain, read_only, [0, 0.4, 0.3], limits, target_rotation=[0, 0, 0, 1], max_iterations=3),
        solve_ccd_chain(chain, [[0, 0, 0, 1]] * 3, [0, 2.0, 0.5], stretch=np.float32([1, 1, 1])),
        solve_ccd_chain(chain, np.float32(read_only), [0, 0.1, 0.2], [None, None, Hinge((0, 0, 1), -1, 1)]),
    ]
    assert all(np.isfinite(result.errors).all() and result.iterations >= 1 for result in solves)
    assert len(ccd_sweep.signatures) == 1


def test_a_sweep_leaves_its_input_pose_and_the_callers_rotations_alone():
    chain = straight_chain([0.3, 0.25, 0.2])
    rotations = np.tile([0.0, 0.0, 0.0, 1.0], (3, 1))
    result = solve_ccd_chain(chain, rotations, [0.2, 0.3, 0.1], max_iterations=5)
    assert np.array_equal(rotations, np.tile([0.0, 0.0, 0.0, 1.0], (3, 1)))
    assert not np.shares_memory(result.rotations, rotations)
    assert result.errors[0] < 1e-3
