#!/usr/bin/python3
"""Writes the seed corpus of the libFuzzer targets (tests/fuzz/corpus/<target>/).

Run with /usr/bin/python3 (it needs onnx and numpy):
    /usr/bin/python3 tests/fuzz/make_seeds.py
Seeds are small real files of each format, deterministic (no timestamps:
.npz members get a fixed date), so re-running rewrites the same bytes.
Crash inputs found by fuzzing are kept beside them as crash-*.
"""
import io
import json
import os
import struct
import zipfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
OUT = os.path.join(HERE, "corpus")


def put(target, name, data):
    d = os.path.join(OUT, target)
    os.makedirs(d, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(d, name), "wb") as f:
        f.write(data)


def npy_bytes(a, **kw):
    b = io.BytesIO()
    np.lib.format.write_array(b, a, allow_pickle=False, **kw)
    return b.getvalue()


def npz_bytes(arrays, compressed):
    b = io.BytesIO()
    comp = zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED
    with zipfile.ZipFile(b, "w", compression=comp) as z:
        for name, a in arrays.items():
            zi = zipfile.ZipInfo(name + ".npy", date_time=(2020, 1, 1, 0, 0, 0))
            zi.compress_type = comp
            z.writestr(zi, npy_bytes(a))
    return b.getvalue()


# ---- .npy -------------------------------------------------------------------
def seeds_npy():
    put("npy", "f4_2x3.npy", npy_bytes(np.arange(6, dtype="<f4").reshape(2, 3)))
    put("npy", "i8_be.npy", npy_bytes(np.arange(4, dtype=">i8")))
    put("npy", "u1_scalar.npy", npy_bytes(np.array(7, dtype=np.uint8)))
    put("npy", "bool.npy", npy_bytes(np.array([True, False, True])))
    put("npy", "f2_fortran.npy",
        npy_bytes(np.asfortranarray(np.arange(6, dtype="<f2").reshape(2, 3))))
    put("npy", "c8.npy", npy_bytes(np.array([1 + 2j, 3 - 4j], dtype="<c8")))
    put("npy", "f8_empty.npy", npy_bytes(np.zeros((0, 3), dtype="<f8")))
    put("npy", "v2_u2.npy", npy_bytes(np.arange(3, dtype="<u2"), version=(2, 0)))
    put("npy", "v3_i4.npy", npy_bytes(np.arange(3, dtype="<i4"), version=(3, 0)))


# ---- .npz -------------------------------------------------------------------
def seeds_npz():
    # fuzz_npz.c: an even first byte means "the rest is the archive", an
    # odd one "NAME\0CONTENT\0\0NAME\0CONTENT" to pack into an archive.
    put("npz", "stored.npz", b"\0" +
        npz_bytes({"x": np.arange(4, dtype="<f4"), "y": np.array([1, 2], "<i8")},
                  False))
    put("npz", "deflated.npz", b"\0" +
        npz_bytes({"input": np.zeros((2, 2), dtype="<f4")}, True))
    put("npz", "members.bin", b"\1x.npy\0" + npy_bytes(np.arange(3, dtype="<u1"))
        + b"\0\0dir/\0\0\0y.npy\0" + npy_bytes(np.array([1.5], "<f8")))


# ---- labels -----------------------------------------------------------------
def seeds_labels():
    put("labels", "text.txt", "# class ids\n3\n1\n\n  2  # third\n0\n")
    put("labels", "crlf.txt", "1\r\n2\r\n")
    put("labels", "i64.npy", npy_bytes(np.array([0, 5, 2], dtype="<i8")))
    put("labels", "u8_col.npy", npy_bytes(np.array([[1], [2]], dtype="<u1")))
    put("labels", "u64.npy", npy_bytes(np.array([9], dtype="<u8")))


