"""Which bones of a humanoid are its arms, legs, spine and head: found from the names, and from
the hierarchy and rest geometry where the names say nothing (or contradict the geometry).

Sides are the figure's own, as Blender's ``.L``/``.R``: with +Y up and the figure facing F, its
left is up x F, so +X is left for a figure facing +Z. F is the feet's direction (ankle to toe, made
horizontal) where the two feet agree on one, else +Z.

Names. A bone is a hand (wrist) or a foot (ankle) when its name, stripped of a namespace
(``mixamorig:``), a Rigify prefix (``DEF-``, ``ORG-``), a side marker (``.L``/``_r``/``-L``,
``Left``/``right`` prefixes or suffixes, ``L_``, a capital ``L``/``R`` before a capital as in
CMU's ``LHipJoint``) and separators, is exactly that word; the limb's two IK bones are its parent
and grandparent.

Geometry. A pair is two children of one bone (the hub) whose subtrees look like mirrored limbs: as
many bones, main chains (each bone's child with the largest subtree, down to a leaf) of as many
bones and lengths within ``PAIR_LENGTH_TOLERANCE``, attached (the first joint off the hub) at the
same height and distance from the hub within ``ATTACH_TOLERANCE`` of the limb's length, with
subtree centres ``MIN_APART`` of it apart sideways. Pairs inside another pair's limbs (fingers,
toes) do not count. The legs are the pair reaching lowest, at least ``LEGS_DROP`` of their length
below their hub; the arms are the longest other pair on a hub no lower; of a pair, the limb
attached on the figure's left is ``.L``. Along a limb's main chain the hand or foot is the first
bone from the third on that branches (fingers, toes), else the bone after the two consecutive bones
longest together (upper arm and forearm, thigh and shin: a clavicle or hip bone before them is
shorter); the rest pose need not be symmetric (a figure mid-stride). Spine: the bones from the hips
(the legs' common ancestor) up to the chest (the arms'); neck and head are the main chain up from
the chest.

Names win unless a named limb lies inside a limb the geometry gives the other kind (a "hand"
on a leg): then the geometry is taken for that limb, with a warning.
"""
import re
from dataclasses import dataclass, field

import numpy as np

LIMBS = (("arm", ("hand", "wrist"), "hand_ik", "elbow_pole"), ("leg", ("foot", "ankle"), "foot_ik", "knee_pole"))
SIDES = ("L", "R")
UP = np.array([0.0, 1.0, 0.0])
DEFAULT_FORWARD = np.array([0.0, 0.0, 1.0])
PAIR_LENGTH_TOLERANCE = 0.25  # relative difference of a pair's two main-chain lengths
ATTACH_TOLERANCE = 0.1  # of the limb's length: a pair's attachments' height and distance from the hub
MIN_APART = 0.1  # of the limb's length: how far sideways a pair's subtree centres are at least
FEET_AGREE = 0.25  # of the feet's length: the horizontal part of their summed directions, to be a facing
MIN_LIMB_BONES = 3  # upper, lower, hand/foot
LEGS_DROP = 0.5  # of the legs' length: how far below their hub they reach at least
FOUND_BY = {"names": "by names", "geometry": "by geometry", "chosen": "chosen"}  # AutoRigReport.found_by, as told

_PREFIX = re.compile(r"^(?:[^:]*:)?(?:(?:DEF|ORG|MCH)-)?")
_SIDE_PATTERNS = (
    (re.compile(r"[._\- ]([LlRr])$"), lambda m: m.group(1).upper()),
    (re.compile(r"[._\- ]?(Left|Right|left|right|LEFT|RIGHT)$"), lambda m: m.group(1)[0].upper()),
    (re.compile(r"^(Left|Right|left|right|LEFT|RIGHT)[._\- ]?"), lambda m: m.group(1)[0].upper()),
    (re.compile(r"^([LlRr])[._\- ]"), lambda m: m.group(1).upper()),
    (re.compile(r"^([LR])(?=[A-Z])"), lambda m: m.group(1)),
)


@dataclass
class AutoRigReport:
    """What was recognised and made, for a panel to show. ``roles`` maps a role ("hips", "spine",
    "neck", "head", "arm.L", "leg.R", ...) to bone names (a limb: upper, lower, hand/foot);
    ``found_by`` maps a limb role to "names", "geometry" or "chosen" (by the user); ``facing`` is
    the figure's forward direction used for its sides and ``facing_from_feet`` whether the feet gave
    it; ``created`` lists the new bones and ``handles`` maps a limb role to its (IK handle, pole)
    bone names."""
    roles: dict = field(default_factory=dict)
    found_by: dict = field(default_factory=dict)
    created: list = field(default_factory=list)
    handles: dict = field(default_factory=dict)
    warnings: list = field(default_factory=list)
    facing: tuple = tuple(DEFAULT_FORWARD)
    facing_from_feet: bool = False


