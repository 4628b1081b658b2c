// three.js's CCDIKSolver on the chains and targets bench/threejs_baseline.py sends on stdin (not a test).
//
// Input (JSON): {"three": folder holding node_modules/three, "chains": [{"name", "lengths", "targets":
// [[x, y, z], ...], "iterations"}]}. Each chain is bones laid end to end up +Y from the origin (as the
// Python bench's straight chains) with an effector bone at the last bone's tail; each target is solved
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

function straightRig(lengths) {
  const bones = [];
  let parent = null;
  for (const [i, length] of [0, ...lengths].entries()) { // bone i's head sits at the tail of bone i - 1
    const bone = new THREE.Bone();
    bone.name = `b${i}`;
    bone.position.set(0, length, 0);
    if (parent) parent.add(bone);
    bones.push(bone);
    parent = bone;
  }
  const target = new THREE.Bone();
  bones.push(target);
  const mesh = { skeleton: { bones } }; // all CCDIKSolver reads of its mesh
  const effector = lengths.length;
  const links = lengths.map((_, i) => ({ index: effector - 1 - i })); // effector's parent first
  return { bones, target, effector: bones[effector], mesh, links };
}

const WARM = 200; // untimed solves first: enough for V8 to optimise the solver

function percentile(sorted, q) {
  const at = (sorted.length - 1) * q;
  const low = Math.floor(at);
  return sorted[low] + (sorted[Math.min(low + 1, sorted.length - 1)] - sorted[low]) * (at - low);
}

function runChain({ name, lengths, targets, iterations }) {
  const rig = straightRig(lengths);
  const solver = new CCDIKSolver(rig.mesh, [{ target: rig.bones.length - 1, effector: lengths.length,
                                               links: rig.links, iteration: iterations }]);
  const reach = lengths.reduce((a, b) => a + b, 0);
  const tip = new THREE.Vector3();
  const solveOne = (point) => {
    for (const bone of rig.bones) bone.quaternion.identity();
    rig.bones[0].updateMatrixWorld(true);
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
