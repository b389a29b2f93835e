#!/usr/bin/python3
"""Build the bundled default model and its optimized variants.

A small CNN is trained on scikit-learn's real 8x8 digits data set (1,797
labelled images; the last 360 are held out), exported to ONNX, and then
turned into the variants an engineer weighs before shipping:

  digits_fp32.onnx    the trained baseline
  digits_fp16.onnx    float16 weights and compute (Cast at the edges)
  digits_int8.onnx    static QDQ int8: per-channel int8 weights, uint8
                      activations calibrated on training images; ONNX
                      Runtime fuses it into QLinearConv/QLinearMatMul
  digits_pruned.onnx  50% of each weight tensor's smallest magnitudes zeroed
  digits_test.npy     float32 [360, 1, 8, 8] held-out images (0..1)
  digits_labels.npy   int64 [360] their labels

Usage: /usr/bin/python3 models/make_digits.py [OUTDIR]   (default: models/)
Needs Debian's python3-torch, python3-sklearn, python3-onnx, python3-numpy.
Deterministic: fixed seeds, single thread.
"""
import os
import sys

import numpy as np
import onnx
import torch
from onnx import TensorProto, helper, numpy_helper
from sklearn.datasets import load_digits

out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.abspath(__file__))
os.makedirs(out, exist_ok=True)
torch.manual_seed(0)
torch.set_num_threads(1)
np.random.seed(0)

digits = load_digits()
x = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
y = digits.target.astype(np.int64)
x_train, y_train, x_test, y_test = x[:-360], y[:-360], x[-360:], y[-360:]


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = torch.nn.Conv2d(1, 32, 3, padding=1)
        self.c2 = torch.nn.Conv2d(32, 64, 3, padding=1)
        self.pool = torch.nn.MaxPool2d(2)
        self.f1 = torch.nn.Linear(64 * 4 * 4, 128)
        self.f2 = torch.nn.Linear(128, 10)

    def forward(self, t):
        t = torch.relu(self.c1(t))
        t = self.pool(torch.relu(self.c2(t)))
        t = torch.relu(self.f1(t.flatten(1)))
        return self.f2(t)


net = Net()
opt = torch.optim.Adam(net.parameters(), lr=2e-3)
xt, yt = torch.from_numpy(x_train), torch.from_numpy(y_train)
for epoch in range(15):
    perm = torch.randperm(len(xt))
    for i in range(0, len(xt), 64):
        idx = perm[i:i + 64]
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(net(xt[idx]), yt[idx])
        loss.backward()
        opt.step()
net.eval()
with torch.no_grad():
    acc = (net(torch.from_numpy(x_test)).argmax(1).numpy() == y_test).mean()
print(f"digits CNN: held-out top-1 accuracy {acc:.4f}", file=sys.stderr)

fp32 = os.path.join(out, "digits_fp32.onnx")
torch.onnx.export(net, torch.zeros(1, 1, 8, 8), fp32, input_names=["image"],
                  output_names=["logits"], opset_version=13,
                  dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
base = onnx.load(fp32)
base.producer_name = "mbench/models/make_digits.py"
onnx.save(base, fp32)
np.save(os.path.join(out, "digits_test.npy"), x_test)
np.save(os.path.join(out, "digits_labels.npy"), y_test)


def inits(model):
    return {t.name: t for t in model.graph.initializer}


# ---- fp16: every float initializer and value in float16 ---------------------
m = onnx.load(fp32)
g = m.graph
for t in g.initializer:
    if t.data_type == TensorProto.FLOAT:
        t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float16), t.name))
g.input[0].name = "image_fp32_in"
for n in g.node:
    n.input[:] = ["image16" if i == "image" else i for i in n.input]
    n.output[:] = ["logits16" if o == "logits" else o for o in n.output]
g.node.insert(0, helper.make_node("Cast", ["image_fp32_in"], ["image16"], to=TensorProto.FLOAT16))
g.node.append(helper.make_node("Cast", ["logits16"], ["logits"], to=TensorProto.FLOAT))
g.input[0].name = "image"
g.node[0].input[0] = "image"
del g.value_info[:]
onnx.checker.check_model(m)
onnx.save(m, os.path.join(out, "digits_fp16.onnx"))

