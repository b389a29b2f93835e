#!/usr/bin/env python3
"""ci_replay.py - checks and replays the CI recipes of docs/ci/ locally
(used by tests/integration/ci_recipes.sh; docs/GATE.md).

  ci_replay.py check FILE.yml...             structural check (below)
  ci_replay.py github WORKFLOW.yml CTX.json  run one GitHub Actions job
  ci_replay.py gitlab PIPELINE.yml CTX.json  run the GitLab jobs whose
                                             rules match

Debian 12 packages no GitHub Actions or GitLab CI runner, linter or JSON
schema (actionlint, gitlab-runner, the schemastore schemas), so the check
is this structural one: the YAML parses (python3-yaml), only known keys
and triggers are used, each step is exactly one of run/uses with a pinned
action, step ids are unique and every steps.ID an expression reads is an
earlier step, every ${{ }} expression and rules:if parses, actions get
only their documented inputs, cache policies are valid, every shell
script passes `bash -n`, and a workflow_run trigger names a workflow that
exists.

The replay runs the shell steps as the runner would, in order, in a fresh
clone of CTX["repo"] at CTX["ref"], with bash -eo pipefail, the runner's
environment variables, ${{ }} expressions and step `if:` conditions
evaluated, GITHUB_OUTPUT read back into steps.ID.outputs.  The actions
are emulated on local directories under CTX["state"]: checkout (a git
clone), cache/restore and cache/save (newest key by prefix; GitLab's
separate protected/unprotected caches unless `unprotect: true`, and
one set of caches per project: a fork's pipeline runs in the fork's
project, CTX["project_id"], and sees its caches only), after_script run
whatever the script did,
upload-artifact and download-artifact.  The step (GitHub) or
before_script (GitLab) that installs mbench from its repository is
replaced by the mbench already first in PATH: installing is tested by
tests/integration/install.sh.  gh and curl are the test's stand-ins for
the GitHub and GitLab APIs (first in PATH).
"""
import glob
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

INSTALL_STEP = "Install mbench"


# ---- GitHub expressions ---------------------------------------------------
class Ctx(dict):
    """A context object: missing members read as '' (GitHub: null)."""

    def __getattr__(self, k):
        v = self.get(k.replace("_", "-"), self.get(k, ""))
        return Ctx(v) if isinstance(v, dict) else v


TOKEN = re.compile(r"\s*(?:(?P<str>'(?:[^']|'')*')|(?P<num>\d+(?:\.\d+)?)|"
                   r"(?P<op>==|!=|&&|\|\||!|\(|\)|,|<=|>=|<|>)|"
                   r"(?P<id>[A-Za-z_][A-Za-z0-9_\-]*(?:\.[A-Za-z_][A-Za-z0-9_\-]*)*))")
FUNCS = {"always", "success", "failure", "cancelled", "hashFiles", "contains",
         "startsWith", "format", "toJSON", "fromJSON"}
CONTEXTS = {"github", "env", "steps", "job", "runner", "secrets", "inputs",
            "vars", "matrix", "needs", "true", "false", "null"}


def translate(expr):
    """A GitHub expression as Python source; raises ValueError."""
    out, pos = [], 0
    expr = expr.strip()
    while pos < len(expr):
        m = TOKEN.match(expr, pos)
        if not m or m.end() == pos:
            raise ValueError(f"cannot parse expression at: {expr[pos:]!r}")
        pos = m.end()
        if m.group("str"):
            out.append(repr(m.group("str")[1:-1].replace("''", "'")))
        elif m.group("num"):
            out.append(m.group("num"))
        elif m.group("op"):
            out.append({"&&": " and ", "||": " or ", "!": " not "}.get(m.group("op"), m.group("op")))
        else:
            name = m.group("id")
            root = name.split(".")[0]
            if name in FUNCS:
                out.append("F_" + name)
            elif name in ("true", "false", "null"):
                out.append({"true": "True", "false": "False", "null": "''"}[name])
            elif root in CONTEXTS:
                parts = name.split(".")
                out.append(parts[0] + "".join(f"[{p!r}]" for p in parts[1:]))
            else:
                raise ValueError(f"unknown name {name!r} in expression {expr!r}")
    src = "".join(out)
    compile(src, "<expr>", "eval")
    return src


class Null(str):
    """GitHub's null: equal to '' and false, and any member of it is null."""

    def __getitem__(self, k):
        return self


