"""ember.optim from Python: each optimizer's first three steps on a fixed quadratic against the values
torch.optim (PyTorch 2.15) gave for the same problem (recorded below as data; torch is not imported),
the update rules written out in float64 for SGD and Adam, param groups, zero_grad, state_dict, StepLR."""
import math

import pytest

import ember
import ember.nn as nn
import ember.optim as optim

P0 = [0.5, -1.0, 2.0]
C = [1.0, 3.0, 0.5]
D = [0.1, -0.2, 0.3]

# loss(p) = sum(C * p^2) + sum(D * p), float64; p after each of three steps, from torch.optim.
RECORDED = {
    "sgd": (lambda ps: optim.SGD(ps, lr=0.1), [
        [0.38999999999999996, -0.37999999999999995, 1.77], [0.302, -0.13199999999999998, 1.563],
        [0.2316, -0.032799999999999996, 1.3767]]),
    "sgd_momentum": (lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9), [
        [0.38999999999999996, -0.37999999999999995, 1.77], [0.20299999999999993, 0.426, 1.3559999999999999],
        [-0.015900000000000088, 0.9158, 0.8177999999999997]]),
    "sgd_dampening_wd": (lambda ps: optim.SGD(ps, lr=0.05, momentum=0.8, dampening=0.3, weight_decay=0.1), [
        [0.4425, -0.6849999999999999, 1.875], [0.36047625, -0.2797524999999999, 1.6923125],
        [0.264862245625, 0.11117265875000013, 1.47050846875]]),
    "sgd_nesterov": (lambda ps: optim.SGD(ps, lr=0.1, momentum=0.9, nesterov=True, weight_decay=0.01), [
        [0.29005, 0.1799, 1.5592], [0.07077490499999999, 0.5154821900000001, 1.01506952],
        [-0.11113157171950003, 0.34618495823900003, 0.442291527112]]),
    "sgd_maximize": (lambda ps: optim.SGD(ps, lr=0.1, momentum=0.5, maximize=True), [
        [0.61, -1.62, 2.23], [0.7969999999999999, -2.922, 2.598],
        [1.0598999999999998, -5.3462000000000005, 3.0717999999999996]]),
    "adam": (lambda ps: optim.Adam(ps, lr=0.1), [
        [0.40000000090909094, -0.9000000001612903, 1.9000000004347826],
        [0.30101508382617365, -0.8003937691737244, 1.8001405037275857],
        [0.20411378493249785, -0.7015123831489486, 1.7005244219214903]]),
    "adam_wd_betas": (lambda ps: optim.Adam(ps, lr=0.05, betas=(0.8, 0.9), eps=1e-6, weight_decay=0.1), [
        [0.45000004347822303, -0.9500000079365066, 1.950000019999992],
        [0.40019739101506735, -0.9000879980387618, 1.9000356661467934],
        [0.35075513827695437, -0.8503283883882339, 1.8501312705747364]]),
    "adam_amsgrad": (lambda ps: optim.Adam(ps, lr=0.1, amsgrad=True), [
        [0.40000000090909094, -0.9000000001612903, 1.9000000004347826],
        [0.30101508382617365, -0.8003937691737244, 1.8001405037275857],
        [0.20411378493249785, -0.7015123831489486, 1.7005244219214903]]),
    "adamw": (lambda ps: optim.AdamW(ps, lr=0.1), [
        [0.3995000009090909, -0.8990000001612903, 1.8980000004347826],
        [0.3001238465416856, -0.7985002675077706, 1.796245891122834],
        [0.20294762710302217, -0.6988360810377712, 1.6948428099015027]]),
    "adamw_wd_amsgrad": (lambda ps: optim.AdamW(ps, lr=0.05, weight_decay=0.5, amsgrad=True), [
        [0.43750000045454546, -0.9250000000806451, 1.9000000002173913],
        [0.3768097271356219, -0.8520085024336237, 1.8025702518585416],
        [0.31808864049796093, -0.7810745659686466, 1.707695097540991]]),
    "rmsprop": (lambda ps: optim.RMSprop(ps, lr=0.01), [
        [0.40000000909090827, -0.9000000016129033, 1.900000004347826],
        [0.33648571960132345, -0.8327860419108515, 1.8306965497770769],
        [0.2884120301702288, -0.7796717879042585, 1.7747729437611635]]),
    "rmsprop_centered_momentum_wd": (lambda ps: optim.RMSprop(ps, lr=0.01, alpha=0.9, eps=1e-6, weight_decay=0.1,
                                                              momentum=0.5, centered=True), [
        [0.4666667632847441, -0.9666666843033417, 1.9666667111110518],
        [0.42528389436612585, -0.9249100022612615, 1.9246887768341532],
        [0.3837403559186044, -0.8823693627541881, 1.8815714432484434]]),
    "adagrad": (lambda ps: optim.Adagrad(ps, lr=0.1), [
        [0.4000000000090909, -0.9000000000016128, 1.9000000000043478],
        [0.3366762209870538, -0.8329713742054743, 1.8308777354097117],
        [0.28888077676953683, -0.7801456845595282, 1.775244540328283]]),
    "adagrad_decay_wd": (lambda ps: optim.Adagrad(ps, lr=0.1, lr_decay=0.1, weight_decay=0.05,
                                                  initial_accumulator_value=0.2, eps=1e-8), [
        [0.4070731776415955, -0.9002550212947846, 1.9016921699403997],
        [0.3515237767887149, -0.8393974153084318, 1.8393996333776783],
        [0.31212244189764843, -0.7951910906189474, 1.7932208394293665]]),
}


