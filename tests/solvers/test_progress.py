"""The progress rules every iterative solve runs under (``solvers.progress``): costs add angles at
the one stated scale, a non-finite error never makes an iterate the better one, NaN is never
within tolerance."""
import math

import pytest
from hypothesis import given, settings, strategies as st

from solvers import progress

errors = st.lists(st.floats(0.0, 10.0), min_size=1, max_size=6)


@settings(max_examples=50, deadline=None, derandomize=True)
@given(errors=errors, split=st.integers(0, 6), scale=st.sampled_from([1.0, 0.25]))
def test_a_cost_counts_every_angle_at_the_stated_scale(errors, split, scale):
    with pytest.MonkeyPatch.context() as patch:  # called from Python, the bodies read the module's scale
        patch.setattr(progress, "METRES_PER_RADIAN", scale)
        check_cost(errors, split, scale)


def check_cost(errors, split, scale):
    split = min(split, len(errors))
    units = ["m"] * split + ["rad"] * (len(errors) - split)
    expected = sum(errors[:split]) + scale * sum(errors[split:])
    assert progress.summed(errors, split) == pytest.approx(expected)
    assert progress.summed_by_unit(errors, units) == pytest.approx(expected)


@pytest.mark.parametrize("bad", [math.nan, math.inf])
def test_a_non_finite_error_makes_the_cost_inf_and_is_never_within(bad):
    assert progress.summed([0.1, bad], 1) == math.inf
    assert progress.summed_by_unit([bad, 0.1], ("m", "rad")) == math.inf
    assert not progress.within([0.0, bad], 1e9)
    assert progress.stalled_for(2, math.inf, math.inf, 1e-6) == 3  # no progress from inf to inf


def test_progress_is_a_cost_lowered_by_more_than_the_gain():
    gain = progress.min_gain(1e-3)
    assert progress.stalled_for(2, 1.0 - 2 * gain, 1.0, gain) == 0
    assert progress.stalled_for(2, 1.0 - gain / 2, 1.0, gain) == 3
