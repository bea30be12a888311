// Autograd from Python (see bind_areas.h): tensor hooks taking Python callables, the graph's Nodes
// as Python objects (Tensor.grad_fn, next_functions), and ember.autograd.Function, whose backward
// is a Python method run by a C++ Node (PyNode below).
//
// Note [Python callbacks in backward]
// The engine runs without the GIL (the bindings of backward/grad release it), on the calling
// thread. A hook or a Function's backward takes the GIL for the Python call only. A Python
// exception raised there leaves as nb::python_error: nothing in the engine catches it, its state
// lives on the stack, so the exception unwinds to the binding, which takes the GIL back and
// restores the error: backward() raises the hook's own exception, type and message unchanged.
// The Python objects a Node keeps (a hook's callable, a Function's class and ctx) may be dropped
// on any thread, with or without the GIL (a graph dies with its last tensor), so their references
// are released under PyGILState_Ensure.
#include "bind_areas.h"

#include <nanobind/stl/optional.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <unordered_map>

#include <ATen/core/GradMode.h>
#include <torch/autograd.h>
#include <torch/csrc/autograd/gradcheck.h>

#include "arg_parser.h"

namespace nb = nanobind;
using namespace ember::python;
using torch::autograd::Node;
using torch::autograd::variable_list;

namespace {

// A strong reference that may be dropped on any thread (Note [Python callbacks in backward]).
class PyRef {
 public:
  PyRef() = default;
  explicit PyRef(PyObject* o) : p_(o) { Py_XINCREF(o); }  // with the GIL held
  PyRef(const PyRef&) = delete;
  PyRef& operator=(const PyRef&) = delete;
  ~PyRef() { reset(); }
  PyObject* get() const { return p_; }
  void set(PyObject* o) {  // with the GIL held
    Py_XINCREF(o);
    reset();
    p_ = o;
  }
  void reset() {
    if (!p_) return;
    PyObject* p = p_;
    p_ = nullptr;
    if (!Py_IsInitialized()) return;  // the interpreter is gone: nothing to release into
    PyGILState_STATE s = PyGILState_Ensure();
    Py_DECREF(p);
    PyGILState_Release(s);
  }