# ---- pruned: zero the 50% smallest weights of every Conv/Gemm weight ---------
m = onnx.load(fp32)
for t in m.graph.initializer:
    a = numpy_helper.to_array(t)
    if a.ndim >= 2:
        thr = np.quantile(np.abs(a), 0.5)
        a = np.where(np.abs(a) < thr, 0, a).astype(a.dtype)
        t.CopyFrom(numpy_helper.from_array(a, t.name))
onnx.save(m, os.path.join(out, "digits_pruned.onnx"))

# ---- int8: static QDQ with activation ranges from calibration data ----------
calib = {}
hooks = []


def record(name):
    def hook(mod, inp, outp):
        for key, val in ((name + ":in", inp[0]), (name + ":out", outp)):
            lo, hi = float(val.min()), float(val.max())
            plo, phi = calib.get(key, (lo, hi))
            calib[key] = (min(lo, plo), max(hi, phi))
    return hook


for name, mod in net.named_children():
    hooks.append(mod.register_forward_hook(record(name)))
with torch.no_grad():
    net(torch.from_numpy(x_train[:512]))
for h in hooks:
    h.remove()

m = onnx.load(fp32)
g = m.graph
W = inits(m)
new_nodes, new_inits = [], []


def act_qparams(lo, hi):
    lo, hi = min(lo, 0.0), max(hi, 0.0)
    scale = (hi - lo) / 255.0 or 1.0
    zp = int(round(-lo / scale))
    return np.float32(scale), np.uint8(min(max(zp, 0), 255))


def qdq(tensor, lo, hi, tag):
    s, z = act_qparams(lo, hi)
    new_inits.extend([numpy_helper.from_array(np.array(s, np.float32), tag + "_s"),
                      numpy_helper.from_array(np.array(z, np.uint8), tag + "_z")])
    new_nodes.append(helper.make_node("QuantizeLinear", [tensor, tag + "_s", tag + "_z"], [tag + "_q"]))
    new_nodes.append(helper.make_node("DequantizeLinear", [tag + "_q", tag + "_s", tag + "_z"], [tag + "_dq"]))
    return tag + "_dq"


def qweight(name, axis):
    w = numpy_helper.to_array(W[name])
    red = tuple(i for i in range(w.ndim) if i != axis)
    s = np.maximum(np.abs(w).max(axis=red), 1e-8) / 127.0
    shape = [1] * w.ndim
    shape[axis] = -1
    q = np.clip(np.round(w / s.reshape(shape)), -127, 127).astype(np.int8)
    new_inits.extend([numpy_helper.from_array(q, name + "_q"),
                      numpy_helper.from_array(s.astype(np.float32), name + "_s"),
                      numpy_helper.from_array(np.zeros(s.shape, np.int8), name + "_z")])
    new_nodes.append(helper.make_node("DequantizeLinear", [name + "_q", name + "_s", name + "_z"],
                                      [name + "_dq"], axis=axis))
    return name + "_dq"


layer_of = {"Conv": None, "Gemm": None, "MatMul": None}
k = 0
for n in g.node:
    if n.op_type in ("Conv", "Gemm", "MatMul") and len(n.input) >= 2 and n.input[1] in W:
        # which torch module is this? match by weight name prefix (c1.weight, ...)
        mod = n.input[1].split(".")[0]
        lo, hi = calib.get(mod + ":in", (0.0, 1.0))
        x_in = qdq(n.input[0], lo, hi, f"act{k}")
        transB = any(a.name == "transB" and a.i == 1 for a in n.attribute)
        axis = 0 if n.op_type == "Conv" or (n.op_type == "Gemm" and transB) else 1
        w_in = qweight(n.input[1], axis)
        n.input[0] = x_in
        n.input[1] = w_in
        k += 1
    new_nodes.append(n)
del g.node[:]
g.node.extend(new_nodes)
keep = [t for t in g.initializer if not any(t.name == q.name[:-2] for q in new_inits if q.name.endswith("_q"))]
del g.initializer[:]
g.initializer.extend(keep + new_inits)
onnx.checker.check_model(m)
onnx.save(m, os.path.join(out, "digits_int8.onnx"))
print("wrote", out, file=sys.stderr)
