"""torchvision_model(): any torchvision classifier, random but sane, or with
the weights of a .npz.  Runs in the torch venv (Debian's torch 1.13,
torchvision 0.14, numpy 1).  Never downloads weights.

A randomly initialised torchvision classifier is a poor benchmark subject
as it comes: its BatchNorm layers hold running mean 0 and variance 1, so in
eval mode they normalise nothing and the scale of the activations drifts
layer by layer (on [0,1) inputs, seed 0: inception_v3's logits reach 1e12,
mobilenet_v3_small's 1e-9, efficientnet_b0's 1e-14), and some heads are all
zeros (vit_b_16's: every output is exactly 0, so any two frameworks
"agree").  So, after torchvision's own initialisation from
torch.manual_seed(seed):

0. ResNet blocks (resnet*, resnext*, wide_resnet*): the BatchNorm that ends
   each residual branch gets scale RESIDUAL_SCALE (0.2) instead of 1.  With
   1, every block adds a unit-variance branch to the stream and the random
   network amplifies rounding: resnet50's float32 logits differed from
   float64 by 3.0e-5 of their scale, so torch and its ONNX export (two
   float32 implementations) differed by 9.5e-5, at the issue's 1e-4 bound
   for no fault of either; with 0.5: 6.1e-6, 0.2: 9.9e-7, 0 (torchvision's
   zero_init_residual, where every block is the identity): 8.6e-7.
1. BatchNorm recalibration: the BatchNorm layers alone are put in training
   mode with a cumulative average (momentum None) and fresh statistics, and
   the model runs without gradients on CALIB_BATCHES batches of CALIB_BATCH
   inputs drawn uniformly from [0, 1) (what mbench feeds by default) from a
   generator seeded with `seed`.  The running statistics then are those of
   the data the model will see, and eval mode normalises each layer.
2. The head (the last Linear, or the last Conv2d when there is none, e.g.
   squeezenet) gets N(0, 1) weights and zero bias, then its weights are
   divided by the standard deviation of the logits on one more such batch:
   the logits have unit scale on the data mbench feeds, neither ~0 nor
   exploding, whatever the depth or the normalisation of the network.

Every step uses only seeded generators, so a seed names one model (up to
floating-point reduction order across thread counts).
"""
import difflib
import math
import warnings

import numpy as np
import torch
import torchvision

from . import _convert

CALIB_BATCHES = 2
CALIB_BATCH = 4
RESIDUAL_SCALE = 0.2
# Spatial sizes: the architectures with position embeddings or fixed
# windows over the whole image take only the size they were built for;
# the others (global average pooling before the head) any size from their
# smallest up (torchvision 0.14, tried at 16, 32, 63, 64, 75, 100, 224).
FIXED_SIZE = ("vit_", "maxvit_")
MIN_SIDE = {"inception_v3": 75, "alexnet": 63}
DEFAULT_MIN_SIDE = 32


def classifiers():
    """The names of torchvision's image classifiers."""
    return sorted(torchvision.models.list_models(module=torchvision.models))


def _check_name(name):
    names = classifiers()
    if name not in names:
        near = difflib.get_close_matches(name, names, n=3)
        hint = f"did you mean {', '.join(near)}?" if near else f"one of {', '.join(names[:6])}, ..."
        raise ValueError(f"torchvision:{name}: not a torchvision classifier ({hint})")


def input_shape(name):
    """(3, S, S): the crop size torchvision's weights for NAME were trained at
    (224 for most, 299 for inception_v3), read from the weights' metadata -
    nothing is downloaded."""
    try:
        tf = torchvision.models.get_model_weights(name).DEFAULT.transforms
        size = tf.keywords["crop_size"]
    except Exception:
        size = 224
    return (3, int(size), int(size))


def spatial(name):
    """(flexible, smallest side): whether torchvision:NAME takes images of
    other sizes than input_shape's, and the smallest it takes."""
    if name.startswith(FIXED_SIZE):
        return False, input_shape(name)[1]
    return True, MIN_SIDE.get(name, DEFAULT_MIN_SIDE)