@dataclass
class GeometricLimbs:
    """What the geometry gives: ``limbs`` {(kind, side): [upper, lower, end]}, ``roots`` {(kind,
    side): the limb's first bone below its hub}, the ``forward`` used for sides and whether the feet
    gave it."""
    limbs: dict
    roots: dict
    forward: np.ndarray
    from_feet: bool


@dataclass
class _Tree:
    """Per-bone facts the geometry reads, each computed in one pass: subtree ``sizes``, the
    ``main_child`` (-1 at a leaf), main chain ``chain_bones`` and ``chain_length`` from the bone
    down, the subtree's ``centre`` (mean head) and ``lowest`` point (min Y of heads and tails)."""
    sizes: np.ndarray
    main_child: np.ndarray
    chain_bones: np.ndarray
    chain_length: np.ndarray
    centre: np.ndarray
    lowest: np.ndarray


def split_name(name):
    """(side "L"/"R"/None, bare lower-case part name) of a bone name (see module doc)."""
    bare = _PREFIX.sub("", name)
    side = None
    for pattern, which in _SIDE_PATTERNS:
        match = pattern.search(bare)
        if match:
            side = which(match)
            bare = bare[:match.start()] + bare[match.end():]
            break
    return side, re.sub(r"[^a-z0-9]", "", bare.lower())


def _limbs_by_names(skeleton):
    """{(kind, side): [upper, lower, end]} for each limb whose end bone is named (module doc); of
    several candidates, the first bone in the file with a parent and grandparent."""
    parts = {}
    for i, name in enumerate(skeleton.names):  # split once: names are matched for every limb
        parts.setdefault(split_name(name), []).append(i)
    out = {}
    for kind, words, _, _ in LIMBS:
        for side in SIDES:
            for i in sorted(i for w in words for i in parts.get((side, w), ())):
                chain = [i] + skeleton.ancestors(i)[:2]
                if len(chain) == 3:
                    out[(kind, side)] = chain[::-1]
                    break
    return out


def _tree(skeleton):
    n = len(skeleton)
    heads, tails, parents = skeleton.rest_heads, skeleton.rest_tails, skeleton.parents
    sizes, sums = np.ones(n, dtype=np.int64), heads.copy()
    main_child = np.full(n, -1, dtype=np.int64)
    chain_bones, chain_length = np.ones(n, dtype=np.int64), skeleton.lengths.astype(float).copy()
    lowest = np.minimum(heads[:, 1], tails[:, 1])
    for i in range(n - 1, -1, -1):  # children before parents: bones are parents-first
        c = main_child[i]
        if c >= 0:
            chain_bones[i] += chain_bones[c]
            chain_length[i] += chain_length[c]
        p = parents[i]
        if p >= 0:
            sizes[p] += sizes[i]
            sums[p] += sums[i]
            lowest[p] = min(lowest[p], lowest[i])
            if main_child[p] < 0 or sizes[i] > sizes[main_child[p]]:
                main_child[p] = i
    return _Tree(sizes, main_child, chain_bones, chain_length, sums / sizes[:, None], lowest)


def _main_chain(tree, start):
    chain = [int(start)]
    while tree.main_child[chain[-1]] >= 0:
        chain.append(int(tree.main_child[chain[-1]]))
    return chain


def _attachment(skeleton, tree, hub, start):
    """Where the limb starting at ``start`` leaves the hub, from the hub's head: the first head
    along its main chain off the hub's head (a CMU hip or shoulder bone starts on the hub)."""
    offsets = skeleton.rest_heads[_main_chain(tree, start)] - skeleton.rest_heads[hub]
    off = np.flatnonzero(np.linalg.norm(offsets, axis=1) > 1e-3 * tree.chain_length[start])
    return offsets[off[0] if len(off) else 0]


def _is_pair(skeleton, tree, hub, a, b):
    """Whether children ``a`` and ``b`` of ``hub`` look like mirrored limbs (module doc)."""
    if tree.sizes[a] != tree.sizes[b] or tree.chain_bones[a] != tree.chain_bones[b]:
        return False
    la, lb = tree.chain_length[a], tree.chain_length[b]
    reach = max(la, lb)
    if reach <= 0 or abs(la - lb) > PAIR_LENGTH_TOLERANCE * reach:
        return False
    pa, pb = (_attachment(skeleton, tree, hub, s) for s in (a, b))
    if abs(pa[1] - pb[1]) > ATTACH_TOLERANCE * reach \
            or abs(np.linalg.norm(pa) - np.linalg.norm(pb)) > ATTACH_TOLERANCE * reach:
        return False
    apart = tree.centre[a] - tree.centre[b]
    return float(np.hypot(apart[0], apart[2])) > MIN_APART * reach


