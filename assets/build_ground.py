"""Writes assets/ground_test.glb and assets/ground_test.obj: a test ground for foot planting (CC0, ours).

Six blocks in a row along X, each ``WIDTH`` wide and centred on its node's translation, a figure
facing +Z standing on each: a flat plane, planes rising toward +Z at 10°, 20° and 35° (through
y = 0 at the block's centre), a staircase rising toward +Z (``RISE`` high, ``TREAD`` deep, a step
edge ``STAIR_OFFSET`` in front of the centre, so feet a stride apart stand one per step) and rocky
ground (seeded noise and boulders, ``ROCK_HEIGHT`` at most). Each block has sides down to
``BOTTOM`` so it reads as solid. The .glb places each block by its node's translation; the .obj
holds the same triangles in world space. Run ``python assets/build_ground.py`` after changing
this script; both files are committed.
"""
import os
import sys
from dataclasses import dataclass

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from rig.formats.atomic import save_bytes_atomic, save_text_atomic  # noqa: E402
from rig.formats.gltf_export import ARRAY_BUFFER, ELEMENT_ARRAY_BUFFER, FLOAT, UNSIGNED_INT, BinaryChunk, \
    glb_container  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
WIDTH, DEPTH, BOTTOM = 1.2, 2.4, -0.9  # metres: each block's X and Z size, and where its sides end
RISE, TREAD, STAIR_OFFSET, STEPS = 0.15, 0.34, -0.25, 7
ROCK_CELL, ROCK_HEIGHT, SEED = 0.04, 0.07, 21


@dataclass(frozen=True)
class Part:
    """A block: its node ``name``, centre ``x`` (m), ``kind`` and, for planes, ``degrees`` of rise."""
    name: str
    x: float
    kind: str
    degrees: float = 0.0


PARTS = (Part("flat", -4.0, "plane", 0.0), Part("slope_10", -2.4, "plane", 10.0), Part("slope_20", -0.8, "plane", 20.0),
         Part("slope_35", 0.8, "plane", 35.0), Part("stairs", 2.4, "stairs"), Part("rocks", 4.0, "rocks"))


def quad(a, b, c, d):
    """Two triangles of the quad a, b, c, d (counter-clockwise seen from outside)."""
    return [(a, b, c), (a, c, d)]


def heightfield(height, cell):
    """Triangles of the block's top y = height(x, z) on a grid of about ``cell`` metres, with sides."""
    nx, nz = max(int(round(WIDTH / cell)), 1), max(int(round(DEPTH / cell)), 1)
    xs, zs = np.linspace(-WIDTH / 2, WIDTH / 2, nx + 1), np.linspace(-DEPTH / 2, DEPTH / 2, nz + 1)
    top = np.array([[(x, height(x, z), z) for z in zs] for x in xs])
    triangles = []
    for i in range(nx):
        for k in range(nz):
            triangles += quad(top[i, k], top[i, k + 1], top[i + 1, k + 1], top[i + 1, k])
    rim = list(top[:, 0]) + list(top[-1, 1:]) + list(top[::-1, -1][1:]) + list(top[0, ::-1][1:])
    for a, b in zip(rim[:-1], rim[1:]):  # clockwise seen from above: the outside on the left
        triangles += quad(a, b, (b[0], BOTTOM, b[2]), (a[0], BOTTOM, a[2]))
    return triangles


def box(x0, x1, y0, y1, z0, z1):
    p = {(i, j, k): (x, y, z) for i, x in enumerate((x0, x1)) for j, y in enumerate((y0, y1))
         for k, z in enumerate((z0, z1))}
    faces = [((0, 1, 0), (0, 1, 1), (1, 1, 1), (1, 1, 0)), ((0, 0, 0), (1, 0, 0), (1, 0, 1), (0, 0, 1)),
             ((0, 0, 1), (1, 0, 1), (1, 1, 1), (0, 1, 1)), ((0, 0, 0), (0, 1, 0), (1, 1, 0), (1, 0, 0)),
             ((1, 0, 0), (1, 1, 0), (1, 1, 1), (1, 0, 1)), ((0, 0, 0), (0, 0, 1), (0, 1, 1), (0, 1, 0))]
    return [t for face in faces for t in quad(*(p[c] for c in face))]


