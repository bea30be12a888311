"""ember.nn.Module: the base of every layer and model.

A Module registers what is assigned to its attributes: a Parameter goes to _parameters, a Module to
_modules, and a tensor assigned to a registered buffer name (or wrapped in Buffer) to _buffers. The
walks (parameters(), modules(), state_dict(), ...) visit these dicts in assignment order.
"""
import collections
import itertools

from .. import _C
from .. import no_grad as _no_grad
from .._C import Tensor
from .parameter import Parameter, Buffer

_EXTRA_STATE = "_extra_state"  # the state_dict key (after the module's prefix) of get_extra_state()'s value


class _IncompatibleKeys(collections.namedtuple("IncompatibleKeys", ["missing_keys", "unexpected_keys"])):
    """What load_state_dict returns: the keys the module has and the state_dict lacked, and the reverse."""
    __slots__ = ()

    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()

    __str__ = __repr__


class RemovableHandle:
    """Returned by register_*_hook: handle.remove() takes the hook out again."""
    _next_id = itertools.count()

    def __init__(self, hooks):
        self._hooks = hooks
        self.id = next(RemovableHandle._next_id)

    def remove(self):
        self._hooks.pop(self.id, None)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.remove()


def _addindent(text, spaces):
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    return lines[0] + "\n" + "\n".join(" " * spaces + line for line in lines[1:])