 private:
  PyObject* p_ = nullptr;
};

[[noreturn]] void raise_type_error(const std::string& msg) {
  PyErr_SetString(PyExc_TypeError, msg.c_str());
  throw nb::python_error();
}

std::string type_name(PyObject* o) { return Py_TYPE(o)->tp_name; }

// ---------------------------------------------------------------- tensor hooks
// The hook's callable; handle.remove() clears it under the GIL, and the C++ hook (which the
// library cannot remove) then does nothing.
struct HookState {
  PyRef fn;
  explicit HookState(PyObject* f) : fn(f) {}
};

// The handle refers to the state weakly: the C++ hook is its only owner, so a tensor that is the
// only owner of its hooks owns their callables (Note [Tensor GC] below).
struct HookHandle {
  std::weak_ptr<HookState> state;
  void remove() {
    if (auto s = state.lock()) s->fn.reset();
  }
};

// Note [Tensor GC]
// ember.Tensor takes part in Python's cyclic GC (module.cpp installs tp_traverse/tp_clear) so that
// `x.register_hook(lambda g: x ...)` or `y.grad_fn.keep = y` can be collected (ember.Tensor has no
// __dict__; a Python subclass's instances have one, which CPython's subtype traverse/clear visit before
// calling these, as for nn.Parameter). The Python objects a
// tensor keeps alive through C++ are its hooks' callables (held by the C++ hook on the leaf's meta
// or on the grad_fn) and, for an output of an autograd.Function, the ctx and class held by its
// PyNode. A wrapper reports them only while it is their sole owner: its TensorImpl is referenced by
// this wrapper alone (wrappers are not unique per tensor), the grad_fn only by the tensor's meta,
// and each HookState only by its C++ hook. Otherwise the references belong to whoever else holds
// the tensor or node, and reporting them from here would let the GC free objects still in use.
// g_hook_states finds a tensor's Python hooks: key = TensorImpl* (leaf hooks) or Node* (hooks on a
// grad_fn); read and written with the GIL held; expired entries are pruned as the map grows.
std::unordered_map<const void*, std::vector<std::weak_ptr<HookState>>> g_hook_states;
size_t g_hook_prune_at = 64;

void remember_hook(const void* key, const std::shared_ptr<HookState>& s) {
  if (g_hook_states.size() >= g_hook_prune_at) {
    for (auto i = g_hook_states.begin(); i != g_hook_states.end();) {
      auto& v = i->second;
      v.erase(std::remove_if(v.begin(), v.end(), [](const std::weak_ptr<HookState>& w) { return w.expired(); }),
              v.end());
      i = v.empty() ? g_hook_states.erase(i) : std::next(i);
    }
    g_hook_prune_at = std::max<size_t>(64, 2 * g_hook_states.size());
  }
  g_hook_states[key].push_back(s);
}

// Calls f(HookState&) for each hook under `key` that its C++ hook alone owns.
template <typename F>
int for_owned_hooks(const void* key, F&& f) {
  auto it = g_hook_states.find(key);
  if (it == g_hook_states.end()) return 0;
  for (const auto& w : it->second) {
    if (w.use_count() != 1) continue;
    std::shared_ptr<HookState> s = w.lock();
    if (!s) continue;
    if (int r = f(*s)) return r;
  }
  return 0;
}

at::Tensor run_hook(const HookState& s, const at::Tensor& grad) {
  nb::gil_scoped_acquire gil;
  if (!s.fn.get()) return {};
  nb::object fn = nb::borrow(s.fn.get());
  nb::object arg = nb::steal(wrap(grad));
  PyObject* r = PyObject_CallOneArg(fn.ptr(), arg.ptr());
  if (!r) throw nb::python_error();
  nb::object res = nb::steal(r);
  if (res.is_none()) return {};
  if (!is_tensor(res.ptr()))
    raise_type_error("[register_hook] expected the hook to return None or a Tensor; got " + type_name(res.ptr()));
  at::Tensor out = unpack(res.ptr());
  EMBER_CHECK(out.defined() && out.sizes() == grad.sizes(), "[register_hook] expected the hook to return a gradient "
              "of the shape it was given (", grad.sizes(), "); got ", out.sizes());
  EMBER_CHECK(out.scalar_type() == grad.scalar_type() && out.device() == grad.device(), "[register_hook] expected the "
              "hook to return a gradient of dtype ", c10::dtypeName(grad.scalar_type()), " on ", grad.device(), "; got ",
              c10::dtypeName(out.scalar_type()), " on ", out.device());
  return out;
}

HookHandle register_hook(const at::Tensor& t, nb::handle fn) {
  if (!PyCallable_Check(fn.ptr())) raise_type_error("[register_hook] expected a callable; got " + type_name(fn.ptr()));
  auto state = std::make_shared<HookState>(fn.ptr());
  t._register_hook([state](const at::Tensor& g) { return run_hook(*state, g); });
  // Where _register_hook put it: on the grad_fn of a non-leaf, else on the leaf's meta.
  torch::autograd::AutogradMeta* meta = torch::autograd::impl::get_autograd_meta(t);
  const void* key = meta && meta->grad_fn_ ? static_cast<const void*>(meta->grad_fn_.get())
                                           : static_cast<const void*>(t.unsafeGetTensorImpl());
  remember_hook(key, state);
  return HookHandle{state};
}

// ---------------------------------------------------------------- custom Functions
struct PyNode;

// The C++ half of a Function's ctx (ember.autograd.function.BackwardCFunction derives from it in
// Python, so ctx also carries the user's attributes). The node owns ctx, ctx only sees the node.
struct FunctionBase {
  std::weak_ptr<PyNode> node;
  bool in_forward = false;
  std::shared_ptr<PyNode> lock(const char* what) const;
};

struct PyNode : torch::autograd::CppNodeBase {
  PyRef cls;  // the Function subclass
  PyRef ctx;  // its ctx, a BackwardCFunction instance (Tensor.grad_fn returns it)
  std::string name_;
  Py_ssize_t n_outputs = 0;            // items forward returned (1 for a single Tensor)
  bool tuple_output = false;           // forward returned a tuple
  std::vector<Py_ssize_t> tensor_pos;  // where forward's tensor outputs sit among them
  std::vector<bool> needs_input_grad;  // per argument of apply: a tensor that requires grad

