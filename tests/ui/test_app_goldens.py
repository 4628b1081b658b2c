"""Screenshots of the whole app (viewport and panels) against goldens: the rest pose, a pose made
by replayed drags, each solver on the tail chain driven to one target, and the docked layout at
the usual window sizes."""
import numpy as np
import pytest

from rig.pose import Pose, heads_tails, location_for_head, world_matrices
from rig.formats.rigfile import load_rig
from tests.golden import assert_matches_golden
from ui.state import AppState

from rig.formats.reader import open_rig
from tests.ui.animated import write_animated_glb

from .conftest import SIZE, Driver, resize, start_app
from .test_editing import drag_hand

TAIL_TARGET = np.array([1.0, 0.6, 0.3])
# The chain each solver gets: the analytic ones take the tail's last one or two bones.
SOLVER_CHAINS = {"one_bone": 1, "two_bone": 2, "fabrik": 12, "ccd": 12, "dls": 12, "sdls": 12}


def test_rest_pose(driver):
    assert_matches_golden(driver.app.read_rgb(), "app_rest")


def test_pose_made_by_replayed_drags(driver):
    drag_hand(driver, dx=70, dy=-150)
    foot = driver.pixel_of("foot_ik.R")
    driver.move(*foot)
    driver.press(*foot)
    driver.drag(foot[0] - 40, foot[1] - 60)
    driver.release(foot[0] - 40, foot[1] - 60)
    pole = driver.pixel_of("elbow_pole.L")
    driver.move(*pole)
    driver.press(*pole)
    driver.drag(pole[0] + 40, pole[1] + 30)
    driver.release(pole[0] + 40, pole[1] + 30)
    driver.frames(1)
    assert_matches_golden(driver.app.read_rgb(), "app_posed")


def tail_state(solver):
    rig = load_rig("assets/tail.json")
    rig.solver.type = solver
    rig.ik[0].chain_count = SOLVER_CHAINS[solver]
    state = AppState.for_rig(rig, "assets/tail.json", size=SIZE)
    handle = rig.skeleton.index["tail_ik"]
    state.pose.locations[handle] = location_for_head(rig.skeleton, state.pose, state.world, handle, TAIL_TARGET)
    state.resolve()
    heads, tails = heads_tails(rig.skeleton, world_matrices(rig.skeleton, Pose.rest(len(rig.skeleton))))
    state.camera.set_view("three_quarter")
    state.camera.frame_points(np.vstack([heads, tails, TAIL_TARGET]), aspect=SIZE[0] / SIZE[1],
                              rect=state.free_rect(*SIZE))
    state.deterministic = True
    return state


@pytest.mark.parametrize("solver", SOLVER_CHAINS)
def test_each_solver_on_the_tail(posekit_window, solver):
    start_app(posekit_window, tail_state(solver))
    assert posekit_window.state.reports[0].solver == solver
    driver = Driver(posekit_window)
    driver.click_item("Solver")  # the picture shows the method that ran too
    driver.click_item("Chains")
    assert_matches_golden(posekit_window.read_rgb(), f"app_tail_{solver}")


@pytest.mark.parametrize("size, tab, sections", [((1280, 720), "IK constraint", ()),
                                                 ((1920, 1080), "Solver", ("Chains",))])
def test_the_docked_layout_at_common_sizes(posekit_window, restore_size, tmp_path, size, tab, sections):
    """The skinned humanoid with an animation clip (the timeline shows it), a bone selected, a
    properties tab open; at 1920x1080 an error's toast and red status message too."""
    resize(posekit_window, *size)
    state = AppState.for_document(open_rig(write_animated_glb(tmp_path / "animated.glb")), size=size)
    state.deterministic = True
    start_app(posekit_window, state)
    driver = Driver(posekit_window)
    driver.key("RIGHT")  # frame 1 of the clip's 0-2
    driver.click_item("forearm.L")  # in the outliner: its arm IK constraint shows
    for label in (tab, *sections):
        driver.click_item(label)
    if size == (1920, 1080):
        state.report_error("Cannot save /read-only/pose.json: the folder /read-only does not exist")
    driver.move(size[0] // 3, size[1] - 160)  # over the viewport, on no bone
    driver.frames(2)
    assert_matches_golden(posekit_window.read_rgb(), f"layout_{size[0]}x{size[1]}")
