"""Render configuration templates into device lines, in a Jinja2 sandbox hardened for untrusted
(LLM-written) templates.

Escapes: `ImmutableSandboxedEnvironment` refuses `__class__`, `__globals__`, `_private` names
and mutation of lists and dicts; we also refuse `str.format`/`format_map` (their format
specs reach attributes) and drop the `lipsum`, `cycler` and `joiner` globals.
Resource bombs: `range` is bounded, every for loop draws from one iteration budget per render,
`+`, `*`, `**`, `%` and `~` results and filter outputs are size-capped before they can grow
again, width arguments of `center`/`indent`/`format` are bounded, macros, call blocks and
imports are refused (recursion), and output is streamed with a size cap.

Filters: the network filters of `workflow.templates.filters` (netmask, prefixlen, wildcard,
network, host,
broadcast, ip_network, to_cidr, nth_host, ...) on top of Jinja2's built-in ones.

`facts` is reserved: the device's read-only facts (`workflow.templates.facts`), given beside the
parameters and never overridden by one. Like parameters they are data: printed, never evaluated.
"""

from __future__ import annotations

import contextvars
import functools
import hashlib
import re
import threading
import traceback
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any

from jinja2 import StrictUndefined, Template, nodes
from jinja2.exceptions import SecurityError, TemplateSyntaxError, UndefinedError
from jinja2.meta import find_undeclared_variables
from jinja2.runtime import Context
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.visitor import NodeTransformer

from base.errors import TemplateError
from workflow.templates.filters import NETWORK_FILTERS

__all__ = ["reads_facts", "render"]

MAX_STRING = 20_000  # longest string or list a template may build
MAX_OUTPUT_CHARS = 200_000  # longest rendered configuration
MAX_RANGE = 5_000  # range() length: VLAN 1-4094 fits
MAX_LOOP_ITERATIONS = 50_000  # all for loops of one render together
MAX_INT_BITS = 256
MAX_WIDTH = 200  # width/padding arguments (center, indent, "%200s")
CACHE_SIZE = 512
FACTS = "facts"  # the reserved variable holding the device's facts

_REFUSED_NODES: dict[type[nodes.Node], str] = {
    nodes.Macro: "macros",
    nodes.CallBlock: "call blocks",
    nodes.Extends: "extends",
    nodes.Include: "include",
    nodes.Import: "import",
    nodes.FromImport: "import",
}
_PRINTF_SPEC = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?")
_LOOP_BUDGET: contextvars.ContextVar[list[int]] = contextvars.ContextVar("loop_budget")


def _cap(value: Any) -> Any:
    """Refuse a value that grew past the limits, before anything can double it again."""
    if isinstance(value, str | list | tuple) and len(value) > MAX_STRING:
        raise OverflowError(f"a value of {len(value)} items exceeds the limit of {MAX_STRING}")
    if isinstance(value, int) and value.bit_length() > MAX_INT_BITS:
        raise OverflowError(f"a number larger than {MAX_INT_BITS} bits is not allowed")
    return value


def _check_printf(fmt: str) -> None:
    for match in _PRINTF_SPEC.finditer(fmt):
        for width in match.groups():
            if width == "*" or (width and int(width) > MAX_WIDTH):
                raise OverflowError(f"format width {width!r} exceeds {MAX_WIDTH}")


def _check_width(width: Any) -> None:
    if isinstance(width, int) and abs(width) > MAX_WIDTH:
        raise OverflowError(f"width {width} exceeds {MAX_WIDTH}")


def _bounded_range(*args: int) -> range:
    rng = range(*args)
    if len(rng) > MAX_RANGE:
        raise OverflowError(f"range() of {len(rng)} items exceeds {MAX_RANGE}")
    return rng


def _loop_budget(iterable: Iterable[Any]) -> Iterator[Any]:
    """Wrapped around every for loop's iterable: nested loops share one budget per render."""
    budget = _LOOP_BUDGET.get()
    for item in iterable:
        budget[0] -= 1
        if budget[0] < 0:
            raise OverflowError(f"loops ran more than {MAX_LOOP_ITERATIONS} iterations")
        yield item


class _Hardener(NodeTransformer):
    """Refuses recursion-capable nodes; wraps loops in the budget and `~` in the size cap."""

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return nodes.Filter(node, "_labbot_cap", [], [], None, None, lineno=node.lineno)

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        node.iter = nodes.Filter(node.iter, "_labbot_loop", [], [], None, None, lineno=node.lineno)
        return node

    def generic_visit(self, node: nodes.Node, *args: Any, **kwargs: Any) -> Any:
        refused = _REFUSED_NODES.get(type(node))
        if refused:
            raise TemplateSyntaxError(f"{refused} are not allowed in templates", node.lineno)
        return super().generic_visit(node, *args, **kwargs)


class _LabEnvironment(ImmutableSandboxedEnvironment):
    intercepted_binops = frozenset({"+", "*", "**", "%"})

    def wrap_str_format(self, value: Any) -> None:
        """No sandboxed str.format: is_safe_attribute then refuses it (format specs can pad a
        string to any width before any cap could look at it)."""
        return None

    def is_safe_attribute(self, obj: Any, attr: str, value: Any) -> bool:
        if isinstance(obj, str) and attr in ("format", "format_map"):
            return False
        return bool(super().is_safe_attribute(obj, attr, value))

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        if operator == "*":
            for seq, count in ((left, right), (right, left)):
                sized = isinstance(seq, str | list | tuple) and isinstance(count, int)
                if sized and len(seq) * count > MAX_STRING:
                    raise OverflowError(f"repeating {len(seq)} items {count} times is too large")
        elif operator == "**" and isinstance(left, int) and isinstance(right, int) and right > 0:
            if max(left.bit_length(), 1) * right > MAX_INT_BITS * 2:
                raise OverflowError(f"{left} ** {right} is too large")
        elif operator == "%" and isinstance(left, str):
            _check_printf(left)
        return _cap(super().call_binop(context, operator, left, right))


