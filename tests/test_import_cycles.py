"""No import cycles among the project's modules (imports inside functions included: a cycle hidden in a
function is still a knot in the design), and run-time packages import no evaluation or training code."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("assistant", "vision", "webui", "datasets", "models", "evaluation")


def modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for p in (ROOT / pkg).rglob("*.py"):
            name = ".".join(p.relative_to(ROOT).with_suffix("").parts)
            out[name[:-9] if name.endswith(".__init__") else name] = p
    return out


def imports(name: str, path: Path, mods: dict[str, Path]) -> set[str]:
    deps: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            deps |= {a.name for a in node.names if a.name in mods}
        elif isinstance(node, ast.ImportFrom) and node.module != "__future__":
            base = node.module or ""
            if node.level:
                parts = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                parts = parts[:len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            subs = {f"{base}.{a.name}" for a in node.names} & set(mods)
            deps |= subs if subs else ({base} & set(mods))
    deps.discard(name)
    return deps


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    return found


def test_no_import_cycles():
    mods = modules()
    graph = {m: imports(m, p, mods) for m, p in mods.items()}
    assert cycles(graph) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_run_time_code_imports_no_evaluation_or_training_code():
    mods = modules()
    run_time = [m for m in mods if m.split(".")[0] in ("assistant", "vision", "webui")
                and not any(part.startswith(("eval_", "bench")) for part in m.split("."))
                and m not in ("assistant.cli", "vision.cli")]   # the command registries
    # adapting a tile set's network is training done at run time (the optional extra `adapt`): the one module
    # of models/ that run-time code may reach; it imports no renderer, data set or evaluation code itself
    adapting = {"models.adapt_set"}
    bad = {m: sorted(d for d in imports(m, mods[m], mods) if d not in adapting and
                     (d.split(".")[0] in ("models", "datasets", "evaluation") or ".eval_" in d or ".bench" in d))
           for m in run_time}
    reached = set().union(*(imports(m, mods[m], mods) for m in adapting))
    assert {d for d in reached if d.split(".")[0] in ("datasets", "evaluation")} == set()
    assert {m: d for m, d in bad.items() if d} == {}
    # the renderer (datasets/, with the build tools of the page's tile images, demo and demo film in
    # datasets/assets/) is imported by no module of the run-time packages at all, registries and benchmarks included
    renderer = {m: sorted(d for d in imports(m, p, mods) if d.split(".")[0] == "datasets")
                for m, p in mods.items() if m.split(".")[0] in ("assistant", "vision", "webui")}
    assert {m: d for m, d in renderer.items() if d} == {}
