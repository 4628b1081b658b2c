"""The ground in the real (headless) window: File > Open Ground through the file dialog, Edit >
Plant feet as one undo step, the live planting option during a drag, the Contact toggle (the
skinned figure's feet kept on the ground by their skin), the window drawn with the ground loaded,
and the ground kept with the session."""
import os

import numpy as np
import pytest

from render.capture import save_png
from rig.formats.jsonfields import FileFormatError
from rig.formats.reader import open_rig
from rig.ground import PlaneGround
from rig.ground_mesh import MeshGround
from rig.planting import sole_report
from tests.rig.test_planting import PARTS, SOLE_ANGLE_TOLERANCE, SOLE_GAP_TOLERANCE, standing_over
from tests.rig.test_ground_contact import SKIN_TOLERANCE
from tests.ui.conftest import SIZE, Driver, humanoid_state, start_app
from ui.state import AppState
from ui.autosave import STATE_DIR_ENV
from ui.ground_state import legs_of, open_ground
from ui.session_file import restore_session, session_dict

ASSETS = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "assets"))
SCENE = os.path.join(ASSETS, "ground_test.glb")
OUTPUT = os.path.join(os.path.dirname(__file__), "..", "output")


@pytest.fixture
def driver(posekit_window, tmp_path, monkeypatch):
    monkeypatch.setenv(STATE_DIR_ENV, str(tmp_path / "state"))
    start_app(posekit_window, humanoid_state())
    return Driver(posekit_window)


def flush(state):
    """Whether both soles lie on the state's ground within the planting tolerances."""
    report = sole_report(state.rig, state.world, legs_of(state), state.ground)
    return len(report) == 2 and all(a <= SOLE_ANGLE_TOLERANCE and g <= SOLE_GAP_TOLERANCE for _, a, g in report)


def stand_over(driver, name, stride=False):
    state = driver.state
    state.pose = standing_over(state.rig, PARTS[name], stride=stride)
    state.mark_dirty()
    driver.frames(2)


def test_file_open_ground_reads_the_scene_picked_and_a_bad_one_changes_nothing(driver, tmp_path):
    driver.click_item("File")
    driver.click_item("Open Ground...")
    driver.frames(1)
    driver.set_value("##folder", ASSETS)
    driver.click_item("ground_test.glb")
    driver.click_item("ground_test.glb")
    driver.frames(2)
    state = driver.state
    assert isinstance(state.ground, MeshGround) and state.ground_path == SCENE
    assert state.message.startswith("Ground: ") and "triangles" in state.message
    bad = tmp_path / "bad.obj"
    bad.write_text("v 0 0 0\nv 1 0 nan\n")
    ground = state.ground
    assert not open_ground(state, str(bad))
    assert state.ground is ground and "line 2, v z" in state.error


def test_plant_feet_is_one_undo_step(driver):
    state = driver.state
    assert open_ground(state, SCENE)
    stand_over(driver, "slope_20")
    before = state.pose.copy()
    assert not flush(state)
    driver.click_item("Edit")
    driver.click_item("Plant feet")
    driver.frames(2)
    assert flush(state) and state.message.startswith("Feet planted")
    driver.key("Z", ["ctrl"])
    assert state.pose == before


def test_live_planting_keeps_a_dragged_foot_on_the_ground(driver):
    state = driver.state
    driver.click_item("View")
    driver.frames(1)
    driver.click_item("Plant feet (live)")
    driver.frames(2)
    assert state.plant_feet and isinstance(state.ground, PlaneGround) and flush(state)
    start = driver.pixel_of("foot_ik.L")
    driver.move(*start)
    driver.press(*start)
    for k in range(1, 6):
        driver.drag(start[0] + 6 * k, start[1] - 12 * k)  # up and aside: the foot slides along the ground
        assert flush(state)
    driver.release(start[0] + 30, start[1] - 60)
    ankle = state.world[state.rig.skeleton.index["foot.L"], :3, 3]
    assert ankle[0] > 0.15 and flush(state)


def test_the_contact_toggle_is_on_the_state_for_the_solve(driver):
    state = driver.state
    driver.click_item("View")
    driver.frames(1)
    assert not state.ground_contact
    driver.click_item("Contact")
    driver.frames(1)
    assert state.ground_contact


def test_with_contact_on_a_skinned_foot_dragged_down_keeps_its_skin_above_the_grids_plane(posekit_window):
    """The skinned humanoid (its rest soles 2 cm under the grid's plane), Contact on, the body
    following, a foot's handle dragged down: every frame, no vertex of the feet's skin, skinned as
    the window draws it, below the plane by more than the skin's tolerance."""
    start_app(posekit_window, AppState.for_document(open_rig("assets/humanoid_skinned.glb"), size=SIZE))
    driver = Driver(posekit_window)
    state = driver.state
    skin = state.rig.skin_contacts

    def lowest():
        return float(state.mesh.skinned_positions(state.world)[skin.vertices, 1].min())
    assert lowest() < -0.02
    driver.click_item("View")
    driver.frames(1)
    driver.click_item("Contact")
    driver.frames(2)
    assert state.ground_contact and lowest() >= -SKIN_TOLERANCE
    start = driver.pixel_of("foot_ik.L")
    driver.move(*start)
    driver.press(*start)
    for k in range(1, 6):
        driver.drag(start[0] + 4 * k, start[1] + 15 * k)  # down the screen: into the ground
        assert lowest() >= -SKIN_TOLERANCE
    driver.release(start[0] + 20, start[1] + 75)
    assert state.world[state.rig.skeleton.index["foot_ik.L"], 1, 3] < -0.05 and lowest() >= -SKIN_TOLERANCE


def test_the_window_draws_the_ground_and_plants_from_its_button(driver):
    state = driver.state
    driver.frames(1)
    bare = driver.app.read_rgb().copy()
    assert open_ground(state, SCENE)
    stand_over(driver, "stairs", stride=True)
    driver.click_item("View")  # the Ground section in the picture
    driver.click_item("Plant feet now")
    state.camera.yaw, state.camera.pitch = 1.9, 0.25
    driver.key("F")  # frame the figure
    driver.frames(2)
    assert flush(state)
    picture = driver.app.read_rgb()
    os.makedirs(OUTPUT, exist_ok=True)
    save_png(picture, os.path.join(OUTPUT, "app_ground.png"))  # to look at; the render goldens compare
    assert (np.abs(picture.astype(int) - bare.astype(int)).max(axis=2) > 16).mean() > 0.05


def test_the_ground_is_kept_with_the_session_and_a_lost_file_is_noted(driver, tmp_path):
    state = driver.state
    copy = tmp_path / "scene.obj"
    copy.write_text(open(os.path.join(ASSETS, "ground_test.obj")).read())
    assert open_ground(state, str(copy))
    state.ground_contact = state.plant_feet = True
    data = session_dict(state)
    restored = restore_session(data).state
    assert isinstance(restored.ground, MeshGround) and restored.ground_path == str(copy)
    assert restored.ground_contact and restored.plant_feet
    copy.unlink()
    session = restore_session(data)
    assert isinstance(session.state.ground, PlaneGround) and "the ground did not read" in session.note
    data["ground"]["height"] = 1.0
    with pytest.raises(FileFormatError, match="unknown field 'ground.height'"):
        restore_session(data)
    del data["ground"]  # an autosave from before grounds
    assert restore_session(data).state.ground == PlaneGround()
