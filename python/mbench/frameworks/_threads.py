"""--threads for every framework, set before the frameworks are imported.

- OpenMP, OpenBLAS and MKL read their thread counts from the environment
  when they load: OMP_NUM_THREADS, OPENBLAS_NUM_THREADS and MKL_NUM_THREADS
  are set to N before anything imports numpy, torch or jax.
- torch: torch.set_num_threads(N) (the adapter; inter-threads ->
  torch.set_num_interop_threads).
- XLA (JAX on CPU) sizes its intra-op pool from the CPUs the process may
  run on when its CPU client is created (sched_getaffinity); the XLA_FLAGS
  intra_op_parallelism_threads / --xla_cpu_multi_thread_eigen=false recipe
  has no effect on jaxlib 0.10 (four threads stay busy on a 2-core machine).
  So the process is restricted to N of its CPUs until the model's first
  prepare (the client exists by then: the inputs were put on the device),
  and then every thread gets the whole set back, so that the OS still
  places them freely.
"""
import os

from ._errors import SpecError

_saved = None  # the affinity to give back, while restricted


def parse(name, value):
    """An int option >= 0 (0 = the framework's default), or 0 when unset."""
    if value is None or value == "":
        return 0
    try:
        n = int(value)
    except ValueError:
        n = -1
    if n < 0 or n > 4096:
        raise SpecError(f"invalid {name} '{value}': expected an integer from "
                        f"0 (the framework's default) to 4096")
    return n


def default_threads():
    """The intra-op threads every framework gets when --threads is not
    given: the physical cores among the CPUs this process may run on (what
    ONNX Runtime, LibTorch and OpenVINO default to), so that torch and XLA
    (whose own defaults differ: Debian's torch 1.13 takes 1 here, XLA every
    CPU) are compared at the same count."""
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1
    cores = set()
    for c in cpus:
        base = f"/sys/devices/system/cpu/cpu{c}/topology/"
        try:
            with open(base + "physical_package_id") as f:
                pkg = f.read().strip()
            with open(base + "core_id") as f:
                core = f.read().strip()
        except OSError:
            return len(cpus)
        cores.add((pkg, core))
    return max(1, len(cores))


def before_imports(threads):
    """Environment and affinity for `threads` intra-op threads (0: leave the
    defaults)."""
    global _saved
    if threads <= 0:
        return
    for var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = str(threads)
    try:
        cpus = sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return
    if threads < len(cpus):
        _saved = set(cpus)
        os.sched_setaffinity(0, set(cpus[:threads]))


def restore():
    """Gives every thread of the process the CPUs it had before
    before_imports (thread pools made meanwhile keep their size)."""
    global _saved
    if _saved is None:
        return
    cpus, _saved = _saved, None
    try:
        tids = os.listdir("/proc/self/task")
    except OSError:
        tids = ["0"]
    for tid in tids:
        try:
            os.sched_setaffinity(int(tid), cpus)
        except OSError:
            pass  # the thread ended meanwhile


def restricted():
    return _saved is not None
