"""python -m mbench.models export: a torchvision model's state_dict as .npz."""
import os

from ._convert import save_npz


class ExportError(Exception):
    pass


def export(spec, out, seed=0, force=False):
    if not spec.startswith("torchvision:"):
        raise ExportError(f"{spec}: export takes torchvision:NAME (e.g. torchvision:resnet50)")
    if os.path.exists(out) and not force:
        raise ExportError(f"{out} exists; choose another name or pass --force to replace it")
    from ._torchvision import torchvision_model, state_dict_arrays
    model = torchvision_model(spec, seed=seed)
    save_npz(out, state_dict_arrays(model))
    return model