def _capped_filter(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)  # keeps jinja_pass_arg, so context/environment filters still work
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return _cap(func(*args, **kwargs))

    return wrapper


def _bounded_width(func: Callable[..., Any]) -> Callable[..., Any]:
    """For center(value, width) and indent(value, width): refuse huge widths before padding."""

    @functools.wraps(func)
    def wrapper(value: Any, *args: Any, **kwargs: Any) -> Any:
        for width in (*args[:1], kwargs.get("width")):
            _check_width(width)
        return func(value, *args, **kwargs)

    return wrapper


def _bounded_format(func: Callable[..., Any]) -> Callable[..., Any]:
    @functools.wraps(func)
    def wrapper(value: Any, *args: Any, **kwargs: Any) -> Any:
        _check_printf(str(value))
        return func(value, *args, **kwargs)

    return wrapper


def _build_environment() -> _LabEnvironment:
    env = _LabEnvironment(
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
        keep_trailing_newline=False,
    )
    for name in ("lipsum", "cycler", "joiner"):
        env.globals.pop(name, None)
    env.globals["range"] = _bounded_range
    env.filters.update(NETWORK_FILTERS)
    env.filters["center"] = _bounded_width(env.filters["center"])
    env.filters["indent"] = _bounded_width(env.filters["indent"])
    env.filters["format"] = _bounded_format(env.filters["format"])
    env.filters = {name: _capped_filter(func) for name, func in env.filters.items()}
    env.filters["_labbot_cap"] = _cap
    env.filters["_labbot_loop"] = _loop_budget
    return env


_ENV = _build_environment()
_CACHE: OrderedDict[str, Template] = OrderedDict()
_CACHE_LOCK = threading.Lock()


def _template_line(exc: BaseException) -> int | None:
    """Template line of a runtime error: Jinja rewrites tracebacks to point at template lines."""
    lines = [
        f.lineno for f in traceback.extract_tb(exc.__traceback__) if f.filename == "<template>"
    ]
    return lines[-1] if lines else None


def _error(exc: BaseException, lineno: int | None) -> TemplateError:
    where = f"line {lineno}: " if lineno else ""
    if isinstance(exc, UndefinedError):
        hint = " (add it to the parameters or remove it from the template)"
        return TemplateError(f"{where}{exc.message}{hint}")
    if isinstance(exc, SecurityError):
        return TemplateError(f"{where}refused by the template sandbox: {exc}")
    if isinstance(exc, TemplateSyntaxError):
        return TemplateError(f"{where}syntax error: {exc.message}")
    if isinstance(exc, OverflowError):
        return TemplateError(f"{where}refused, too large: {exc}")
    return TemplateError(f"{where}{type(exc).__name__}: {exc}")


def _parse(source: str) -> nodes.Template:
    try:
        return _ENV.parse(source)
    except TemplateSyntaxError as exc:
        raise _error(exc, exc.lineno) from None


def compile_template(source: str) -> Template:
    """Compile (or fetch from the cache) a template; TemplateError names the line at fault."""
    key = hashlib.sha256(source.encode("utf-8", "surrogatepass")).hexdigest()
    with _CACHE_LOCK:
        cached = _CACHE.get(key)
        if cached is not None:
            _CACHE.move_to_end(key)
            return cached
    try:
        tree = _Hardener().visit(_parse(source))
        template = _ENV.from_string(tree)
    except TemplateSyntaxError as exc:
        raise _error(exc, exc.lineno) from None
    with _CACHE_LOCK:
        _CACHE[key] = template
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return template


def _generate(template: Template, context: dict[str, Any]) -> str:
    chunks: list[str] = []
    size = 0
    for chunk in template.generate(context):
        size += len(chunk)
        if size > MAX_OUTPUT_CHARS:
            raise OverflowError(f"the template renders more than {MAX_OUTPUT_CHARS} characters")
        chunks.append(chunk)
    return "".join(chunks)


def render(
    source: str, params: Mapping[str, Any], *, facts: Mapping[str, Any] | None = None
) -> list[str]:
    """Render to configuration lines: blank lines dropped, trailing whitespace stripped, leading
    indentation kept (hierarchical configs). Every line break, including unicode ones, splits.
    `facts`, when given, is the template's `facts` variable (a parameter of that name is hidden).
    """
    template = compile_template(source)
    context = dict(params) if facts is None else {**params, FACTS: facts}
    token = _LOOP_BUDGET.set([MAX_LOOP_ITERATIONS])
    try:
        text = _generate(template, context)
    except MemoryError:
        raise  # a cap of the worker process (workflow/templates/render_pool.py), reported as such
    except Exception as exc:  # any fault of the template at run time is the template's error
        raise _error(exc, _template_line(exc)) from None
    finally:
        _LOOP_BUDGET.reset(token)
    return [line.rstrip() for line in text.splitlines() if line.strip()]


def template_variables(source: str) -> set[str]:
    """Variables the template reads (globals such as `range` excluded; `facts` included)."""
    return set(find_undeclared_variables(_parse(source))) - set(_ENV.globals)


def reads_facts(source: str) -> bool:
    """Whether the template reads `facts` (False for one that does not even parse)."""
    try:
        return FACTS in template_variables(source)
    except TemplateError:
        return False