NULL = Null("")


class Lookup(dict):
    def __getitem__(self, k):
        v = dict.get(self, k, NULL)
        return Lookup(v) if isinstance(v, dict) else v


def evaluate(expr, ctx, status_ok=True, workdir="."):
    funcs = {
        "F_always": lambda: True,
        "F_success": lambda: status_ok,
        "F_failure": lambda: not status_ok,
        "F_cancelled": lambda: False,
        "F_hashFiles": lambda *p: "h" if any(glob.glob(os.path.join(workdir, x)) for x in p) else "",
        "F_contains": lambda a, b: b in a,
        "F_startsWith": lambda a, b: str(a).startswith(b),
    }
    env = {k: Lookup(v) if isinstance(v, dict) else v for k, v in ctx.items()}
    env.update(funcs)
    return eval(translate(expr), {"__builtins__": {}}, env)  # noqa: S307 (own parser)


EXPR = re.compile(r"\$\{\{(.*?)\}\}", re.S)


def substitute(text, ctx, workdir="."):
    def one(m):
        v = evaluate(m.group(1), ctx, workdir=workdir)
        return "true" if v is True else "false" if v is False else str(v)
    return EXPR.sub(one, str(text))


def condition(cond, ctx, status_ok, workdir):
    if cond is None:
        return status_ok
    c = str(cond).strip()
    if c.startswith("${{") and c.endswith("}}"):
        c = c[3:-2]
    uses_status = re.search(r"\b(always|success|failure|cancelled)\(", c)
    v = evaluate(c, ctx, status_ok, workdir)
    return bool(v) if uses_status else (status_ok and bool(v))


# ---- structural check -------------------------------------------------------
GH_TOP = {"name", "on", "permissions", "env", "jobs", "concurrency", "defaults", "run-name"}
GH_EVENTS = {"push", "pull_request", "pull_request_target", "workflow_run", "workflow_dispatch", "schedule"}
GH_JOB = {"runs-on", "steps", "if", "permissions", "env", "needs", "timeout-minutes", "concurrency",
          "container", "services", "strategy", "outputs", "name", "continue-on-error", "defaults",
          "environment"}
GH_STEP = {"name", "id", "if", "run", "uses", "with", "env", "shell", "continue-on-error",
           "working-directory", "timeout-minutes"}
GH_ACTIONS = {
    "actions/checkout": {"ref", "fetch-depth", "repository", "path", "token"},
    "actions/cache/restore": {"path", "key", "restore-keys", "fail-on-cache-miss", "lookup-only"},
    "actions/cache/save": {"path", "key"},
    "actions/upload-artifact": {"name", "path", "if-no-files-found", "retention-days", "overwrite"},
    "actions/download-artifact": {"name", "path", "run-id", "github-token", "repository", "pattern"},
    "actions/upload-pages-artifact": {"path", "name", "retention-days"},
    "actions/deploy-pages": {"token", "timeout", "error_count", "reporting_interval", "artifact_name",
                             "preview"},
}
GH_PERMS = {"read", "write", "none"}
GL_JOB = {"image", "stage", "script", "before_script", "after_script", "rules", "cache", "artifacts",
          "variables", "extends", "resource_group", "needs", "tags", "timeout", "interruptible",
          "allow_failure", "when", "services", "retry", "environment", "dependencies"}
GL_TOP = {"variables", "stages", "default", "workflow", "include", "image"}
GL_CACHE = {"key", "paths", "policy", "unprotect", "when", "untracked", "fallback_keys"}
GL_ARTIFACTS = {"paths", "when", "expire_in", "reports", "name", "expose_as", "exclude"}


def bash_n(script, where, errors):
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
        f.write(script)
    r = subprocess.run(["bash", "-n", f.name], capture_output=True, text=True)
    os.unlink(f.name)
    if r.returncode:
        errors.append(f"{where}: bash -n: {r.stderr.strip()}")