# ---- ONNX TensorProto .pb --------------------------------------------------
def seeds_onnx_tensor():
    t = numpy_helper.from_array(np.arange(6, dtype=np.float32).reshape(2, 3), "x")
    put("onnx_tensor", "raw_f32.pb", t.SerializeToString())
    put("onnx_tensor", "raw_i64.pb",
        numpy_helper.from_array(np.array([1, -2, 3], np.int64)).SerializeToString())
    put("onnx_tensor", "f16.pb",
        numpy_helper.from_array(np.array([1.5, -2], np.float16)).SerializeToString())
    put("onnx_tensor", "bool.pb",
        numpy_helper.from_array(np.array([True, False])).SerializeToString())
    put("onnx_tensor", "scalar_f64.pb",
        numpy_helper.from_array(np.array(2.5, np.float64)).SerializeToString())
    # typed (non-raw) fields, packed as protobuf writes them
    put("onnx_tensor", "float_data.pb", helper.make_tensor(
        "f", TensorProto.FLOAT, [2], [1.0, 2.0]).SerializeToString())
    put("onnx_tensor", "int32_i8.pb", helper.make_tensor(
        "i", TensorProto.INT8, [3], [1, -1, 7]).SerializeToString())
    put("onnx_tensor", "int64_data.pb", helper.make_tensor(
        "l", TensorProto.INT64, [2, 1], [5, 6]).SerializeToString())
    put("onnx_tensor", "double_data.pb", helper.make_tensor(
        "d", TensorProto.DOUBLE, [1], [3.25]).SerializeToString())
    put("onnx_tensor", "uint64_data.pb", helper.make_tensor(
        "u", TensorProto.UINT64, [2], [1, 2]).SerializeToString())
    put("onnx_tensor", "f16_int32.pb", helper.make_tensor(
        "h", TensorProto.FLOAT16, [2], np.array([1, 2], np.float16).view(np.uint16)
        .astype(np.int32).tolist()).SerializeToString())
    put("onnx_tensor", "bf16.pb", helper.make_tensor(
        "b", TensorProto.BFLOAT16, [1], [16256]).SerializeToString())


# ---- ONNX models -----------------------------------------------------------
def small_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 3])
    w = numpy_helper.from_array(np.ones(3, np.float32), "w")
    c = helper.make_node("Constant", [], ["c"], value=numpy_helper.from_array(
        np.array([2], np.int64)))
    n = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    g = helper.make_graph([c, n], "g", [x], [y], [w])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)],
                          producer_name="fuzz")
    helper.set_model_props(m, {"k": "v"})
    return m


def if_model():
    cond = helper.make_tensor_value_info("cond", TensorProto.BOOL, [])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [1])
    out_t = helper.make_tensor_value_info("t", TensorProto.FLOAT, [1])
    out_e = helper.make_tensor_value_info("e", TensorProto.FLOAT, [1])
    then_g = helper.make_graph([helper.make_node(
        "Constant", [], ["t"], value=numpy_helper.from_array(np.ones(1, np.float32)))],
        "then", [], [out_t])
    else_g = helper.make_graph([helper.make_node(
        "Constant", [], ["e"], value=numpy_helper.from_array(np.zeros(1, np.float32)))],
        "else", [], [out_e])
    node = helper.make_node("If", ["cond"], ["y"], then_branch=then_g,
                            else_branch=else_g)
    g = helper.make_graph([node], "if", [cond], [y])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def ext_model():
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [4])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [4])
    w = TensorProto()
    w.name = "w"
    w.data_type = TensorProto.FLOAT
    w.dims.append(4)
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", "weights.bin"), ("offset", "0"), ("length", "16")):
        e = w.external_data.add()
        e.key, e.value = k, v
    sp = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([1.0], np.float32), "s"),
        numpy_helper.from_array(np.array([2], np.int64), "s_i"), [4])
    g = helper.make_graph([helper.make_node("Mul", ["x", "w"], ["y"])], "ext",
                          [x], [y], [w], sparse_initializer=[sp])
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])


def seeds_onnx():
    for name, m in (("small.onnx", small_model()), ("if.onnx", if_model()),
                    ("ext.onnx", ext_model())):
        b = m.SerializeToString()
        put("onnx", name, b)
        put("pb", name, b)
    seq = helper.make_tensor_sequence_value_info("s", TensorProto.FLOAT, [2])
    g = helper.make_graph([], "seq", [seq], [seq])
    put("onnx", "sequence_io.onnx", helper.make_model(g).SerializeToString())
    put("pb", "tensor.pb", numpy_helper.from_array(
        np.arange(4, dtype=np.int32)).SerializeToString())
    # every wire type, including a group
    put("pb", "wire_types.pb", bytes([0x08, 0x96, 0x01, 0x11]) + b"\x00" * 8 +
        bytes([0x1a, 0x02, 0x61, 0x62, 0x23, 0x08, 0x01, 0x24, 0x2d]) + b"\x00" * 4)


# ---- CSV, tasks ----------------------------------------------------------
def seeds_csv():
    put("csv", "plain.csv", "a,b,c\n1,2,3\n4,5,6\n")
    put("csv", "quoted.csv", '\ufeffname , value\r\n"x, y","say ""hi"""\r\n'
        '"multi\nline",2\r\n\r\n')
    put("csv", "empty_cells.csv", "a,b\n,\n\"\",x\n")