  std::string name() const override { return name_; }
  variable_list apply(variable_list&& grads) override {
    return call_backward(std::move(grads), [this](variable_list g) { return call_python_backward(std::move(g)); });
  }

  variable_list call_python_backward(variable_list g) {
    nb::gil_scoped_acquire gil;
    EMBER_CHECK(ctx.get() && cls.get(), "[", name_, "] expected a live Function node; got one whose Python state "
                "the garbage collector cleared");
    nb::object args = nb::steal(PyTuple_New(1 + n_outputs));
    Py_INCREF(ctx.get());
    PyTuple_SET_ITEM(args.ptr(), 0, ctx.get());
    for (Py_ssize_t k = 0; k < n_outputs; ++k) {
      Py_INCREF(Py_None);
      PyTuple_SET_ITEM(args.ptr(), 1 + k, Py_None);
    }
    for (size_t k = 0; k < tensor_pos.size() && k < g.size(); ++k) {
      PyObject* x = wrap(std::move(g[k]));
      if (!x) throw nb::python_error();
      PyObject* slot = PyTuple_GET_ITEM(args.ptr(), 1 + tensor_pos[k]);
      PyTuple_SET_ITEM(args.ptr(), 1 + tensor_pos[k], x);
      Py_DECREF(slot);
    }
    nb::object backward = nb::borrow(cls.get()).attr("backward");
    PyObject* r = PyObject_Call(backward.ptr(), args.ptr(), nullptr);
    if (!r) throw nb::python_error();
    nb::object res = nb::steal(r);
    variable_list out;
    auto one = [&](PyObject* o, size_t k) {
      if (o == Py_None) {
        out.emplace_back();
      } else if (is_tensor(o)) {
        out.push_back(unpack(o));
      } else {
        raise_type_error("[" + name_ + "] expected backward to return Tensors or None; got " + type_name(o) +
                         " at position " + std::to_string(k));
      }
    };
    if (PyTuple_Check(res.ptr())) {
      for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(res.ptr()); ++k) one(PyTuple_GET_ITEM(res.ptr(), k), k);
    } else {
      one(res.ptr(), 0);
    }
    return out;
  }
};

std::shared_ptr<PyNode> FunctionBase::lock(const char* what) const {
  std::shared_ptr<PyNode> n = node.lock();
  EMBER_CHECK(n, "[", what, "] expected the ctx of a Function call whose graph is still alive; got a ctx whose "
              "backward node is gone (no output required grad, or every output was freed)");
  return n;
}

variable_list tensor_args(nb::args args, const char* what, bool allow_none) {
  variable_list out;
  for (nb::handle a : args) {
    if (is_tensor(a.ptr())) out.push_back(unpack(a.ptr()));
    else if (allow_none && a.is_none()) out.emplace_back();
    else raise_type_error(std::string("[") + what + "] expected Tensors" + (allow_none ? " or None" : "") + "; got " +
                          type_name(a.ptr()));
  }
  return out;
}

