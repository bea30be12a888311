"""ember.nn.init: in-place initialisers (run without recording a graph); each returns its tensor."""
import math
import warnings

from .. import _C
from .. import no_grad as _no_grad


def calculate_gain(nonlinearity, param=None):
    """The factor that keeps activations' variance steady through the given nonlinearity."""
    linear_like = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                   "conv_transpose3d", "sigmoid")
    if nonlinearity in linear_like:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"[calculate_gain] negative_slope {param} is not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"[calculate_gain] unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor):
    if tensor.dim() < 2:
        raise ValueError("[init] fan in and fan out can not be computed for a tensor with fewer than 2 dimensions")
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.size(1) * receptive, tensor.size(0) * receptive


def _fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"[init] mode {mode} is not supported, use fan_in or fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor, a=0.0, b=1.0, generator=None):
    with _no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(tensor, mean=0.0, std=1.0, generator=None):
    with _no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor, val):
    with _no_grad():
        return tensor.fill_(val)


def zeros_(tensor):
    with _no_grad():
        return tensor.zero_()


def ones_(tensor):
    with _no_grad():
        return tensor.fill_(1.0)


def eye_(tensor):
    if tensor.dim() != 2:
        raise ValueError("[eye_] only tensors with 2 dimensions are supported")
    with _no_grad():
        return tensor.copy_(_C.eye(tensor.size(0), tensor.size(1), dtype=tensor.dtype))


def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    bound = gain * math.sqrt(6.0 / (fan_in + fan_out))
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / (fan_in + fan_out)), generator)


def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    """U(-bound, bound) with bound = gain * sqrt(3 / fan) (He et al., 2015)."""
    if 0 in tuple(tensor.shape):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in tuple(tensor.shape):
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """Normal(mean, std) restricted to [a, b], by rejection as PyTorch 2.x draws it (so a seeded generator gives
    PyTorch's values): when [a, b] holds more than 30% of the mass, out-of-range normal draws are redrawn;
    otherwise uniform draws on [a, b] are accepted with probability exp(-(x - mean)^2 / 2 std^2) relative to
    the density's peak within [a, b]."""
    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0
    if mean < a - 2 * std or mean > b + 2 * std:
        warnings.warn("[trunc_normal_] mean is more than 2 std from [a, b]; the distribution of values may be "
                      "incorrect", stacklevel=2)
    with _no_grad():
        if cdf((b - mean) / std) - cdf((a - mean) / std) > 0.3:
            lo, hi = tensor.new_tensor(a).item(), tensor.new_tensor(b).item()  # the bounds in tensor's dtype
            result = tensor.normal_(mean, std, generator=generator)
            while True:
                outside = (result < lo) | (result > hi)
                if not outside.any():
                    break
                result = _C.where(outside, _C.empty_like(result).normal_(mean, std, generator=generator), result)
            if result is not tensor:
                tensor.copy_(result)
            return tensor
        peak = -0.5 * ((max(a, min(mean, b)) - mean) / std) ** 2  # log density (unnormalised) at the mode

        def log_ratio(x):
            return x.sub(mean).div_(std).pow_(2).mul_(-0.5).sub_(peak)

        tensor.uniform_(a, b, generator=generator)
        accept = _C.empty_like(tensor)
        pending = accept.uniform_(generator=generator).log_().gt(log_ratio(tensor))
        if pending.any():
            result, candidates = tensor, _C.empty_like(tensor)
            while True:
                candidates.uniform_(a, b, generator=generator)
                result = _C.where(pending, candidates, result)
                pending = _C.where(pending, accept.uniform_(generator=generator).log_().gt(log_ratio(candidates)),
                                   pending)
                if not pending.any():
                    break
            tensor.copy_(result)
        return tensor


def dirac_(tensor, groups=1):
    """Zeros with a 1 at the centre of each (out, in) kernel for in == out (within each of `groups` groups of
    output channels): a convolution that passes its input channels through."""
    dims = tensor.dim()
    if dims not in (3, 4, 5):
        raise ValueError(f"[dirac_] only tensors with 3, 4, or 5 dimensions are supported; got {dims}")
    if tensor.size(0) % groups != 0:
        raise ValueError(f"[dirac_] dim 0 ({tensor.size(0)}) must be divisible by groups ({groups})")
    per_group = tensor.size(0) // groups
    centre = tuple(tensor.size(k) // 2 for k in range(2, dims))
    with _no_grad():
        tensor.zero_()
        for g in range(groups):
            for d in range(min(per_group, tensor.size(1))):
                tensor[(g * per_group + d, d) + centre] = 1
    return tensor


def _householder_q(a):
    """The thin Q of the float64 m x n (m >= n) matrix a by Householder reflections, its columns multiplied
    by the signs of R's diagonal (which makes Q unique and, for a Gaussian a, Haar distributed)."""
    m, n = a.shape
    a = a.clone()
    reflections, signs = [], []
    for k in range(n):
        x = a[k:, k]
        norm = x.norm().item()
        v = x.clone()
        v[0] += norm if v[0].item() > 0 else -norm  # onto -sign(x0) |x| e1: no cancellation
        length = v.norm().item()
        if length > 0:
            v = v / length
            a[k:, k:] -= 2 * _C.outer(v, v @ a[k:, k:])
        reflections.append(v if length > 0 else None)
        d = a[k, k].item()
        signs.append(1.0 if d > 0 else (-1.0 if d < 0 else 0.0))
    q = _C.eye(m, n, dtype=_C.float64)
    for k in range(n - 1, -1, -1):
        v = reflections[k]
        if v is not None:
            q[k:, :] -= 2 * _C.outer(v, v @ q[k:, :])
    return q * _C.tensor(signs, dtype=_C.float64)


def orthogonal_(tensor, gain=1.0, generator=None):
    """A (semi-)orthogonal matrix (of tensor reshaped to rows x the rest), times gain: the Q of a Gaussian
    draw's QR factorisation (Saxe et al., 2013). Ember has no QR op: Q comes from Householder reflections in
    float64 (as the C++ frontend's torch::nn::init::orthogonal_)."""
    if tensor.dim() < 2:
        raise ValueError("[orthogonal_] only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.size(0)
    cols = tensor.numel() // rows
    with _no_grad():
        draw = tensor.new_empty((rows, cols)).normal_(0, 1, generator=generator).double()
        q = _householder_q(draw.t() if rows < cols else draw)
        if rows < cols:
            q = q.t()
        tensor.copy_(q.reshape(tensor.shape))
        tensor.mul_(gain)
    return tensor


def sparse_(tensor, sparsity, std=0.01, generator=None):
    """N(0, std) entries with ceil(sparsity * rows) of each column set to zero (Martens, 2010); the zeroed rows
    of each column come from randperm of the default generator."""
    if tensor.dim() != 2:
        raise ValueError("[sparse_] only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    zeros = math.ceil(sparsity * rows)
    with _no_grad():
        tensor.normal_(0, std, generator=generator)
        for c in range(cols):
            tensor[_C.randperm(rows)[:zeros], c] = 0
    return tensor


# The old names without the trailing underscore are not provided (PyTorch deprecated them).
__all__ = ["calculate_gain", "uniform_", "normal_", "constant_", "zeros_", "ones_", "eye_", "dirac_", "xavier_uniform_",
           "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "trunc_normal_", "orthogonal_", "sparse_"]
