"""Attention and transformer layers: MultiheadAttention, TransformerEncoderLayer/Encoder,
TransformerDecoderLayer/Decoder, with PyTorch's parameter names and defaults."""
import copy
import math

from .. import _C
from . import functional as F
from . import init
from .container import ModuleList
from .layers import Dropout, LayerNorm, Linear
from .module import Module
from .parameter import Parameter


class NonDynamicallyQuantizableLinear(Linear):
    """MultiheadAttention's output projection: a Linear (the name is PyTorch's, kept for repr)."""


def _mask_to_additive(mask, dtype, what):
    """A boolean mask (True: not allowed) becomes 0 / -inf; a float mask is added as it is."""
    if mask is None:
        return None
    if mask.dtype == _C.bool:
        return _C.zeros(list(mask.shape), dtype=dtype).masked_fill(mask, float("-inf"))
    if not mask.is_floating_point():
        raise TypeError(f"[MultiheadAttention] only bool and floating types of {what} are supported, "
                        f"got {mask.dtype}")
    return mask


class MultiheadAttention(Module):
    """Attention over num_heads heads of embed_dim // num_heads each:
    softmax(Q K^T / sqrt(head_dim) + mask) V per head, then an output projection.

    forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False) returns (output, weights or None); inputs are
    (L, N, E) or (N, L, E) with batch_first, or unbatched (L, E).
    """

    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False, add_zero_attn=False,
                 kdim=None, vdim=None, batch_first=False, device=None, dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"[MultiheadAttention] embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        if embed_dim % num_heads:
            raise ValueError(f"[MultiheadAttention] embed_dim ({embed_dim}) must be divisible by num_heads "
                             f"({num_heads})")
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError("[MultiheadAttention] add_bias_kv and add_zero_attn are not supported yet "
                                      "(#11)")
        self.embed_dim, self.num_heads, self.dropout = embed_dim, num_heads, dropout
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.head_dim = embed_dim // num_heads
        self.batch_first = batch_first
        opts = dict(dtype=dtype, device=device)
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(_C.empty([3 * embed_dim, embed_dim], **opts))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(_C.empty([embed_dim, embed_dim], **opts))
            self.k_proj_weight = Parameter(_C.empty([embed_dim, self.kdim], **opts))
            self.v_proj_weight = Parameter(_C.empty([embed_dim, self.vdim], **opts))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(_C.empty([3 * embed_dim], **opts))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, **opts)
        self._reset_parameters()

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.zeros_(self.in_proj_bias)
            init.zeros_(self.out_proj.bias)

    def _projections(self):
        E = self.embed_dim
        b = self.in_proj_bias
        bq, bk, bv = (None, None, None) if b is None else (b[:E], b[E:2 * E], b[2 * E:])
        if self._qkv_same_embed_dim:
            w = self.in_proj_weight
            return (w[:E], bq), (w[E:2 * E], bk), (w[2 * E:], bv)
        return (self.q_proj_weight, bq), (self.k_proj_weight, bk), (self.v_proj_weight, bv)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
                average_attn_weights=True, is_causal=False):
        batched = query.dim() == 3
        if not batched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif self.batch_first:  # work in (L, N, E)
            query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        L, N, E = query.shape
        S = key.size(0)
        if E != self.embed_dim:
            raise ValueError(f"[MultiheadAttention] was expecting embedding dimension of {self.embed_dim}, "
                             f"but got {E}")
        H, hd = self.num_heads, self.head_dim
        (wq, bq), (wk, bk), (wv, bv) = self._projections()
        # (L, N, E) -> (N, H, L, hd)
        q = F.linear(query, wq, bq).reshape(L, N, H, hd).permute(1, 2, 0, 3)
        k = F.linear(key, wk, bk).reshape(S, N, H, hd).permute(1, 2, 0, 3)
        v = F.linear(value, wv, bv).reshape(S, N, H, hd).permute(1, 2, 0, 3)
        scores = q.matmul(k.transpose(-2, -1)) * (1.0 / math.sqrt(hd))  # N, H, L, S
        if is_causal and attn_mask is None:
            attn_mask = _C.ones([L, S], dtype=_C.bool).triu(1)
        mask = _mask_to_additive(attn_mask, scores.dtype, "attn_mask")
        if mask is not None:
            if mask.dim() == 2:
                if list(mask.shape) != [L, S]:
                    raise RuntimeError(f"[MultiheadAttention] the shape of the 2D attn_mask is {list(mask.shape)},"
                                       f" but should be {[L, S]}")
                scores = scores + mask
            elif mask.dim() == 3:
                if list(mask.shape) != [N * H, L, S]:
                    raise RuntimeError(f"[MultiheadAttention] the shape of the 3D attn_mask is {list(mask.shape)},"
                                       f" but should be {[N * H, L, S]}")
                scores = scores + mask.reshape(N, H, L, S)
            else:
                raise RuntimeError(f"[MultiheadAttention] attn_mask's dimension {mask.dim()} is not supported")
        kpm = _mask_to_additive(key_padding_mask, scores.dtype, "key_padding_mask")
        if kpm is not None:
            if list(kpm.shape) != [N, S]:
                raise RuntimeError(f"[MultiheadAttention] expected key_padding_mask of shape {[N, S]}, "
                                   f"got {list(kpm.shape)}")
            scores = scores + kpm.reshape(N, 1, 1, S)
        weights = F.softmax(scores, -1)
        attn = F.dropout(weights, self.dropout, True) if (self.dropout > 0 and self.training) else weights
        out = attn.matmul(v)  # N, H, L, hd
        out = out.permute(2, 0, 1, 3).reshape(L, N, E)
        out = self.out_proj(out)
        if not batched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        if not need_weights:
            return out, None
        if average_attn_weights:
            weights = weights.mean(1)
        if not batched:
            weights = weights.squeeze(0)
        return out, weights