// Function.apply: records a PyNode, runs forward (grad mode off) and gives its outputs history.
nb::object function_apply(nb::handle cls, nb::handle ctx_obj, nb::tuple args) {
  FunctionBase& fb = nb::cast<FunctionBase&>(ctx_obj);
  auto node = std::make_shared<PyNode>();
  node->cls.set(cls.ptr());
  node->ctx.set(ctx_obj.ptr());
  node->name_ = nb::cast<std::string>(nb::handle(reinterpret_cast<PyObject*>(Py_TYPE(ctx_obj.ptr()))).attr("__name__"));
  fb.node = node;
  variable_list inputs;
  for (nb::handle a : args) {
    const bool t = is_tensor(a.ptr());
    if (t) inputs.push_back(unpack(a.ptr()));
    node->is_variable_input_.push_back(t);
    node->needs_input_grad.push_back(t && unpack(a.ptr()).requires_grad());
  }
  node->prepare(inputs);

  nb::object out;
  {
    at::AutoGradMode no_grad(false);
    fb.in_forward = true;
    struct Reset { bool& b; ~Reset() { b = false; } } reset{fb.in_forward};
    out = nb::borrow(cls).attr("_run_forward")(ctx_obj, args);
  }

  const bool is_tuple = PyTuple_Check(out.ptr());
  const Py_ssize_t n = is_tuple ? PyTuple_GET_SIZE(out.ptr()) : 1;
  auto item = [&](Py_ssize_t k) { return is_tuple ? PyTuple_GET_ITEM(out.ptr(), k) : out.ptr(); };
  variable_list outs;
  for (Py_ssize_t k = 0; k < n; ++k) {
    if (is_tensor(item(k))) {
      outs.push_back(unpack(item(k)));
      node->tensor_pos.push_back(k);
    }
  }
  node->n_outputs = n;
  node->tuple_output = is_tuple;
  node->wrap_outputs(inputs, outs);

  // The outputs as wrap_outputs left them (an input returned as is became a new alias).
  if (!is_tuple) return outs.empty() ? out : nb::steal(wrap(std::move(outs[0])));
  nb::object result = nb::steal(PyTuple_New(n));
  size_t t = 0;
  for (Py_ssize_t k = 0; k < n; ++k) {
    PyObject* x;
    if (t < node->tensor_pos.size() && node->tensor_pos[t] == k) {
      x = wrap(std::move(outs[t++]));
      if (!x) throw nb::python_error();
    } else {
      x = item(k);
      Py_INCREF(x);
    }
    PyTuple_SET_ITEM(result.ptr(), k, x);
  }
  return result;
}

// ---------------------------------------------------------------- graph nodes as Python objects
struct NodeRef {
  std::shared_ptr<Node> node;
};

// One Python object per live Node while one is referenced from Python, so `a.grad_fn is b.grad_fn`
// holds when they share a node. Weak references, read and written with the GIL held.
std::unordered_map<Node*, PyObject*> g_node_objects;
size_t g_prune_at = 64;

// The referent of a weak reference as a new reference, or null when it died.
PyObject* weak_target(PyObject* wr) {
#if PY_VERSION_HEX >= 0x030D0000
  PyObject* o = nullptr;
  if (PyWeakref_GetRef(wr, &o) < 0) PyErr_Clear();
  return o;
#else
  PyObject* o = PyWeakref_GetObject(wr);
  if (!o || o == Py_None) return nullptr;
  Py_INCREF(o);
  return o;
#endif
}

nb::object node_object(const std::shared_ptr<Node>& n) {
  if (!n) return nb::none();
  if (auto* p = dynamic_cast<PyNode*>(n.get())) return nb::borrow(p->ctx.get());
  auto it = g_node_objects.find(n.get());
  if (it != g_node_objects.end()) {
    if (PyObject* o = weak_target(it->second)) return nb::steal(o);
    Py_DECREF(it->second);
    g_node_objects.erase(it);
  }
  nb::object obj = nb::cast(NodeRef{n});
  PyObject* wr = PyWeakref_NewRef(obj.ptr(), nullptr);
  if (!wr) throw nb::python_error();
  if (g_node_objects.size() >= g_prune_at) {
    for (auto i = g_node_objects.begin(); i != g_node_objects.end();) {
      PyObject* o = weak_target(i->second);
      Py_XDECREF(o);
      if (!o) {
        Py_DECREF(i->second);
        i = g_node_objects.erase(i);
      } else {
        ++i;
      }
    }
    g_prune_at = std::max<size_t>(64, 2 * g_node_objects.size());
  }
  g_node_objects[n.get()] = wr;
  return obj;
}

nb::tuple next_functions(const Node& n) {
  const auto& edges = n.next_edges();
  nb::object t = nb::steal(PyTuple_New(static_cast<Py_ssize_t>(edges.size())));
  for (size_t k = 0; k < edges.size(); ++k) {
    nb::object pair = nb::make_tuple(node_object(edges[k].function), edges[k].input_nr);
    PyTuple_SET_ITEM(t.ptr(), static_cast<Py_ssize_t>(k), pair.release().ptr());
  }
  return nb::borrow<nb::tuple>(t);
}

