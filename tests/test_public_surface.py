"""Each package's public surface is declared: a module that gives names to another package lists
them in its `__all__`, so a reader sees what the rest of labbot may use (issue 44). Read from the
source with `ast`, as import-linter reads the layers."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("base", "bot", "adapters", "workflow", "storage", "labsim", "frrlab")


def source_modules() -> dict[str, Path]:
    return {
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__"): path
        for package in PACKAGES
        for path in (ROOT / package).rglob("*.py")
    }


MODULES = source_modules()
TREES = {module: ast.parse(path.read_text()) for module, path in MODULES.items()}


def folder(module: str) -> str:
    return ".".join(MODULES[module].relative_to(ROOT).parent.parts)


def from_outside(importer: str, module: str) -> bool:
    """`module` is another folder's (a package's `__init__` is outside its own folder's files)."""
    if MODULES[module].name == "__init__.py":
        return module != folder(importer)
    return folder(module) != folder(importer)


def names_taken(importer: str, tree: ast.Module) -> Iterator[tuple[str, str, int]]:
    """(module, name, line) for each name `importer` takes from another folder's module: by
    `from M import NAME`, or as `alias.NAME` where it imports the module M as `alias`."""
    aliases: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in MODULES and node.level == 0:
            for alias in node.names:
                submodule = f"{node.module}.{alias.name}"
                if submodule in MODULES:
                    if from_outside(importer, submodule):
                        aliases[alias.asname or alias.name] = submodule
                elif alias.name != "*" and from_outside(importer, node.module):
                    yield node.module, alias.name, node.lineno
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
            module = aliases.get(node.value.id)
            if module is not None and f"{module}.{node.attr}" not in MODULES:
                yield module, node.attr, node.lineno


def declared(module: str) -> set[str] | None:
    for node in TREES[module].body:
        if isinstance(node, ast.Assign) and any(
            isinstance(target, ast.Name) and target.id == "__all__" for target in node.targets
        ):
            return {
                ast.literal_eval(element)
                for element in ast.walk(node.value)
                if isinstance(element, ast.Constant)
            }
    return None


def star_imported() -> set[str]:
    """Modules read whole through `from M import *` (bot.messages' topics): all public."""
    return {
        node.module
        for tree in TREES.values()
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom)
        and any(a.name == "*" for a in node.names)
        and node.module is not None
    }


def test_every_name_another_package_takes_is_in_its_modules_all() -> None:
    whole = star_imported()
    missing: list[str] = []
    for importer, tree in TREES.items():
        for module, name, line in names_taken(importer, tree):
            if module in whole or module.startswith("bot.messages"):
                continue
            surface = declared(module)
            if surface is None or name not in surface:
                where = MODULES[importer].relative_to(ROOT)
                missing.append(f"{where}:{line} takes {name} from {module}, not in its __all__")
    assert not missing, "\n".join(sorted(set(missing)))


def test_the_check_sees_a_name_taken_from_outside() -> None:
    """The reading above finds both forms of taking a name (so the test can fail)."""
    tree = ast.parse(
        "from bot.views import presenter\nfrom workflow.model import Device\npresenter.decided\n"
    )
    taken = {(module, name) for module, name, _ in names_taken("storage.locks", tree)}
    assert taken == {("workflow.model", "Device"), ("bot.views.presenter", "decided")}