def _pairs(skeleton, tree):
    """[(hub, a, b)] for every pair of limbs (module doc), those inside another pair's limbs left out."""
    found = []
    for hub in np.flatnonzero(np.bincount(skeleton.parents[skeleton.parents >= 0], minlength=len(skeleton)) >= 2):
        kids = [int(k) for k in skeleton.children(int(hub)) if tree.chain_bones[k] >= MIN_LIMB_BONES]
        found += [(int(hub), a, b) for k, a in enumerate(kids) for b in kids[k + 1:]
                  if _is_pair(skeleton, tree, int(hub), a, b)]
    limb_roots = {s for _, a, b in found for s in (a, b)}
    return [p for p in found if not limb_roots.intersection(skeleton.ancestors(p[0]) + [p[0]])]


def _limb_bones(skeleton, tree, start):
    """[upper, lower, end] along the main chain from ``start`` (module doc)."""
    chain = _main_chain(tree, start)
    branching = [k for k in range(2, len(chain)) if len(skeleton.children(chain[k])) >= 2]
    if branching:
        k = branching[0]
    else:
        lengths = skeleton.lengths[chain]
        k = 2 + int(np.argmax(lengths[:-2] + lengths[1:-1]))
    return chain[k - 2:k + 1]


def _facing(skeleton, feet):
    """(forward, from the feet?): the feet's summed horizontal direction where it is clear (module doc)."""
    if not feet:
        return DEFAULT_FORWARD, False
    along = sum(skeleton.rest_tails[f] - skeleton.rest_heads[f] for f in feet)
    along = along - UP * np.dot(along, UP)
    if np.linalg.norm(along) <= FEET_AGREE * sum(skeleton.lengths[f] for f in feet):
        return DEFAULT_FORWARD, False
    return along / np.linalg.norm(along), True


def limbs_by_geometry(skeleton, tree):
    """A GeometricLimbs for ``skeleton`` and its ``_tree`` (module doc); limbs it cannot find are
    left out."""
    pairs = _pairs(skeleton, tree)
    hub_height = skeleton.rest_heads[[hub for hub, _, _ in pairs], 1]
    reach = np.array([max(tree.chain_length[a], tree.chain_length[b]) for _, a, b in pairs])
    lowest = np.array([min(tree.lowest[a], tree.lowest[b]) for _, a, b in pairs])
    legs = np.flatnonzero(hub_height - lowest >= LEGS_DROP * reach)
    legs = legs[np.argmin(lowest[legs])] if len(legs) else None
    arms = [k for k in range(len(pairs)) if k != legs and (legs is None or hub_height[k] >= hub_height[legs])]
    arms = max(arms, key=lambda k: reach[k], default=None)
    found = {kind: pairs[k] for kind, k in (("leg", legs), ("arm", arms)) if k is not None}
    bones = {kind: [_limb_bones(skeleton, tree, s) for s in pair[1:]] for kind, pair in found.items()}
    forward, from_feet = _facing(skeleton, [limb[2] for limb in bones.get("leg", [])])
    left = np.cross(UP, forward)
    limbs, roots = {}, {}
    for kind, (hub, a, b) in found.items():
        apart = _attachment(skeleton, tree, hub, a) - _attachment(skeleton, tree, hub, b)
        for side, k in zip(SIDES, (0, 1) if np.dot(apart, left) >= 0 else (1, 0)):
            limbs[(kind, side)], roots[(kind, side)] = bones[kind][k], (a, b)[k]
    return GeometricLimbs(limbs, roots, forward, from_feet)


def _inside_other_kind(skeleton, limb, kind, geometric):
    """The geometric limb role of another kind that ``limb``'s end bone lies in, or None."""
    above = set([limb[2]] + skeleton.ancestors(limb[2]))
    return next((f"{k}.{s}" for (k, s), root in geometric.roots.items() if k != kind and root in above), None)


def _common_ancestor(skeleton, a, b):
    line = [a] + skeleton.ancestors(a)
    return next((c for c in [b] + skeleton.ancestors(b) if c in line), None)


