"""The hand's IK handle dragged in the app, one frame per pointer step, across the shoulder and
back: the arm ends as it was at the same point (continuous mode starts each solve from the last
frame, so a path through the folded limb must not leave a roll behind)."""
import numpy as np

from solvers.transforms import quat_angle
from tests.ui.conftest import SIZE


def test_dragging_the_hand_across_the_shoulder_and_back_leaves_the_arm_as_it_was(driver):
    state = driver.state
    assert state.rig.solver.mode == "continuous"
    skeleton = state.rig.skeleton
    arm = [skeleton.index["upper_arm.L"], skeleton.index["forearm.L"]]
    start = driver.pixel_of("hand_ik.L")
    shoulder = state.camera.world_to_window(state.world[arm[0], :3, 3][None], *SIZE)[0]
    beyond = shoulder + (shoulder - start) * 0.3
    wanted = start + np.array([-12.0, -10.0])
    driver.move(*start)
    driver.press(*start)
    driver.drag(*wanted)
    before = state.pose.rotations[arm].copy()
    hand = state.world[arm[1], :3, 3] + state.world[arm[1], :3, 1] * skeleton.lengths[arm[1]]
    path = [wanted + (shoulder - wanted) * t for t in np.linspace(0, 1, 25)]
    path += [shoulder + (beyond - shoulder) * t for t in np.linspace(0, 1, 8)]
    path += [beyond + (wanted - beyond) * t for t in np.linspace(0, 1, 30)]
    handle, nearest = skeleton.index["hand_ik.L"], np.inf
    for point in path:
        driver.drag(*point)
        nearest = min(nearest, np.linalg.norm(state.world[handle, :3, 3] - state.world[arm[0], :3, 3]))
    assert nearest < 0.05  # the target passed the shoulder, inside the arm's fold
    driver.release(*wanted)
    after = state.world[arm[1], :3, 3] + state.world[arm[1], :3, 1] * skeleton.lengths[arm[1]]
    assert np.linalg.norm(after - hand) < 1e-6
    assert quat_angle(before, state.pose.rotations[arm]).max() < 1e-6
