"""Containers: Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict."""
import collections
import operator

from .module import Module
from .parameter import Parameter


def _renumber(container, modules):
    """Makes modules the children of a Sequential or ModuleList under the names "0".."n-1"."""
    container._modules.clear()
    for i, m in enumerate(modules):
        container._modules[str(i)] = m


class Sequential(Module):
    """Calls its modules in order, each on the previous one's output: Sequential(a, b, c) or
    Sequential(OrderedDict(name=module, ...))."""

    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], collections.OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for idx, module in enumerate(args):
                self.add_module(str(idx), module)

    def _index(self, idx):
        n = len(self._modules)
        idx = operator.index(idx)
        if not -n <= idx < n:
            raise IndexError(f"[Sequential] index {idx} is out of range for {n} modules")
        return idx % n

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(collections.OrderedDict(list(self._modules.items())[idx]))
        return list(self._modules.values())[self._index(idx)]

    def __setitem__(self, idx, module):
        key = list(self._modules.keys())[self._index(idx)]
        setattr(self, key, module)

    def __delitem__(self, idx):
        if isinstance(idx, slice):
            for key in list(self._modules.keys())[idx]:
                delattr(self, key)
        else:
            delattr(self, list(self._modules.keys())[self._index(idx)])
        _renumber(self, list(self._modules.values()))

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        if not isinstance(module, Module):
            raise TypeError(f"[Sequential.insert] module should be of type Module, got {type(module).__name__}")
        n = len(self._modules)
        if not -n <= index <= n:
            raise IndexError(f"[Sequential.insert] index {index} is out of range")
        if index < 0:
            index += n
        items = list(self._modules.values())
        items.insert(index, module)
        _renumber(self, items)
        return self

    def forward(self, input):
        for module in self._modules.values():
            input = module(input)
        return input


class ModuleList(Module):
    """A list of modules, registered (so parameters() sees them) but not called in any order."""

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def _index(self, idx):
        n = len(self._modules)
        idx = operator.index(idx)
        if not -n <= idx < n:
            raise IndexError(f"[ModuleList] index {idx} is out of range for {n} modules")
        return str(idx % n)

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return type(self)(list(self._modules.values())[idx])
        return self._modules[self._index(idx)]

    def __setitem__(self, idx, module):
        setattr(self, self._index(idx), module)

    def __delitem__(self, idx):
        items = list(self._modules.values())
        del items[idx if isinstance(idx, slice) else int(self._index(idx))]
        _renumber(self, items)

    def __len__(self):
        return len(self._modules)

    def __iter__(self):
        return iter(self._modules.values())

    def __iadd__(self, modules):
        return self.extend(modules)

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        if isinstance(modules, Module) and not isinstance(modules, (ModuleList, Sequential)):
            raise TypeError("[ModuleList.extend] should be called with an iterable of modules, "
                            f"got {type(modules).__name__}")
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        items = list(self._modules.values())
        items.insert(index, module)
        self._modules.clear()
        for i, m in enumerate(items):
            self.add_module(str(i), m)

    def forward(self, *args, **kwargs):
        raise NotImplementedError("[ModuleList] is not callable: iterate over it in your forward")

    def __repr__(self):
        # Runs of consecutive children that print alike are folded: "(0-2): 3 x Linear(...)".
        from .module import _addindent
        runs = []  # [first, last, text]
        for i, m in enumerate(self._modules.values()):
            text = repr(m)
            if runs and runs[-1][2] == text:
                runs[-1][1] = i
            else:
                runs.append([i, i, text])
        if not runs:
            return "ModuleList()"
        lines = []
        for first, last, text in runs:
            if first == last:
                lines.append(f"({first}): " + _addindent(text, 2))
            else:
                lines.append(f"({first}-{last}): {last - first + 1} x " + _addindent(text, 2))
        return "ModuleList(\n  " + "\n  ".join(lines) + "\n)"


class _StoreDict:
    """The dict protocol of ModuleDict and ParameterDict over the Module store that _store names; each
    class registers what __setitem__ is given its own way."""
    _store = None

    def __getitem__(self, key):
        return self.__dict__[self._store][key]

    def __delitem__(self, key):
        del self.__dict__[self._store][key]

    def __len__(self):
        return len(self.__dict__[self._store])

    def __iter__(self):
        return iter(self.__dict__[self._store])

    def __contains__(self, key):
        return key in self.__dict__[self._store]

    def clear(self):
        for key in list(self.keys()):
            del self[key]

    def pop(self, key):
        value = self[key]
        del self[key]
        return value

    def keys(self):
        return self.__dict__[self._store].keys()

    def items(self):
        return self.__dict__[self._store].items()

    def values(self):
        return self.__dict__[self._store].values()

    def update(self, pairs):
        for key, value in (pairs.items() if hasattr(pairs, "items") else pairs):
            self[key] = value


class ModuleDict(_StoreDict, Module):
    """A dict of modules by name, registered in insertion order."""
    _store = "_modules"

    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def forward(self, *args, **kwargs):
        raise NotImplementedError("[ModuleDict] is not callable: index it in your forward")


class ParameterList(Module):
    """A list of parameters, registered under "0", "1", ..."""

    def __init__(self, values=None):
        super().__init__()
        for v in values or ():
            self.append(v)

    def __getitem__(self, idx):
        n = len(self._parameters)
        if not -n <= idx < n:
            raise IndexError(f"[ParameterList] index {idx} is out of range for {n} parameters")
        return self._parameters[str(idx % n)]

    def __setitem__(self, idx, value):
        self.register_parameter(str(idx % len(self)), value if isinstance(value, Parameter) else Parameter(value))

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters.values())

    def append(self, value):
        self.register_parameter(str(len(self)), value if isinstance(value, Parameter) else Parameter(value))
        return self

    def extend(self, values):
        for v in values:
            self.append(v)
        return self

    def extra_repr(self):
        return "\n".join(f"({i}): Parameter containing: [{p.dtype} of size {'x'.join(map(str, p.shape))}]"
                         for i, p in enumerate(self))


class ParameterDict(_StoreDict, Module):
    """A dict of parameters by name."""
    _store = "_parameters"

    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __setitem__(self, key, value):
        self.register_parameter(key, value if isinstance(value, Parameter) else Parameter(value))
