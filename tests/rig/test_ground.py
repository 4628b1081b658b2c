import numpy as np

from rig.ground import PlaneGround


def test_a_plane_answers_straight_below_and_above():
    points = np.array([[0.3, 2.0, -1.0], [5.0, -0.5, 2.0]])
    hits = PlaneGround(0.25).surface_under(points)
    assert np.array_equal(hits.point, [[0.3, 0.25, -1.0], [5.0, 0.25, 2.0]])
    assert np.array_equal(hits.normal, [[0.0, 1.0, 0.0]] * 2)
    assert hits.hit.all()