def check_github(path, d, names, errors):
    on = d.get("on", d.get(True))
    if on is None:
        errors.append(f"{path}: no 'on'")
        on = {}
    for k in d:
        if (k if k is not True else "on") not in GH_TOP:
            errors.append(f"{path}: unknown top-level key {k!r}")
    for ev in on:
        if ev not in GH_EVENTS:
            errors.append(f"{path}: unknown event {ev!r}")
    wr = on.get("workflow_run") if isinstance(on, dict) else None
    if wr:
        for w in wr.get("workflows", []):
            if w not in names:
                errors.append(f"{path}: workflow_run names {w!r}, not a workflow here ({sorted(names)})")
    for scope in [d] + list(d.get("jobs", {}).values()):
        perms = scope.get("permissions", {})
        for k, v in (perms.items() if isinstance(perms, dict) else []):
            if v not in GH_PERMS:
                errors.append(f"{path}: permission {k}: {v!r}")
    ctx = {"github": {}, "env": {}, "steps": {}, "secrets": {}, "vars": {}}
    for k, v in (d.get("env") or {}).items():
        for m in EXPR.finditer(str(v)):
            try_expr(m.group(1), f"{path}: env.{k}", errors)
    for jn, job in d.get("jobs", {}).items():
        for k in job:
            if k not in GH_JOB:
                errors.append(f"{path}: job {jn}: unknown key {k!r}")
        if "runs-on" not in job:
            errors.append(f"{path}: job {jn}: no runs-on")
        if "if" in job:
            try_expr(str(job["if"]).removeprefix("${{").removesuffix("}}"), f"{path}: job {jn} if", errors)
        ids = []
        for i, st in enumerate(job.get("steps", [])):
            where = f"{path}: job {jn} step {i + 1} ({st.get('name', st.get('uses', ''))})"
            for k in st:
                if k not in GH_STEP:
                    errors.append(f"{where}: unknown key {k!r}")
            if ("run" in st) == ("uses" in st):
                errors.append(f"{where}: needs exactly one of run and uses")
            if "uses" in st:
                action, _, ver = st["uses"].partition("@")
                if not ver:
                    errors.append(f"{where}: {st['uses']} is not pinned to a version")
                allowed = GH_ACTIONS.get(action)
                if allowed is None:
                    errors.append(f"{where}: action {action} is not one this check knows")
                else:
                    for k in st.get("with", {}) or {}:
                        if k not in allowed:
                            errors.append(f"{where}: {action} has no input {k!r}")
            texts = [st.get("run", "")] + [str(v) for v in (st.get("with") or {}).values()] + \
                    [str(v) for v in (st.get("env") or {}).values()]
            for t in texts:
                for m in EXPR.finditer(str(t)):
                    try_expr(m.group(1), where, errors)
                    for ref in re.findall(r"steps\.([A-Za-z_][\w-]*)", m.group(1)):
                        if ref not in ids:
                            errors.append(f"{where}: reads steps.{ref}, not an earlier step id")
            if "if" in st:
                c = str(st["if"]).strip().removeprefix("${{").removesuffix("}}")
                try_expr(c, f"{where} if", errors)
                for ref in re.findall(r"steps\.([A-Za-z_][\w-]*)", c):
                    if ref not in ids:
                        errors.append(f"{where}: if reads steps.{ref}, not an earlier step id")
            if "run" in st:
                bash_n(EXPR.sub("X", st["run"]), where, errors)
            if "id" in st:
                if st["id"] in ids:
                    errors.append(f"{where}: duplicate step id {st['id']!r}")
                ids.append(st["id"])
    return ctx


def try_expr(e, where, errors):
    try:
        translate(e)
    except (ValueError, SyntaxError) as x:
        errors.append(f"{where}: expression {e.strip()!r}: {x}")


GL_RULE = re.compile(r'^\s*(\$\w+|"[^"]*")\s*(==|!=)\s*(\$\w+|"[^"]*")\s*$')


def gl_rule_ok(expr):
    return all(GL_RULE.match(p) for p in re.split(r"&&|\|\|", expr))