void set_property(nb::handle type, const char* name, nb::object getter, nb::object setter = nb::none(),
                  const char* doc = nullptr) {
  nb::object property = nb::module_::import_("builtins").attr("property");
  type.attr(name) = property(getter, setter, nb::none(), doc ? nb::object(nb::str(doc)) : nb::none());
}

}  // namespace

namespace ember::python {

int traverse_tensor_refs(const at::Tensor& t, visitproc visit, void* arg) {
  if (!t.defined() || t.use_count() != 1) return 0;
  torch::autograd::AutogradMeta* meta = torch::autograd::impl::get_autograd_meta(t);
  if (!meta) return 0;
  auto visit_hook = [&](HookState& s) -> int {
    Py_VISIT(s.fn.get());
    return 0;
  };
  if (int r = for_owned_hooks(t.unsafeGetTensorImpl(), visit_hook)) return r;
  const std::shared_ptr<Node>& fn = meta->grad_fn_;
  if (!fn || fn.use_count() != 1) return 0;
  if (int r = for_owned_hooks(fn.get(), visit_hook)) return r;
  if (auto* p = dynamic_cast<PyNode*>(fn.get())) {
    Py_VISIT(p->ctx.get());
    Py_VISIT(p->cls.get());
  }
  return 0;
}

void clear_tensor_refs(const at::Tensor& t) {
  if (!t.defined() || t.use_count() != 1) return;
  torch::autograd::AutogradMeta* meta = torch::autograd::impl::get_autograd_meta(t);
  if (!meta) return;
  auto clear_hook = [](HookState& s) {
    s.fn.reset();  // the C++ hook stays and does nothing, as after handle.remove()
    return 0;
  };
  for_owned_hooks(t.unsafeGetTensorImpl(), clear_hook);
  std::shared_ptr<Node> fn = meta->grad_fn_;
  if (!fn || fn.use_count() != 2) return;  // this tensor's meta and `fn` above
  for_owned_hooks(fn.get(), clear_hook);
  if (auto* p = dynamic_cast<PyNode*>(fn.get())) {
    p->ctx.reset();
    p->cls.reset();
  }
}

void bind_autograd(nb::module_& m) {
  // ---- hooks
  nb::class_<HookHandle>(m, "_HookHandle")
      .def("remove", &HookHandle::remove, "Removes the hook (later backward passes do not call it).")
      .def("__enter__", [](nb::handle self) { return nb::borrow(self); })
      .def("__exit__", [](HookHandle& h, nb::args) { h.remove(); });

  nb::handle tensor = nb::type<at::Tensor>();
  tensor.attr("register_hook") = nb::cpp_function(
      [](const at::Tensor& t, nb::handle fn) { return register_hook(t, fn); }, nb::is_method(),
      nb::name("register_hook"), nb::arg("hook"),
      "Registers hook(grad) -> Tensor or None, called with this tensor's gradient during backward;\n"
      "a returned tensor replaces the gradient. Returns a handle whose remove() unregisters it.");
  set_property(tensor, "grad_fn",
               nb::cpp_function([](const at::Tensor& t) { return node_object(t.grad_fn()); }),
               nb::none(), "The Node that made this tensor (None for leaves and tensors without history).");
  set_property(tensor, "retains_grad", nb::cpp_function([](const at::Tensor& t) { return t.retains_grad(); }),
               nb::none(), "True if retain_grad() was called on this non-leaf tensor.");
  set_property(tensor, "output_nr", nb::cpp_function([](const at::Tensor& t) { return t.output_nr(); }),
               nb::none(), "Which output of its grad_fn this tensor is.");
  // .grad with the checks of an assignment (module.cpp's binding had none).
  set_property(
      tensor, "grad", nb::cpp_function([](const at::Tensor& t) { return nb::steal(wrap(t.grad())); }),
      nb::cpp_function([](at::Tensor& t, nb::handle g) {
        // A non-leaf after retain_grad() keeps its gradient in a box its hook accumulates into.
        torch::autograd::AutogradMeta* meta = torch::autograd::impl::get_autograd_meta(t);
        at::Tensor& slot = meta && meta->retained_grad_ ? *meta->retained_grad_ : t.mutable_grad();
        if (g.is_none()) {
          slot.reset();
          return;
        }
        if (!is_tensor(g.ptr())) raise_type_error("[grad] expected a Tensor or None; got " + type_name(g.ptr()));
        const at::Tensor& v = unpack(g.ptr());
        EMBER_CHECK(v.scalar_type() == t.scalar_type(), "[grad] expected a gradient of dtype ",
                    c10::dtypeName(t.scalar_type()), " (the tensor's); got ", c10::dtypeName(v.scalar_type()));
        EMBER_CHECK(v.device() == t.device(), "[grad] expected a gradient on ", t.device(), " (the tensor's); got ",
                    v.device());
        EMBER_CHECK(v.sizes() == t.sizes(), "[grad] expected a gradient of shape ", t.sizes(),
                    " (the tensor's); got ", v.sizes());
        slot = v;
      }, nb::arg("self"), nb::arg("grad").none()),
      "The accumulated gradient (None until a backward pass reaches this leaf, or after retain_grad()).");

  // ---- graph nodes
  nb::class_<NodeRef>(m, "_Node", nb::is_weak_referenceable())
      .def("name", [](const NodeRef& n) { return n.node->name(); })
      .def_prop_ro("next_functions", [](const NodeRef& n) { return next_functions(*n.node); })
      .def_prop_ro("variable", [](const NodeRef& n) -> nb::object {
        auto* acc = dynamic_cast<torch::autograd::AccumulateGrad*>(n.node.get());
        if (!acc) {
          PyErr_Format(PyExc_AttributeError, "'%s' has no attribute 'variable' (only AccumulateGrad nodes have one)",
                       n.node->name().c_str());
          throw nb::python_error();
        }
        return nb::steal(wrap(acc->variable));
      })
      .def("__repr__", [](nb::handle self) {
        std::string name = nb::cast<NodeRef&>(self).node->name();
        const std::string prefix = "torch::autograd::";
        if (name.rfind(prefix, 0) == 0) name = name.substr(prefix.size());
        char buf[32];
        std::snprintf(buf, sizeof buf, "%p", static_cast<void*>(self.ptr()));
        return "<" + name + " object at " + buf + ">";
      })
      .def("__eq__", [](const NodeRef& a, nb::handle b) {
        return nb::isinstance<NodeRef>(b) && nb::cast<NodeRef&>(b).node == a.node;
      })
      .def("__hash__", [](const NodeRef& n) { return std::hash<const void*>()(n.node.get()); });

  // ---- custom Functions
  nb::class_<FunctionBase>(m, "_FunctionBase")
      .def(nb::init<>())
      .def("save_for_backward", [](FunctionBase& f, nb::args ts) {
        EMBER_CHECK(f.in_forward, "[save_for_backward] expected a call from forward (or setup_context); got one "
                    "from elsewhere");
        f.lock("save_for_backward")->ctx_.save_for_backward(tensor_args(ts, "save_for_backward", true));
      })
      .def("mark_non_differentiable", [](FunctionBase& f, nb::args ts) {
        EMBER_CHECK(f.in_forward, "[mark_non_differentiable] expected a call from forward (or setup_context); got one "
                    "from elsewhere");
        f.lock("mark_non_differentiable")->ctx_.mark_non_differentiable(tensor_args(ts, "mark_non_differentiable",
                                                                                   false));
      })
      .def("mark_dirty", [](FunctionBase& f, nb::args ts) {
        EMBER_CHECK(f.in_forward, "[mark_dirty] expected a call from forward (or setup_context); got one from "
                    "elsewhere");
        f.lock("mark_dirty")->ctx_.mark_dirty(tensor_args(ts, "mark_dirty", false));
      })
      .def("set_materialize_grads", [](FunctionBase& f, bool v) {
        f.lock("set_materialize_grads")->ctx_.set_materialize_grads(v);
      }, nb::arg("value"))
      .def_prop_ro("saved_tensors", [](FunctionBase& f) {
        auto n = f.lock("saved_tensors");
        EMBER_CHECK(!f.in_forward, "[", n->name(), "] expected saved_tensors to be read in backward; got a read "
                    "during forward");
        return nb::steal(wrap(n->ctx_.get_saved_variables()));
      })
      // As PyTorch: which arguments are tensors that required grad when apply() was called (under
      // no_grad too, where nothing is recorded).
      .def_prop_ro("needs_input_grad", [](FunctionBase& f) {
        auto n = f.lock("needs_input_grad");
        nb::list out;
        for (bool b : n->needs_input_grad) out.append(b);
        return nb::tuple(out);
      })
      .def("name", [](FunctionBase& f) { return f.lock("name")->name(); })
      .def_prop_ro("next_functions", [](FunctionBase& f) { return next_functions(*f.lock("next_functions")); });

  m.def("_function_apply", &function_apply, nb::arg("cls"), nb::arg("ctx"), nb::arg("args"));

  // ---- Tensor.backward with PyTorch's full signature (inputs=: accumulate only into these)
  tensor.attr("backward") = nb::cpp_function(
      [](const at::Tensor& t, std::optional<at::Tensor> gradient, std::optional<bool> retain_graph, bool create_graph,
         nb::handle inputs) {
        variable_list in;
        if (!inputs.is_none()) {
          if (is_tensor(inputs.ptr())) {
            in.push_back(unpack(inputs.ptr()));
          } else {
            for (nb::handle x : inputs) {
              if (!is_tensor(x.ptr()))
                raise_type_error("[backward] expected inputs to be a Tensor or a sequence of Tensors; got an item of "
                                 "type " + type_name(x.ptr()));
              in.push_back(unpack(x.ptr()));
            }
          }
          EMBER_CHECK(!in.empty(), "[backward] expected a non-empty inputs (or None for every leaf)");
        }
        nb::gil_scoped_release nogil;
        torch::autograd::backward({t}, gradient ? variable_list{*gradient} : variable_list{}, retain_graph,
                                  create_graph, in);
      },
      nb::is_method(), nb::name("backward"), nb::arg("gradient") = nb::none(), nb::arg("retain_graph") = nb::none(),
      nb::arg("create_graph") = false, nb::arg("inputs") = nb::none(),
      "Accumulates the gradient of this tensor into the leaves' .grad (only into `inputs` if given).");

  // ---- anomaly mode, gradcheck (python/ember/autograd/anomaly_mode.py, gradcheck.py)
  m.def("_set_detect_anomaly", [](bool v) { torch::autograd::AnomalyMode::set_enabled(v); });
  m.def("_is_anomaly_enabled", [] { return torch::autograd::AnomalyMode::is_enabled(); });
  // fn(list of tensors) -> list of tensors, called with the GIL held; the check itself runs without it.
  m.def("_gradcheck", [](nb::handle fn, const variable_list& inputs, double eps, double atol, double rtol,
                         bool second_order) {
    torch::autograd::GradcheckFn call = [fn](const variable_list& xs) {
      nb::gil_scoped_acquire gil;
      nb::object r = nb::borrow(fn)(nb::steal(wrap(xs)));
      variable_list out;
      for (nb::handle x : r) {
        if (!is_tensor(x.ptr()))
          raise_type_error("[gradcheck] expected the function to return Tensors; got " + type_name(x.ptr()));
        out.push_back(unpack(x.ptr()));
      }
      return out;
    };
    torch::autograd::GradcheckOptions opts;
    opts.eps = eps;
    opts.atol = atol;
    opts.rtol = rtol;
    std::string report;
    bool ok;
    {
      nb::gil_scoped_release nogil;
      ok = second_order ? torch::autograd::gradgradcheck(call, inputs, opts, &report)
                        : torch::autograd::gradcheck(call, inputs, opts, &report);
    }
    return nb::make_tuple(ok, report);
  });
}

}  // namespace ember::python