def _activation(activation):
    if callable(activation):
        return activation
    if activation == "relu":
        return F.relu
    if activation == "gelu":
        return F.gelu
    raise RuntimeError(f"[Transformer] activation should be relu/gelu, not {activation}")


class TransformerEncoderLayer(Module):
    """Self-attention then a feed-forward block, each with dropout, a residual connection and layer norm
    (after the block, or before it with norm_first=True)."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        opts = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **opts)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **opts)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **opts)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **opts)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **opts)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.activation = _activation(activation)

    def _sa(self, x, mask, kpm, is_causal):
        return self.dropout1(self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=kpm, need_weights=False,
                                            is_causal=is_causal)[0])

    def _ff(self, x):
        return self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff(self.norm2(x))
        else:
            x = self.norm1(x + self._sa(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff(x))
        return x


class TransformerDecoderLayer(Module):
    """Self-attention, attention over the encoder's output (memory), then a feed-forward block."""

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu", layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        opts = dict(device=device, dtype=dtype)
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first,
                                            **opts)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                                 batch_first=batch_first, **opts)
        self.linear1 = Linear(d_model, dim_feedforward, bias=bias, **opts)
        self.dropout = Dropout(dropout)
        self.linear2 = Linear(dim_feedforward, d_model, bias=bias, **opts)
        self.norm_first = norm_first
        self.norm1 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **opts)
        self.norm2 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **opts)
        self.norm3 = LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **opts)
        self.dropout1 = Dropout(dropout)
        self.dropout2 = Dropout(dropout)
        self.dropout3 = Dropout(dropout)
        self.activation = _activation(activation)

    def _sa(self, x, mask, kpm, is_causal):
        return self.dropout1(self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=kpm, need_weights=False,
                                            is_causal=is_causal)[0])

    def _mha(self, x, mem, mask, kpm):
        return self.dropout2(self.multihead_attn(x, mem, mem, attn_mask=mask, key_padding_mask=kpm,
                                                 need_weights=False)[0])

    def _ff(self, x):
        return self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha(self.norm2(x), memory, memory_mask, memory_key_padding_mask)
            x = x + self._ff(self.norm3(x))
        else:
            x = self.norm1(x + self._sa(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha(x, memory, memory_mask, memory_key_padding_mask))
            x = self.norm3(x + self._ff(x))
        return x


def _clones(module, n):
    return ModuleList([copy.deepcopy(module) for _ in range(n)])


class TransformerEncoder(Module):
    """num_layers copies of encoder_layer applied in turn, then norm (if given)."""

    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True, mask_check=True):
        super().__init__()
        self.layers = _clones(encoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        x = src
        for layer in self.layers:
            x = layer(x, src_mask=mask, src_key_padding_mask=src_key_padding_mask, is_causal=bool(is_causal))
        return self.norm(x) if self.norm is not None else x


class TransformerDecoder(Module):
    """num_layers copies of decoder_layer applied in turn, then norm (if given)."""

    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _clones(decoder_layer, num_layers)
        self.num_layers = num_layers
        self.norm = norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        x = tgt
        for layer in self.layers:
            x = layer(x, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                      tgt_key_padding_mask=tgt_key_padding_mask, memory_key_padding_mask=memory_key_padding_mask,
                      tgt_is_causal=bool(tgt_is_causal))
        return self.norm(x) if self.norm is not None else x


class Transformer(Module):
    """An encoder-decoder transformer (Vaswani et al., 2017) of the layers above."""

    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6, dim_feedforward=2048,
                 dropout=0.1, activation="relu", custom_encoder=None, custom_decoder=None, layer_norm_eps=1e-5,
                 batch_first=False, norm_first=False, bias=True, device=None, dtype=None):
        super().__init__()
        opts = dict(device=device, dtype=dtype)
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, **opts)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **opts))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation, layer_norm_eps,
                                            batch_first, norm_first, bias, **opts)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              LayerNorm(d_model, eps=layer_norm_eps, bias=bias, **opts))
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        for p in self.parameters():
            if p.dim() > 1:
                init.xavier_uniform_(p)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None, src_key_padding_mask=None,
                tgt_key_padding_mask=None, memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask, tgt_is_causal=tgt_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        """A float mask with -inf above the diagonal: position i attends to positions <= i."""
        return _C.full([sz, sz], float("-inf"), dtype=dtype, device=device).triu(1)
