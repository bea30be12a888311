"""ember.nn.functional: the layers as functions (`import ember.nn.functional as F`).

Each function maps PyTorch's Python signature onto the generated op of ops.yaml (reductions given as
'none' / 'mean' / 'sum' become the op's integer, batch_norm's argument order is the functional one).
"""
import math as _math

from .. import _C
from .. import no_grad as _no_grad
from .._C import Tensor

_REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def _reduction(reduction, size_average=None, reduce=None):
    if size_average is not None or reduce is not None:  # the legacy pair
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = "none" if not reduce else ("mean" if size_average else "sum")
    try:
        return _REDUCTIONS[reduction]
    except KeyError:
        raise ValueError(f"[reduction] {reduction!r} is not a valid value for reduction "
                         "(expected 'none', 'mean' or 'sum')") from None


# ---------------------------------------------------------------- activations
def relu(input, inplace=False):
    return input.relu_() if inplace else _C.relu(input)


def relu6(input, inplace=False):
    return _C.hardtanh_(input, 0.0, 6.0) if inplace else _C.relu6(input)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _C.leaky_relu_(input, negative_slope) if inplace else _C.leaky_relu(input, negative_slope)


def elu(input, alpha=1.0, inplace=False):
    return _C.elu_(input, alpha) if inplace else _C.elu(input, alpha)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    # in place through elu_ (selu is elu with SELU's alpha and scale), so that the backward reads the result
    return _C.elu_(input, _SELU_ALPHA, _SELU_SCALE) if inplace else _C.selu(input)


def celu(input, alpha=1.0, inplace=False):
    if inplace:
        return _C.elu_(input, alpha, 1.0, 1.0 / alpha)
    return _C.celu(input, alpha)


def gelu(input, approximate="none"):
    return _C.gelu(input, approximate=approximate)


def silu(input, inplace=False):
    return _C.silu_(input) if inplace else _C.silu(input)


def mish(input, inplace=False):
    return _C.mish_(input) if inplace else _C.mish(input)


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    return _C.hardtanh_(input, min_val, max_val) if inplace else _C.hardtanh(input, min_val, max_val)


def hardsigmoid(input, inplace=False):
    return _C.hardsigmoid_(input) if inplace else _C.hardsigmoid(input)


def hardswish(input, inplace=False):
    return _C.hardswish_(input) if inplace else _C.hardswish(input)


def softplus(input, beta=1.0, threshold=20.0):
    return _C.softplus(input, beta, threshold)


def logsigmoid(input):
    return _C.log_sigmoid(input)


def sigmoid(input):
    return _C.sigmoid(input)


def tanh(input):
    return _C.tanh(input)


def _softmax_dim(ndim):
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _C.softmax(input, dim, dtype=dtype)


def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _softmax_dim(input.dim())
    return _C.log_softmax(input, dim, dtype=dtype)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(-input, dim, dtype=dtype)


def glu(input, dim=-1):
    return _C.glu(input, dim)


# ---------------------------------------------------------------- linear and convolution
def linear(input, weight, bias=None):
    return _C.linear(input, weight, bias)


def bilinear(input1, input2, weight, bias=None):
    return _C.bilinear(input1, input2, weight, bias)


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _C.conv1d(input, weight, bias, stride, padding, dilation, groups)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _C.conv2d(input, weight, bias, stride, padding, dilation, groups)


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _C.conv3d(input, weight, bias, stride, padding, dilation, groups)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _C.conv_transpose2d(input, weight, bias, stride, padding, output_padding, groups, dilation)


# ---------------------------------------------------------------- pooling
def _stride(kernel_size, stride):
    return kernel_size if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else stride


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    stride = _stride(kernel_size, stride)
    if return_indices:
        return tuple(_C.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode))
    return _C.max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    stride = _stride(kernel_size, stride)
    if return_indices:
        return tuple(_C.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode))
    return _C.max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    return _C.avg_pool1d(input, kernel_size, _stride(kernel_size, stride), padding, ceil_mode, count_include_pad)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _C.avg_pool2d(input, kernel_size, _stride(kernel_size, stride), padding, ceil_mode, count_include_pad,
                         divisor_override)


def adaptive_avg_pool2d(input, output_size):
    return _C.adaptive_avg_pool2d(input, output_size)