def check_gitlab(path, d, errors):
    jobs = {k: v for k, v in d.items() if k not in GL_TOP}
    for name, job in jobs.items():
        where = f"{path}: job {name}"
        if not isinstance(job, dict):
            errors.append(f"{where}: not a mapping")
            continue
        for k in job:
            if k not in GL_JOB:
                errors.append(f"{where}: unknown key {k!r}")
        if "extends" in job and job["extends"] not in jobs:
            errors.append(f"{where}: extends {job['extends']!r}, which is not defined")
        for r in job.get("rules", []) or []:
            if "if" in r and not gl_rule_ok(r["if"]):
                errors.append(f"{where}: rules:if {r['if']!r} does not parse")
        c = job.get("cache")
        if c:
            for k in c:
                if k not in GL_CACHE:
                    errors.append(f"{where}: cache has no key {k!r}")
            if c.get("policy", "pull-push") not in ("pull", "push", "pull-push"):
                errors.append(f"{where}: cache policy {c.get('policy')!r}")
            if "unprotect" in c and not isinstance(c["unprotect"], bool):
                errors.append(f"{where}: cache unprotect is not a boolean")
        a = job.get("artifacts")
        if a:
            for k in a:
                if k not in GL_ARTIFACTS:
                    errors.append(f"{where}: artifacts has no key {k!r}")
            if a.get("when", "on_success") not in ("on_success", "on_failure", "always"):
                errors.append(f"{where}: artifacts when {a.get('when')!r}")
        for part in ("before_script", "script", "after_script"):
            lines = job.get(part)
            if lines is None:
                continue
            if not isinstance(lines, list) or not all(isinstance(x, str) for x in lines):
                errors.append(f"{where}: {part} is not a list of strings")
                continue
            bash_n("\n".join(lines), f"{where} {part}", errors)
        if not name.startswith(".") and job.get("extends", ".") in jobs and "script" not in resolve(d, name):
            errors.append(f"{where}: no script")


def cmd_check(files):
    errors = []
    docs = {f: yaml.safe_load(open(f)) for f in files}
    names = {d.get("name") for d in docs.values() if isinstance(d, dict) and ("jobs" in d)}
    for f, d in docs.items():
        if not isinstance(d, dict):
            errors.append(f"{f}: not a mapping")
        elif "jobs" in d:
            check_github(f, d, names, errors)
        else:
            check_gitlab(f, d, errors)
    for e in errors:
        print("error:", e)
    print(f"checked {len(files)} files: {len(errors)} errors")
    return 1 if errors else 0


# ---- replay -------------------------------------------------------------------
def run(cmd, **kw):
    return subprocess.run(cmd, **kw)


def checkout(ctx, ws):
    if os.path.exists(ws):
        shutil.rmtree(ws)
    run(["git", "clone", "-q", ctx["repo"], ws], check=True)
    run(["git", "-C", ws, "checkout", "-q", ctx["ref"]], check=True)


def cache_dir(state):
    d = os.path.join(state, "cache")
    os.makedirs(d, exist_ok=True)
    return d


def cache_restore(state, key, prefixes, paths, ws):
    d = cache_dir(state)
    hit = key if os.path.isdir(os.path.join(d, key)) else None
    if not hit:
        cands = [k for k in os.listdir(d) if any(k.startswith(p) for p in prefixes)]
        cands.sort(key=lambda k: os.path.getmtime(os.path.join(d, k)))
        hit = cands[-1] if cands else None
    if not hit:
        print(f"[replay] cache: no entry for {key} / {prefixes}")
        return
    for p in paths:
        src = os.path.join(d, hit, p)
        if os.path.exists(src):
            shutil.copy2(src, os.path.join(ws, p))
    print(f"[replay] cache: restored {hit}")


def cache_save(state, key, paths, ws, who):
    dst = os.path.join(cache_dir(state), key)
    os.makedirs(dst, exist_ok=True)
    for p in paths:
        if os.path.exists(os.path.join(ws, p)):
            shutil.copy2(os.path.join(ws, p), os.path.join(dst, p))
    with open(os.path.join(state, "cache.log"), "a") as f:
        f.write(f"save {key} by {who}\n")
    print(f"[replay] cache: saved {key}")


def artifact_upload(state, run_id, name, paths, ws):
    dst = os.path.join(state, "artifacts", str(run_id), name)
    os.makedirs(dst, exist_ok=True)
    n = 0
    for p in paths:
        src = os.path.join(ws, p)
        if os.path.isdir(src):
            # a directory's contents, subdirectories included (a path
            # "public" in GitLab keeps its name: GitLab Pages reads it)
            into = os.path.join(dst, os.path.basename(p.rstrip("/"))) if name == "artifacts" else dst
            shutil.copytree(src, into, dirs_exist_ok=True)
            n += sum(len(fs) for _, _, fs in os.walk(src))
        elif os.path.exists(src):
            shutil.copy2(src, dst)
            n += 1
    print(f"[replay] artifact {name}: {n} files")


def lines(v):
    return [x.strip() for x in str(v).splitlines() if x.strip()]


