#pragma once
// The engine: runs a backward graph from root edges, in reverse creation order, counting
// dependencies so every Node runs once all its input gradients have arrived. Each backward call
// runs on the calling thread with its own state, so independent graphs run concurrently
// (Note [Thread-safe backward]).
#include <c10/macros/Export.h>
EMBER_PUBLIC_BEGIN
#include <torch/csrc/autograd/function.h>

namespace torch::autograd {

/// Runs backward from `roots` seeded with `grad_outputs`. When `outputs` is non-empty, the
/// gradients arriving at those edges are returned instead of accumulated (autograd::grad).
variable_list run_backward(const edge_list& roots, const variable_list& grad_outputs, bool keep_graph,
                           bool create_graph, const edge_list& outputs, bool allow_unused);

}  // namespace torch::autograd

EMBER_PUBLIC_END
