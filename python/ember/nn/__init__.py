"""ember.nn: Module, Parameter, the layers, containers and losses; ember.nn.functional and ember.nn.init."""
from .parameter import Parameter, Buffer
from .module import Module
from .layers import (Identity, Linear, Bilinear, Conv1d, Conv2d, MaxPool1d, MaxPool2d, AvgPool2d,
                     AdaptiveAvgPool2d, BatchNorm1d, BatchNorm2d, BatchNorm3d, LayerNorm, GroupNorm, Dropout,
                     Dropout1d, Dropout2d, ReLU, LeakyReLU, GELU, Sigmoid, Tanh, SiLU, Mish, Hardswish, Hardsigmoid,
                     LogSigmoid, ELU, Softplus, Softmax, LogSoftmax, Softmin, Flatten, Unflatten, Embedding)
from .container import Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict
from .loss import (CrossEntropyLoss, NLLLoss, MSELoss, L1Loss, SmoothL1Loss, HuberLoss, BCELoss, BCEWithLogitsLoss,
                   KLDivLoss)
from . import functional, init, utils
