"""ember.optim.Optimizer: the base of the optimizers (parameter groups, per-parameter state, state_dict)."""
import copy
import functools

from .. import _C
from .. import enable_grad as _enable_grad, no_grad as _no_grad
from .._C import Tensor


class _RequiredParameter:
    def __repr__(self):
        return "<required parameter>"


required = _RequiredParameter()


def _closure_loss(closure):
    """What closure() returns, evaluated with grad mode on (step() itself runs without); None for no closure."""
    if closure is None:
        return None
    with _enable_grad():
        return closure()


def _use_grad_for_differentiable(step):
    """Runs an optimizer's step without recording a graph (the updates are in-place ops on leaves)."""
    @functools.wraps(step)
    def wrapper(self, *args, **kwargs):
        with _no_grad():
            return step(self, *args, **kwargs)
    return wrapper


class Optimizer:
    """Base class: holds param_groups (dicts with "params" and the options) and state (per parameter).

    Subclasses pass their defaults to __init__ and implement step(closure=None).
    """

    def __init__(self, params, defaults):
        self.defaults = defaults
        self.state = {}
        self.param_groups = []
        if isinstance(params, Tensor):
            raise TypeError("[Optimizer] params argument given to the optimizer should be an iterable of Tensors "
                            "or dicts, but got a Tensor")
        groups = list(params)
        if not groups:
            raise ValueError("[Optimizer] got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for g in groups:
            self.add_param_group(g)

    def __getstate__(self):
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state):
        self.__dict__.update(state)

    def __repr__(self):
        s = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            s += f"\nParameter Group {i}"
            for key in sorted(group):
                if key != "params":
                    s += f"\n    {key}: {group[key]}"
        return s + "\n)"

    def add_param_group(self, param_group):
        """Adds a group of parameters with its own options (the defaults fill in the rest)."""
        if not isinstance(param_group, dict):
            raise TypeError(f"[add_param_group] param_group must be a dict, got {type(param_group).__name__}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            params = [params]
        elif isinstance(params, set):
            raise TypeError("[add_param_group] optimizer parameters need to be organized in ordered collections, "
                            "but the ordering of tensors in sets will change between runs; use a list")
        else:
            params = list(params)
        for p in params:
            if not isinstance(p, Tensor):
                raise TypeError(f"[add_param_group] optimizer can only optimize Tensors, got {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("[add_param_group] can't optimize a non-leaf Tensor")
        group = dict(param_group)
        group["params"] = params
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError(f"[add_param_group] parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            group.setdefault(name, default)
        seen = {id(p) for g in self.param_groups for p in g["params"]}
        if len({id(p) for p in params}) != len(params):
            raise ValueError("[add_param_group] a parameter appears twice in one parameter group")
        if any(id(p) in seen for p in params):
            raise ValueError("[add_param_group] some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none=True):
        """Clears the gradients of every parameter (to None by default, else zeroed in place)."""
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    g = p.grad.detach()
                    g.zero_()
                    p.grad = g

    def step(self, closure=None):
        raise NotImplementedError(f"[Optimizer] {type(self).__name__} does not implement step()")

    def state_dict(self):
        """{'state': {index: {...}}, 'param_groups': [{..., 'params': [indices]}]}: parameters are numbered
        in the order of the groups, so the dict loads into an optimizer built the same way."""
        index = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            ids = []
            for p in group["params"]:
                if id(p) not in index:
                    index[id(p)] = len(index)
                ids.append(index[id(p)])
            packed["params"] = ids
            groups.append(packed)
        state = {}
        for group in self.param_groups:
            for p in group["params"]:
                if p in self.state:
                    state[index[id(p)]] = self.state[p]
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict):
        """Loads what state_dict() returned (from an optimizer over parameters of the same sizes)."""
        state_dict = copy.copy(state_dict)
        groups = self.param_groups
        saved_groups = state_dict["param_groups"]
        if len(groups) != len(saved_groups):
            raise ValueError(f"[load_state_dict] loaded state dict has {len(saved_groups)} parameter groups, "
                             f"this optimizer has {len(groups)}")
        for i, (g, s) in enumerate(zip(groups, saved_groups)):
            if len(g["params"]) != len(s["params"]):
                raise ValueError(f"[load_state_dict] loaded state dict's group {i} has {len(s['params'])} "
                                 f"parameters, this optimizer's has {len(g['params'])}")
        id_map = {}
        for g, s in zip(groups, saved_groups):
            for p, i in zip(g["params"], s["params"]):
                id_map[i] = p

        def cast(param, value, key=None):
            if isinstance(value, Tensor):
                if key == "step":  # kept as saved (a float or a 0-dim tensor)
                    return value.clone()
                if value.is_floating_point():
                    return value.to(param.device, param.dtype).clone()
                return value.to(param.device).clone()
            if isinstance(value, dict):
                return {k: cast(param, v, k) for k, v in value.items()}
            return copy.deepcopy(value)

        state = {}
        for k, v in state_dict["state"].items():
            if k in id_map:
                param = id_map[k]
                state[param] = cast(param, v)
        new_groups = []
        for g, s in zip(groups, saved_groups):
            ng = dict(s)
            ng["params"] = g["params"]
            new_groups.append(ng)
        self.state = state
        self.param_groups = new_groups