def adaptive_max_pool2d(input, output_size, return_indices=False):
    out = _C.adaptive_max_pool2d(input, output_size)
    return tuple(out) if return_indices else out[0]


# ---------------------------------------------------------------- normalization and dropout
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False, momentum=0.1, eps=1e-5):
    if training:
        size = input.numel() // input.size(1) if input.dim() > 1 else input.numel()
        if size == 1:
            raise ValueError(f"[batch_norm] expected more than 1 value per channel when training, "
                             f"got input of size {list(input.shape)}")
    return _C.batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps, True)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    return _C.layer_norm(input, list(normalized_shape), weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    return _C.group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None, use_input_stats=True,
                  momentum=0.1, eps=1e-5):
    return _C.instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps, True)


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"[dropout] dropout probability has to be between 0 and 1, but got {p}")


def dropout(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    return _C.dropout_(input, p, training) if inplace else _C.dropout(input, p, training)


def dropout2d(input, p=0.5, training=True, inplace=False):
    _check_p(p)
    return _C.feature_dropout_(input, p, training) if inplace else _C.feature_dropout(input, p, training)


dropout1d = dropout2d
dropout3d = dropout2d


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    return _C.alpha_dropout(input, p, training)


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    if max_norm is not None:
        _embedding_renorm(weight, input, max_norm, norm_type, "embedding")
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx < 0:
        if padding_idx < -weight.size(0):
            raise ValueError(f"[embedding] padding_idx {padding_idx} must be within num_embeddings "
                             f"({weight.size(0)})")
        padding_idx = weight.size(0) + padding_idx
    return _C.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


def _embedding_renorm(weight, input, max_norm, norm_type, op):
    """Rows of weight that input looks up and whose norm_type-norm exceeds max_norm are scaled, in place and
    outside autograd, to max_norm / (norm + 1e-7) times themselves (as PyTorch's embedding_renorm_)."""
    if input.dtype not in (_C.int64, _C.int32):
        raise RuntimeError(f"[{op}] expected int64 or int32 indices; got {input.dtype}")
    if input.numel() == 0:
        return
    with _no_grad():
        rows = _C._unique(input.reshape(-1).long(), True)[0]
        if int(rows[0]) < 0 or int(rows[-1]) >= weight.size(0):
            return  # the lookup itself reports indices out of range
        picked = weight.index_select(0, rows)
        norms = picked.norm(norm_type, 1, True)
        scale = _C.where(norms > max_norm, max_norm / (norms + 1e-7), _C.ones_like(norms))
        weight[rows] = picked * scale


def one_hot(tensor, num_classes=-1):
    return _C.one_hot(tensor, num_classes)


def pad(input, pad, mode="constant", value=None):
    return _C.pad(input, list(pad), mode, value)


def flatten(input, start_dim=0, end_dim=-1):
    return _C.flatten(input, start_dim, end_dim)


def normalize(input, p=2.0, dim=1, eps=1e-12):
    return input / _C.clamp_min(input.norm(p, dim, True), eps).expand_as(input)


def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    return _C.cosine_similarity(x1, x2, dim, eps)


def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    return _C.pairwise_distance(x1, x2, p, eps, keepdim)


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False, scale=None):
    return _C.scaled_dot_product_attention(query, key, value, attn_mask, dropout_p, is_causal, scale=scale)


# ---------------------------------------------------------------- losses
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean",
                  label_smoothing=0.0):
    return _C.cross_entropy_loss(input, target, weight, _reduction(reduction, size_average, reduce), ignore_index,
                                 label_smoothing)


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None, reduction="mean"):
    return _C.nll_loss_nd(input, target, weight, _reduction(reduction, size_average, reduce), ignore_index)


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _C.mse_loss(input, target, _reduction(reduction, size_average, reduce))


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _C.l1_loss(input, target, _reduction(reduction, size_average, reduce))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    return _C.smooth_l1_loss(input, target, _reduction(reduction, size_average, reduce), beta)


