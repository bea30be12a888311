"""ember.nn: Module, Parameter, the layers, containers and losses; ember.nn.functional and ember.nn.init."""
from .parameter import Parameter, Buffer
from .module import Module
from .layers import (Identity, Linear, Bilinear, Conv1d, Conv2d, MaxPool1d, MaxPool2d, AvgPool2d,
                     AdaptiveAvgPool2d, BatchNorm1d, BatchNorm2d, BatchNorm3d, LayerNorm, GroupNorm, Dropout,
                     Dropout1d, Dropout2d, ReLU, LeakyReLU, GELU, Sigmoid, Tanh, SiLU, Mish, Hardswish, Hardsigmoid,
                     LogSigmoid, ELU, Softplus, Softmax, LogSoftmax, Softmin, Flatten, Unflatten, Embedding)
from .layers_extra import (Conv3d, ConvTranspose1d, ConvTranspose2d, ConvTranspose3d, MaxPool3d, AvgPool1d,
                           AvgPool3d, AdaptiveAvgPool1d, AdaptiveMaxPool1d, AdaptiveMaxPool2d, MaxUnpool1d,
                           MaxUnpool2d, MaxUnpool3d, ConstantPad1d, ConstantPad2d, ConstantPad3d, ZeroPad1d,
                           ZeroPad2d, ZeroPad3d, ReflectionPad1d, ReflectionPad2d, ReflectionPad3d, ReplicationPad1d,
                           ReplicationPad2d, ReplicationPad3d, Upsample, PixelShuffle, PixelUnshuffle, Unfold, Fold,
                           CosineSimilarity, PairwiseDistance, InstanceNorm1d, InstanceNorm2d, InstanceNorm3d,
                           AlphaDropout, FeatureAlphaDropout, Dropout3d, Hardtanh, ReLU6, PReLU, RReLU, SELU, CELU,
                           GLU, Softshrink, Hardshrink, Threshold, Softmax2d, Softsign, Tanhshrink,
                           MarginRankingLoss, HingeEmbeddingLoss, CosineEmbeddingLoss, TripletMarginLoss,
                           MultiMarginLoss, MultiLabelMarginLoss, SoftMarginLoss, MultiLabelSoftMarginLoss,
                           PoissonNLLLoss, GaussianNLLLoss, EmbeddingBag)
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .loss import (CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss, HuberLoss, BCELoss, BCEWithLogitsLoss,
                   KLDivLoss)
from .rnn import RNNBase, RNN, LSTM, GRU, RNNCell, LSTMCell, GRUCell
from .transformer import (MultiheadAttention, TransformerEncoderLayer, TransformerEncoder, TransformerDecoderLayer,
                          TransformerDecoder, Transformer)
from . import functional, init, utils
