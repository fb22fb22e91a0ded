"""Templates made into lines, and checked: the sandboxed Jinja2 (`rendering.py`) in capped workers
(`render_pool.py`), its filters and read-only facts, parameter validation, the template check, the
interfaces a device lacks."""
