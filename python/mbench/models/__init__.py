"""Built-in models for framework variants: torchvision classifiers and Flax
twins of two of them, written here with torchvision's architecture.

    torchvision_model("resnet50", weights=None, seed=0)  # torch venv: nn.Module, eval mode
    flax_model("resnet50", weights=None, seed=0)         # jax venv: .apply(variables, x)
    torch_to_flax("resnet50", state_dict)                # either venv (numpy only)

    python -m mbench.models export torchvision:resnet50 w.npz [--seed S]   # torch venv

`weights="w.npz"` (a torchvision state_dict as arrays) on both builders gives
both the same function, so that `mbench compare
torch=torchvision:resnet50,weights=w.npz jax=flax:resnet50,weights=w.npz`
can check their agreement (docs/FRAMEWORKS.md).

Importing this package imports neither torch nor jax: each lives in its own
venv, and the functions import what they need when called.
"""

FLAX_MODELS = ("resnet50", "vit_b_16")
# torchvision's own parameter counts (sum of p.numel() over parameters()).
PARAM_COUNTS = {"resnet50": 25557032, "vit_b_16": 86567656}

__all__ = ["torchvision_model", "flax_model", "torch_to_flax", "export", "WeightsError",
           "FLAX_MODELS", "PARAM_COUNTS"]

from ._convert import WeightsError  # numpy only


def _value(v):
    """A string option (a model spec's `,key=value`) as the int, float or bool
    it spells; `layers=3-4-6-3` (digits joined by - or /) as a tuple."""
    if not isinstance(v, str):
        return v
    low = v.strip().lower()
    if low in ("true", "false"):
        return low == "true"
    for conv in (int, float):
        try:
            return conv(v)
        except ValueError:
            pass
    parts = v.replace("/", "-").split("-")
    if len(parts) > 1 and all(p.isdigit() for p in parts):
        return tuple(int(p) for p in parts)
    return v


def _options(config):
    return {k: _value(v) for k, v in config.items()}


def torchvision_model(name, weights=None, seed=0, **config):
    """torchvision:NAME (any torchvision classifier) as a torch.nn.Module in
    eval mode: random from `seed` with BatchNorm recalibrated on random data
    and a N(0, 1/fan_in) head (see _torchvision.py for why), or with the
    weights of a .npz state_dict.  Never downloads weights."""
    from ._torchvision import torchvision_model as f
    return f(name, weights=weights, seed=int(seed), **_options(config))


def flax_model(name, weights=None, seed=0, **config):
    """flax:resnet50 or flax:vit_b_16: an object with .apply(variables, x)
    (x NCHW float32 [B,3,224,224], result [B,1000]), .variables,
    .input_shape and .param_count; random from `seed` or with the weights of
    a torchvision state_dict (.npz path or dict).  config overrides the
    architecture (resnet50: layers=3-4-6-3, num_classes, image_size; vit_b_16:
    image_size, patch_size, num_layers, num_heads, hidden_dim, mlp_dim,
    num_classes), e.g. reduced sizes for tests; strings are read as numbers."""
    from ._flax_model import flax_model as f
    return f(name, weights=weights, seed=int(seed), **_options(config))


def torch_to_flax(name, state_dict, **config):
    """The Flax variables of flax:NAME from torchvision NAME's state_dict
    (name -> numpy array); config: num_heads for a reduced ViT."""
    from ._convert import torch_to_flax as f
    return f(name, state_dict, **_options(config))


def export(spec, out, seed=0, force=False):
    """Writes the state_dict of torchvision:NAME (random from seed, as
    torchvision_model makes it) to the .npz `out`; returns the model."""
    from ._export import export as f
    return f(spec, out, seed=seed, force=force)