def seeds_tasks():
    put("tasks", "training.csv",
        "branch,experiment,trainer,max_epochs,batch_size,overrides\n"
        "main,exp1,gpu,3,32,\"lr=0.1,seed=1\"\n")
    put("tasks", "inference.csv",
        "branch,experiment,checkpoint_path,data_path,trainer,batch_size,overrides\n"
        "main,e,ck.pt,data/,cpu,8,\n")
    put("tasks", "model.csv", "model,backend,batch_size,options\n"
        "m.onnx,ort,1,threads=1;opt=all\n")
    put("tasks", "command.csv", "name,command\nx,echo {name} {index} {workdir}\n")
    put("tasks", "template.bin",
        b"python train.py exp={experiment} {overrides} 'q'\0experiment,overrides\n"
        b"e1,\"a=1, b='2'\"\n")


# ---- events ------------------------------------------------------------
def seeds_events():
    lines = [
        {"event": "start", "phase": "init"},
        {"event": "end", "phase": "init"},
        {"event": "start", "phase": "epoch", "t_ns": 100},
        {"event": "start", "phase": "step"},
        {"event": "counter", "name": "samples", "value": 128},
        {"event": "end", "phase": "step"},
        {"event": "metric", "name": "loss", "value": 0.31},
        {"event": "end", "phase": "epoch", "t_ns": 900},
    ]
    text = "".join(json.dumps(x) + "\n" for x in lines)
    put("events", "phases.bin", b"\x07" + text.encode())
    put("events", "whole.bin", b"\xff" + text.encode())
    put("events", "malformed.bin", b"\x03" + b'{"event":"start"}\nnot json\n'
        b'{"event":"end","phase":"never"}\n{"event":"start","phase":"open"}')


# ---- result documents ----------------------------------------------------
def shrink(doc, keep):
    """The document with every sample array cut to `keep` values."""
    if isinstance(doc, dict):
        return {k: (v[:keep] if k in ("samples", "samples_ns") and isinstance(v, list)
                    else shrink(v, keep)) for k, v in doc.items()}
    if isinstance(doc, list):
        return [shrink(x, keep) for x in doc]
    return doc


# a 1x1 RGB PNG, as a document embeds its heat map (accuracy/heatmap.h)
HEAT_PNG = ("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AA"
            "AAMBAQDJ/pLvAAAAAElFTkSuQmCC")


