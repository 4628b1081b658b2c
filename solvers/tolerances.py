"""The tolerances of the solvers' verdicts on computed floats, stated once: whether an angle sits
at a limit, whether Euler angles are at gimbal lock, whether an analytic solve reached its target.

A verdict compares a computed float with a bound through one of these, never exactly: the same
pose must give the same verdict on every machine, and maths libraries (numpy's SIMD paths,
libm) differ there in the last bits. Each tolerance lies far above rounding (~1e-16 relative)
and far below what a user sees or sets. Whether an iterative solve converged is the user's own
``tolerance`` setting, compared with ``<=``.
"""

# Radians: an angle this near a bound of its range (or beyond it) sits on that bound, held by the
# limit; a lock (a range one angle wide) holds an angle it moves by more than this. A clamp puts
# an angle on its bound exactly, and a solver's next step lands on it give or take some ulps.
AT_LIMIT = 1e-9

# |sin Y| above 1 - GIMBAL: Euler XYZ angles are at gimbal lock (X and Z turn about one axis; Z
# is read as 0), cos Y below about 1.4e-6.
GIMBAL = 1e-12

# The two-bone solve reached its target when its tip lies within this fraction of the limb's
# length of it (the law of cosines places it within ~1e-15; a target out of reach misses by far
# more); the one-bone solve aimed when its angle to the target is within AIMED radians.
REACHED = 1e-6
AIMED = 1e-9

# What the priority solver's first level (pins, ground contact) holds to, whatever the levels
# below it ask: metres for a position (and how far below its ground a point may sink), radians for
# a rotation. Its last iterations work on that level alone until it is within HOLD_MARGIN of
# these, so rounding in what a caller does with the pose afterwards stays inside them.
PIN_POSITION = 1e-5
PIN_ROTATION = 1e-4
HOLD_MARGIN = 1e-2

# Radians: iTaSC's Simulation mode (``solvers.simulation``) turns no bone by more than
# max_velocity * dt in a frame, give or take this much (the angle between two rotations is
# measured to ~1e-15; the bound is met by scaling, not by rounding).
VELOCITY_BOUND = 1e-9