def _head(model):
    last = None
    for m in model.modules():
        if isinstance(m, torch.nn.Linear):
            last = m
    if last is None:
        for m in model.modules():
            if isinstance(m, torch.nn.Conv2d):
                last = m
    return last


def _scale_residuals(model):
    """Step 0: the last BatchNorm of every torchvision ResNet block gets
    scale RESIDUAL_SCALE (see the module docstring)."""
    from torchvision.models.resnet import BasicBlock, Bottleneck
    with torch.no_grad():
        for m in model.modules():
            if isinstance(m, Bottleneck):
                m.bn3.weight.fill_(RESIDUAL_SCALE)
            elif isinstance(m, BasicBlock):
                m.bn2.weight.fill_(RESIDUAL_SCALE)


def sanitize(model, seed, shape):
    """Steps 1 and 2 of the module docstring; returns model in eval mode."""
    g = torch.Generator().manual_seed(seed)
    _scale_residuals(model)
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    model.eval()
    with torch.no_grad():
        if bns:
            saved = [m.momentum for m in bns]
            for m in bns:
                m.reset_running_stats()
                m.momentum = None
                m.train()
            for _ in range(CALIB_BATCHES):
                model(torch.rand((CALIB_BATCH,) + tuple(shape), generator=g))
            for m, mom in zip(bns, saved):
                m.momentum = mom
                m.eval()
        head = _head(model)
        if head is not None:
            head.weight.copy_(torch.randn(head.weight.shape, generator=g))
            if head.bias is not None:
                head.bias.zero_()
            y = model(torch.rand((CALIB_BATCH,) + tuple(shape), generator=g))
            y = y.logits if hasattr(y, "logits") else y
            s = float(y.float().std())
            if math.isfinite(s) and s > 0:
                head.weight.div_(s)
    return model.eval()


def load_state_dict(model, arrays, what):
    """Loads a state_dict of numpy arrays, with a one-line error naming the
    first key or shape that does not fit."""
    own = model.state_dict()
    missing = [k for k in own if k not in arrays]
    extra = [k for k in arrays if k not in own]
    if missing or extra:
        raise _convert.WeightsError(
            f"{what}: the weights do not fit the model"
            + (f"; missing {len(missing)} ({', '.join(missing[:3])})" if missing else "")
            + (f"; unexpected {len(extra)} ({', '.join(extra[:3])})" if extra else ""))
    sd = {}
    for k, t in own.items():
        a = np.asarray(arrays[k])
        if tuple(a.shape) != tuple(t.shape):
            raise _convert.WeightsError(f"{what}: {k} has shape {list(a.shape)}, "
                                        f"the model wants {list(t.shape)}")
        sd[k] = torch.from_numpy(np.array(a, dtype=np.dtype(str(t.dtype).split(".")[-1])))
    model.load_state_dict(sd)
    return model


def torchvision_model(name, weights=None, seed=0, **config):
    """torchvision:NAME in eval mode: random (seeded, sanitised as the module
    docstring says) or with the weights of a .npz state_dict (a path) or a
    dict name -> numpy array.  config goes to torchvision's constructor."""
    name = name.split(":", 1)[1] if name.startswith("torchvision:") else name
    _check_name(name)
    torch.manual_seed(seed)
    with warnings.catch_warnings():
        # googlenet and inception_v3 warn that their default init will change
        warnings.filterwarnings("ignore", message="The default weight initialization")
        model = torchvision.models.get_model(name, weights=None, **config)
    shape = input_shape(name)
    if config.get("image_size"):
        shape = (3, int(config["image_size"]), int(config["image_size"]))
    if weights is None:
        sanitize(model, seed, shape)
    else:
        arrays = weights if isinstance(weights, dict) else _convert.load_npz(weights)
        load_state_dict(model, arrays, f"torchvision:{name}")
    model.eval()
    model.input_shape = shape
    model.input_flexible, model.input_min_side = spatial(name)
    if config.get("image_size"):
        model.input_flexible = False  # a ViT built for another size
    return model


def state_dict_arrays(model):
    """The model's state_dict as numpy arrays (for a .npz)."""
    return {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}
