"""Options as libmbench's runner takes them: (key, value) string pairs
(mb_runner_set), made from Python keywords."""

_DURATIONS = {"min_time", "max_time", "warmup_time", "timeout"}
# Options given once per value (a list is several, not a comma list).
_REPEATABLE = {"backend-opt", "gate"}


def value(key, v):
    """One option value as a string: booleans 1/0, numbers of seconds for
    the durations, lists as comma lists."""
    if isinstance(v, bool):
        return "1" if v else "0"
    if key.replace("-", "_") in _DURATIONS and isinstance(v, (int, float)):
        return f"{v}s"
    if isinstance(v, (list, tuple)):
        return ",".join(str(x) for x in v)
    return str(v)


def pairs(opts):
    """(key, value) pairs for mb_runner_set; None values are left out; a
    dict gives a repeatable NAME=VALUE option (shape={"x": [1, 3]}), and
    backend_opt and gate may be lists (one option per item)."""
    out = []
    for k, v in opts.items():
        if v is None:
            continue
        key = k.replace("_", "-")
        if isinstance(v, dict):  # repeatable NAME=VALUE options
            for name, val in v.items():
                out.append((key, f"{name}={value(key, val)}"))
        elif key in _REPEATABLE and isinstance(v, (list, tuple)):
            out += [(key, str(x)) for x in v]
        else:
            out.append((key, value(k, v)))
    return out