def seeds_result():
    src = os.path.join(ROOT, "tests", "fixtures", "report")
    for name in ("no_samples.json", "run_batches.json", "compare.json"):
        with open(os.path.join(src, name)) as f:
            doc = json.load(f)
        for keep in (20, 3):
            text = json.dumps(shrink(doc, keep), separators=(",", ":"))
            if len(text) <= 8192:
                break
        put("result", name, text)
    put("result", "minimal.json", '{"schema":"mbench.result/1","runs":[]}')
    # the other documents the writers take: a tensor-set diff, a gate verdict
    put("result", "diff.json", json.dumps({
        "schema": "mbench.diff/1", "kind": "diff", "baseline": "a.npy",
        "candidate": "b.npy", "command_line": "mbench diff a.npy b.npy",
        "mbench": {"version": "0.1.0"}, "passed": False,
        "outputs": [{"name": "y", "shape": [2, 3], "dtype_baseline": "float32",
                     "dtype_candidate": "float16", "count": 6, "mae": 0.1,
                     "psnr": "inf", "cosine": 0.99, "max_abs": 0.3,
                     "rel_l2": 0.01, "top1_agreement": None,
                     "nonfinite_new": 0}],
        "gates": [{"gate": "max_abs<=0.1", "passed": False,
                   "results": [{"output": "y", "value": 0.3,
                                "result": "fail"}]}],
        "heatmap": {"output": "y", "sample": None, "samples": 2,
                    "chosen": "whole tensor", "max_abs": 0.3, "width": 3,
                    "height": 2, "png_base64": HEAT_PNG}},
        separators=(",", ":")))
    put("result", "gate.json", json.dumps({
        "schema": "mbench.gate/1", "verdict": "regression", "exit_code": 1,
        "baseline": {"source": "b.json"}, "current": {"source": "c.json"},
        "method": {"unit": "process", "alpha": 0.01},
        "counts": {"pass": 0, "regression": 1, "improvement": 0,
                   "inconclusive": 0},
        "comparisons": [{"model": "m", "variant": "v,\"x\"", "batch_size": 1,
                         "metrics": [{"metric": "p50", "baseline": 1e6,
                                      "current": 2e6, "ratio": 2,
                                      "ci95": [1.8, 2.2], "p_value": 1e-9,
                                      "verdict": "regression",
                                      "reason": "p50 +100%"}]}],
        "accuracy": [], "unmatched": [], "warnings": []},
        separators=(",", ":")))
    # a load document: an SLO search's steps with the parts of their
    # latency, the replay, stability, the harness floor and the answer
    step = {"role": "bisect", "scenario": "poisson", "concurrency": 1,
            "target_qps": 950.5, "offered_qps": 948.2, "achieved_qps": 940.1,
            "wall_ns": 1000000000, "cpu_ns": 50000000,
            "requests_per_cpu_s": 18000.0,
            "requests": {"issued": 950, "completed": 949, "dropped": 1,
                         "queued": 3, "queued_threshold_ns": 1000000,
                         "warmup": 10},
            "latency": {"unit": "ns", "count": 949, "median": 1.2e6,
                        "p90": 2.5e6, "p99": 5e6, "p99_9": None},
            "dispatch": {"mean_ns": 10, "p50_ns": 1, "p90_ns": 2,
                         "p99_ns": 30, "max_ns": 900,
                         "issue": {"priority": "real-time", "sleeps": 5}},
            "queueing": {"mean_ns": 5e5, "p50_ns": 0, "p90_ns": 1e6,
                         "p99_ns": 4e6, "max_ns": 6e6},
            "model_latency": {"p50_ns": 1.1e6, "p90_ns": 2.4e6,
                              "p99_ns": 4.9e6, "p99_9_ns": None},
            "stability": {"stable": False, "utilization": 1.2},
            "harness_sets_tail": True,
            "early_stopping": {"confidence": 0.99, "rule": "exact",
                               "percentiles": [{"q": 99, "min_requests": 459,
                                                "rank": 947,
                                                "upper_bound_ns": 5.1e6,
                                                "supported": True}]},
            "slo": {"percentile": 99, "bound_ns": 4000000, "basis": "model",
                    "over_bound": 9, "pass": False, "valid": True,
                    "measured": {"pass": False}, "model": {"pass": True}},
            "warnings": ["step 2: overloaded <b>"], "search": 0,
            "grid_index": -3}
    put("result", "load.json", json.dumps({
        "schema": "mbench.result/1", "kind": "load", "runs": [],
        "created_utc": "2026-11-27T00:00:00Z",
        "warnings": ["search 1 answered 0 requests/s"],
        "load": {"scenario": "slo", "threads": 1, "sessions": 1,
                 "shared_session": False, "intra_op_threads": "1",
                 "cpus": None, "run": {"variant": "m<x>"},
                 "rules": {"realtime": "serve"},
                 "harness_floor": {"qps": 2000, "threads": 1, "p50_ns": 300,
                                   "p99_ns": 16000},
                 "steps": [dict(step, role="calibrate", target_qps=None),
                           step],
                 "search": {"percentile": 99, "bound_ns": 4000000,
                            "confidence": 0.99, "tolerance": 0.05,
                            "repeat": 2, "qps": 900.0,
                            "qps_ci95": [700.0, 1100.0], "median_qps": 900,
                            "achieved_qps": 890, "min_qps": 850,
                            "max_qps": 950, "met": True, "basis": "model",
                            "grid": {"base_qps": 1100, "ratio": 1.05},
                            "probes": [{"qps": 950.5, "grid_index": -3,
                                        "steps": 2, "passes": 1,
                                        "pass_rate": 0.5}],
                            "bias": "low",
                            "searches": [{"search": 0, "qps": 850,
                                          "step_indexes": [0, 1],
                                          "bracket": [850, None]}]}}},
        separators=(",", ":")))


def seeds_load():
    # lines KEY=VALUE as mb_runner_load takes them; keys that are not load
    # options go to the null backend
    put("load", "closed_sweep.txt", "concurrency=1,2,4\nsessions=2\n"
        "cpus=0-3,6\nrecords=0\nrealtime=none\n")
    put("load", "poisson.txt", "qps=100,200.5,1e3\nconcurrency=2\n"
        "spin=auto\nqueued=1ms\nsleep=1000000\nstall=30000000\n"
        "stall_every=10\n")
    put("load", "slo.txt", "slo=p99.9=20ms\nrepeat=5\nconfidence=0.99\n"
        "tolerance=0.05\nmax-steps=12\nearly-stopping=loadgen\n"
        "slo-basis=measured\nrealtime=serve\nstall=1000\n"
        "stall_prob=0.01\nseed=7\n")
    put("load", "offline.txt", "offline=1\nrequests=10000\nspin=200us\n"
        "delay=5000\njitter=0.1\nprocess_sd=0.2\nmodes=0.5:2\nar=0.3\n"
        "noise=0.1\n")
    put("load", "conflict.txt", "qps=500\noffline=1\nconcurrency=1,2\n"
        "slo=p50=1s\n")


