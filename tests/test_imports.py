"""The layering, checked: no import cycle among the project's library modules, and nothing that `serve`,
`track` or `detect` loads imports the evaluation harness, the renderer, the demo or a command module."""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("referee", "vision", "web_ui", "rummy_referee")

# what the live camera path and the commands load
RUNTIME = ("vision.capture", "vision.pipeline", "vision.observer", "vision.motion", "vision.snapshot",
           "vision.stability", "vision.layout", "vision.interfaces", "vision.tracking", "vision.images", "web_ui.camera",
           "web_ui.live", "web_ui.server", "rummy_referee.commands.serve", "rummy_referee.commands.track",
           "rummy_referee.commands.detect", "rummy_referee.commands.replay", "web_ui.decks", "vision.enrol.profile",
           "vision.enrol.photos", "vision.detector")
# test and evaluation tooling (and the demo, loaded only for `serve --demo`)
TOOLING = ("vision.synth", "vision.evaluation", "vision.oracle", "vision.demo", "referee.sim")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for p in (ROOT / pkg).rglob("*.py"):
            parts = list(p.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = p
    return out


def _nodes(tree: ast.AST):
    """Every node, except under `if TYPE_CHECKING:` (annotations only: no import when the program runs)."""
    for node in ast.iter_child_nodes(tree):
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            continue
        yield node
        yield from _nodes(node)


def _imports(name: str, path: Path, known: set[str]) -> set[str]:
    """Project modules `name` imports anywhere in its file (module level or inside functions)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for node in _nodes(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                base = ".".join(up + ([base] if base else []))
            targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names]
        else:
            continue
        for t in targets:
            while t and t not in known:
                t = t.rpartition(".")[0]
            if t and t != name:
                found.add(t)
    return found


def test_no_import_cycle():
    mods = _modules()
    graph = {m: _imports(m, p, set(mods)) for m, p in mods.items()}
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                cycle = stack[stack.index(n):] + [n]
                raise AssertionError("import cycle: " + " -> ".join(cycle))
            if n not in state:
                visit(n)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m)


@pytest.mark.parametrize("module", RUNTIME)
def test_runtime_modules_load_no_tooling(module):
    code = f"import json, sys; import {module}; print(json.dumps(sorted(sys.modules)))"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    loaded = json.loads(out.stdout.strip().splitlines()[-1])
    bad = [m for m in loaded if any(m == t or m.startswith(t + ".") for t in TOOLING)]
    assert not bad, f"{module} loads {bad}"
    # library code never loads a command module (commands load the library, not the other way round)
    assert not any(m.startswith("rummy_referee.commands.") and m != module for m in loaded)
