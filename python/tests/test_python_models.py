"""mbench.run / compare / validate on Python objects (pickled, measured by
the mbench command on the python backend), and the one-line errors for
objects that cannot travel.  A numpy model keeps these fast; the
frameworks' adapters are tested by tests/integration/python_models.sh."""
import json
import os
import pickle
import subprocess
import sys
import threading

import pytest

import mbench
from mbench import _objects
from conftest import FAST, cli, have_plugin

np = pytest.importorskip("numpy")
import seed_models  # noqa: E402  (python/tests, on sys.path under pytest)


@pytest.fixture(autouse=True)
def python_plugin():
    if not have_plugin("python"):
        pytest.skip("the python backend is not built (python3-dev missing)")


def test_a_callable_object_runs_by_reference_at_each_batch_size():
    res = mbench.run(seed_models.Mlp(seed=1), inputs=(64,), batch_sizes=[1, 4], **FAST)
    assert res["kind"] == "run" and [r["batch_size"] for r in res["runs"]] == [1, 4]
    for r in res["runs"]:
        assert r["status"] == "ok" and r["backend"] == "python", r.get("error")
        assert r["runtime"]["name"] == "numpy" and r["model"]["path"].startswith("pickle:")
        assert r["model"]["name"] == "Mlp.pkl"  # what gate and store match runs by
        assert r["latency"]["median"] > 0 and r["replication"]["processes"] == 2
    assert res["runs"][1]["inputs"][0]["shape"] == [4, 64]
    assert res["runs"][1]["outputs"][0]["shape"] == [4, 10]
    json.dumps(res)


def test_arrays_as_inputs_are_the_data_axis_0_the_samples():
    x = np.random.default_rng(0).standard_normal((12, 64)).astype(np.float32)
    res = mbench.run(seed_models.Mlp(), inputs=x, batch_sizes=[4], **FAST)
    r = res["runs"][0]
    assert r["status"] == "ok" and r["inputs"][0]["shape"] == [4, 64]
    assert r["config"]["data"].endswith("inputs.npy"), r["config"]


def test_two_inputs_by_the_functions_argument_names():
    assert _objects.input_names(seed_models.two_inputs) == ["a", "b"]
    res = mbench.run(seed_models.two_inputs, inputs=[(3,), (3,)], **FAST)
    assert [i["name"] for i in res["runs"][0]["inputs"]] == ["a", "b"]


def test_compare_two_objects_of_the_same_function_agrees_exactly():
    res = mbench.compare({"a": seed_models.Mlp(seed=2), "b": seed_models.Mlp(seed=2)},
                         shape={"x": [1, 64]}, batch=2, **FAST)
    v = {x["name"]: x for x in res["comparison"]["variants"]}
    assert v["b"]["status"] == "ok"
    assert all(o["max_abs"] == 0 for o in v["b"]["agreement"]["outputs"]), v["b"]["agreement"]


def test_validate_objects_a_changed_model_fails():
    same = mbench.validate(seed_models.Mlp(), seed_models.Mlp(), shape={"x": [1, 64]})
    assert same.passed is True
    other = mbench.validate(seed_models.Mlp(), seed_models.Mlp(scale=3.0), shape={"x": [1, 64]})
    assert other["kind"] == "validate" and other.passed is False


def _plain_pickle(monkeypatch):
    monkeypatch.setitem(sys.modules, "cloudpickle", None)  # import fails


def test_without_cloudpickle_a_lambda_is_refused_saying_how(monkeypatch, tmp_path):
    _plain_pickle(monkeypatch)
    with pytest.raises(mbench.MbenchError) as e:
        mbench.run(lambda x: x, inputs=(4,))
    msg = str(e.value)
    assert e.value.status == "invalid argument" and "\n" not in msg
    assert "cannot pickle the model" in msg and "PATH.py:FACTORY" in msg and "cloudpickle" in msg


def test_without_cloudpickle_an_object_of_main_is_refused(monkeypatch):
    _plain_pickle(monkeypatch)
    main = sys.modules["__main__"]

    def f(x):
        return x
    f.__module__, f.__qualname__ = "__main__", "mbench_test_f"
    monkeypatch.setattr(main, "mbench_test_f", f, raising=False)
    with pytest.raises(mbench.MbenchError) as e:
        mbench.run(f, inputs=(4,))
    assert "mbench_test_f from __main__" in str(e.value), str(e.value)


def test_an_object_that_cannot_be_pickled_is_refused():
    class Holder:
        def __init__(self):
            self.lock = threading.Lock()

        def __call__(self, x):
            return x
    with pytest.raises(mbench.MbenchError) as e:
        mbench.run(Holder(), inputs=(4,))
    assert "cannot pickle the model" in str(e.value)


def test_with_cloudpickle_a_closure_travels_by_value():
    pytest.importorskip("cloudpickle")
    w = np.ones((8, 2), np.float32)
    res = mbench.run(lambda x: x @ w, inputs=(8,), **FAST)
    assert res["runs"][0]["status"] == "ok"


def test_the_pickles_import_roots_are_the_tests_directory_not_site_packages():
    data = pickle.dumps(seed_models.Mlp())
    roots = _objects.import_roots(data)
    assert roots == [os.path.realpath(os.path.dirname(seed_models.__file__))]


def test_with_a_framework_loaded_here_an_onnx_file_is_measured_by_the_command(
        monkeypatch, tmp_path):
    model = tmp_path / "digits.onnx"
    model.write_bytes(open(os.path.join(os.environ.get("MBENCH_ROOT", os.path.join(
        os.path.dirname(__file__), "..", "..")), "models", "digits_fp32.onnx"), "rb").read())

    def no_fork(*a, **k):
        raise AssertionError("libmbench forked its workers from a process with torch loaded")
    monkeypatch.setitem(sys.modules, "torch", sys.modules.get("torch") or object())
    monkeypatch.setattr(mbench._lib, "Runner", no_fork)
    res = mbench.run(model, processes=1, min_time=0, max_time=0.2)
    assert res["runs"][0]["status"] == "ok"


def test_a_failing_python_model_raises_mbenchs_one_line_error(tmp_path):
    src = tmp_path / "bad.py"
    src.write_text("def make():\n    def f(x):\n        raise ValueError('no')\n    return f\n")
    with pytest.raises(mbench.MbenchError) as e:
        mbench.run(f"{src}:make", inputs=(4,), processes=1)
    assert e.value.code == 3 and "ValueError: no" in str(e.value) and "\n" not in str(e.value)


def test_validate_an_onnx_file_against_the_same_function_as_an_object(tmp_path):
    pytest.importorskip("onnx")
    onnx_path = seed_models.write_onnx(tmp_path / "mlp.onnx", seed=3)
    shape = {"x": [1, 64]}  # the object declares no input shape
    res = mbench.validate(onnx_path, seed_models.Mlp(seed=3), shape=shape)
    assert res["kind"] == "validate" and res.passed is True, res.get("validation")
    res = mbench.validate(seed_models.Mlp(seed=3), onnx_path, shape=shape)  # the other way round
    assert res.passed is True, res.get("validation")