def huber_loss(input, target, reduction="mean", delta=1.0):
    return _C.huber_loss(input, target, _reduction(reduction), delta)


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    return _C.binary_cross_entropy(input, target, weight, _reduction(reduction, size_average, reduce))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None, reduction="mean",
                                     pos_weight=None):
    if tuple(input.shape) != tuple(target.shape):
        raise ValueError(f"[binary_cross_entropy_with_logits] target size ({list(target.shape)}) must be the same "
                         f"as input size ({list(input.shape)})")
    return _C.binary_cross_entropy_with_logits(input, target, weight, pos_weight,
                                               _reduction(reduction, size_average, reduce))


def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if reduction == "batchmean":
        return _C.kl_div(input, target, 2, log_target=log_target) / input.size(0)
    return _C.kl_div(input, target, _reduction(reduction, size_average, reduce), log_target=log_target)


# ---------------------------------------------------------------- resampling and rearranging
def _ntuple(x, n):
    return tuple(x) if isinstance(x, (list, tuple)) else (x,) * n


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resizes input's spatial dimensions (1, 2 or 3 of them) by nearest, linear, bilinear or trilinear
    interpolation."""
    n = input.dim() - 2
    if n not in (1, 2, 3):
        raise NotImplementedError(f"[interpolate] input of {input.dim()} dimensions is not supported yet (#11)")
    if size is None:
        scales = _ntuple(scale_factor, n)
        size = [int(_math.floor(input.size(2 + i) * scales[i])) for i in range(n)]
    else:
        size = list(_ntuple(size, n))
        scales = (None,) * n
    if mode == "nearest":
        if align_corners is not None:
            raise ValueError("[interpolate] align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
        if n == 1:
            return _C.upsample_nearest1d(input, size, scales[0])
        if n == 2:
            return _C.upsample_nearest2d(input, size, scales[0], scales[1])
        return _C.upsample_nearest3d(input, size, scales[0], scales[1], scales[2])
    ac = bool(align_corners)
    if mode == "linear" and n == 1:
        return _C.upsample_linear1d(input, size, ac, scales[0])
    if mode == "bilinear" and n == 2:
        return _C.upsample_bilinear2d(input, size, ac, scales[0], scales[1])
    if mode == "trilinear" and n == 3:
        return _C.upsample_trilinear3d(input, size, ac, scales[0], scales[1], scales[2])
    raise NotImplementedError(f"[interpolate] mode '{mode}' for {n}-D input is not supported")



upsample = interpolate


def pixel_shuffle(input, upscale_factor):
    return _C.pixel_shuffle(input, upscale_factor)


def pixel_unshuffle(input, downscale_factor):
    return _C.pixel_unshuffle(input, downscale_factor)


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    return _C.im2col(input, kernel_size, dilation, padding, stride)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    return _C.col2im(input, output_size, kernel_size, dilation, padding, stride)


def prelu(input, weight):
    return _C.prelu(input, weight)


def threshold(input, threshold, value, inplace=False):
    return _C.threshold_(input, threshold, value) if inplace else _C.threshold(input, threshold, value)


def softshrink(input, lambd=0.5):
    return _C.softshrink(input, lambd)


def hardshrink(input, lambd=0.5):
    return _C.hardshrink(input, lambd)


def softsign(input):
    return input / (input.abs() + 1)


def tanhshrink(input):
    return input - _C.tanh(input)


def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    return _C.margin_ranking_loss(input1, input2, target, margin, _reduction(reduction, size_average, reduce))


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None, reduction="mean"):
    return _C.hinge_embedding_loss(input, target, margin, _reduction(reduction, size_average, reduce))


def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None, reduction="mean"):
    return _C.cosine_embedding_loss(input1, input2, target, margin, _reduction(reduction, size_average, reduce))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False, size_average=None,
                        reduce=None, reduction="mean"):
    return _C.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                  _reduction(reduction, size_average, reduce))


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _C.soft_margin_loss(input, target, _reduction(reduction, size_average, reduce))


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                     reduction="mean"):
    return _C.poisson_nll_loss(input, target, log_input, full, eps, _reduction(reduction, size_average, reduce))


# ---------------------------------------------------------------- the rest of the C++ frontend's functionals
# In-place activations under PyTorch's names.
def relu_(input):
    return _C.relu_(input)


def elu_(input, alpha=1.0):
    return _C.elu_(input, alpha)


def selu_(input):
    return selu(input, inplace=True)


def celu_(input, alpha=1.0):
    return celu(input, alpha, inplace=True)


def leaky_relu_(input, negative_slope=0.01):
    return _C.leaky_relu_(input, negative_slope)


def hardtanh_(input, min_val=-1.0, max_val=1.0):
    return _C.hardtanh_(input, min_val, max_val)


def threshold_(input, threshold, value):
    return _C.threshold_(input, threshold, value)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """x for x >= 0, a * x otherwise: a drawn from U(lower, upper) per element when training, else
    (lower + upper) / 2."""
    if not training:
        slope = (lower + upper) / 2
        return _C.leaky_relu_(input, slope) if inplace else _C.leaky_relu(input, slope)
    out = _C.rrelu(input, lower, upper, True)
    return input.copy_(out) if inplace else out


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    return rrelu(input, lower, upper, training, inplace=True)


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    _check_p(p)
    out = _C.feature_alpha_dropout(input, p, training)
    return input.copy_(out) if inplace else out


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _C.conv_transpose1d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _C.conv_transpose3d(input, weight, bias, stride, padding, output_padding, groups, dilation)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return max_pool2d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    stride = _stride(kernel_size, stride)
    if return_indices:
        return tuple(_C.max_pool3d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode))
    return _C.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                            return_indices=False):
    return max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices=True)


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    return _C.avg_pool3d(input, kernel_size, _stride(kernel_size, stride), padding, ceil_mode, count_include_pad,
                         divisor_override)


def adaptive_avg_pool1d(input, output_size):
    return _C.adaptive_avg_pool1d(input, output_size)


def adaptive_max_pool1d(input, output_size, return_indices=False):
    out = _C.adaptive_max_pool1d(input, output_size)
    return tuple(out) if return_indices else out[0]


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=False):
    return tuple(_C.adaptive_max_pool1d(input, output_size))


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=False):
    return tuple(_C.adaptive_max_pool2d(input, output_size))


def _unpool_output_size(input, kernel_size, stride, padding, output_size):
    """(in - 1) * stride - 2 * padding + kernel_size per spatial dim, or output_size (n values, or n + 2 with the
    first two ignored), which must lie strictly within a stride of that size."""
    n = len(kernel_size)
    if input.dim() < n + 1:
        raise ValueError(f"[max_unpool{n}d] expected an input with a channel dim and {n} spatial dims; "
                         f"got {input.dim()} dims")
    default = [(input.size(input.dim() - n + d) - 1) * stride[d] + kernel_size[d] - 2 * padding[d] for d in range(n)]
    if output_size is None:
        size = default
    else:
        size = list(output_size)
        if len(size) == n + 2:
            size = size[2:]
        if len(size) != n:
            raise ValueError(f"[max_unpool{n}d] output_size should be a sequence of {n} or {n + 2} elements; "
                             f"got {len(size)}")
        for d in range(n):
            lo, hi = default[d] - stride[d], default[d] + stride[d]
            if not lo < size[d] < hi:
                raise ValueError(f"[max_unpool{n}d] invalid output_size {list(output_size)} (dim {d} must be "
                                 f"between {lo} and {hi})")
    for d in range(n):
        if size[d] < 0:
            raise ValueError(f"[max_unpool{n}d] output_size must be non-negative; got {size}")
    return [int(v) for v in size]


def _unpool_args(kernel_size, stride, padding, n):
    kernel_size = _ntuple(kernel_size, n)
    stride = kernel_size if stride is None else _ntuple(stride, n)
    return kernel_size, stride, _ntuple(padding, n)


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """Puts each value of (N, C, L) or (C, L) back at its index of the output's last dim, zeros elsewhere: the
    inverse of max_pool1d with return_indices (through max_unpool2d on a width-1 plane)."""
    k, st, pd = _unpool_args(kernel_size, stride, padding, 1)
    size = _unpool_output_size(input, k, st, pd, output_size)
    return _C.max_unpool2d(input.unsqueeze(-1), indices.unsqueeze(-1), size + [1]).squeeze(-1)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    k, st, pd = _unpool_args(kernel_size, stride, padding, 2)
    return _C.max_unpool2d(input, indices, _unpool_output_size(input, k, st, pd, output_size))


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    k, st, pd = _unpool_args(kernel_size, stride, padding, 3)
    return _C.max_unpool3d(input, indices, _unpool_output_size(input, k, st, pd, output_size), list(st), list(pd))


_BAG_MODES = {"sum": 0, "mean": 1, "max": 2}


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False, mode="mean",
                  sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """Sums, averages or maxes bags of weight's rows: a 1-D input with offsets (where each bag starts), or a
    2-D input (one bag per row). per_sample_weights (mode 'sum' only) scales each looked-up row."""
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"[embedding_bag] per_sample_weights ({list(per_sample_weights.shape)}) must have the "
                         f"shape of the input ({list(input.shape)})")
    if weight.dim() != 2:
        raise ValueError(f"[embedding_bag] weight has to be a 2-D tensor; got {weight.dim()} dims")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("[embedding_bag] offsets has to be None with a 2-D input (each row is a bag); got "
                             f"{type(offsets).__name__}")
        offsets = _C.arange(0, input.numel(), max(input.size(1), 1), dtype=input.dtype, device=input.device)
        if input.size(1) == 0:
            offsets = _C.zeros(input.size(0), dtype=input.dtype, device=input.device)
        include_last_offset = False
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("[embedding_bag] offsets has to be a 1-D tensor with a 1-D input; got None")
        if offsets.dim() != 1:
            raise ValueError(f"[embedding_bag] offsets has to be a 1-D tensor; got {offsets.dim()} dims")
    else:
        raise ValueError(f"[embedding_bag] input has to be a 1-D or 2-D tensor; got {input.dim()} dims")
    if mode not in _BAG_MODES:
        raise ValueError(f"[embedding_bag] mode has to be one of sum, mean or max; got {mode!r}")
    if mode == "max" and scale_grad_by_freq:
        raise ValueError("[embedding_bag] max mode does not support scaling the gradient by the frequency")
    if mode == "max" and sparse:
        raise ValueError("[embedding_bag] max mode does not support sparse weights")
    if max_norm is not None:
        _embedding_renorm(weight, input, max_norm, norm_type, "embedding_bag")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"[embedding_bag] per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}')")
    if padding_idx is not None:
        if not -weight.size(0) <= padding_idx < weight.size(0):
            raise ValueError(f"[embedding_bag] padding_idx {padding_idx} must be within num_embeddings "
                             f"({weight.size(0)})")
        padding_idx = padding_idx % weight.size(0)
    return _C.embedding_bag(weight, input, offsets, scale_grad_by_freq, _BAG_MODES[mode], sparse,
                            per_sample_weights, include_last_offset, padding_idx)[0]


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """0.5 * (log(var) + (input - target)^2 / var) (+ 0.5 log(2 pi) with full); var is held at eps or above
    without changing its gradient. var: input's shape, that shape with one dim of size 1 or the last dim
    dropped (one variance per sample), or a float."""
    if isinstance(var, float):
        if var < 0:
            raise ValueError("[gaussian_nll_loss] var has negative entry/entries")
        var = var * _C.ones_like(input)
    elif bool((var < 0).any()):
        raise ValueError("[gaussian_nll_loss] var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape)[:-1] == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim()
                  and sum(b for a, b in zip(input.shape, var.shape) if a != b) == 1):
            raise ValueError(f"[gaussian_nll_loss] var is of incorrect size: {list(var.shape)} for an input of "
                             f"size {list(input.shape)}")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"[gaussian_nll_loss] {reduction} is not a valid value for reduction")
    with _no_grad():
        shift = _C.clamp_min(var, eps) - var
    var = var + shift
    loss = 0.5 * (_C.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * _math.log(2 * _math.pi)
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                      reduction="mean"):
    if p != 1 and p != 2:
        raise ValueError("[multi_margin_loss] only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("[multi_margin_loss] weight must be one-dimensional")
    return _C.multi_margin_loss(input, target, p, margin, weight, _reduction(reduction, size_average, reduce))


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    return _C.multilabel_margin_loss(input, target, _reduction(reduction, size_average, reduce))


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None, reduction="mean"):
    """The binary cross entropy of each logit, averaged over the classes (the last dim)."""
    r = _reduction(reduction, size_average, reduce)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(input.dim() - 1) / input.size(-1)
    return loss if r == 0 else loss.mean() if r == 1 else loss.sum()


def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


__all__ = [n for n in dir() if not n.startswith("_") and n not in ("Tensor",)]