def quadratic_loss(p):
    c = ember.tensor(C, dtype=ember.float64)
    d = ember.tensor(D, dtype=ember.float64)
    return (c * p * p).sum() + (d * p).sum()


def run(make, steps=3, p0=P0):
    p = nn.Parameter(ember.tensor(p0, dtype=ember.float64))
    opt = make([p])
    out = []
    for _ in range(steps):
        opt.zero_grad()
        quadratic_loss(p).backward()
        opt.step()
        out.append(p.tolist())
    return out, opt, p


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_steps_match_torch_optim(name):
    make, want = RECORDED[name]
    got, _, _ = run(make)
    for step, (g, w) in enumerate(zip(got, want)):
        for a, b in zip(g, w):
            assert abs(a - b) <= 1e-12 + 1e-10 * abs(b), f"{name} step {step + 1}: {g} vs {w}"


def grad_of(p):
    return [2 * c * x + d for c, x, d in zip(C, p, D)]


def test_sgd_momentum_by_hand():
    lr, mom, wd = 0.1, 0.9, 0.01
    p, buf = list(P0), None
    want = []
    for _ in range(3):
        g = [gi + wd * x for gi, x in zip(grad_of(p), p)]
        buf = list(g) if buf is None else [mom * b + gi for b, gi in zip(buf, g)]
        p = [x - lr * b for x, b in zip(p, buf)]
        want.append(p)
    got, opt, param = run(lambda ps: optim.SGD(ps, lr=lr, momentum=mom, weight_decay=wd))
    for g, w in zip(got, want):
        assert all(abs(a - b) < 1e-13 for a, b in zip(g, w)), (g, w)
    assert set(opt.state[param]) == {"momentum_buffer"}