class Module:
    """Base class of layers and models: subclass it, create the layers in __init__ (after
    super().__init__()) and write forward(); call the module to run forward with its hooks."""

    training: bool
    _version = 1

    def __init__(self):
        s = object.__setattr__
        s(self, "training", True)
        s(self, "_parameters", {})
        s(self, "_buffers", {})
        s(self, "_non_persistent_buffers", set())
        s(self, "_modules", {})
        s(self, "_forward_pre_hooks", {})
        s(self, "_forward_hooks", {})
        s(self, "_backward_hooks", {})
        s(self, "_backward_pre_hooks", {})
        for store in _STATE_HOOK_STORES:
            s(self, store, {})

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'[Module] {type(self).__name__} is missing the required "forward" function')

    # ------------------------------------------------------------ registration
    def _check_name(self, name, kind):
        if "_parameters" not in self.__dict__:
            raise AttributeError(f"[Module] cannot assign {kind} before Module.__init__() call")
        if not isinstance(name, str):
            raise TypeError(f"[Module] {kind} name should be a string, got {type(name).__name__}")
        if name == "" or "." in name:
            raise KeyError(f'[Module] {kind} name can\'t be empty or contain ".", got "{name}"')

    def register_parameter(self, name, param):
        """Adds param (a Parameter, or None for an absent one) under name."""
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f'[Module] attribute "{name}" already exists')
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(f'[Module] cannot assign {_type_name(param)} as parameter "{name}" '
                            "(ember.nn.Parameter or None expected)")
        self._parameters[name] = param

    def register_buffer(self, name, tensor, persistent=True):
        """Adds a tensor that is state but not trained (e.g. running statistics); persistent=False
        keeps it out of state_dict()."""
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f'[Module] attribute "{name}" already exists')
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(f'[Module] cannot assign {type(tensor).__name__} as buffer "{name}" '
                            "(ember.Tensor or None expected)")
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers.discard(name)
        else:
            self._non_persistent_buffers.add(name)

    def add_module(self, name, module):
        """Adds a child module under name (None for an absent one)."""
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f'[Module] attribute "{name}" already exists')
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"[Module] {type(module).__name__} is not a Module subclass")
        self._modules[name] = module

    register_module = add_module

    def __getattr__(self, name):
        # Called only when normal lookup fails: the registered names live in the three dicts.
        d = self.__dict__
        for store in ("_parameters", "_buffers", "_modules"):
            if store in d and name in d[store]:
                return d[store][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __setattr__(self, name, value):
        d = self.__dict__
        params = d.get("_parameters")

        def drop(*stores):
            for store in stores:
                if store in d:
                    d[store].pop(name, None)
            d.pop(name, None)

        if isinstance(value, Buffer):
            drop("_parameters", "_modules")
            self.register_buffer(name, value.data, value.persistent)
        elif isinstance(value, Parameter) and not (params is not None and name in d["_buffers"]):
            if params is None:
                raise AttributeError("[Module] cannot assign parameters before Module.__init__() call")
            drop("_buffers", "_modules")
            d["_non_persistent_buffers"].discard(name)
            self.register_parameter(name, value)
        elif params is not None and name in params:
            # A registered parameter takes a Parameter, itself again, or None.
            if value is not None and value is not params[name]:
                raise TypeError(f'[Module] cannot assign {_type_name(value)} as parameter "{name}" '
                                "(ember.nn.Parameter or None expected)")
            self.register_parameter(name, value)
        elif isinstance(value, Module):
            if params is None:
                raise AttributeError("[Module] cannot assign module before Module.__init__() call")
            drop("_parameters", "_buffers")
            self._modules[name] = value
        elif "_modules" in d and name in d["_modules"]:
            if value is not None:
                raise TypeError(f'[Module] cannot assign {_type_name(value)} as child module "{name}" '
                                "(ember.nn.Module or None expected)")
            self._modules[name] = None
        elif "_buffers" in d and name in d["_buffers"]:
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(f'[Module] cannot assign {_type_name(value)} as buffer "{name}" '
                                "(ember.Tensor or None expected)")
            self._buffers[name] = value
        else:
            object.__setattr__(self, name, value)

    def __setstate__(self, state):
        self.__dict__.update(state)  # (not through __setattr__: the stores come back whole)
        for store in _STATE_HOOK_STORES:  # (a module pickled before these stores existed)
            self.__dict__.setdefault(store, {})

    def __delattr__(self, name):
        for store in ("_parameters", "_buffers", "_modules"):
            if name in self.__dict__.get(store, ()):
                del self.__dict__[store][name]
                self._non_persistent_buffers.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self):
        keys = set(super().__dir__())
        for store in ("_parameters", "_buffers", "_modules"):
            keys.update(self.__dict__.get(store, ()))
        return sorted(keys)

    def get_submodule(self, target):
        """The module at a dotted path ("" is self): model.get_submodule("features.0")."""
        mod = self
        if target == "":
            return mod
        for part in target.split("."):
            if part not in mod._modules or mod._modules[part] is None:
                raise AttributeError(f"[get_submodule] {type(mod).__name__} has no submodule `{part}` (in '{target}')")
            mod = mod._modules[part]
        return mod

    def get_parameter(self, target):
        """The parameter at a dotted path: model.get_parameter("fc.weight")."""
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if name not in mod._parameters:
            raise AttributeError(f"[get_parameter] {type(mod).__name__} has no parameter `{name}` (in '{target}')")
        return mod._parameters[name]

    def get_buffer(self, target):
        """The buffer at a dotted path: model.get_buffer("bn.running_mean")."""
        mod_path, _, name = target.rpartition(".")
        mod = self.get_submodule(mod_path)
        if name not in mod._buffers:
            raise AttributeError(f"[get_buffer] {type(mod).__name__} has no buffer `{name}` (in '{target}')")
        return mod._buffers[name]

    # ------------------------------------------------------------ walks
    def named_modules(self, memo=None, prefix="", remove_duplicate=True):
        """(name, module) for self and every descendant, depth first; a module reachable twice comes once."""
        if memo is None:
            memo = set()
        if remove_duplicate:
            if id(self) in memo:
                return
            memo.add(id(self))
        yield prefix, self
        for name, child in self._modules.items():
            if child is None:
                continue
            yield from child.named_modules(memo, prefix + ("." if prefix else "") + name, remove_duplicate)

    def modules(self):
        for _, m in self.named_modules():
            yield m

    def named_children(self):
        seen = set()
        for name, child in self._modules.items():
            if child is not None and id(child) not in seen:
                seen.add(id(child))
                yield name, child

    def children(self):
        for _, m in self.named_children():
            yield m

    def _named_members(self, store, prefix, recurse, remove_duplicate):
        seen = set()
        mods = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for mod_prefix, mod in mods:
            for name, value in getattr(mod, store).items():
                if value is None or (remove_duplicate and id(value) in seen):
                    continue
                if remove_duplicate:
                    seen.add(id(value))
                yield mod_prefix + ("." if mod_prefix else "") + name, value

    def named_parameters(self, prefix="", recurse=True, remove_duplicate=True):
        """(dotted name, parameter) pairs; a parameter shared by two modules comes once."""
        return self._named_members("_parameters", prefix, recurse, remove_duplicate)

    def parameters(self, recurse=True):
        for _, p in self.named_parameters(recurse=recurse):
            yield p

    def named_buffers(self, prefix="", recurse=True, remove_duplicate=True):
        return self._named_members("_buffers", prefix, recurse, remove_duplicate)

    def buffers(self, recurse=True):
        for _, b in self.named_buffers(recurse=recurse):
            yield b

    # ------------------------------------------------------------ modes and state
    def train(self, mode=True):
        """Sets training mode on self and every descendant (dropout drops, batch norm uses batch statistics)."""
        if not isinstance(mode, bool):
            raise ValueError("[train] training mode is expected to be a bool")
        for m in self.modules():
            object.__setattr__(m, "training", mode)
        return self

    def eval(self):
        """train(False)."""
        return self.train(False)

    def requires_grad_(self, requires_grad=True):
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none=True):
        """Clears every parameter's .grad (to None, or zeroed in place with set_to_none=False)."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad.detach()
                g.zero_()
                p.grad = g

    def apply(self, fn):
        """Calls fn on every descendant and then on self (children first); returns self."""
        for child in self.children():
            child.apply(fn)
        fn(self)
        return self

    def _apply(self, fn, recurse=True):
        """Replaces each parameter and buffer t by fn(t) where that gives a different tensor (in self
        only with recurse=False). A parameter stays the same object and takes the new data (p.data =
        fn(p), as PyTorch's), so an optimizer made before the move still holds the model's parameters;
        its .grad is converted too."""
        for m in (self.modules() if recurse else (self,)):
            for name, p in list(m._parameters.items()):
                if p is None:
                    continue
                with _no_grad():
                    q = fn(p)
                if q is p or _same_tensor(q, p):
                    continue
                g = p.grad
                if g is not None:
                    with _no_grad():
                        g = fn(g)
                    p.grad = None
                p.data = q
                if g is not None:
                    p.grad = g
            for name, b in list(m._buffers.items()):
                if b is not None:
                    m._buffers[name] = fn(b)
        return self

    def to(self, *args, **kwargs):
        """Moves and/or casts the parameters and buffers: to(device), to(dtype), to(device, dtype).
        Only floating-point tensors change dtype (integer buffers keep theirs)."""
        device = kwargs.pop("device", None)
        dtype = kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise TypeError(f"[Module.to] unexpected keyword argument(s) {sorted(kwargs)}")
        for a in args:
            if isinstance(a, _C.dtype):
                dtype = a
            elif isinstance(a, (str, _C.device)):
                device = a
            elif isinstance(a, Tensor):
                device, dtype = a.device, a.dtype
            else:
                raise TypeError(f"[Module.to] expected a device or dtype, got {type(a).__name__}")
        if dtype is not None and not dtype.is_floating_point:
            raise TypeError(f"[Module.to] nn.Module.to only accepts floating point dtypes, but got {dtype}")

        def convert(t):
            want = dtype if (dtype is not None and t.is_floating_point()) else t.dtype
            if device is None:
                return t if want == t.dtype else t.to(want)
            return t.to(device, want)

        return self._apply(convert)

    def to_empty(self, *, device, recurse=True):
        """Replaces every parameter and buffer (self's only with recurse=False) by an uninitialised
        tensor of the same shape and dtype on `device` (None: where it is), as after building a model
        on the meta device; the values are garbage until initialised or loaded. Returns self."""
        return self._apply(lambda t: _C.empty_like(t, device=device), recurse=recurse)

    def share_memory(self):
        """PyTorch moves the tensors' storages into shared memory for processes that train one model
        together (Hogwild). Ember tensors cannot move their storage (there is no
        Tensor.share_memory_), and a module handed to another process arrives as a copy, so this
        raises rather than let such processes train copies silently. (DataLoader workers need none
        of it: they hand batches back through /dev/shm files, Note [DataLoader workers].)"""
        raise NotImplementedError("[Module.share_memory] Ember tensors cannot be moved to shared memory "
                                  "(no Tensor.share_memory_); a module passed to another process is a copy")

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
        return self.to("cuda" if device is None else f"cuda:{int(device)}" if isinstance(device, int) else device)

    def float(self):
        return self.to(_C.float32)

    def double(self):
        return self.to(_C.float64)

    def half(self):
        return self.to(_C.float16)

    def bfloat16(self):
        return self.to(_C.bfloat16)

    # ------------------------------------------------------------ state_dict
    def get_extra_state(self):
        """Override it (with set_extra_state) to keep state that is no parameter or buffer in the
        state_dict: its value is stored under "<prefix>_extra_state" and should be picklable."""
        raise RuntimeError("[Module.get_extra_state] called on a module that does not override it "
                           "(state_dict calls it only where a subclass does)")

    def set_extra_state(self, state):
        """Override it (with get_extra_state): load_state_dict calls it with the value stored under
        "<prefix>_extra_state"."""
        raise RuntimeError("[Module.set_extra_state] called on a module that does not override it "
                           "(load_state_dict calls it only where a subclass does)")

    def _save_to_state_dict(self, destination, prefix, keep_vars):
        """Writes this module's own entries (not its children's) into destination: the parameters,
        the persistent buffers, then the extra state. Subclasses may override it."""
        for name, p in self._parameters.items():
            if p is not None:
                destination[prefix + name] = p if keep_vars else p.detach()
        for name, b in self._buffers.items():
            if b is not None and name not in self._non_persistent_buffers:
                destination[prefix + name] = b if keep_vars else b.detach()
        if _overrides(self, "get_extra_state"):
            destination[prefix + _EXTRA_STATE] = self.get_extra_state()

    def state_dict(self, *args, destination=None, prefix="", keep_vars=False):
        """The parameters, persistent buffers and extra state by dotted name, in registration order
        (self's own, then each child's); detached unless keep_vars. The OrderedDict's `_metadata`
        maps each module's dotted name to {"version": its _version}.

        Per module: the state_dict pre-hooks run, its entries are written, the children are visited,
        then its post-hooks run."""
        if args:  # the old positional spelling state_dict(destination, prefix, keep_vars)
            if destination is None:
                destination = args[0]
            if len(args) > 1 and prefix == "":
                prefix = args[1]
            if len(args) > 2 and keep_vars is False:
                keep_vars = args[2]
        if destination is None:
            destination = collections.OrderedDict()
            destination._metadata = collections.OrderedDict()
        local_metadata = {"version": self._version}
        if hasattr(destination, "_metadata"):
            destination._metadata[prefix[:-1]] = local_metadata
        for hook in list(self._state_dict_pre_hooks.values()):
            hook(self, prefix, keep_vars)
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, child in self._modules.items():
            if child is not None:
                child.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        for hook, public in list(self._state_dict_hooks.values()):
            result = hook(self, destination, prefix, local_metadata)
            if public:
                if result is not None:
                    raise RuntimeError("[state_dict] a hook registered with register_state_dict_post_hook must "
                                       "return None (it may change the state_dict in place)")
            elif result is not None:  # the older private hook: its result replaces the state_dict
                destination = result
        return destination

    def register_state_dict_pre_hook(self, hook):
        """hook(module, prefix, keep_vars) runs when state_dict() reaches this module, before its
        entries are written."""
        return _add_plain_hook(self._state_dict_pre_hooks, hook)

    def register_state_dict_post_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata) runs once this module and its children are
        written; it may change state_dict in place and must return None."""
        try:
            hook._from_public_api = True
        except AttributeError:  # (a bound method: the entry below marks it too)
            pass
        return _add_plain_hook(self._state_dict_hooks, (hook, True))

    def _register_state_dict_hook(self, hook):
        """The older post-hook: as register_state_dict_post_hook's, but a returned dict replaces the
        result of the state_dict() call made on this module (so below the root it is lost)."""
        if getattr(hook, "_from_public_api", False):
            raise RuntimeError("[_register_state_dict_hook] this function is already a state_dict post-hook "
                               "registered with register_state_dict_post_hook")
        return _add_plain_hook(self._state_dict_hooks, (hook, False))

    def register_load_state_dict_pre_hook(self, hook):
        """hook(module, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
        error_msgs) runs when load_state_dict reaches this module, before its entries are read. It
        sees the part of the state_dict under prefix (a copy: renaming keys there changes what this
        module and its children load) and may append to the three lists."""
        return self._register_load_state_dict_pre_hook(hook, with_module=True)

    def _register_load_state_dict_pre_hook(self, hook, with_module=False):
        """As register_load_state_dict_pre_hook; without with_module the hook is not given the module."""
        return _add_plain_hook(self._load_state_dict_pre_hooks, (hook, with_module))

    def register_load_state_dict_post_hook(self, hook):
        """hook(module, incompatible_keys) runs once this module and its children are loaded;
        incompatible_keys holds the missing_keys and unexpected_keys lists found so far, which the hook
        may change in place (a strict load fails on what is left in them). It must return None."""
        return _add_plain_hook(self._load_state_dict_post_hooks, hook)

    def _load_from_state_dict(self, state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys,
                              error_msgs):
        """Loads this module's own entries (not its children's) from state_dict (the part of the
        caller's under prefix, a copy): copies into the parameters and persistent buffers (or assigns,
        with local_metadata["assign_to_params_buffers"]), calls set_extra_state, and appends to
        missing_keys, unexpected_keys and error_msgs. Subclasses may override it (e.g. to read an
        older layout named by local_metadata.get("version"))."""
        for hook, with_module in list(self._load_state_dict_pre_hooks.values()):
            args = (state_dict, prefix, local_metadata, strict, missing_keys, unexpected_keys, error_msgs)
            hook(self, *args) if with_module else hook(*args)
        local_state = {k: v for k, v in self._parameters.items() if v is not None}
        local_state.update((k, v) for k, v in self._buffers.items()
                           if v is not None and k not in self._non_persistent_buffers)
        assign = local_metadata.get("assign_to_params_buffers", False)
        for name, t in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            src = state_dict[key]
            if not isinstance(src, Tensor):
                error_msgs.append(f'While copying the parameter named "{key}", expected ember.Tensor or '
                                  f"Tensor-like object from checkpoint but received {type(src)}")
                continue
            if t.dim() == 0 and src.dim() == 1 and src.shape[0] == 1:
                src = src[0]  # (a 1-element checkpoint entry for a 0-dim tensor, as old PyTorch wrote them)
            if tuple(src.shape) != tuple(t.shape):
                error_msgs.append(f"size mismatch for {key}: copying a param with shape {list(src.shape)} from "
                                  f"checkpoint, the shape in current model is {list(t.shape)}.")
                continue
            try:
                if assign:
                    if isinstance(t, Parameter):
                        if isinstance(src, Parameter):
                            src.requires_grad_(t.requires_grad)
                        else:
                            src = Parameter(src, requires_grad=t.requires_grad)
                    setattr(self, name, src)
                else:
                    with _no_grad():
                        t.copy_(src)
            except Exception as e:  # noqa: BLE001 - reported with the others
                error_msgs.append(f'While copying the parameter named "{key}", whose dimensions in the model are '
                                  f"{list(t.shape)} and whose dimensions in the checkpoint are {list(src.shape)}, "
                                  f"an exception occurred : {e.args}.")
        extra_key = prefix + _EXTRA_STATE
        if _overrides(self, "set_extra_state"):
            if extra_key in state_dict:
                self.set_extra_state(state_dict[extra_key])
            elif strict:
                missing_keys.append(extra_key)
        elif strict and extra_key in state_dict:
            unexpected_keys.append(extra_key)
        if strict:
            for key in state_dict:
                if not key.startswith(prefix) or key == extra_key:
                    continue
                head, dot, _ = key[len(prefix):].partition(".")
                if head not in (self._modules if dot else local_state):
                    unexpected_keys.append(key)

    def load_state_dict(self, state_dict, strict=True, assign=False):
        """Copies the tensors of state_dict into this module's parameters and persistent buffers, and
        hands each module's "_extra_state" entry to its set_extra_state.

        Every size must match. With strict (the default), a name missing from state_dict or one
        state_dict has that the module lacks is an error too; otherwise they are returned as
        (missing_keys, unexpected_keys). assign=True replaces the tensors instead of copying into them
        (a parameter keeps the module's requires_grad). Per module: the load pre-hooks run, its
        entries are loaded (_load_from_state_dict), the children are visited, then its post-hooks run.
        """
        if not hasattr(state_dict, "items"):
            raise TypeError(f"[load_state_dict] expected a dict-like object, got {type(state_dict).__name__}")
        missing, unexpected, errors = [], [], []
        metadata = getattr(state_dict, "_metadata", None)
        state_dict = collections.OrderedDict(state_dict)  # (the hooks may change it: the caller's stays)

        def load(module, local_state_dict, prefix):
            local_metadata = {} if metadata is None else dict(metadata.get(prefix[:-1], {}))
            if assign:
                local_metadata["assign_to_params_buffers"] = True
            module._load_from_state_dict(local_state_dict, prefix, local_metadata, True, missing, unexpected,
                                         errors)
            for name, child in module._modules.items():
                if child is not None:
                    child_prefix = prefix + name + "."
                    load(child, {k: v for k, v in local_state_dict.items() if k.startswith(child_prefix)},
                         child_prefix)
            keys = _IncompatibleKeys(missing, unexpected)
            for hook in list(module._load_state_dict_post_hooks.values()):
                if hook(module, keys) is not None:
                    raise AssertionError("[load_state_dict] a hook registered with register_load_state_dict_post_hook "
                                         "must return None (it may change incompatible_keys in place)")

        load(self, state_dict, "")
        if strict:
            if unexpected:
                errors.insert(0, "Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in unexpected) + ".")
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in missing) + ".")
        if errors:
            raise RuntimeError(f"[load_state_dict] Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    # ------------------------------------------------------------ calling
    def _add_hook(self, store, hook, prepend, with_kwargs):
        handle = RemovableHandle(store)
        entry = (hook, with_kwargs)
        if prepend:
            items = list(store.items())
            store.clear()
            store[handle.id] = entry
            store.update(items)
        else:
            store[handle.id] = entry
        return handle

    def register_forward_pre_hook(self, hook, *, prepend=False, with_kwargs=False):
        """hook(module, args) runs before forward; returning a value (a tuple, or one argument) replaces
        the positional arguments. With with_kwargs=True it is hook(module, args, kwargs) and may return
        an (args, kwargs) pair. prepend=True runs it before the hooks already registered."""
        return self._add_hook(self._forward_pre_hooks, hook, prepend, with_kwargs)

    def register_forward_hook(self, hook, *, prepend=False, with_kwargs=False, always_call=False):
        """hook(module, args, output) (or hook(module, args, kwargs, output) with with_kwargs=True) runs
        after forward; returning a value replaces the output."""
        return self._add_hook(self._forward_hooks, hook, prepend, with_kwargs)

    def register_full_backward_hook(self, hook, prepend=False):
        """hook(module, grad_input, grad_output) runs when the gradients with respect to the module's
        tensor inputs have been computed (grad_input holds None for inputs that need none); returning
        a tuple replaces grad_input. See Note [Module backward hooks]."""
        return self._add_hook(self._backward_hooks, hook, prepend, False)

    def register_full_backward_pre_hook(self, hook, prepend=False):
        """hook(module, grad_output) runs when the gradients with respect to the module's outputs are
        known, before the module's backward; returning a tuple replaces grad_output."""
        return self._add_hook(self._backward_pre_hooks, hook, prepend, False)

    def __call__(self, *args, **kwargs):
        if self.__dict__.get("_backward_hooks") or self.__dict__.get("_backward_pre_hooks"):
            return _call_with_backward_hooks(self, args, kwargs)
        if not self._forward_pre_hooks and not self._forward_hooks:
            return self.forward(*args, **kwargs)
        return self._call_with_forward_hooks(args, kwargs)

    def _call_with_forward_hooks(self, args, kwargs):
        for hook, with_kwargs in list(self._forward_pre_hooks.values()):
            if with_kwargs:
                r = hook(self, args, kwargs)
                if r is not None:
                    if not (isinstance(r, tuple) and len(r) == 2):
                        raise RuntimeError("[Module] a forward pre-hook with kwargs must return None or a tuple "
                                           f"of (new_args, new_kwargs), got {r!r}")
                    args, kwargs = r
            else:
                r = hook(self, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
        out = self.forward(*args, **kwargs)
        for hook, with_kwargs in list(self._forward_hooks.values()):
            r = hook(self, args, kwargs, out) if with_kwargs else hook(self, args, out)
            if r is not None:
                out = r
        return out

    # ------------------------------------------------------------ printing
    def extra_repr(self):
        """The text inside this module's parentheses in repr (its settings); subclasses override."""
        return ""

    def _get_name(self):
        return type(self).__name__

    def __repr__(self):
        lines = []
        extra = self.extra_repr()
        if extra:
            lines.extend(extra.split("\n"))
        for name, child in self._modules.items():
            lines.append(f"({name}): " + _addindent(repr(child), 2))
        if not lines:
            return self._get_name() + "()"
        if len(lines) == 1 and not self._modules:
            return f"{self._get_name()}({lines[0]})"
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


# The hook stores of state_dict and load_state_dict, keyed by handle id (Module.__init__ makes them).
_STATE_HOOK_STORES = ("_state_dict_pre_hooks", "_state_dict_hooks", "_load_state_dict_pre_hooks",
                      "_load_state_dict_post_hooks")


def _add_plain_hook(store, entry):
    handle = RemovableHandle(store)
    store[handle.id] = entry
    return handle


def _overrides(module, name):
    """Whether module's class defines its own `name` (get_extra_state / set_extra_state)."""
    return getattr(type(module), name, None) is not getattr(Module, name)


def _type_name(v):
    return "ember.Tensor" if isinstance(v, Tensor) else f"'{type(v).__name__}'"


def _same_tensor(a, b):
    return (isinstance(a, Tensor) and a.dtype == b.dtype and a.device == b.device
            and a.data_ptr() == b.data_ptr() and a.shape == b.shape and a.stride() == b.stride())


# Note [Module backward hooks]
# register_full_backward_hook works by passing the module's tensor inputs, and then its tensor
# outputs, through identity autograd Functions (_HookInputs, _HookOutputs) that share one _HookState.
# The engine reaches the outputs' identity first: its backward records grad_output (after the
# backward pre-hooks, which may replace it). It reaches the inputs' identity once the module's own
# backward has run: there the hooks see (grad_input, grad_output) and may replace grad_input. When no
# input needs a gradient, the hooks run at the outputs' identity with grad_input all None.
class _HookState:
    def __init__(self, module, n_inputs):
        self.module, self.n_inputs, self.grad_output = module, n_inputs, None


def _identity_function(name, backward):
    from ..autograd import Function

    def forward(ctx, state, *xs):
        ctx.state = state
        return tuple(x.view_as(x) for x in xs)

    return type(name, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def _inputs_backward(ctx, *grads):
    st = ctx.state
    grads = tuple(grads)
    for hook, _ in list(st.module._backward_hooks.values()):
        r = hook(st.module, grads, st.grad_output)
        if r is not None:
            grads = tuple(r)
    return (None,) + grads


def _outputs_backward(ctx, *grads):
    st = ctx.state
    grads = tuple(grads)
    for hook, _ in list(st.module._backward_pre_hooks.values()):
        r = hook(st.module, grads)
        if r is not None:
            grads = tuple(r)
    st.grad_output = grads
    if st.n_inputs == 0:
        for hook, _ in list(st.module._backward_hooks.values()):
            hook(st.module, (None,), grads)
    return (None,) + grads


_hook_functions = {}


def _call_with_backward_hooks(module, args, kwargs):
    if not _hook_functions:
        _hook_functions["in"] = _identity_function("BackwardHookFunctionBackward", _inputs_backward)
        _hook_functions["out"] = _identity_function("BackwardHookFunctionBackward", _outputs_backward)
    positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
    state = _HookState(module, len(positions))
    if positions and _C.is_grad_enabled():
        wrapped = _hook_functions["in"].apply(state, *[args[i] for i in positions])
        args = list(args)
        for i, w in zip(positions, wrapped):
            args[i] = w
        args = tuple(args)
    out = module._call_with_forward_hooks(args, kwargs)
    if not _C.is_grad_enabled():
        return out
    if isinstance(out, Tensor):
        if out.requires_grad:
            out = _hook_functions["out"].apply(state, out)[0]
        return out
    if isinstance(out, (tuple, list)):
        idx = [i for i, o in enumerate(out) if isinstance(o, Tensor) and o.requires_grad]
        if idx:
            wrapped = _hook_functions["out"].apply(state, *[out[i] for i in idx])
            items = list(out)
            for i, w in zip(idx, wrapped):
                items[i] = w
            out = type(out)(*items) if hasattr(out, "_fields") else type(out)(items)
    return out
