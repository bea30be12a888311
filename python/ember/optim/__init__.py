"""ember.optim: optimizers (SGD, Adam, AdamW, RMSprop, Adagrad, LBFGS) over parameter groups, and lr_scheduler."""
from .optimizer import Optimizer
from .sgd import SGD
from .adam import Adam, AdamW
from .rmsprop import RMSprop, Adagrad
from .lbfgs import LBFGS
from . import lr_scheduler
