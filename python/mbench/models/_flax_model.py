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


def flax_model(name, weights=None, seed=0, **config):
    """flax:NAME (resnet50, vit_b_16) with random weights from `seed`, or the
    weights of a torchvision state_dict: a .npz path or a dict name -> array.
    config overrides the architecture (reduced sizes for tests)."""
    cls, cfg = _config(name, config)
    build = lambda: cls(**cfg, rngs=nnx.Rngs(seed))
    graphdef, abstract = nnx.split(nnx.eval_shape(build))
    if weights is None:
        return FlaxModel(name, cfg, graphdef, abstract, nnx.to_pure_dict(nnx.state(build())))
    sd = _convert.load_npz(weights) if not isinstance(weights, dict) else weights
    variables = _convert.torch_to_flax(name, sd, **cfg)
    m = FlaxModel(name, cfg, graphdef, abstract, None)
    m.check(variables)
    m.variables = jax.tree.map(jax.numpy.asarray, variables)
    return m
