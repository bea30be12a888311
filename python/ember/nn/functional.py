"""ember.nn.functional: the layers as functions (`import ember.nn.functional as F`).

Each function maps PyTorch's Python signature onto the generated op of ops.yaml (reductions given as
'none' / 'mean' / 'sum' become the op's integer, batch_norm's argument order is the functional one).
"""
import math as _math

from .. import _C
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


def selu(input, inplace=False):
    return _C.selu(input)


def celu(input, alpha=1.0, inplace=False):
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
    return _C.hardsigmoid(input)


def hardswish(input, inplace=False):
    return _C.hardswish(input)


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
        raise NotImplementedError("[embedding] max_norm is not supported yet (#11)")
    if padding_idx is None:
        padding_idx = -1
    elif padding_idx < 0:
        if padding_idx < -weight.size(0):
            raise ValueError(f"[embedding] padding_idx {padding_idx} must be within num_embeddings "
                             f"({weight.size(0)})")
        padding_idx = weight.size(0) + padding_idx
    return _C.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)


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
    """Resizes input's spatial dimensions (1 or 2 of them) by nearest or (bi)linear interpolation."""
    n = input.dim() - 2
    if n not in (1, 2):
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
        return _C.upsample_nearest1d(input, size, scales[0]) if n == 1 else \
            _C.upsample_nearest2d(input, size, scales[0], scales[1])
    ac = bool(align_corners)
    if mode == "linear" and n == 1:
        return _C.upsample_linear1d(input, size, ac, scales[0])
    if mode == "bilinear" and n == 2:
        return _C.upsample_bilinear2d(input, size, ac, scales[0], scales[1])
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
    return _C.threshold(input, threshold, value)


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


__all__ = [n for n in dir() if not n.startswith("_") and n not in ("Tensor",)]