def _torso(skeleton, tree, report, legs, arms):
    """Hips, spine, neck and head from the limbs' attachment points and names."""
    names = skeleton.names
    hips = _common_ancestor(skeleton, *legs) if legs else None
    chest = _common_ancestor(skeleton, *arms) if arms else None
    if hips is not None and chest is not None and hips not in skeleton.ancestors(chest):
        hips = _common_ancestor(skeleton, hips, chest)  # legs hang from a pelvis beside the spine
    if hips is None or chest is None or hips == chest:
        return
    report.roles["hips"] = [names[hips]]
    spine = [chest] + skeleton.ancestors(chest)
    report.roles["spine"] = [names[i] for i in spine[:spine.index(hips)][::-1]]
    for side, upper in zip(SIDES, arms):
        if skeleton.parents[upper] != chest:
            report.roles[f"shoulder.{side}"] = [names[skeleton.parents[upper]]]
    above = [int(c) for c in skeleton.children(chest) if not any(a == c or c in skeleton.ancestors(a) for a in arms)]
    if not above:
        return
    up = _main_chain(tree, max(above, key=lambda c: tree.sizes[c]))
    named_head = [k for k, i in enumerate(up) if split_name(names[i])[1] == "head"]
    head = named_head[0] if named_head else len(up) - 1
    report.roles["neck"] = [names[i] for i in up[:head]]
    report.roles["head"] = [names[up[head]]]


def recognise(skeleton):
    """An AutoRigReport with the roles of ``skeleton``'s bones (no bones created yet)."""
    report = AutoRigReport()
    named, tree = _limbs_by_names(skeleton), _tree(skeleton)
    geometric = limbs_by_geometry(skeleton, tree)
    report.facing, report.facing_from_feet = tuple(float(v) for v in geometric.forward), geometric.from_feet
    for (kind, side), limb in list(named.items()):
        other = _inside_other_kind(skeleton, limb, kind, geometric)
        if other is not None:
            report.warnings.append(f"{kind}.{side}: '{skeleton.names[limb[2]]}' is named a {kind}'s end but lies "
                                   f"in the {other} by the geometry; the geometry is taken")
            del named[(kind, side)]
    used = {limb[2] for limb in named.values()}
    for kind, _, _, _ in LIMBS:
        for side in SIDES:
            limb, how = named.get((kind, side)), "names"
            if limb is None:  # the geometry's limb on this side, or its other one where names took this one
                options = [geometric.limbs.get((kind, s)) for s in (side, SIDES[1 - SIDES.index(side)])]
                limb, how = next((o for o in options if o is not None and o[2] not in used), None), "geometry"
            if limb is None:
                report.warnings.append(f"no {kind} found on the {'left' if side == 'L' else 'right'}")
                continue
            used.add(limb[2])
            report.roles[f"{kind}.{side}"] = [skeleton.names[i] for i in limb]
            report.found_by[f"{kind}.{side}"] = how
    index = skeleton.index
    legs = [index[report.roles[f"leg.{s}"][0]] for s in SIDES if f"leg.{s}" in report.roles]
    arms = [index[report.roles[f"arm.{s}"][0]] for s in SIDES if f"arm.{s}" in report.roles]
    _torso(skeleton, tree, report, legs if len(legs) == 2 else None, arms if len(arms) == 2 else None)
    return report


def summary(report):
    """One line saying what was recognised and how, e.g. "found arms (node_16, node_13), legs
    (node_7, node_3), spine, head by geometry (facing +Z from the feet)": a limb by its first bone,
    left before right."""
    limbs = [f"{kind}.{s}" for kind, *_ in LIMBS for s in SIDES if f"{kind}.{s}" in report.roles]
    if not limbs:
        return "no arms or legs found"
    ways = {report.found_by[r] for r in limbs}
    parts = []
    for kind, *_ in LIMBS:
        roles = [r for r in limbs if r.startswith(kind)]
        kind_ways = {report.found_by[r] for r in roles}
        if len(kind_ways) > 1:  # each limb with its own way
            bones, way = ", ".join(f"{report.roles[r][0]} {FOUND_BY[report.found_by[r]]}" for r in roles), ""
        else:
            bones, way = ", ".join(report.roles[r][0] for r in roles), f" {FOUND_BY[kind_ways.pop()]}"
        if roles:
            parts.append(f"{kind + 's' if len(roles) == 2 else roles[0]} ({bones})" + ("" if len(ways) == 1 else way))
    parts += [role for role in ("spine", "head") if role in report.roles]
    text = "found " + ", ".join(parts) + (f" {FOUND_BY[next(iter(ways))]}" if len(ways) == 1 else "")
    if "geometry" in ways:
        text += f" (facing {_axis_name(report.facing)} {'from the feet' if report.facing_from_feet else 'assumed'})"
    return text


def _axis_name(direction):
    """'+Z' for a direction along an axis (within a few degrees), else its rounded components."""
    d = np.asarray(direction, dtype=float)
    k = int(np.argmax(np.abs(d)))
    if abs(d[k]) > 0.99:
        return f"{'+' if d[k] > 0 else '-'}{'XYZ'[k]}"
    return "(" + ", ".join(f"{v:.2f}" for v in d) + ")"