def test_adam_by_hand():
    lr, b1, b2, eps = 0.01, 0.9, 0.99, 1e-8
    p = list(P0)
    m, v = [0.0] * 3, [0.0] * 3
    want = []
    for t in range(1, 4):
        g = grad_of(p)
        m = [b1 * mi + (1 - b1) * gi for mi, gi in zip(m, g)]
        v = [b2 * vi + (1 - b2) * gi * gi for vi, gi in zip(v, g)]
        mhat = [mi / (1 - b1 ** t) for mi in m]
        vhat = [vi / (1 - b2 ** t) for vi in v]
        p = [x - lr * a / (math.sqrt(b) + eps) for x, a, b in zip(p, mhat, vhat)]
        want.append(p)
    got, opt, param = run(lambda ps: optim.Adam(ps, lr=lr, betas=(b1, b2), eps=eps))
    for g, w in zip(got, want):
        assert all(abs(a - b) < 1e-12 for a, b in zip(g, w)), (g, w)
    st = opt.state[param]
    assert st["step"].item() == 3 and st["exp_avg"].tolist() == pytest.approx(m, rel=1e-12)


def test_param_groups_and_skipped_params():
    a = nn.Parameter(ember.tensor([1.0], dtype=ember.float64))
    b = nn.Parameter(ember.tensor([1.0], dtype=ember.float64))
    c = nn.Parameter(ember.tensor([1.0], dtype=ember.float64))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}, {"params": c, "momentum": 0.9}], lr=0.1)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5, 0.1]
    assert opt.param_groups[2]["momentum"] == 0.9 and opt.param_groups[0]["momentum"] == 0
    (a * 2 + b * 2).sum().backward()  # c gets no gradient: it is left alone
    opt.step()
    assert a.item() == pytest.approx(0.8) and b.item() == pytest.approx(0.0) and c.item() == 1.0
    assert c not in opt.state
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="iterable of Tensors"):
        optim.SGD(a, lr=0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        optim.Adam([])
    with pytest.raises(ValueError, match=r"\[SGD\] invalid learning rate: -1"):
        optim.SGD([a], lr=-1)
    with pytest.raises(ValueError, match=r"\[Adam\] invalid beta parameter at index 1: 1.0"):
        optim.Adam([a], betas=(0.9, 1.0))
    with pytest.raises(ValueError, match="nesterov"):
        optim.SGD([a], lr=0.1, nesterov=True)


def test_zero_grad():
    p = nn.Parameter(ember.ones(2))
    opt = optim.SGD([p], lr=0.1)
    (p * 3).sum().backward()
    opt.zero_grad(set_to_none=False)
    assert p.grad.tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert p.grad is None


def test_state_dict_round_trip_continues_identically():
    make = lambda ps: optim.AdamW(ps, lr=0.05, weight_decay=0.1)
    full, _, _ = run(make, steps=4)
    # three steps, save, load into a fresh optimizer over a copy of the parameter, one more step
    _, opt, p = run(make, steps=3)
    sd = opt.state_dict()
    assert list(sd["state"]) == [0] and sd["param_groups"][0]["params"] == [0]
    assert sd["param_groups"][0]["lr"] == 0.05
    q = nn.Parameter(p.detach().clone())
    opt2 = make([q])
    opt2.load_state_dict(sd)
    assert opt2.state[q]["step"].item() == 3
    opt2.zero_grad()
    quadratic_loss(q).backward()
    opt2.step()
    assert q.tolist() == pytest.approx(full[3], rel=1e-13)
    # the loaded state is a copy: stepping opt2 did not touch opt's moments
    assert opt.state[p]["step"].item() == 3
    other = optim.AdamW([q, nn.Parameter(ember.zeros(1))])
    with pytest.raises(ValueError, match="group 0 has 1 parameters, this optimizer's has 2"):
        other.load_state_dict(sd)


def test_steplr():
    p = nn.Parameter(ember.zeros(1))
    opt = optim.SGD([p], lr=1.0)
    sched = optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    lrs = []
    for _ in range(6):
        lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        sched.step()
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.25, 0.25]  # as torch.optim.lr_scheduler.StepLR gives
    assert sched.get_last_lr() == [0.125]
    sd = sched.state_dict()
    assert sd["last_epoch"] == 6 and "optimizer" not in sd