# ---- PNG and JPEG images ----------------------------------------------------
def seeds_image():
    """Small images of every PNG color type and depth, interlaced, with a
    palette and transparency, and baseline, progressive and grayscale
    JPEGs (Pillow writes them; no timestamps in either format)."""
    from PIL import Image
    rng = np.random.default_rng(5)
    rgb = rng.integers(0, 256, (9, 7, 3), dtype=np.uint8)
    gray = rng.integers(0, 256, (5, 6), dtype=np.uint8)

    def png(im, **kw):
        b = io.BytesIO()
        im.save(b, "PNG", **kw)
        return b.getvalue()

    def jpg(im, **kw):
        b = io.BytesIO()
        im.save(b, "JPEG", **kw)
        return b.getvalue()
    put("image", "rgb.png", png(Image.fromarray(rgb, "RGB")))
    put("image", "gray.png", png(Image.fromarray(gray, "L")))
    put("image", "rgba.png", png(Image.fromarray(np.dstack([rgb, rgb[..., :1]]), "RGBA")))
    put("image", "la.png", png(Image.fromarray(gray, "L").convert("LA")))
    put("image", "palette.png", png(Image.fromarray(rgb, "RGB").convert("P"), transparency=0))
    put("image", "bilevel.png", png(Image.fromarray(gray > 128)))
    put("image", "gray16.png", png(Image.fromarray((gray.astype(np.uint16) * 257), "I;16")))
    put("image", "interlaced.png", png(Image.fromarray(rgb, "RGB"), interlace=1))
    put("image", "rgb.jpg", jpg(Image.fromarray(rgb, "RGB"), quality=90))
    put("image", "gray.jpg", jpg(Image.fromarray(gray, "L")))
    put("image", "progressive.jpg", jpg(Image.fromarray(rgb, "RGB"), progressive=True))
    put("image", "subsampled.jpg", jpg(Image.fromarray(rgb, "RGB"), subsampling=2))



def seeds_ov_ir():
    """OpenVINO IR .xml text as openvino.save_model writes it (the layers
    the parameter count reads: Const with element_type, shape, size)."""
    layer = ('\t\t<layer id="%d" name="c%d" type="Const" version="opset1">\n'
             '\t\t\t<data element_type="%s" shape="%s" offset="0" size="%d" />\n'
             '\t\t\t<output><port id="0" precision="FP32"><dim>10</dim></port></output>\n'
             '\t\t</layer>\n')
    body = "".join(layer % (i, i, t, sh, n) for i, (t, sh, n) in enumerate(
        [("f32", "10, 64", 2560), ("i64", "2", 16), ("f16", "", 2), ("u8", "3, 3, 3", 27)]))
    xml = ('<?xml version="1.0"?>\n<net name="m" version="11">\n\t<layers>\n'
           '\t\t<layer id="9" name="x" type="Parameter" version="opset1">\n'
           '\t\t\t<data shape="?,1,8,8" element_type="f32" />\n\t\t</layer>\n'
           + body + '\t</layers>\n</net>\n')
    put("ov_ir", "consts.xml", xml)
    put("ov_ir", "overflow.xml", '<layer type="Const"><data element_type="f32" '
        'shape="4294967296, 4294967296, 16" size="1" /></layer>')


# ---- outpair (validate/compare/diff output pairing) --------------------------
def seeds_outpair():
    put("outpair", "reordered.txt", "a logits\na aux\nb aux\nb logits\n")
    put("outpair", "mapped.txt", "a logits\na aux\nb scores\nb aux\nm logits=scores\n")
    put("outpair", "position.txt", "a logits\nb output\n")
    put("outpair", "unnamed.txt", "a logits\nA \nb out0\nb logits\n")
    put("outpair", "extra.txt", "a x\nb x\nb extra\nl\nm x=y\n")


if __name__ == "__main__":
    seeds_outpair()
    seeds_image()
    seeds_ov_ir()
    seeds_npy()
    seeds_npz()
    seeds_labels()
    seeds_onnx_tensor()
    seeds_onnx()
    seeds_csv()
    seeds_tasks()
    seeds_events()
    seeds_result()
    seeds_load()