def cmd_github(wf_path, ctx_path):
    wf = yaml.safe_load(open(wf_path))
    c = json.load(open(ctx_path))
    state, ws = c["state"], os.path.join(c["state"], "ws-" + str(c["run_id"]))
    gh = dict(c["github"])
    gh.setdefault("run_id", str(c["run_id"]))
    ctx = {"github": gh, "env": {}, "steps": {}, "secrets": {}, "vars": {}}
    for k, v in (wf.get("env") or {}).items():
        ctx["env"][k] = substitute(v, ctx)
    (jn, job), = wf["jobs"].items()
    os.makedirs(ws, exist_ok=True)
    if "if" in job and not condition(job["if"], ctx, True, ws):
        print(f"[replay] job {jn} skipped by its if")
        return 0
    ok = True
    for i, st in enumerate(job["steps"]):
        name = st.get("name", st.get("uses", f"step {i + 1}"))
        if not condition(st.get("if"), ctx, ok, ws):
            print(f"[replay] skip: {name}")
            continue
        print(f"[replay] step: {name}")
        env = dict(os.environ)
        env.update({"GITHUB_EVENT_NAME": gh["event_name"], "GITHUB_RUN_ID": str(c["run_id"]),
                    "GITHUB_REPOSITORY": gh.get("repository", ""), "GITHUB_ACTIONS": "true",
                    "GITHUB_HEAD_REF": gh.get("head_ref", ""), "GITHUB_BASE_REF": gh.get("base_ref", ""),
                    "GITHUB_REF_NAME": gh.get("ref_name", ""), "CI": "true"})
        env.update(ctx["env"])
        for k, v in (st.get("env") or {}).items():
            env[k] = substitute(v, ctx, ws)
        w = {k: substitute(v, ctx, ws) for k, v in (st.get("with") or {}).items()}
        rc = 0
        if st.get("name") == INSTALL_STEP:
            print("[replay]   replaced by the mbench first in PATH (tests/integration/install.sh tests installing)")
        elif "uses" in st:
            a = st["uses"].split("@")[0]
            if a == "actions/checkout":
                checkout(c, ws)
            elif a == "actions/cache/restore":
                cache_restore(state, w["key"], lines(w.get("restore-keys", "")), lines(w["path"]), ws)
            elif a == "actions/cache/save":
                cache_save(state, w["key"], lines(w["path"]), ws, gh["event_name"])
            elif a == "actions/upload-artifact":
                artifact_upload(state, c["run_id"], w["name"], lines(w["path"]), ws)
            elif a == "actions/upload-pages-artifact":
                artifact_upload(state, c["run_id"], "github-pages", lines(w["path"]), ws)
            elif a == "actions/deploy-pages":
                src = os.path.join(state, "artifacts", str(c["run_id"]), "github-pages")
                rc = 0 if os.path.isfile(os.path.join(src, "index.html")) else 1
                if rc == 0:
                    shutil.copytree(src, os.path.join(state, "pages"), dirs_exist_ok=True)
                print(f"[replay]   pages: {'deployed' if rc == 0 else 'no index.html to deploy'}")
            elif a == "actions/download-artifact":
                src = os.path.join(state, "artifacts", str(w.get("run-id", c["run_id"])), w["name"])
                if os.path.isdir(src):
                    shutil.copytree(src, os.path.join(ws, w.get("path", ".")), dirs_exist_ok=True)
                else:
                    print(f"[replay]   no artifact {w['name']} in run {w.get('run-id')}")
                    rc = 1
            else:
                print(f"[replay]   unknown action {a}")
                rc = 1
        else:
            script = substitute(st["run"], ctx, ws)
            out = os.path.join(state, f"out-{c['run_id']}-{i}")
            env["GITHUB_OUTPUT"] = out
            open(out, "w").close()
            with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False, dir=state) as f:
                f.write(script)
            rc = run(["bash", "--noprofile", "--norc", "-eo", "pipefail", f.name], cwd=ws, env=env).returncode
            os.unlink(f.name)
            outputs = {}
            for ln in open(out):
                if "=" in ln:
                    k, v = ln.rstrip("\n").split("=", 1)
                    outputs[k] = v
            if "id" in st:
                ctx["steps"][st["id"]] = {"outputs": outputs, "outcome": "success" if rc == 0 else "failure"}
        if rc and not st.get("continue-on-error"):
            print(f"[replay]   step failed (exit {rc})")
            ok = False
    print(f"[replay] job {jn}: {'success' if ok else 'failure'}")
    return 0 if ok else 1


