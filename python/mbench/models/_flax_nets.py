"""resnet50 and vit_b_16 in Flax NNX, with torchvision's architecture.

Only the jax venv imports this module (jax, flax, numpy 2; no torch).

Why NNX: it is the API Flax 0.12 recommends and develops (its documentation
site and new features; Linen is kept working but frozen), and nnx.split /
nnx.merge give the functional form the rest of mbench wants - one pytree of
arrays (`variables`) and a pure function `apply(variables, x)` that jax.jit
compiles - with the modules written as plain Python objects.

Conventions copied from torchvision (so that the same weights give the same
function, see convert.py):
- input NCHW float32 [B, 3, H, W]; transposed to NHWC inside the function;
- ResNet v1.5: the stride of a bottleneck is on its 3x3 convolution, explicit
  symmetric padding (7x7: 3, 3x3: 1, max pool 3x3/2 padded with -inf by 1),
  convolutions without bias, BatchNorm eps 1e-5 with running statistics;
- ViT: 16x16/16 patch convolution, class token prepended, learned positional
  embedding, pre-norm encoder blocks (LayerNorm eps 1e-6, multi-head self
  attention, MLP with exact erf GELU), a final LayerNorm, the linear head
  on the class token.
"""
import jax
import jax.numpy as jnp
from flax import nnx

RESNET50 = dict(layers=(3, 4, 6, 3), num_classes=1000, image_size=224)
VIT_B_16 = dict(image_size=224, patch_size=16, num_layers=12, num_heads=12,
                hidden_dim=768, mlp_dim=3072, num_classes=1000)

# Every variable is created zero (or one, for norm scales and variances):
# the modules only describe the architecture and are only ever built
# abstractly (nnx.eval_shape, cheap); the values come from a torchvision
# state_dict or from _flax_model.random_variables (numpy, one pass, no
# per-shape XLA compiles - Flax's own initialisers took ~40 s to build a
# random vit_b_16 on the loaded 2-CPU machine).
_zeros = nnx.initializers.zeros_init()


def _conv(cin, cout, k, stride, pad, rngs, bias=False):
    return nnx.Conv(cin, cout, (k, k), (stride, stride), padding=((pad, pad), (pad, pad)),
                    use_bias=bias, kernel_init=_zeros, rngs=rngs)


def _bn(c, rngs):
    return nnx.BatchNorm(c, use_running_average=True, epsilon=1e-5, rngs=rngs)


class Bottleneck(nnx.Module):
    """torchvision.models.resnet.Bottleneck (expansion 4, stride on conv2)."""

    def __init__(self, cin, planes, stride, rngs):
        cout = planes * 4
        self.conv1 = _conv(cin, planes, 1, 1, 0, rngs)
        self.bn1 = _bn(planes, rngs)
        self.conv2 = _conv(planes, planes, 3, stride, 1, rngs)
        self.bn2 = _bn(planes, rngs)
        self.conv3 = _conv(planes, cout, 1, 1, 0, rngs)
        self.bn3 = _bn(cout, rngs)
        if stride != 1 or cin != cout:
            self.downsample = nnx.List([_conv(cin, cout, 1, stride, 0, rngs), _bn(cout, rngs)])
        else:
            self.downsample = nnx.data(None)

    def __call__(self, x):
        y = nnx.relu(self.bn1(self.conv1(x)))
        y = nnx.relu(self.bn2(self.conv2(y)))
        y = self.bn3(self.conv3(y))
        if self.downsample is not None:
            x = self.downsample[1](self.downsample[0](x))
        return nnx.relu(y + x)


