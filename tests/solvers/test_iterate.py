import numpy as np
import pytest

from solvers.iterate import iterate


def run(sequence, **kwargs):
    """Drive a state that walks through ``sequence`` of error values (one goal)."""
    return iterate(0, lambda i: min(i + 1, len(sequence) - 1), lambda i: np.array([sequence[i]]),
                   lambda i: (np.array([[0.0, 0.0, 0.0, float(i)]]), None, None), **kwargs)


def test_stops_as_soon_as_within_tolerance():
    result = run([1.0, 0.5, 0.01, 0.0001, 0.0], tolerance=1e-3, max_iterations=50)
    assert result.iterations == 3
    assert result.converged
    assert result.errors[0] == pytest.approx(1e-4)


def test_keeps_best_state_when_later_iterations_get_worse():
    result = run([1.0, 0.2, 0.5, 0.6, 0.7, 0.8], tolerance=1e-3, max_iterations=50, patience=3)
    assert result.rotations[0, 3] == 1.0
    assert result.errors[0] == pytest.approx(0.2)
    assert result.iterations == 4
    assert not result.converged


def test_iteration_cap():
    result = run(list(np.linspace(1.0, 0.5, 100)), tolerance=1e-3, max_iterations=7)
    assert result.iterations == 7
    assert result.errors[0] == pytest.approx(np.linspace(1.0, 0.5, 100)[7])


def test_zero_iterations_returns_start():
    result = run([1.0, 0.0], max_iterations=0)
    assert result.iterations == 0 and result.rotations[0, 3] == 0.0 and not result.converged


def test_nan_error_never_counts_as_best():
    result = run([1.0, np.nan, np.nan, np.nan, 0.5], tolerance=1e-3, patience=3)
    assert result.rotations[0, 3] == 0.0
    assert result.errors[0] == 1.0


def test_rejects_bad_settings():
    with pytest.raises(ValueError):
        run([1.0], patience=0)


def test_cost_decides_the_best_state():
    errors = [np.array([1.0, 1.0]), np.array([0.2, 1.6]), np.array([0.5, 1.2]), np.array([0.5, 1.2])]
    drive = lambda **kwargs: iterate(0, lambda i: min(i + 1, 3), lambda i: errors[i],
                                     lambda i: (np.array([[0.0, 0.0, 0.0, float(i)]]), None, None),
                                     tolerance=1e-3, **kwargs)
    assert drive().rotations[0, 3] == 2.0
    weighted = drive(cost=lambda e: float(np.sum(np.array([10.0, 1.0]) * e)))
    assert weighted.rotations[0, 3] == 1.0
    np.testing.assert_allclose(weighted.errors, [0.2, 1.6])
