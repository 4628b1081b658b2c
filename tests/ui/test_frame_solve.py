"""The frame is the only caller of the solve: tools, panels and commands ask for one, and each
frame runs at most one, after its input, however many events came in."""
from rig.evaluate import evaluate


def count_solves(state, monkeypatch):
    calls = []
    original = type(state).resolve

    def counting(self):
        calls.append(1)
        original(self)
    monkeypatch.setattr(type(state), "resolve", counting)
    return calls


def test_many_drag_events_between_frames_make_one_solve(driver, monkeypatch):
    state = driver.state
    x, y = driver.pixel_of("hand_ik.L")
    driver.move(x, y)
    driver.press(x, y)
    assert state.drag is not None and state.drag.bone == "hand_ik.L"
    calls = count_solves(state, monkeypatch)
    window = driver.app.window
    for step in range(1, 6):  # five motions the OS delivered before the next frame
        window.dispatch_event("on_mouse_drag", x + 4 * step, window.height - y, 4, 0, 1, 0)
    window.dispatch_events()
    assert calls == [] and state.solve_pending
    driver.frames(1)
    assert calls == [1] and not state.solve_pending
    # What the frame solved is what the rig evaluates to from the pose it holds now.
    _, world, _ = evaluate(state.rig, state.pose, state.drag.goals())
    assert abs(world - state.world).max() < 1e-9


def test_a_frame_with_nothing_asked_does_not_solve(driver, monkeypatch):
    calls = count_solves(driver.state, monkeypatch)
    driver.frames(3)
    assert calls == []


def test_a_panel_edit_is_solved_in_its_own_frame(driver, monkeypatch):
    state = driver.state
    driver.click(*driver.pixel_along("forearm.L", 0.5))
    driver.click_item("IK constraint")
    calls = count_solves(state, monkeypatch)
    driver.set_value("Chain length", 3)
    assert len(calls) >= 1 and not state.solve_pending
    assert len(state.rig.ik_chain(state.rig.ik[0])) == 3
