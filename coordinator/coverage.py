"""How much of PySpark's API sparkwire covers, as numbers: ``sparkwire coverage`` (``make
coverage``). Needs PySpark installed, whose own classes and module list the public names.

For each owner PySpark has (``functions``, ``DataFrame``, ``Column``, ``GroupedData``,
``SparkSession``, ``Catalog``, ``DataFrameStatFunctions``) every public name is exactly
one of:

- **works**: sparkwire's counterpart has it, and it is not a stub (a function or property
  whose whole body is one ``raise``);
- **refused**: sparkwire refuses it on purpose, with the reason in ``planner.api.refused``
  (the one table README's "Not supported" table is printed from);
- **missing**: neither, work still to do.

A name both present and refused is a contradiction the report names (``conflicts``) rather
than counts twice. ``Catalog`` and ``DataFrameStatFunctions`` are found through what
``Session.catalog`` and ``DataFrame.stat`` are annotated to return, so the report follows
wherever those classes live; while either is absent, its names are all missing.

It lives beside the CLI rather than under ``benchmarks/``: it measures the API, not speed,
and imports the whole surface (the coordinator's ``Session`` included), which only this
layer may.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
import types
import typing
from dataclasses import dataclass
from typing import Literal

from sparkwire.planner.api.refused import reason

Status = Literal["works", "refused", "missing"]
#: The owners, as PySpark names them, and where PySpark keeps each.
PYSPARK_OWNERS: dict[str, str] = {
    "functions": "pyspark.sql.functions",
    "DataFrame": "pyspark.sql:DataFrame",
    "Column": "pyspark.sql:Column",
    "GroupedData": "pyspark.sql:GroupedData",
    "SparkSession": "pyspark.sql:SparkSession",
    "Catalog": "pyspark.sql.catalog:Catalog",
    "DataFrameStatFunctions": "pyspark.sql:DataFrameStatFunctions",
}


@dataclass(frozen=True)
class OwnerCoverage:
    """One owner's public names, sorted into the three kinds."""

    owner: str
    works: frozenset[str]
    refused: frozenset[str]
    missing: frozenset[str]
    #: present in sparkwire although the refusal table refuses them
    conflicts: frozenset[str]

    @property
    def total(self) -> int:
        return len(self.works) + len(self.refused) + len(self.missing)

    def status(self, name: str) -> Status:
        if name in self.works:
            return "works"
        return "refused" if name in self.refused else "missing"


def _load(path: str) -> object:
    module, _, attribute = path.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, attribute) if attribute else loaded


def pyspark_names(owner: str) -> frozenset[str]:
    """PySpark's public names of ``owner``: a class's attributes not starting with ``_``;
    of ``functions``, the functions PySpark's SQL modules define (aliases such as
    ``countDistinct`` included, the re-exported ``typing`` helpers not)."""
    try:
        target = _load(PYSPARK_OWNERS[owner])
    except ImportError as exc:
        raise ImportError("the coverage report needs PySpark: pip install 'sparkwire[spark]'") from exc
    if isinstance(target, types.ModuleType):
        return frozenset(
            name for name, value in vars(target).items()
            if not name.startswith("_") and inspect.isfunction(value)
            and value.__module__.startswith("pyspark.sql")
        )
    return frozenset(name for name in dir(target) if not name.startswith("_"))


def _source_tree(function: object) -> ast.FunctionDef | None:
    """The syntax tree of a function defined in Python source, else None."""
    function = getattr(function, "__func__", function)  # staticmethod, classmethod
    if not inspect.isfunction(function):
        return None
    try:
        tree = ast.parse(textwrap.dedent(inspect.getsource(function)))
    except (OSError, TypeError, SyntaxError):
        return None
    node = tree.body[0] if tree.body else None
    return node if isinstance(node, ast.FunctionDef) else None