def merge(a, b):
    out = dict(a)
    for k, v in b.items():
        out[k] = merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def resolve(d, name):
    job = d[name]
    if "extends" in job:
        base = resolve(d, job["extends"])
        job = merge(base, {k: v for k, v in job.items() if k != "extends"})
    return job


def gl_rule(expr, env):
    def val(t):
        return t[1:-1] if t.startswith('"') else env.get(t[1:])
    py = []
    for tok in re.split(r"(&&|\|\|)", expr):
        if tok in ("&&", "||"):
            py.append(" and " if tok == "&&" else " or ")
            continue
        m = GL_RULE.match(tok)
        a, op, b = val(m.group(1)), m.group(2), val(m.group(3))
        py.append(repr((a == b) if op == "==" else (a != b)))
    return eval("".join(py), {"__builtins__": {}})  # noqa: S307 (True/False and/or only)


def gl_script(lines_, state, ws, env):
    with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False, dir=state) as f:
        f.write("\n".join(lines_))
    rc = run(["bash", "-eo", "pipefail", f.name], cwd=ws, env=env).returncode
    os.unlink(f.name)
    return rc


def cmd_gitlab(path, ctx_path):
    d = yaml.safe_load(open(path))
    c = json.load(open(ctx_path))
    state = c["state"]
    project = str(c.get("project_id", "1"))
    env0 = {k: str(v) for k, v in (d.get("variables") or {}).items()}
    env0.update(c["variables"])   # project CI/CD variables win
    failed = 0
    ran = 0
    for name in d:
        if name in GL_TOP or name.startswith("."):
            continue
        job = resolve(d, name)
        env = dict(env0)
        env.update({k: str(v) for k, v in (job.get("variables") or {}).items()})
        if not any("if" in r and gl_rule(r["if"], env) for r in job.get("rules", [])):
            print(f"[replay] job {name}: not in this pipeline")
            continue
        ran += 1
        ws = os.path.join(state, f"ws-{c['pipeline_id']}-{name}")
        checkout(c, ws)
        cache = job.get("cache")
        key = None
        # Caches belong to the project the pipeline runs in: a fork's
        # merge request pipeline runs in the fork, with the fork's caches.
        caches = os.path.join(state, "projects", project)
        if cache:
            key = cache["key"]
            if not cache.get("unprotect"):
                key += "-protected" if c.get("protected") else "-non_protected"
            if cache.get("policy", "pull-push") in ("pull", "pull-push"):
                cache_restore(caches, key, [], cache["paths"], ws)
        for need in job.get("needs") or []:
            # needs: the artifacts of that job in this pipeline come first
            src = os.path.join(state, "artifacts", f"{c['pipeline_id']}-{need}", "artifacts")
            if os.path.isdir(src):
                shutil.copytree(src, ws, dirs_exist_ok=True)
        print(f"[replay] job {name}: before_script replaced by the mbench first in PATH")
        full = dict(os.environ)
        full.update(env)
        full["CI_PROJECT_ID"] = project
        rc = gl_script(job["script"], state, ws, full)
        if rc == 0 and cache and cache.get("policy", "pull-push") in ("push", "pull-push"):
            cache_save(caches, key, cache["paths"], ws, name)
        if job.get("after_script"):
            # GitLab runs it whatever the script did, in a new shell; its
            # failure does not fail the job.
            full["CI_JOB_STATUS"] = "success" if rc == 0 else "failed"
            print(f"[replay] job {name}: after_script (job status {full['CI_JOB_STATUS']})")
            gl_script(job["after_script"], state, ws, full)
        a = job.get("artifacts")
        if a and (a.get("when") == "always" or rc == 0):
            artifact_upload(state, f"{c['pipeline_id']}-{name}", "artifacts", a["paths"], ws)
        print(f"[replay] job {name}: {'success' if rc == 0 else f'failure (exit {rc})'}")
        failed = failed or rc
    if not ran:
        print("[replay] no job ran")
    return failed


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "check":
        sys.exit(cmd_check(sys.argv[2:]))
    if len(sys.argv) == 4 and sys.argv[1] == "github":
        sys.exit(cmd_github(sys.argv[2], sys.argv[3]))
    if len(sys.argv) == 4 and sys.argv[1] == "gitlab":
        sys.exit(cmd_gitlab(sys.argv[2], sys.argv[3]))
    print(__doc__, file=sys.stderr)
    sys.exit(2)
