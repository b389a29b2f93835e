"""flax_model(): a Flax NNX network of _flax_nets as a pure function
apply(variables, x) with its variables (a nested dict of arrays), built at
random or from a torchvision state_dict.  Runs in the jax venv."""
import jax
import numpy as np
from flax import nnx
from flax import traverse_util

from . import _convert
from ._flax_nets import ARCHS


def _config(name, overrides):
    if name not in ARCHS:
        raise ValueError(f"flax:{name}: no such Flax model (use one of: "
                         + ", ".join(f"flax:{n}" for n in ARCHS) + ")")
    cls, cfg = ARCHS[name]
    unknown = sorted(set(overrides) - set(cfg))
    if unknown:
        raise ValueError(f"flax:{name}: unknown option {unknown[0]} (known: {', '.join(cfg)})")
    return cls, {**cfg, **overrides}


def _flat(tree):
    return {tuple(int(p) if isinstance(p, str) and p.isdigit() else p for p in k): v
            for k, v in traverse_util.flatten_dict(tree).items()}


class FlaxModel:
    """A Flax network as a pure function of its variables.

    m.apply(m.variables, x): x is NCHW float32 [B, 3, H, W] like torchvision's
    input, the result the logits [B, num_classes].  jax.jit(m.apply) compiles
    it; m(x) is that, jitted once, with m.variables bound.
    """

    def __init__(self, name, config, graphdef, abstract, variables):
        self.name = name
        self.config = config
        self._graphdef = graphdef
        self._abstract = abstract
        self._shapes = {p: (tuple(v.get_value().shape), v.type)
                        for p, v in nnx.to_flat_state(abstract)}
        self.variables = variables
        size = config["image_size"]
        self.input_shape = (3, size, size)
        self.param_count = sum(int(np.prod(s)) for s, t in self._shapes.values()
                               if issubclass(t, nnx.Param))
        self._jitted = None

    def check(self, variables):
        """Raises WeightsError unless variables has exactly this model's
        leaves with their shapes."""
        flat = _flat(variables)
        want = self._shapes
        missing = [p for p in want if p not in flat]
        extra = [p for p in flat if p not in want]
        if missing or extra:
            show = lambda ps: ", ".join("/".join(map(str, p)) for p in ps[:3])
            raise _convert.WeightsError(
                f"flax:{self.name}: the weights do not fit the model"
                + (f"; missing {len(missing)} ({show(missing)})" if missing else "")
                + (f"; unexpected {len(extra)} ({show(extra)})" if extra else ""))
        for p, a in flat.items():
            if tuple(np.shape(a)) != want[p][0]:
                raise _convert.WeightsError(
                    f"flax:{self.name}: {'/'.join(map(str, p))} has shape {list(np.shape(a))}, "
                    f"the model wants {list(want[p][0])}")

    def apply(self, variables, x):
        flat = _flat(variables)
        state = nnx.map_state(lambda p, v: v.replace(flat[p]), self._abstract)
        return nnx.merge(self._graphdef, state)(x)

    def __call__(self, x):
        if self._jitted is None:
            self._jitted = jax.jit(self.apply)
        return self._jitted(self.variables, x)

    def __repr__(self):
        return f"<FlaxModel flax:{self.name} {self.param_count} params, input {self.input_shape}>"


def random_variables(shapes, seed):
    """Random values for the leaves `shapes` ({path: (shape, Variable type)}),
    drawn in path order from numpy's Generator(seed), with torchvision's
    kinds of initialisation: convolutions He normal on fan-out (ResNet) or
    N(0, 1/fan_in) (ViT's patch projection), attention and MLP kernels
    Xavier uniform, positional embedding N(0, 0.02), the classifier head
    N(0, 1/fan_in) (torchvision's ViT head is zeros: every logit 0), biases
    and the class token 0, norm scales 1, BatchNorm statistics mean 0, var 1.
    """
    rng = np.random.default_rng(seed)
    normal = lambda shape, std: (std * rng.standard_normal(shape, dtype=np.float32))
    out = {}
    for path in sorted(shapes, key=lambda p: tuple(map(str, p))):
        shape, _ = shapes[path]
        leaf, owner = path[-1], path[-2] if len(path) > 1 else ""
        if leaf == "kernel" and len(shape) == 4:
            kh, kw, cin, cout = shape
            std = (1 / (kh * kw * cin)) ** 0.5 if owner == "conv_proj" else (2 / (kh * kw * cout)) ** 0.5
            a = normal(shape, std)
        elif leaf == "kernel" and owner in ("fc", "head"):
            a = normal(shape, shape[0] ** -0.5)
        elif leaf == "kernel":
            # Linear [in, out]; attention [D, heads, hd] or [heads, hd, D]
            fan_in = shape[0] if owner != "out" else shape[0] * shape[1]
            fan_out = int(np.prod(shape)) // fan_in
            bound = (6 / (fan_in + fan_out)) ** 0.5
            a = rng.uniform(-bound, bound, shape).astype(np.float32)
        elif leaf == "pos_embedding":
            a = normal(shape, 0.02)
        elif leaf in ("scale", "var"):
            a = np.ones(shape, np.float32)
        else:  # bias, mean, class_token
            a = np.zeros(shape, np.float32)
        out[path] = a
    return traverse_util.unflatten_dict(out)


def flax_model(name, weights=None, seed=0, **config):
    """flax:NAME (resnet50, vit_b_16) with random weights from `seed`, or the
    weights of a torchvision state_dict: a .npz path or a dict name -> array.
    config overrides the architecture (reduced sizes for tests)."""
    name = name.split(":", 1)[1] if name.startswith("flax:") else name
    cls, cfg = _config(name, config)
    # Abstract: shapes only, no values computed (the modules create zeros).
    graphdef, abstract = nnx.split(nnx.eval_shape(lambda: cls(**cfg, rngs=nnx.Rngs(0))))
    m = FlaxModel(name, cfg, graphdef, abstract, None)
    if weights is None:
        variables = random_variables(m._shapes, seed)
    else:
        sd = weights if isinstance(weights, dict) else _convert.load_npz(weights)
        try:
            variables = _convert.torch_to_flax(name, sd, **cfg)
        except _convert.WeightsError as e:
            where = "" if isinstance(weights, dict) else f" ({weights})"
            raise _convert.WeightsError(f"flax:{name}: the weights{where} do not fit: {e}") from None
        m.check(variables)
    m.variables = jax.tree.map(jax.numpy.asarray, variables)
    return m
