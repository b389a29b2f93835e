"""mbench.run / compare / validate over libmbench, and the rows/DataFrame
view checked against the CSV that `mbench report --csv` writes from the
same document."""
import csv
import json
import math
import os
import subprocess

import pytest

import mbench
from conftest import FAST, cli


def test_the_package_imported_is_the_one_under_test():
    want = os.environ.get("MBENCH_EXPECT_PACKAGE_UNDER")
    if want:
        assert os.path.realpath(mbench.__file__).startswith(os.path.realpath(want)), mbench.__file__
    assert mbench.version() == "0.1.0"


def test_run_gives_one_run_per_batch_size_as_plain_dicts(models):
    res = mbench.run(models / "cnn.onnx", batch_sizes=[1, 4], **FAST)
    assert isinstance(res, dict) and res["kind"] == "run"
    json.dumps(res)  # plain JSON values all the way down
    assert [r["batch_size"] for r in res["runs"]] == [1, 4]
    for r in res["runs"]:
        assert r["status"] == "ok" and r["latency"]["median"] > 0
        assert r["config"]["backend_options"]["threads"] == "1"
    assert res["runs"][1]["inputs"][0]["shape"] == [4, 3, 32, 32]


def test_rows_have_the_csv_columns_and_values_of_mbench_report(models, tmp_path):
    res = mbench.run(models / "cnn.onnx", batch_sizes=[1, 2], **FAST)
    (tmp_path / "r.json").write_text(json.dumps(res))
    subprocess.run([cli(), "report", str(tmp_path / "r.json"),
                    "--csv", str(tmp_path / "r.csv")], check=True)
    with open(tmp_path / "r.csv") as f:
        want = list(csv.DictReader(f))
    got = mbench.rows(res)
    assert list(got[0].keys()) == mbench.CSV_COLUMNS == list(want[0].keys())
    assert len(got) == len(want) == 2
    for g, w in zip(got, want):
        for k in mbench.CSV_COLUMNS:
            if w[k] == "":
                assert g[k] is None, (k, g[k])
            elif isinstance(g[k], (int, float)):
                assert math.isclose(g[k], float(w[k]), rel_tol=1e-5, abs_tol=1e-5), (k, g[k], w[k])
            else:
                assert str(g[k]) == w[k], (k, g[k], w[k])


def test_to_dataframe_has_the_csv_columns(models):
    pd = pytest.importorskip("pandas")
    res = mbench.run(models / "cnn.onnx", batch_sizes=[1], **FAST)
    df = res.to_dataframe()
    assert isinstance(df, pd.DataFrame)
    assert list(df.columns) == mbench.CSV_COLUMNS and len(df) == 1
    lat = res["runs"][0]["latency"]
    p50 = (lat.get("median_ci95") or {}).get("estimate", lat["median"])
    # the CSV holds milliseconds to 6 decimals: 1 ns, the samples' own unit
    assert df["latency_p50_ms"][0] == pytest.approx(p50 / 1e6, abs=1e-6)


def test_a_bad_option_raises_with_the_librarys_message():
    with pytest.raises(mbench.MbenchError) as e:
        mbench.run("x.onnx", warmup="many")
    assert "warmup" in str(e.value) and e.value.status == "invalid argument"


def test_a_missing_model_raises_naming_it(tmp_path):
    with pytest.raises(mbench.MbenchError) as e:
        mbench.run(tmp_path / "none.onnx", processes=1)
    assert "none.onnx" in str(e.value)


def test_compare_onnx_runtime_and_libtorch_on_the_same_network(models, torch_plugin):
    res = mbench.compare({"ort": models / "block.onnx",
                          "torch": {"model": models / "block.pt", "threads": 1}},
                         batch=2, **FAST)
    v = {x["name"]: x for x in res["comparison"]["variants"]}
    assert v["torch"]["status"] == "ok" and v["torch"]["speedup_median"]["value"] > 0
    outs = v["torch"]["agreement"]["outputs"]
    assert [o["name"] for o in outs] == ["y", "logits"]
    assert all(o["max_abs"] < 1e-4 and o["cosine"] > 0.9999 for o in outs), outs
    assert {r["variant"]: r["backend"] for r in res["runs"]} == {"ort": "ort", "torch": "torch"}


def test_validate_passes_for_the_same_network_in_two_frameworks(models, torch_plugin):
    res = mbench.validate(models / "cnn.onnx", models / "cnn.pt", threads=1)
    assert res["kind"] == "validate" and res.passed is True


def test_validate_fails_a_gate_that_cannot_pass(models):
    res = mbench.validate(models / "cnn.onnx", models / "cnn.onnx",
                          gate="cosine>=1.5", threads=1)
    assert res.passed is False