def test_other_schedulers():
    p = nn.Parameter(ember.zeros(1))
    opt = optim.SGD([p], lr=2.0)
    s = optim.lr_scheduler.MultiStepLR(opt, milestones=[1, 3], gamma=0.1)
    got = []
    for _ in range(4):
        got.append(opt.param_groups[0]["lr"])
        s.step()
    assert got == pytest.approx([2.0, 0.2, 0.2, 0.02])
    opt = optim.SGD([p], lr=1.0)
    s = optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4)
    got = []
    for _ in range(5):
        got.append(opt.param_groups[0]["lr"])
        s.step()
    assert got == pytest.approx([1.0, (1 + math.cos(math.pi / 4)) / 2, 0.5, (1 + math.cos(3 * math.pi / 4)) / 2, 0.0])


def test_training_a_small_model_lowers_the_loss():
    # y = 3x - 1 with a little structure: a linear layer trained by SGD and by Adam converges
    x = ember.linspace(-1, 1, 32).reshape(32, 1)
    y = x * 3 - 1
    for make in (lambda ps: optim.SGD(ps, lr=0.2, momentum=0.5), lambda ps: optim.Adam(ps, lr=0.1)):
        model = nn.Linear(1, 1)
        opt = make(model.parameters())
        for _ in range(200):
            opt.zero_grad()
            loss = nn.functional.mse_loss(model(x), y)
            loss.backward()
            opt.step()
        assert loss.item() < 1e-4
        assert model.weight.item() == pytest.approx(3.0, abs=0.02) and model.bias.item() == pytest.approx(-1.0, abs=0.02)


@pytest.mark.parametrize("kwargs,want", [
    # torch.optim.LBFGS(lr=0.5, max_iter=3), two step(closure) calls
    (dict(lr=0.5, max_iter=3), [[0.2994160287100386, -0.26919762950016624, 1.5435224649703199],
                                [0.03870574175051522, 0.07934169437946896, 0.7450525857729698]]),
    # the defaults reach the minimum -D / (2 C) within the first call
    ({}, [[-0.049983988027570835, 0.03333731945347741, -0.2999956100675459]] * 2),
])
def test_lbfgs_matches_torch_optim(kwargs, want):
    p = nn.Parameter(ember.tensor(P0, dtype=ember.float64))
    opt = optim.LBFGS([p], **kwargs)
    evals = []

    def closure():
        opt.zero_grad()
        loss = quadratic_loss(p)
        loss.backward()
        evals.append(1)
        return loss

    for w in want:
        first = opt.step(closure)
        assert isinstance(first, ember.Tensor)
        assert p.tolist() == pytest.approx(w, rel=1e-9, abs=1e-12)
    if not kwargs:
        assert [-d / (2 * c) for c, d in zip(C, D)] == pytest.approx(want[-1], abs=1e-4)
    with pytest.raises(RuntimeError, match="needs a closure"):
        opt.step()
    with pytest.raises(ValueError, match="line_search_fn"):
        optim.LBFGS([p], line_search_fn="wolfe")


def test_reduce_lr_on_plateau_matches_torch():
    p = nn.Parameter(ember.zeros(1))
    opt = optim.SGD([p], lr=1.0)
    s = optim.lr_scheduler.ReduceLROnPlateau(opt, mode="min", factor=0.5, patience=1, threshold=0.1, cooldown=1,
                                             min_lr=0.1)
    lrs = []
    for m in [10, 9.5, 9.4, 9.3, 5, 5, 5, 5, 5, 5, 5, 5]:
        s.step(m)
        lrs.append(opt.param_groups[0]["lr"])
    # what torch.optim.lr_scheduler.ReduceLROnPlateau gives for the same metrics
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.125, 0.125, 0.125]
    opt = optim.SGD([p], lr=1.0)
    s = optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", factor=0.1, patience=0, threshold=0.5,
                                             threshold_mode="abs")
    lrs = []
    for m in [1, 2, 2.4, 3, 3.1, 3.2]:
        s.step(m)
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs == pytest.approx([1.0, 1.0, 0.1, 0.1, 0.01, 0.001], rel=1e-12)
