"""mbench.timer: the per-iteration protocol, byte for byte, through a real
pipe (in this process and in a child), and silence outside mbench."""
import json
import os
import subprocess
import sys
import time

import pytest

import mbench
from mbench import events as timer_mod

LINE_KEYS = ["event", "name", "ns", "items"]


@pytest.fixture
def pipe(monkeypatch):
    r, w = os.pipe()
    monkeypatch.setenv("MBENCH_EVENTS_FD", str(w))
    timer_mod._reset()
    yield r, w
    timer_mod._reset()
    for fd in (r, w):
        try:
            os.close(fd)
        except OSError:
            pass  # the test closed it


def read_lines(r, w):
    os.close(w)
    data = b""
    while True:
        chunk = os.read(r, 65536)
        if not chunk:
            break
        data += chunk
    return data.decode().splitlines()


def test_each_with_block_is_one_json_line_with_the_duration(pipe):
    r, w = pipe
    t = mbench.timer("infer", items=8)
    for _ in range(5):
        with t:
            time.sleep(0.002)
    lines = read_lines(r, w)
    assert len(lines) == 5
    for line, own in zip(lines, t.samples_ns):
        ev = json.loads(line)
        assert list(ev.keys()) == LINE_KEYS
        assert ev["event"] == "iter" and ev["name"] == "infer" and ev["items"] == 8
        assert isinstance(ev["ns"], int) and ev["ns"] == own
        assert 2_000_000 <= ev["ns"] < 200_000_000
        assert " " not in line  # compact, one line


def test_the_decorator_times_every_call(pipe):
    r, w = pipe

    @mbench.timer("step")
    def step(x):
        return x * 2

    assert [step(i) for i in range(3)] == [0, 2, 4]
    lines = [json.loads(x) for x in read_lines(r, w)]
    assert [e["name"] for e in lines] == ["step"] * 3 and all(e["items"] == 1 for e in lines)
    assert len(step.timer.samples_ns) == 3


def test_a_failed_iteration_is_not_reported(pipe):
    r, w = pipe
    with pytest.raises(ZeroDivisionError):
        with mbench.timer("infer"):
            1 / 0
    with mbench.timer("infer"):
        pass
    assert len(read_lines(r, w)) == 1


def test_names_are_json_escaped_and_zero_durations_become_one(pipe):
    r, w = pipe
    assert mbench.record_iter('a "b"\n', 0, 2) is True
    ev = json.loads(read_lines(r, w)[0])
    assert ev == {"event": "iter", "name": 'a "b"\n', "ns": 1, "items": 2}


def test_outside_mbench_nothing_is_written_and_samples_are_kept(monkeypatch):
    monkeypatch.delenv("MBENCH_EVENTS_FD", raising=False)
    timer_mod._reset()
    t = mbench.timer("infer")
    with t:
        pass
    assert len(t.samples_ns) == 1 and mbench.record_iter("x", 5) is False


def test_a_closed_pipe_does_not_stop_the_loop(pipe):
    r, w = pipe
    os.close(r)
    for _ in range(3):
        with mbench.timer("infer"):
            pass  # BrokenPipeError is swallowed: the loop goes on
    assert mbench.record_iter("infer", 10) is False


def test_bad_arguments_are_errors():
    with pytest.raises(ValueError):
        mbench.timer("")
    with pytest.raises(ValueError):
        mbench.record_iter("x", 10, items=0)


def test_a_child_process_reports_through_the_inherited_descriptor():
    r, w = os.pipe()
    code = ("import mbench\n"
            "for i in range(4):\n"
            "    with mbench.timer('loop', items=2):\n"
            "        sum(range(1000))\n")
    env = dict(os.environ, MBENCH_EVENTS_FD=str(w),
               PYTHONPATH=os.path.dirname(os.path.dirname(mbench.__file__)))
    subprocess.run([sys.executable, "-c", code], env=env, pass_fds=(w,), check=True)
    lines = [json.loads(x) for x in read_lines(r, w)]
    os.close(r)
    assert len(lines) == 4 and all(e["name"] == "loop" and e["items"] == 2 for e in lines)


def test_mbench_exec_turns_the_samples_into_loop_statistics(tmp_path):
    """End to end with the receiving side (`mbench exec`): the durations the
    program measured arrive as exec.loops.infer's samples, exactly; skipped
    when this build's exec does not know "iter" events."""
    from conftest import cli
    own = tmp_path / "own.txt"
    script = tmp_path / "loop.py"
    script.write_text("import mbench, sys\n"
                      "t = mbench.timer('infer', items=4)\n"
                      "for i in range(50):\n"
                      "    with t:\n"
                      "        sum(range(20000))\n"
                      "open(sys.argv[1], 'a').write(''.join(f'{n}\\n' for n in t.samples_ns))\n")
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(mbench.__file__)))
    out = tmp_path / "exec.json"
    p = subprocess.run([cli(), "exec", "-r", "2", "--json", str(out),
                        "--", sys.executable, str(script), str(own)], env=env,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    run = doc["runs"][0]
    loops = (run.get("exec") or {}).get("loops")
    if loops is None:
        events = json.dumps(run.get("exec", {}).get("events", {}))
        pytest.skip(f"this mbench exec does not read iter events yet ({events[:200]})")
    loop = loops["infer"]
    sent = [int(x) for x in own.read_text().split()]
    # every run's iterations (warmup runs included in `own`, if any)
    assert loop["iterations"] == 100 and loop["runs"] == 2, loop
    assert loop["items"] == 400, loop
    assert sorted(loop["samples_ns"]) == sorted(sent[-100:]), "samples differ"
    assert loop["latency"]["median"] > 0