class ResNet(nnx.Module):
    """torchvision.models.ResNet with Bottleneck blocks (resnet50: 3,4,6,3)."""

    def __init__(self, layers=RESNET50["layers"], num_classes=1000, *, rngs, **_):
        self.conv1 = _conv(3, 64, 7, 2, 3, rngs)
        self.bn1 = _bn(64, rngs)
        cin = 64
        for i, (n, planes) in enumerate(zip(layers, (64, 128, 256, 512))):
            blocks = []
            for j in range(n):
                blocks.append(Bottleneck(cin, planes, 2 if (j == 0 and i > 0) else 1, rngs))
                cin = planes * 4
            setattr(self, f"layer{i + 1}", nnx.List(blocks))
        self.fc = nnx.Linear(cin, num_classes, kernel_init=_zeros, rngs=rngs)

    def __call__(self, x):
        x = jnp.transpose(x, (0, 2, 3, 1))  # NCHW (torchvision) -> NHWC (XLA's conv)
        x = nnx.relu(self.bn1(self.conv1(x)))
        x = nnx.max_pool(x, (3, 3), strides=(2, 2), padding=((1, 1), (1, 1)))
        for stage in (self.layer1, self.layer2, self.layer3, self.layer4):
            for block in stage:
                x = block(x)
        return self.fc(jnp.mean(x, axis=(1, 2)))


class EncoderBlock(nnx.Module):
    """torchvision.models.vision_transformer.EncoderBlock (pre-norm)."""

    def __init__(self, hidden_dim, num_heads, mlp_dim, rngs):
        self.ln_1 = nnx.LayerNorm(hidden_dim, epsilon=1e-6, rngs=rngs)
        self.self_attention = nnx.MultiHeadAttention(
            num_heads, hidden_dim, kernel_init=_zeros, decode=False, deterministic=True,
            dropout_rate=0.0, keep_rngs=False, rngs=rngs)
        self.ln_2 = nnx.LayerNorm(hidden_dim, epsilon=1e-6, rngs=rngs)
        self.fc1 = nnx.Linear(hidden_dim, mlp_dim, kernel_init=_zeros, rngs=rngs)
        self.fc2 = nnx.Linear(mlp_dim, hidden_dim, kernel_init=_zeros, rngs=rngs)

    def __call__(self, x):
        y = self.ln_1(x)
        x = x + self.self_attention(y)
        y = self.ln_2(x)
        y = self.fc2(jax.nn.gelu(self.fc1(y), approximate=False))  # torch's GELU is erf
        return x + y


class VisionTransformer(nnx.Module):
    """torchvision.models.VisionTransformer (vit_b_16: 224/16, 12x768, 12 heads)."""

    def __init__(self, image_size=224, patch_size=16, num_layers=12, num_heads=12,
                 hidden_dim=768, mlp_dim=3072, num_classes=1000, *, rngs):
        if image_size % patch_size:
            raise ValueError(f"image_size {image_size} is not a multiple of patch_size {patch_size}")
        self.patch_size = patch_size
        self.conv_proj = nnx.Conv(3, hidden_dim, (patch_size, patch_size), (patch_size, patch_size),
                                  padding="VALID", kernel_init=_zeros, rngs=rngs)
        seq = (image_size // patch_size) ** 2 + 1
        self.class_token = nnx.Param(jnp.zeros((1, 1, hidden_dim), jnp.float32))
        self.pos_embedding = nnx.Param(jnp.zeros((1, seq, hidden_dim), jnp.float32))
        self.layers = nnx.List([EncoderBlock(hidden_dim, num_heads, mlp_dim, rngs)
                                for _ in range(num_layers)])
        self.ln = nnx.LayerNorm(hidden_dim, epsilon=1e-6, rngs=rngs)
        self.head = nnx.Linear(hidden_dim, num_classes, kernel_init=_zeros, rngs=rngs)

    def __call__(self, x):
        x = jnp.transpose(x, (0, 2, 3, 1))
        x = self.conv_proj(x)  # [B, H/p, W/p, D]; torchvision flattens (h, w) row-major too
        b, h, w, d = x.shape
        x = x.reshape(b, h * w, d)
        cls = jnp.broadcast_to(self.class_token[...], (b, 1, d))
        x = jnp.concatenate([cls, x], axis=1) + self.pos_embedding[...]
        for layer in self.layers:
            x = layer(x)
        return self.head(self.ln(x)[:, 0])


ARCHS = {"resnet50": (ResNet, RESNET50), "vit_b_16": (VisionTransformer, VIT_B_16)}