def instance_attributes(cls: type) -> dict[str, object | None]:
    """What the methods of ``cls`` (and of its bases) assign to ``self``: each name, with the
    class it is built from where the code says (``self.conf = RuntimeConfig(self)`` or an
    annotation naming a class), else None. Every method is read, not only ``__init__``: a
    session builds its state in a helper ``newSession`` shares."""
    found: dict[str, object | None] = {}
    methods = [m for klass in reversed(cls.__mro__) for m in vars(klass).values()
               if inspect.isfunction(m)]
    for method in methods:
        tree = _source_tree(method)
        if tree is None:
            continue
        names = getattr(method, "__globals__", {})
        for node in ast.walk(tree):
            target, value = None, None
            if isinstance(node, ast.Assign) and len(node.targets) == 1:
                target, value = node.targets[0], node.value
            elif isinstance(node, ast.AnnAssign):
                target, value = node.target, node.annotation
            if not (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                    and target.value.id == "self"):
                continue
            built = value.func if isinstance(value, ast.Call) else value
            found[target.attr] = names.get(built.id) if isinstance(built, ast.Name) else None
    return found


def _returned(cls: type, attribute: str) -> object | None:
    """The class ``cls``'s ``attribute`` holds: a property's annotated return type, or the
    class ``__init__`` builds it from; None where ``cls`` has no such attribute."""
    prop = inspect.getattr_static(cls, attribute, None)
    if isinstance(prop, property) and prop.fget is not None:
        returned = typing.get_type_hints(prop.fget).get("return")
        return typing.get_origin(returned) or returned
    return instance_attributes(cls).get(attribute)


def sparkwire_counterparts() -> dict[str, object | None]:
    """sparkwire's object for each owner, None where it has none yet."""
    from sparkwire.coordinator.session import Session
    from sparkwire.planner.api import functions
    from sparkwire.planner.api.column import Column
    from sparkwire.planner.api.dataframe import DataFrame
    from sparkwire.planner.api.grouped import GroupedData

    return {
        "functions": functions, "DataFrame": DataFrame, "Column": Column,
        "GroupedData": GroupedData, "SparkSession": Session,
        "Catalog": _returned(Session, "catalog"),
        "DataFrameStatFunctions": _returned(DataFrame, "stat"),
    }


def _present(target: object, name: str) -> object | None:
    """``target``'s own attribute ``name`` (``True`` for one its ``__init__`` assigns),
    found without calling a descriptor or a ``__getattr__`` (which answers every PySpark
    name with "not supported", or a ``Column`` with a struct field)."""
    if isinstance(target, types.ModuleType):
        return vars(target).get(name)
    try:
        return inspect.getattr_static(target, name)
    except AttributeError:
        return True if isinstance(target, type) and name in instance_attributes(target) else None


def is_stub(value: object) -> bool:
    """A function (or a property's getter) whose body, docstring aside, is one ``raise``:
    present, but only to refuse."""
    tree = _source_tree(value.fget if isinstance(value, property) else value)
    body = tree.body if tree is not None else []
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    return len(body) == 1 and isinstance(body[0], ast.Raise)


def coverage(owner: str, target: object | None, names: frozenset[str]) -> OwnerCoverage:
    """``names`` of PySpark's ``owner`` sorted against sparkwire's ``target``."""
    works: set[str] = set()
    refused: set[str] = set()
    conflicts: set[str] = set()
    for name in names:
        value = None if target is None else _present(target, name)
        why = reason(owner, name)
        if value is not None and not is_stub(value):
            works.add(name)
            if why is not None:
                conflicts.add(name)
        elif why is not None:
            refused.add(name)
    missing = names - works - refused
    return OwnerCoverage(owner, frozenset(works), frozenset(refused), frozenset(missing),
                         frozenset(conflicts))


def report() -> list[OwnerCoverage]:
    """Every owner's coverage, in ``PYSPARK_OWNERS``' order."""
    ours = sparkwire_counterparts()
    return [coverage(owner, ours[owner], pyspark_names(owner)) for owner in PYSPARK_OWNERS]


def render(rows: list[OwnerCoverage], *, list_missing: bool = False) -> str:
    """The report as text: a line per owner (and its missing names when asked)."""
    width = max(len(r.owner) for r in rows)
    lines = [f"{'PySpark':<{width}}  public  works  refused  missing  works%"]
    for row in rows:
        share = 100.0 * len(row.works) / row.total if row.total else 0.0
        lines.append(f"{row.owner:<{width}}  {row.total:6}  {len(row.works):5}  "
                     f"{len(row.refused):7}  {len(row.missing):7}  {share:5.1f}%")
        if row.conflicts:
            lines.append(f"  present yet refused: {', '.join(sorted(row.conflicts))}")
        if list_missing and row.missing:
            lines.append("  missing: " + ", ".join(sorted(row.missing, key=str.lower)))
    return "\n".join(lines)
