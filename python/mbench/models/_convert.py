"""torchvision state_dict (numpy arrays) -> the Flax NNX variables of
_flax_nets, and the .npz files that carry a state_dict between the torch and
the jax environments.  numpy only: runs in either venv.

The rules (torch -> Flax):
- Conv2d weight [O, I, kH, kW] -> Conv kernel [kH, kW, I, O];
- Linear weight [out, in] -> Linear kernel [in, out];
- BatchNorm weight/bias/running_mean/running_var -> scale/bias/mean/var
  (num_batches_tracked is a training counter: dropped);
- LayerNorm weight/bias -> scale/bias;
- MultiheadAttention in_proj_weight [3D, D] (rows q, k, v) -> query/key/value
  kernels [D, heads, D/heads], in_proj_bias -> biases [heads, D/heads];
  out_proj.weight [D, D] -> out kernel [heads, D/heads, D];
- ViT: class_token as is, encoder.pos_embedding -> pos_embedding,
  encoder.layers.encoder_layer_N -> layers/N, mlp.0/mlp.3 -> fc1/fc2,
  encoder.ln -> ln, heads.head -> head.
"""
import os
import zipfile

import numpy as np

MAX_NPZ_ENTRIES = 100000   # a bound on what an untrusted file can make us allocate


class WeightsError(ValueError):
    """A weights file or state_dict that does not fit the model."""


def load_npz(path):
    """The arrays of a .npz (no pickles) as a dict name -> numpy array."""
    path = os.fspath(path)
    try:
        with np.load(path, allow_pickle=False) as z:
            if len(z.files) > MAX_NPZ_ENTRIES:
                raise WeightsError(f"{path}: {len(z.files)} arrays, more than {MAX_NPZ_ENTRIES}")
            return {k: z[k] for k in z.files}
    except FileNotFoundError:
        raise WeightsError(f"{path}: no such weights file (make one with "
                           "`python -m mbench.models export torchvision:NAME OUT.npz`)") from None
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as e:
        if isinstance(e, WeightsError):
            raise
        raise WeightsError(f"{path}: not a .npz of arrays ({e}); make one with "
                           "`python -m mbench.models export torchvision:NAME OUT.npz`") from None


def save_npz(path, arrays):
    """Writes arrays to path through a temporary file in the same directory,
    so that a failed write leaves no half file under the name."""
    path = os.fspath(path)
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _set(tree, path, value):
    for p in path[:-1]:
        tree = tree.setdefault(p, {})
    if path[-1] in tree:
        raise WeightsError(f"two state_dict entries map to {'/'.join(map(str, path))}")
    tree[path[-1]] = value


def _f32(a):
    return np.ascontiguousarray(np.asarray(a, dtype=np.float32))


def _leaf(last, a):
    """(flax leaf name, array) for a plain torch parameter/buffer name, or None
    to drop it."""
    if last == "num_batches_tracked":
        return None
    if last == "weight":
        if a.ndim == 4:
            return "kernel", _f32(a).transpose(2, 3, 1, 0)
        if a.ndim == 2:
            return "kernel", _f32(a).T
        if a.ndim == 1:
            return "scale", _f32(a)
    if last == "bias":
        return "bias", _f32(a)
    if last == "running_mean":
        return "mean", _f32(a)
    if last == "running_var":
        return "var", _f32(a)
    raise WeightsError(f"unexpected parameter '{last}' of shape {list(a.shape)}")


def _path(key):
    return tuple(int(p) if p.isdigit() else p for p in key.split("."))


def resnet_to_flax(state_dict):
    tree = {}
    for key, a in state_dict.items():
        a = np.asarray(a)
        *mods, last = _path(key)
        leaf = _leaf(last, a)
        if leaf is not None:
            _set(tree, tuple(mods) + (leaf[0],), leaf[1])
    return tree


def _attention(tree, base, last, a, num_heads):
    d = a.shape[-1] if last.endswith("weight") else a.shape[0] // (3 if "in_proj" in last else 1)
    if d % num_heads:
        raise WeightsError(f"attention width {d} is not a multiple of {num_heads} heads")
    hd = d // num_heads
    a = _f32(a)
    if last == "in_proj_weight":
        for name, w in zip(("query", "key", "value"), np.split(a, 3, axis=0)):
            _set(tree, base + (name, "kernel"), np.ascontiguousarray(w.T.reshape(d, num_heads, hd)))
    elif last == "in_proj_bias":
        for name, b in zip(("query", "key", "value"), np.split(a, 3)):
            _set(tree, base + (name, "bias"), b.reshape(num_heads, hd))
    elif last == "out_proj.weight":
        _set(tree, base + ("out", "kernel"), np.ascontiguousarray(a.T.reshape(num_heads, hd, d)))
    elif last == "out_proj.bias":
        _set(tree, base + ("out", "bias"), a)
    else:
        raise WeightsError(f"unexpected attention parameter '{last}'")


def vit_to_flax(state_dict, num_heads):
    tree = {}
    for key, a in state_dict.items():
        a = np.asarray(a)
        if key == "class_token":
            _set(tree, ("class_token",), _f32(a))
            continue
        if key == "encoder.pos_embedding":
            _set(tree, ("pos_embedding",), _f32(a))
            continue
        parts = key.split(".")
        if parts[0] == "encoder" and parts[1] == "layers":
            i = parts[2].rsplit("_", 1)[-1]
            if not parts[2].startswith("encoder_layer_") or not i.isdigit():
                raise WeightsError(f"unexpected ViT encoder layer name '{key}'")
            base = ("layers", int(i))
            sub = parts[3]
            if sub == "self_attention":
                _attention(tree, base + ("self_attention",), ".".join(parts[4:]), a, num_heads)
                continue
            if sub == "mlp":
                mods = base + ({"0": "fc1", "3": "fc2"}.get(parts[4], f"mlp.{parts[4]}"),)
            else:
                mods = base + (sub,)
            last = parts[-1]
        elif parts[:2] == ["encoder", "ln"]:
            mods, last = ("ln",), parts[-1]
        elif parts[:2] == ["heads", "head"]:
            mods, last = ("head",), parts[-1]
        elif parts[0] == "conv_proj":
            mods, last = ("conv_proj",), parts[-1]
        else:
            raise WeightsError(f"unexpected ViT parameter '{key}' (not torchvision's VisionTransformer?)")
        leaf = _leaf(last, a)
        if leaf is not None:
            _set(tree, mods + (leaf[0],), leaf[1])
    return tree


def torch_to_flax(name, state_dict, **config):
    """The Flax variables (nested dict of float32 numpy arrays) of flax:NAME
    holding the weights of torchvision's NAME state_dict (name -> array)."""
    name = name.split(":", 1)[1] if ":" in name else name
    if name == "resnet50":
        return resnet_to_flax(state_dict)
    if name == "vit_b_16":
        return vit_to_flax(state_dict, int(config.get("num_heads", 12)))
    raise WeightsError(f"no Flax twin for torchvision:{name} (there are: resnet50, vit_b_16)")
