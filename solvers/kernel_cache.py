"""Cached kernels keyed to the code they compile in.

numba caches each compiled kernel beside its source (``cache=True``) and checks only that file for
changes, while the kernels compile in helpers from other modules here (``scalar``, ``limits``,
``kinematics`` ...). So each module's cached kernels are keyed to the code of the modules it
imports from this package, directly or through others, and ``drop_stale_kernels`` (run when the
package is imported) drops a module's cached kernels once that code has changed. Code, not text:
a module's code is its syntax tree without docstrings, so an edited comment or docstring drops
nothing, and an edit to a module no kernel imports (``methods``, ``problem``) drops nothing either.
"""
import ast
import hashlib
import json
from pathlib import Path

STAMP = "kernels.stamp"  # in __pycache__: the files' stats and each module's key when last checked


def _stats(folder):
    """Every module's name, modification time and size: unchanged, so are the keys."""
    return repr([(path.name, path.stat().st_mtime_ns, path.stat().st_size) for path in sorted(folder.glob("*.py"))])


def _code(tree):
    """A module's syntax tree without docstrings, as text (no line numbers: moving code is no change)."""
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr) \
                and isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
            node.body = body[1:]
    return ast.dump(tree)


def _imported(tree, package):
    """The modules of ``package`` that a module's syntax tree imports."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == package:
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package + "."):
            names.add(node.module.split(".")[1])
        elif isinstance(node, ast.Import):
            names.update(a.name.split(".")[1] for a in node.names if a.name.startswith(package + "."))
    return names


def module_keys(folder):
    """{module: key} for every module in the package ``folder``: a hash of its code and of the
    code of every module of the package it imports, directly or not."""
    folder = Path(folder)
    codes, imports = {}, {}
    for path in sorted(folder.glob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports[path.stem] = _imported(tree, folder.name)
        codes[path.stem] = _code(tree)
    keys = {}
    for module in codes:
        reached, waiting = set(), [module]
        while waiting:
            name = waiting.pop()
            if name in codes and name not in reached:
                reached.add(name)
                waiting += imports[name]
        digest = hashlib.sha256()
        for name in sorted(reached):
            digest.update(f"{name}\n{codes[name]}\n".encode())
        keys[module] = digest.hexdigest()
    return keys


def drop_stale_kernels(folder):
    """Drop the cached kernels (``__pycache__/<module>.*.nbi`` / ``.nbc``) of every module in the
    package ``folder`` whose key (``module_keys``) changed since the last call, or is unknown (no
    stamp yet: the kernels' age is unknown), and stamp the keys for the next call."""
    folder = Path(folder)
    cache = folder / "__pycache__"
    stamp = cache / STAMP
    stats = _stats(folder)
    try:
        known = json.loads(stamp.read_text())
    except (OSError, ValueError):
        known = {}
    if known.get("stats") == stats:
        return
    keys = module_keys(folder)
    old = known.get("keys", {})
    try:
        for cached in [*cache.glob("*.nbi"), *cache.glob("*.nbc")]:
            module = cached.name.split(".")[0]
            if module not in old or old[module] != keys.get(module):
                cached.unlink(missing_ok=True)
        cache.mkdir(exist_ok=True)
        stamp.write_text(json.dumps({"stats": stats, "keys": keys}))
    except OSError:  # a read-only install: numba then caches elsewhere, or not at all
        pass
