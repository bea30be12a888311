"""More of the C++ frontend's layers: 3-D and transposed convolution, the other pools, padding,
upsampling, pixel shuffle, fold/unfold, distances, instance norm, more activations and losses."""
import math

from .. import _C
from . import functional as F
from . import init
from .layers import _ConvNd, _Dropout, _NormBase, _register_running_stats, _tuple
from .loss import _Loss, _WeightedLoss
from .module import Module
from .parameter import Parameter


# ---------------------------------------------------------------- convolution
class Conv3d(_ConvNd):
    _n = 3

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


class _ConvTransposeNd(_ConvNd):
    """Transposed convolution: weight is (in_channels, out_channels / groups, *kernel_size)."""

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                 bias=True, dilation=1, padding_mode="zeros", device=None, dtype=None):
        Module.__init__(self)
        n = self._n
        if groups <= 0 or in_channels % groups or out_channels % groups:
            raise ValueError(f"[{type(self).__name__}] in_channels ({in_channels}) and out_channels "
                             f"({out_channels}) must be divisible by groups ({groups}), which must be positive")
        if padding_mode != "zeros":
            raise ValueError(f"[{type(self).__name__}] only 'zeros' padding mode is supported")
        self.in_channels, self.out_channels, self.groups = in_channels, out_channels, groups
        self.kernel_size, self.stride = _tuple(kernel_size, n), _tuple(stride, n)
        self.padding, self.dilation = _tuple(padding, n), _tuple(dilation, n)
        self.output_padding, self.padding_mode = _tuple(output_padding, n), padding_mode
        self.weight = Parameter(_C.empty([in_channels, out_channels // groups, *self.kernel_size], dtype=dtype,
                                         device=device))
        if bias:
            self.bias = Parameter(_C.empty([out_channels], dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        # the fan-in of a transposed convolution's weight is its dimension 1 times the kernel
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.size(1) * math.prod(self.kernel_size)
            bound = 1 / math.sqrt(fan_in) if fan_in else 0
            init.uniform_(self.bias, -bound, bound)

    def _args(self):
        return (self.weight, self.bias, self.stride, self.padding, self.output_padding, self.groups, self.dilation)


class ConvTranspose1d(_ConvTransposeNd):
    _n = 1

    def forward(self, input):
        return _C.conv_transpose1d(input, *self._args())


class ConvTranspose2d(_ConvTransposeNd):
    _n = 2

    def forward(self, input):
        return _C.conv_transpose2d(input, *self._args())


class ConvTranspose3d(_ConvTransposeNd):
    _n = 3

    def forward(self, input):
        return _C.conv_transpose3d(input, *self._args())


# ---------------------------------------------------------------- pooling
class _PoolBase(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False, ceil_mode=False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation, self.return_indices, self.ceil_mode = padding, dilation, return_indices, ceil_mode

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool3d(_PoolBase):
    def forward(self, input):
        if self.return_indices:
            return tuple(_C.max_pool3d_with_indices(input, self.kernel_size, self.stride, self.padding,
                                                    self.dilation, self.ceil_mode))
        return _C.max_pool3d(input, self.kernel_size, self.stride, self.padding, self.dilation, self.ceil_mode)


class _AvgPoolBase(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
                 divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AvgPool1d(_AvgPoolBase):
    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad)


class AvgPool3d(_AvgPoolBase):
    def forward(self, input):
        return _C.avg_pool3d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad, self.divisor_override)


class _Adaptive(Module):
    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def extra_repr(self):
        return f"output_size={self.output_size}"


class AdaptiveAvgPool1d(_Adaptive):
    def forward(self, input):
        return _C.adaptive_avg_pool1d(input, self.output_size)


class AdaptiveMaxPool1d(_Adaptive):
    def forward(self, input):
        out = _C.adaptive_max_pool1d(input, self.output_size)
        return tuple(out) if self.return_indices else out[0]


class AdaptiveMaxPool2d(_Adaptive):
    def forward(self, input):
        return F.adaptive_max_pool2d(input, self.output_size, self.return_indices)


class _MaxUnpoolNd(Module):
    _n = 2

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size = _tuple(kernel_size, self._n)
        self.stride = _tuple(stride if stride is not None else kernel_size, self._n)
        self.padding = _tuple(padding, self._n)

    def forward(self, input, indices, output_size=None):
        unpool = (F.max_unpool1d, F.max_unpool2d, F.max_unpool3d)[self._n - 1]
        return unpool(input, indices, self.kernel_size, self.stride, self.padding, output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class MaxUnpool1d(_MaxUnpoolNd):
    _n = 1


class MaxUnpool2d(_MaxUnpoolNd):
    _n = 2


class MaxUnpool3d(_MaxUnpoolNd):
    _n = 3


# ---------------------------------------------------------------- padding, upsampling, shuffling
class _Pad(Module):
    _mode, _n = "constant", 2

    def __init__(self, padding, value=0.0):
        super().__init__()
        self.padding = _tuple(padding, 2 * self._n)
        self.value = value

    def forward(self, input):
        if self._mode == "constant":
            return _C.constant_pad_nd(input, list(self.padding), self.value)
        return _C.pad(input, list(self.padding), self._mode)

    def extra_repr(self):
        return f"padding={self.padding}, value={self.value}" if self._mode == "constant" else f"{self.padding}"


class ConstantPad1d(_Pad):
    _n = 1


class ConstantPad2d(_Pad):
    _n = 2


class ZeroPad1d(_Pad):
    _n = 1

    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self):
        return f"{self.padding}"


class ZeroPad2d(ZeroPad1d):
    _n = 2


class ZeroPad3d(ZeroPad1d):
    _n = 3


class ConstantPad3d(_Pad):
    _n = 3


class ReflectionPad1d(_Pad):
    _mode, _n = "reflect", 1


class ReflectionPad2d(_Pad):
    _mode, _n = "reflect", 2


class ReplicationPad1d(_Pad):
    _mode, _n = "replicate", 1


class ReplicationPad2d(_Pad):
    _mode, _n = "replicate", 2


class ReflectionPad3d(_Pad):
    _mode, _n = "reflect", 3


class ReplicationPad3d(_Pad):
    _mode, _n = "replicate", 3


class Upsample(Module):
    """Resizes (N, C, L), (N, C, H, W) or (N, C, D, H, W) input to size, or by scale_factor; mode 'nearest',
    'linear', 'bilinear' or 'trilinear'."""

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None, recompute_scale_factor=None):
        super().__init__()
        if (size is None) == (scale_factor is None):
            raise ValueError("[Upsample] exactly one of size and scale_factor must be given")
        self.size, self.scale_factor, self.mode, self.align_corners = size, scale_factor, mode, align_corners

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners)

    def extra_repr(self):
        s = f"size={self.size}" if self.size is not None else f"scale_factor={float(self.scale_factor)}"
        return s + f", mode='{self.mode}'"


class PixelShuffle(Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return _C.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return _C.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class Unfold(Module):
    """Sliding blocks of (N, C, H, W) input as columns: (N, C * prod(kernel_size), blocks)."""

    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = kernel_size, dilation, padding, stride

    def forward(self, input):
        return _C.im2col(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, "
                f"stride={self.stride}")


class Fold(Unfold):
    """The inverse arrangement of Unfold (overlapping values summed) into output_size."""

    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__(kernel_size, dilation, padding, stride)
        self.output_size = output_size

    def forward(self, input):
        return _C.col2im(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return f"output_size={self.output_size}, " + super().extra_repr()


# ---------------------------------------------------------------- distances and normalisation
class CosineSimilarity(Module):
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class _InstanceNorm(_NormBase):
    _dims = (3,)

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False, track_running_stats=False, device=None,
                 dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        opts = dict(dtype=dtype, device=device)
        if affine:
            self.weight = Parameter(_C.ones([num_features], **opts))
            self.bias = Parameter(_C.zeros([num_features], **opts))
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        _register_running_stats(self, num_features, track_running_stats, device, dtype)

    def forward(self, input):
        if input.dim() not in self._dims + (self._dims[0] - 1,):
            raise ValueError(f"[{type(self).__name__}] expected {self._dims[0] - 1}D or {self._dims[0]}D input "
                             f"(got {input.dim()}D input)")
        unbatched = input.dim() == self._dims[0] - 1
        if unbatched:
            input = input.unsqueeze(0)
        use_input_stats = self.training or not self.track_running_stats
        out = F.instance_norm(input, self.running_mean, self.running_var, self.weight, self.bias, use_input_stats,
                              self.momentum if self.momentum is not None else 0.0, self.eps)
        return out.squeeze(0) if unbatched else out

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    _dims = (3,)


class InstanceNorm2d(_InstanceNorm):
    _dims = (4,)


class InstanceNorm3d(_InstanceNorm):
    _dims = (5,)


class AlphaDropout(_Dropout):
    def forward(self, input):
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_Dropout):
    def forward(self, input):
        return F.feature_alpha_dropout(input, self.p, self.training, self.inplace)


class Dropout3d(_Dropout):
    def forward(self, input):
        return F.dropout2d(input, self.p, self.training, self.inplace)


# ---------------------------------------------------------------- activations
class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False):
        super().__init__()
        if max_val <= min_val:
            raise ValueError(f"[Hardtanh] max_val ({max_val}) must be greater than min_val ({min_val})")
        self.min_val, self.max_val, self.inplace = min_val, max_val, inplace

    def forward(self, input):
        return F.hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        return f"min_val={self.min_val}, max_val={self.max_val}" + (", inplace=True" if self.inplace else "")


class ReLU6(Hardtanh):
    def __init__(self, inplace=False):
        super().__init__(0.0, 6.0, inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class PReLU(Module):
    """max(0, x) + a * min(0, x) with a learned a (one, or one per channel), starting at init."""

    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(_C.full([num_parameters], float(init), dtype=dtype, device=device))

    def forward(self, input):
        return _C.prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"


class RReLU(Module):
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace else "")


class SELU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return F.selu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class CELU(Module):
    def __init__(self, alpha=1.0, inplace=False):
        super().__init__()
        self.alpha, self.inplace = alpha, inplace

    def forward(self, input):
        return F.celu(input, self.alpha, self.inplace)

    def extra_repr(self):
        return f"alpha={self.alpha}" + (", inplace=True" if self.inplace else "")


class GLU(Module):
    def __init__(self, dim=-1):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return _C.glu(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class _Shrink(Module):
    def __init__(self, lambd=0.5):
        super().__init__()
        self.lambd = lambd

    def extra_repr(self):
        return f"{self.lambd}"


class Softshrink(_Shrink):
    def forward(self, input):
        return _C.softshrink(input, self.lambd)


class Hardshrink(_Shrink):
    def forward(self, input):
        return _C.hardshrink(input, self.lambd)


class Threshold(Module):
    """x where x > threshold, else value."""

    def __init__(self, threshold, value, inplace=False):
        super().__init__()
        self.threshold, self.value, self.inplace = threshold, value, inplace

    def forward(self, input):
        return F.threshold(input, self.threshold, self.value, self.inplace)

    def extra_repr(self):
        return f"threshold={self.threshold}, value={self.value}" + (", inplace=True" if self.inplace else "")


class Softmax2d(Module):
    def forward(self, input):
        if input.dim() not in (3, 4):
            raise ValueError(f"[Softmax2d] expected 3D or 4D input (got {input.dim()}D input)")
        return F.softmax(input, -3)


class Softsign(Module):
    def forward(self, input):
        return input / (input.abs() + 1)


class Tanhshrink(Module):
    def forward(self, input):
        return input - _C.tanh(input)


# ---------------------------------------------------------------- losses
def _r(reduction):
    return F._reduction(reduction)


class MarginRankingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return _C.margin_ranking_loss(input1, input2, target, self.margin, _r(self.reduction))


class HingeEmbeddingLoss(_Loss):
    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return _C.hinge_embedding_loss(input, target, self.margin, _r(self.reduction))


class CosineEmbeddingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return _C.cosine_embedding_loss(input1, input2, target, self.margin, _r(self.reduction))


class TripletMarginLoss(_Loss):
    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return _C.triplet_margin_loss(anchor, positive, negative, self.margin, self.p, self.eps, self.swap,
                                      _r(self.reduction))


class MultiMarginLoss(_WeightedLoss):
    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("[MultiMarginLoss] only p == 1 and p == 2 supported")
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, self.p, self.margin, self.weight, reduction=self.reduction)


class MultiLabelMarginLoss(_Loss):
    def forward(self, input, target):
        return _C.multilabel_margin_loss(input, target, _r(self.reduction))


class SoftMarginLoss(_Loss):
    def forward(self, input, target):
        return _C.soft_margin_loss(input, target, _r(self.reduction))


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """Mean over classes of the binary cross entropy of each logit."""

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, self.weight, reduction=self.reduction)


