"""Generators for the hostile files the soak found: made here at test time, never committed (a
100,000-level JSON file is 200 kB of brackets)."""
import json

DEEP = 100_000
HUGE_INT = "1" + "0" * 400  # an integer literal of 401 digits


def deep_json(depth=DEEP):
    """A JSON document nested ``depth`` arrays deep inside an object."""
    return '{"format": ' + "[" * depth + "]" * depth + "}"


def rig_document(**bone_fields):
    """A two-bone posekit rig; ``bone_fields`` replaces fields of the second bone."""
    second = {"name": "b", "parent": "a", "head": [0, 1, 0], "tail": [0, 2, 0], **bone_fields}
    return {"format": "posekit.rig", "version": 1, "name": "hostile",
            "bones": [{"name": "a", "head": [0, 0, 0], "tail": [0, 1, 0]}, second]}


def with_literal(document, placeholder, literal):
    """``document`` as JSON text with the string ``placeholder`` replaced by a raw literal (JSON
    numbers Python's json module would never write)."""
    return json.dumps(document).replace(f'"{placeholder}"', literal)