def stairs():
    triangles = []
    for k in range(-(STEPS // 2), STEPS - STEPS // 2):
        front = STAIR_OFFSET + k * TREAD
        triangles += box(-WIDTH / 2, WIDTH / 2, BOTTOM, k * RISE, front, front + TREAD)
    return triangles


def rock_height(seed=SEED):
    """y(x, z) of the rocky block: a few seeded waves and boulders, between 0 and ROCK_HEIGHT."""
    rng = np.random.default_rng(seed)
    waves = [(rng.uniform(3, 9, 2) * rng.choice([-1, 1], 2), rng.uniform(0, 2 * np.pi), rng.uniform(0.3, 1.0))
             for _ in range(5)]
    boulders = [(rng.uniform(-0.5, 0.5), rng.uniform(-1.1, 1.1), rng.uniform(0.08, 0.2), rng.uniform(0.4, 1.0))
                for _ in range(14)]
    norm = sum(a for *_, a in waves) + max(h for *_, h in boulders)

    def height(x, z):
        value = sum(a * 0.5 * (1 + np.sin(f[0] * x + f[1] * z + phase)) for f, phase, a in waves)
        value += max(h * np.exp(-((x - bx) ** 2 + (z - bz) ** 2) / (2 * r * r)) for bx, bz, r, h in boulders)
        return float(ROCK_HEIGHT * value / norm)
    return height


def part_triangles(part):
    """(T, 3, 3) triangles of ``part`` in its own frame (centred on x = 0)."""
    if part.kind == "plane":
        slope = np.tan(np.radians(part.degrees))
        triangles = heightfield(lambda x, z: slope * z, max(WIDTH, DEPTH))
    elif part.kind == "stairs":
        triangles = stairs()
    else:
        triangles = heightfield(rock_height(), ROCK_CELL)
    return np.array(triangles, dtype=float)


def welded(triangles):
    """(positions (V, 3), indices (T, 3)): the triangles' corners, each place stored once."""
    positions, indices = np.unique(np.round(triangles.reshape(-1, 3), 6), axis=0, return_inverse=True)
    return positions, indices.reshape(-1, 3)


def glb(parts):
    binary, meshes, nodes = BinaryChunk(), [], []
    for part, triangles in parts:
        positions, indices = welded(triangles)
        positions, indices = positions.astype(np.float32), indices.reshape(-1).astype(np.uint32)
        attributes = {"POSITION": binary.add(positions, FLOAT, "VEC3", ARRAY_BUFFER, bounds=True)}
        meshes.append({"name": part.name, "primitives": [
            {"attributes": attributes, "indices": binary.add(indices, UNSIGNED_INT, "SCALAR", ELEMENT_ARRAY_BUFFER)}]})
        nodes.append({"name": part.name, "mesh": len(meshes) - 1, "translation": [part.x, 0.0, 0.0]})
    document = {"asset": {"version": "2.0", "generator": "Posekit assets/build_ground.py",
                          "copyright": "CC0 1.0 (public domain), the Posekit authors"},
                "scene": 0, "scenes": [{"nodes": list(range(len(nodes)))}], "nodes": nodes, "meshes": meshes,
                "buffers": [{"byteLength": len(binary.data)}], "bufferViews": binary.views,
                "accessors": binary.accessors}
    return glb_container(document, bytes(binary.data))


def obj(parts):
    lines = ["# Posekit test ground (CC0 1.0, the Posekit authors): assets/build_ground.py writes it"]
    count = 0
    for part, triangles in parts:
        lines.append(f"o {part.name}")
        positions, indices = welded(triangles)
        lines += [f"v {x + part.x:.5f} {y:.5f} {z:.5f}" for x, y, z in positions]
        lines += ["f " + " ".join(str(count + i + 1) for i in corners) for corners in indices]
        count += len(positions)
    return "\n".join(lines) + "\n"


def main():
    parts = [(part, part_triangles(part)) for part in PARTS]
    save_bytes_atomic(os.path.join(HERE, "ground_test.glb"), glb(parts), suffix=".glb")
    save_text_atomic(os.path.join(HERE, "ground_test.obj"), obj(parts))
    print("wrote ground_test.glb and ground_test.obj,", sum(len(t) for _, t in parts), "triangles")


if __name__ == "__main__":
    main()