class PoissonNLLLoss(_Loss):
    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return _C.poisson_nll_loss(log_input, target, self.log_input, self.full, self.eps, _r(self.reduction))


class GaussianNLLLoss(_Loss):
    """0.5 * (log(max(var, eps)) + (input - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) with full)."""

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, self.full, self.eps, self.reduction)


# ---------------------------------------------------------------- embedding bags
class EmbeddingBag(Module):
    """Sums, averages (the default) or maxes bags of rows of a num_embeddings x embedding_dim table drawn from
    N(0, 1) (padding_idx's row starts at zero and is left out of every bag)."""

    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                 mode="mean", sparse=False, _weight=None, include_last_offset=False, padding_idx=None, device=None,
                 dtype=None, _freeze=False):
        super().__init__()
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise ValueError(f"[EmbeddingBag] padding_idx {padding_idx} must be within num_embeddings "
                                 f"({num_embeddings})")
            if padding_idx < 0:
                padding_idx += num_embeddings
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset
        if _weight is None:
            self.weight = Parameter(_C.empty([num_embeddings, embedding_dim], dtype=dtype, device=device),
                                    requires_grad=not _freeze)
            self.reset_parameters()
        else:
            if list(_weight.shape) != [num_embeddings, embedding_dim]:
                raise ValueError("[EmbeddingBag] shape of weight does not match num_embeddings and embedding_dim")
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self):
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with init._no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return F.embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type, self.scale_grad_by_freq,
                               self.mode, self.sparse, per_sample_weights, self.include_last_offset,
                               self.padding_idx)

    @classmethod
    def from_pretrained(cls, embeddings, freeze=True, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
                        mode="mean", sparse=False, include_last_offset=False, padding_idx=None):
        if embeddings.dim() != 2:
            raise ValueError("[EmbeddingBag.from_pretrained] embeddings parameter is expected to be 2-dimensional")
        rows, cols = embeddings.shape
        return cls(rows, cols, max_norm, norm_type, scale_grad_by_freq, mode, sparse, embeddings,
                   include_last_offset, padding_idx, _freeze=freeze)

    def extra_repr(self):
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq is not False:
            s += f", scale_grad_by_freq={self.scale_grad_by_freq}"
        s += f", mode={self.mode!r}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s
