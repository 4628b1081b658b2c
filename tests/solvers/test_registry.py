"""The method registry (``solvers.methods.METHODS``): every row warms and runs through ``solve`` on
the shapes it takes and refuses the others out loud; an unknown name raises, naming the known ones,
never quietly running another method."""
import numpy as np
import pytest

from solvers.chain import chain_points, straight_chain
from solvers.goals import PositionGoal
from solvers.methods import METHODS, choose_methods, solve
from solvers.problem import Freedoms, Problem, Settings
from solvers.tree import Tree

REST = np.array([0.0, 0.0, 0.0, 1.0])


def chain_problem(bones):
    """A straight chain of ``bones`` bones of 0.5 m reaching for a point well inside its reach."""
    target = np.array([0.2, 0.35, 0.1]) * bones
    return Problem(straight_chain([0.5] * bones), (PositionGoal(bones - 1, tuple(target)),), Freedoms.free(bones))


def fork_problem():
    """Two bones hanging from one, each reaching for its own point: a tree no chain method takes."""
    tree = Tree(np.eye(4), [-1, 0, 0], [[0.0, 0.0, 0.0], [0.0, 0.5, 0.0], [0.0, 0.5, 0.0]], [REST] * 3,
                [0.5, 0.5, 0.5])
    return Problem(tree, (PositionGoal(1, (0.3, 0.8, 0.0)), PositionGoal(2, (-0.3, 0.8, 0.0))), Freedoms.free(3))


@pytest.mark.parametrize("name", ["no_such_method", "DLS", ""])
def test_an_unknown_method_raises_naming_the_known_ones(name):
    for run in (lambda: solve(name, chain_problem(3), np.tile(REST, (3, 1)), Settings()),
                lambda: choose_methods(name, set(), 3, False)):
        with pytest.raises(ValueError) as raised:
            run()
        assert repr(name) in str(raised.value) and all(known in str(raised.value) for known in METHODS)


@pytest.mark.parametrize("name", list(METHODS))
def test_every_method_warms_and_reaches_on_a_chain_it_takes(name):
    row = METHODS[name]
    row.warm()
    bones = row.bones or 3
    problem = chain_problem(bones)
    result = solve(name, problem, np.tile(REST, (bones, 1)), Settings(200, 1e-6))
    tip = chain_points(problem.bones, result.rotations, result.stretch)[-1]
    if row.aims:  # one bone points at the target: its residual is the angle left
        assert result.units == ("rad",) and result.errors[0] < 1e-6
    else:
        assert result.units == ("m",)
        assert np.linalg.norm(tip - problem.goals[0].target) < 1e-3
        assert result.errors[0] == pytest.approx(np.linalg.norm(tip - problem.goals[0].target), abs=1e-9)


@pytest.mark.parametrize("name", list(METHODS))
def test_every_method_runs_on_a_tree_or_refuses_it_naming_why(name):
    row, problem = METHODS[name], fork_problem()
    if row.in_trees is None:
        with pytest.raises(ValueError, match=f"{name} takes one chain"):
            solve(name, problem, np.tile(REST, (3, 1)), Settings())
        return
    result = solve(name, problem, np.tile(REST, (3, 1)), Settings(200, 1e-6))
    at_rest = np.linalg.norm(np.array([g.target for g in problem.goals]) - (0.0, 1.0, 0.0), axis=1)
    assert result.units == ("m", "m") and (result.errors < at_rest).all() and result.errors.sum() < at_rest.sum() / 2


@pytest.mark.parametrize("name", [n for n, m in METHODS.items() if m.bones is not None])
def test_a_method_for_one_chain_length_refuses_another(name):
    bones = METHODS[name].bones + 1
    with pytest.raises(ValueError, match=f"{name} takes chains of {METHODS[name].bones} bones, this one has {bones}"):
        solve(name, chain_problem(bones), np.tile(REST, (bones, 1)), Settings())
