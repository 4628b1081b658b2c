"""The method table: auto never hands a problem to a method that drops one of its settings, and a
forced method's notes name exactly the settings it does not hold."""
from hypothesis import given, settings, strategies as st

from solvers.methods import FEATURES, METHODS, choose_methods, unhonoured

SETTINGS = settings(max_examples=200, deadline=None, derandomize=True)
problems = dict(features=st.sets(st.sampled_from(FEATURES)), bones=st.integers(1, 60), tree=st.booleans())


@SETTINGS
@given(**problems)
def test_auto_runs_only_methods_that_honour_everything_the_problem_holds(features, bones, tree):
    choice = choose_methods("auto", features, bones, tree)
    some_honour_all = any(not unhonoured(m, features, bones, tree) for m in METHODS)
    if some_honour_all:
        assert choice.methods and not choice.notes
        for method in choice.methods + ((choice.restarts,) if choice.restarts else ()):
            assert unhonoured(method, features, bones, tree) == ()
    else:  # none can: one method that takes the shape runs, and says what it drops
        (method,) = choice.methods
        missing = unhonoured(method, features, bones, tree)
        assert missing and "tree" not in missing and "chain length" not in missing
        assert len(choice.notes) == len(missing)


@SETTINGS
@given(requested=st.sampled_from(sorted(METHODS)), **problems)
def test_a_forced_method_runs_with_a_note_per_dropped_setting_or_gives_way_with_a_reason(requested, features, bones,
                                                                                           tree):
    choice = choose_methods(requested, features, bones, tree)
    missing = unhonoured(requested, features, bones, tree)
    if missing[:1] in (("tree",), ("chain length",)):
        assert choice.methods == choose_methods("auto", features, bones, tree).methods
        assert len(choice.notes) == 1 and requested in choice.notes[0] and "ran instead" in choice.notes[0]
    else:
        assert choice.methods == (requested,)
        assert len(choice.notes) == len(missing)
        assert all(note.startswith(f"{feature}: {requested}") for note, feature in zip(choice.notes, missing))


def test_a_limited_two_bone_limb_gets_the_analytic_answer_first_then_iterative_methods():
    assert choose_methods("auto", {"limits"}, 2, False).methods == ("two_bone", "ccd", "dls")
    assert choose_methods("auto", set(), 2, False).methods == ("two_bone",)
    assert choose_methods("auto", {"target rotation", "limits"}, 5, False).methods == ("ccd", "dls")
    assert choose_methods("auto", {"stiffness", "limits"}, 5, False).methods == ("ccd", "dls")
    assert choose_methods("auto", {"distance"}, 5, False).methods == ("dls",)
