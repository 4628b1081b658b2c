// three.js's CCDIKSolver on the chains and targets bench/threejs_baseline.py sends on stdin (not a test).
//
// Input (JSON): {"three": folder holding node_modules/three, "chains": [{"name", "base", "offsets",
// "rest_rotations", "lengths", "targets": [[x, y, z], ...], "iterations"}]}. Each chain is
// solvers.chain.Chain's: bones hanging from the rigid `base` (4x4, rows), each with its head
// (`offsets`) and rest rotation (`rest_rotations`, xyzw) in its parent's frame, and an effector
// bone at the last bone's tail (+Y, its length); each target is solved
// from the rest pose, timed one by one around `update()` alone, after untimed solves of the first
// WARM targets so the JIT has compiled the solver. Output (JSON): per chain the median and p95 seconds per
// solve and the share of tips within 1e-3 and 1e-2 of the chain's length.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";

const input = JSON.parse(readFileSync(0, "utf8"));
const modules = join(input.three, "node_modules", "three");
const THREE = await import(pathToFileURL(join(modules, "build", "three.module.js")).href);
const { CCDIKSolver } = await import(pathToFileURL(join(modules, "examples", "jsm", "animation", "CCDIKSolver.js")).href);

function chainRig({ base, offsets, rest_rotations: rests, lengths }) {
  const root = new THREE.Bone(); // the base the chain hangs from: it does not move
  new THREE.Matrix4().set(...base.flat()).decompose(root.position, root.quaternion, root.scale);
  const bones = [];
  let parent = root;
  for (const [i, offset] of offsets.entries()) {
    const bone = new THREE.Bone();
    bone.position.fromArray(offset);
    bone.quaternion.fromArray(rests[i]);
    parent.add(bone);
    bones.push(bone);
    parent = bone;
  }
  const effector = new THREE.Bone();
  effector.position.set(0, lengths[lengths.length - 1], 0);
  parent.add(effector);
  const target = new THREE.Bone();
  const rest = bones.map((bone) => bone.quaternion.clone());
  const all = [...bones, effector, target];
  const mesh = { skeleton: { bones: all } }; // all CCDIKSolver reads of its mesh
  const links = bones.map((_, i) => ({ index: bones.length - 1 - i })); // the effector's parent first
  return { root, bones, rest, target, effector, mesh, links, targetIndex: all.length - 1 };
}

const WARM = 200; // untimed solves first: enough for V8 to optimise the solver

function percentile(sorted, q) {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (at - low);
}

function runChain(chain) {
  const { name, lengths, targets, iterations } = chain;
  const rig = chainRig(chain);
  const solver = new CCDIKSolver(rig.mesh, [{ target: rig.targetIndex, effector: rig.bones.length,
                                               links: rig.links, iteration: iterations }]);
  const reach = lengths.reduce((a, b) => a + b, 0);
  const tip = new THREE.Vector3();
  const solveOne = (point) => {
    rig.bones.forEach((bone, i) => bone.quaternion.copy(rig.rest[i])); // from the rest pose
    rig.root.updateMatrixWorld(true);
    rig.target.position.set(point[0], point[1], point[2]);
    rig.target.updateMatrixWorld(true);
    const start = process.hrtime.bigint();
    solver.update();
    return Number(process.hrtime.bigint() - start) * 1e-9;
  };
  targets.slice(0, WARM).forEach(solveOne);
  const times = [];
  const misses = [];
  for (const point of targets) {
    times.push(solveOne(point));
    tip.setFromMatrixPosition(rig.effector.matrixWorld);
    misses.push(tip.distanceTo(new THREE.Vector3(...point)) / reach);
  }
  times.sort((a, b) => a - b);
  const share = (bound) => misses.filter((m) => m <= bound).length / misses.length;
  return { name, median_s: percentile(times, 0.5), p95_s: percentile(times, 0.95),
           "success_1e-3": share(1e-3), "success_1e-2": share(1e-2), targets: targets.length };
}

console.log(JSON.stringify({ three: THREE.REVISION, node: process.version, chains: input.chains.map(runChain) }));
