#!/usr/bin/python3
"""Builds the Fashion-MNIST CNN that bench/loadgen.sh and bench/load.sh serve.

A small CNN (two 3x3 convolutions with max pooling, two dense layers) is
trained for one pass over 20,000 images of the real Fashion-MNIST training
set (Debian's dataset-fashion-mnist, /usr/share/datasets/fashion-mnist) and
exported to ONNX with a dynamic batch dimension.  About 56 us per inference
on one core of this machine: a model whose service time is short enough
that the serving harness's own delays show in its tail.

  OUTDIR/fashion_cnn.onnx      input "image" float32 [batch, 1, 28, 28]
  OUTDIR/fashion_test.npy      the first 1,000 test images (0..1)
  OUTDIR/fashion_labels.npy    their labels (int64)

Usage: /usr/bin/python3 bench/models/make_fashion.py OUTDIR
Exit 77 (skip) when the data set or torch is missing.  Deterministic:
fixed seeds, one thread.
"""
import gzip
import os
import sys

DATA = os.environ.get("MBENCH_FASHION_DIR", "/usr/share/datasets/fashion-mnist")


def idx(path):
    with gzip.open(path, "rb") as f:
        raw = f.read()
    ndim = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    import numpy as np
    return np.frombuffer(raw, dtype=np.uint8, offset=4 + 4 * ndim).reshape(dims)


def main():
    if len(sys.argv) != 2:
        print("usage: make_fashion.py OUTDIR", file=sys.stderr)
        return 2
    out = sys.argv[1]
    need = ["train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz",
            "t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"]
    if not all(os.path.exists(os.path.join(DATA, n)) for n in need):
        print(f"make_fashion.py: no Fashion-MNIST in {DATA} "
              "(apt-get install dataset-fashion-mnist)", file=sys.stderr)
        return 77
    try:
        import numpy as np
        import torch
    except ImportError as e:
        print(f"make_fashion.py: {e} (Debian's python3-torch)", file=sys.stderr)
        return 77
    os.makedirs(out, exist_ok=True)
    torch.manual_seed(0)
    torch.set_num_threads(1)
    xtr = idx(os.path.join(DATA, need[0]))[:20000].astype(np.float32)[:, None] / 255
    ytr = idx(os.path.join(DATA, need[1]))[:20000].astype(np.int64)
    xte = idx(os.path.join(DATA, need[2]))[:1000].astype(np.float32)[:, None] / 255
    yte = idx(os.path.join(DATA, need[3]))[:1000].astype(np.int64)

    net = torch.nn.Sequential(
        torch.nn.Conv2d(1, 16, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(16, 32, 3, padding=1), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(32 * 7 * 7, 64), torch.nn.ReLU(),
        torch.nn.Linear(64, 10))
    opt = torch.optim.Adam(net.parameters(), lr=2e-3)
    xt, yt = torch.from_numpy(xtr), torch.from_numpy(ytr)
    perm = torch.randperm(len(xt))
    for i in range(0, len(xt), 64):
        b = perm[i:i + 64]
        opt.zero_grad()
        torch.nn.functional.cross_entropy(net(xt[b]), yt[b]).backward()
        opt.step()
    net.eval()
    with torch.no_grad():
        acc = (net(torch.from_numpy(xte)).argmax(1).numpy() == yte).mean()
    print(f"fashion CNN: top-1 accuracy {acc:.3f} on 1000 test images", file=sys.stderr)
    path = os.path.join(out, "fashion_cnn.onnx")
    torch.onnx.export(net, torch.zeros(1, 1, 28, 28), path, input_names=["image"],
                      output_names=["logits"], opset_version=13,
                      dynamic_axes={"image": {0: "batch"}, "logits": {0: "batch"}})
    np.save(os.path.join(out, "fashion_test.npy"), xte)
    np.save(os.path.join(out, "fashion_labels.npy"), yte)
    print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
