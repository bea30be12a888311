"""L-BFGS with line_search_fn="strong_wolfe" (and without), run by the same code with `torch` or
`ember`: `<a Python with torch> python/tests/lbfgs_parity.py --record` writes PyTorch's iterates to
data/torch_lbfgs_facts.json; test_optim_lbfgs.py compares Ember's (torch is never imported there).
"""
import os

from parity_record import record_main

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data", "torch_lbfgs_facts.json")

# A (6x3) and b of a least-squares problem |A w + c - b|^2 (the fixed values of a small regression)
A = [[1.0, 0.5, -2.0], [0.3, -1.2, 0.7], [2.2, 0.1, 0.4], [-0.6, 1.9, 1.1], [0.9, -0.4, -1.5], [1.4, 1.0, 0.2]]
B = [1.5, -0.7, 2.9, 0.4, -1.1, 3.3]


def rosenbrock(x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


def run(torch, case):
    """The parameters after each step() call, the losses step() returned, and the state's counters."""
    dtype = getattr(torch, case.get("dtype", "float64"))
    opts = dict(case["opts"])
    if case["problem"] == "rosenbrock":
        params = [torch.nn.Parameter(torch.tensor(case.get("x0", [-1.5, 2.0]), dtype=dtype))]
        sign = -1.0 if opts.get("maximize") else 1.0

        def f():
            return sign * rosenbrock(params[0])
    else:
        a, b = torch.tensor(A, dtype=dtype), torch.tensor(B, dtype=dtype)
        params = [torch.nn.Parameter(torch.zeros(3, dtype=dtype)), torch.nn.Parameter(torch.zeros(1, dtype=dtype))]

        def f():
            r = a.matmul(params[0]) + params[1] - b
            return (r * r).sum() + 0.1 * (params[0] * params[0]).sum()
    opt = torch.optim.LBFGS(params, **opts)

    def closure():
        opt.zero_grad()
        loss = f()
        loss.backward()
        return loss

    iterates, losses = [], []
    for _ in range(case["calls"]):
        losses.append(opt.step(closure).item())
        iterates.append([v for p in params for v in p.detach().double().reshape(-1).tolist()])
    st = opt.state[params[0]]
    return {"iterates": iterates, "losses": losses, "func_evals": st["func_evals"], "n_iter": st["n_iter"],
            "final_loss": f().item()}


CASES = {
    "rosenbrock_wolfe": dict(problem="rosenbrock", opts=dict(line_search_fn="strong_wolfe", max_iter=4), calls=12),
    "rosenbrock_wolfe_defaults": dict(problem="rosenbrock", opts=dict(line_search_fn="strong_wolfe"), calls=3),
    "rosenbrock_wolfe_far": dict(problem="rosenbrock", x0=[3.0, -2.0],
                                 opts=dict(line_search_fn="strong_wolfe", lr=0.5, history_size=3), calls=3),
    "rosenbrock_wolfe_float32": dict(problem="rosenbrock", dtype="float32",
                                     opts=dict(line_search_fn="strong_wolfe", max_iter=5), calls=4),
    "rosenbrock_wolfe_few_evals": dict(problem="rosenbrock", opts=dict(line_search_fn="strong_wolfe", max_iter=10,
                                                                       max_eval=6), calls=4),
    "rosenbrock_wolfe_maximize": dict(problem="rosenbrock", opts=dict(line_search_fn="strong_wolfe", max_iter=5,
                                                                      maximize=True), calls=2),
    "rosenbrock_fixed_step": dict(problem="rosenbrock", opts=dict(lr=0.1, max_iter=5), calls=2),
    "least_squares_wolfe": dict(problem="least_squares", opts=dict(line_search_fn="strong_wolfe", max_iter=3,
                                                                   history_size=2), calls=4),
    "least_squares_wolfe_float32": dict(problem="least_squares", dtype="float32",
                                        opts=dict(line_search_fn="strong_wolfe", max_iter=3), calls=3),
    "least_squares_wolfe_big_lr": dict(problem="least_squares", opts=dict(line_search_fn="strong_wolfe", lr=20.0,
                                                                          max_iter=6), calls=2),
}


def facts(torch):
    return {name: run(torch, case) for name, case in CASES.items()}


if __name__ == "__main__":
    record_main(facts, DATA, __doc__)
