"""Behaviour cloning of the built-in ``greedy`` policy, in numpy alone, then a match against
``random``.

1. Data: ``--games`` greedy self-play hands (``Game.deal(seed, every_receiver=True)``). At each
   decision greedy chooses a whole action on a clone of the game; the example turns it into
   action ids (``tractor.actions``) and feeds them one by one with ``Game.step``, recording
   (observation tensor, action mask, id) at every id where the mask leaves a choice.
2. Training: a masked softmax policy, one hidden ReLU layer (``--hidden``; 0 for a linear
   policy), cross-entropy on greedy's ids, minibatch Adam for ``--epochs``. With ``--suits
   canonical`` (the default) the policy sees trump as the first suit, the others in order
   (what ``observation_tensor(canonical_suits=True)`` gives), and its ids are renamed to and
   from the real suits, so what it learns of one trump suit serves all four.
3. Evaluation, batched in ``tractor.VecEnv``: the trained policy (masked argmax) holds seats 0
   and 2 against ``random`` at 1 and 3, then the same ``--deals`` deals with the seats
   swapped; a deal's score is the mean of the learner team's returns (levels) in the two
   seatings, as ``simulate(..., duplicate=True)`` scores a policy. The same harness scores a
   policy drawing uniformly from the mask (an untrained control), and ``simulate`` gives
   ``random`` vs ``random`` (the baseline; unpaired, since on duplicate deals a policy
   against itself scores exactly 0) and ``greedy`` vs ``random`` (the teacher, duplicate).

Run: ``python examples/train_bc.py`` (about 2 minutes of one core, 1 GB of memory; BENCHMARKS.md);
``--help`` for options.
Deterministic per ``--seed`` on one machine (numpy's matrix products may round differently
elsewhere).
"""

from __future__ import annotations

import argparse
import math
import os
import time
from typing import Callable, Dict, List, Tuple

# One BLAS thread: the products here are small, so threads only add overhead (several times
# slower on a busy 2-core machine), and one thread keeps the rounding, hence the run, the
# same whatever the core count. Set the variables before running to override.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402  (after the thread settings, which numpy reads on import)

import tractor  # noqa: E402
from tractor import actions as A  # noqa: E402

Params = Dict[str, np.ndarray]
Policy = Callable[[np.ndarray, np.ndarray], np.ndarray]


# -- 1. data: greedy's decisions as action ids ---------------------------------------------------
def greedy_ids(game: tractor.Game, seat: int, seed: int, obs: np.ndarray) -> List[int]:
    """The ids of the action ``greedy`` takes now (``game`` has no play under way)."""
    trial = game.clone()
    if game.phase == "declare":
        shown = len(trial.showings())
        trial.step_policy("greedy", seed)
        after = trial.showings()
        if len(after) == shown:
            return [A.PASS]
        return [A.show_id(after[-1].suit, after[-1].count)]
    lead = not game.current_trick
    held = np.rint(obs[:54] * 4).astype(np.int64)  # the 'hand' block: copies of each kind / 4
    trial.step_policy("greedy", seed)
    left = np.rint(trial.observation_tensor(seat)[:54] * 4).astype(np.int64)
    return A.encode(held - left, lead=lead)


class Samples:
    """A growing store of (observation, mask, id). Observations are kept as float16 (their
    entries are small multiples of 1/4, 1/54, 1/216, 1/400: float16 keeps them to 3 digits)
    to halve the memory: 4,000 hands give about 650,000 samples, 0.8 GB."""

    def __init__(self, capacity: int) -> None:
        self.x = np.empty((capacity, A.OBS_DIM), np.float16)
        self.mask = np.empty((capacity, A.NUM_ACTIONS), bool)
        self.y = np.empty(capacity, np.int64)
        self.n = 0

    def add(self, obs: np.ndarray, mask: np.ndarray, action: int) -> None:
        if self.n == len(self.y):
            for name in ("x", "mask", "y"):
                a = getattr(self, name)
                setattr(self, name, np.concatenate([a, np.empty_like(a)]))
        self.x[self.n], self.mask[self.n], self.y[self.n] = obs, mask, action
        self.n += 1


def generate(games: int, seed: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(observations, masks, ids) of greedy's id steps over ``games`` self-play hands; steps
    where the mask allows a single id teach nothing and are left out."""
    hand_seeds = np.random.default_rng([seed, 1]).integers(0, 2**63, size=games, dtype=np.uint64)
    data = Samples(170 * games)  # about 163 per hand
    obs = np.empty(A.OBS_DIM, np.float32)
    for h, hs in enumerate(hand_seeds.tolist()):
        g = tractor.Game.deal(hs, every_receiver=True)
        decision = 0
        while g.phase != "over":
            seat = g.current_player
            mask = g.action_mask()
            if g.phase == "declare" and mask.sum() == 1:
                g.step(A.PASS)  # nothing to show: no choice, no greedy call needed
                continue
            g.observation_tensor(seat, out=obs)
            for j, i in enumerate(greedy_ids(g, seat, hs ^ decision, obs)):
                if j:
                    mask = g.action_mask()
                    g.observation_tensor(seat, out=obs)
                if mask.sum() > 1:
                    data.add(obs, mask, i)
                g.step(i)
            decision += 1
        if (h + 1) % max(1, games // 4) == 0:
            print(f"  {h + 1}/{games} hands, {data.n} samples")
    return data.x[: data.n], data.mask[: data.n], data.y[: data.n]


# -- 2. the suit symmetry ---------------------------------------------------------------------
def _block(name: str) -> Tuple[int, int]:
    (off, length), = [(o, n) for b, o, n, _ in A.OBS_LAYOUT if b == name]
    return off, length


def _suit_maps() -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each trump as the observer knows it (s h d c, 4 = unknown): the gather index that
    renames the observation's suits so that trump is the first (the others keep their order,
    as ``observation_tensor(canonical_suits=True)`` does), and the action id maps real ->
    renamed and renamed -> real (cards 0..51 and showings 56..71 change suit)."""
    obs_gather = np.tile(np.arange(A.OBS_DIM), (5, 1))
    to_canon = np.tile(np.arange(A.NUM_ACTIONS), (5, 1))
    for t in range(4):
        m = [0 if s == t else 1 + s - (s > t) for s in range(4)]  # real suit -> renamed suit
        fwd = np.arange(A.OBS_DIM)  # real entry -> renamed entry
        for name in ("hand", "pending", "played", "trick"):
            off, length = _block(name)
            for k in range(length):
                seat, kind = divmod(k, 54)  # 216-entry blocks: one 54 per relative seat
                if kind < 52:
                    fwd[off + k] = off + seat * 54 + m[kind // 13] * 13 + kind % 13
        for name, width in (("void", 5), ("trump", 5)):  # classes or suits s h d c, then one more
            off, length = _block(name)
            for k in range(length):
                if k % width < 4:
                    fwd[off + k] = off + k - k % width + m[k % width]
        obs_gather[t] = np.argsort(fwd)
        for k in range(52):
            to_canon[t, k] = m[k // 13] * 13 + k % 13
        for k in range(16):
            to_canon[t, A.SHOW + k] = A.SHOW + m[k // 4] * 4 + k % 4
    return obs_gather, to_canon, np.argsort(to_canon, axis=1)


OBS_GATHER, TO_CANON, TO_REAL = _suit_maps()
TRUMP_AT = _block("trump")[0]


def canonical(obs: np.ndarray, mask: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observations and masks (rows) with trump renamed the first suit, and each row's trump
    (4: unknown), which ``TO_REAL[trump, id]`` needs to turn a renamed id back."""
    trump = obs[:, TRUMP_AT : TRUMP_AT + 5].argmax(axis=1)
    xc, mc = np.empty_like(obs), np.empty_like(mask)
    for t in np.unique(trump):
        rows = trump == t
        xc[rows] = obs[rows][:, OBS_GATHER[t]]
        mc[rows] = mask[rows][:, TO_REAL[t]]
    return xc, mc, trump


def to_canonical(x: np.ndarray, mask: np.ndarray, y: np.ndarray, chunk: int = 1 << 16) -> None:
    """Renames the suits of a data set in place (in chunks, to bound the memory)."""
    for i in range(0, len(y), chunk):
        j = min(i + chunk, len(y))
        x[i:j], mask[i:j], trump = canonical(x[i:j], mask[i:j])
        y[i:j] = TO_CANON[trump, y[i:j]]


# -- 3. the policy and its training -----------------------------------------------------------
def init(rng: np.random.Generator, hidden: int) -> Params:
    if hidden == 0:
        return {"W": np.zeros((A.OBS_DIM, A.NUM_ACTIONS), np.float32), "b": np.zeros(A.NUM_ACTIONS, np.float32)}
    return {
        "W1": (rng.standard_normal((A.OBS_DIM, hidden)) * math.sqrt(2 / A.OBS_DIM)).astype(np.float32),
        "b1": np.zeros(hidden, np.float32),
        "W": (rng.standard_normal((hidden, A.NUM_ACTIONS)) * math.sqrt(1 / hidden)).astype(np.float32),
        "b": np.zeros(A.NUM_ACTIONS, np.float32),
    }


def forward(p: Params, x: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(logits, hidden activations) of observations ``x``."""
    x = x.astype(p["W"].dtype, copy=False)  # the stored float16 observations
    h = np.maximum(x @ p["W1"] + p["b1"], 0) if "W1" in p else x
    return h @ p["W"] + p["b"], h


def log_softmax(logits: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Log-probabilities over the allowed ids (-inf elsewhere)."""
    z = np.where(mask, logits, -np.inf)
    z = z - z.max(axis=1, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=1, keepdims=True))


def gradients(p: Params, x: np.ndarray, mask: np.ndarray, y: np.ndarray) -> Tuple[float, Params]:
    """Mean cross-entropy of the masked softmax on targets ``y``, and its gradients."""
    x = x.astype(p["W"].dtype, copy=False)
    logits, h = forward(p, x)
    logp = log_softmax(logits, mask)
    n = len(y)
    rows = np.arange(n)
    d = np.exp(logp)  # d loss / d logits = softmax - onehot, zero at masked ids
    d[rows, y] -= 1
    d /= n
    g = {"W": h.T @ d, "b": d.sum(axis=0)}
    if "W1" in p:
        dh = (d @ p["W"].T) * (h > 0)
        g["W1"], g["b1"] = x.T @ dh, dh.sum(axis=0)
    return float(-logp[rows, y].mean()), g


def accuracy(p: Params, x: np.ndarray, mask: np.ndarray, y: np.ndarray, batch: int = 8192) -> float:
    hits = 0
    for i in range(0, len(y), batch):
        logits, _ = forward(p, x[i : i + batch])
        hits += int((np.where(mask[i : i + batch], logits, -np.inf).argmax(axis=1) == y[i : i + batch]).sum())
    return hits / max(1, len(y))


def adam_step(p: Params, g: Params, m: Params, v: Params, t: int, lr: float,
              b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8) -> None:
    """One Adam update of the parameters ``p`` in place (``t``: the step, from 1)."""
    for k in p:
        m[k] = b1 * m[k] + (1 - b1) * g[k]
        v[k] = b2 * v[k] + (1 - b2) * g[k] * g[k]
        p[k] -= (lr * math.sqrt(1 - b2**t) / (1 - b1**t)) * m[k] / (np.sqrt(v[k]) + eps)


def train(x, mask, y, epochs: int, hidden: int, seed: int, batch: int = 256, lr: float = 1e-3) -> Params:
    """Minibatch Adam on the cross-entropy; a tenth of the samples (whole hands' worth, taken
    from the end) is held out to report accuracy."""
    rng = np.random.default_rng([seed, 2])
    p = init(rng, hidden)
    m = {k: np.zeros_like(v) for k, v in p.items()}
    v = {k: np.zeros_like(w) for k, w in p.items()}
    t = 0
    cut = len(y) - len(y) // 10
    for epoch in range(epochs):
        order = rng.permutation(cut)
        losses = []
        for i in range(0, cut, batch):
            idx = np.sort(order[i : i + batch])
            loss, g = gradients(p, x[idx], mask[idx], y[idx])
            losses.append(loss)
            t += 1
            adam_step(p, g, m, v, t, lr)
        print(
            f"  epoch {epoch + 1}/{epochs}: loss {np.mean(losses):.3f}, agrees with greedy on "
            f"{accuracy(p, x[:cut], mask[:cut], y[:cut]):.1%} (train) / "
            f"{accuracy(p, x[cut:], mask[cut:], y[cut:]):.1%} (held out) of its choices"
        )
    return p


def argmax_policy(p: Params, canon: bool = True) -> Policy:
    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        if not canon:
            logits, _ = forward(p, obs)
            return np.where(mask, logits, -np.inf).argmax(axis=1)
        xc, mc, trump = canonical(obs, mask)
        logits, _ = forward(p, xc)
        return TO_REAL[trump, np.where(mc, logits, -np.inf).argmax(axis=1)]

    return act


def uniform_policy(seed: int) -> Policy:
    rng = np.random.default_rng([seed, 3])

    def act(obs: np.ndarray, mask: np.ndarray) -> np.ndarray:
        # uniform over the allowed ids: the largest of uniform keys on the allowed ones
        return np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)

    return act


# -- 4. evaluation -------------------------------------------------------------------------------
def first_hands(policy: Policy, deals: int, seed: int, learner: int) -> np.ndarray:
    """The learner team's return (levels) in the first hand of each of ``deals`` VecEnv
    environments, ``policy`` at seats ``learner`` and ``learner + 2``, ``random`` at the
    others. Environment i deals the same first hand whichever seats the learner holds."""
    opp = [None if s % 2 == learner else "random" for s in range(4)]
    env = tractor.VecEnv(deals, seed=seed, opponents=opp, threads=1)
    obs, mask, seat, reward, done = env.reset()
    out = np.full(deals, np.nan)
    todo = np.ones(deals, bool)
    actions = np.empty(deals, np.int64)
    while True:
        ended = done & todo
        out[ended] = reward[ended, learner]
        todo &= ~done
        if not todo.any():
            return out
        # environments past their first hand only need some legal id
        actions[:] = mask.argmax(axis=1)
        actions[todo] = policy(obs[todo], mask[todo])
        obs, mask, seat, reward, done = env.step(actions)


def paired(policy: Policy, deals: int, seed: int) -> np.ndarray:
    """Per deal, the mean of the learner team's returns in the two seatings."""
    return (first_hands(policy, deals, seed, 0) + first_hands(policy, deals, seed, 1)) / 2


def ci95(x: np.ndarray) -> Tuple[float, float, float]:
    m = float(np.mean(x))
    h = 1.96 * float(np.std(x, ddof=1)) / math.sqrt(len(x))
    return m, m - h, m + h


def line(name: str, m: float, lo: float, hi: float) -> str:
    return f"  {name:<40} {m:+.3f}  [{lo:+.3f}, {hi:+.3f}]"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=0, help="seeds the data, the training and the evaluation")
    ap.add_argument("--games", type=int, default=4000, help="greedy self-play hands to learn from")
    ap.add_argument("--epochs", type=int, default=6)
    ap.add_argument("--hidden", type=int, default=256, help="hidden units (0: a linear policy)")
    ap.add_argument("--suits", choices=("canonical", "real"), default="canonical",
                    help="canonical: the policy sees trump as the first suit (and maps its ids back)")
    ap.add_argument("--deals", type=int, default=2000, help="evaluation deals (each played in both seatings)")
    a = ap.parse_args(argv)
    for name in ("games", "epochs", "deals"):
        if getattr(a, name) < 1 or (name == "deals" and a.deals < 2):
            ap.error(f"--{name} is too small")
    if a.hidden < 0 or not 0 <= a.seed < 2**63:
        ap.error("--hidden must be >= 0 and --seed in 0..2**63-1")
    t0 = time.perf_counter()

    print(f"1. greedy self-play: {a.games} hands")
    x, mask, y = generate(a.games, a.seed)
    t1 = time.perf_counter()
    print(f"   {len(y)} samples ({len(y) / a.games:.0f} per hand) in {t1 - t0:.1f} s")

    kind = f"one hidden layer of {a.hidden}" if a.hidden else "linear"
    print(f"2. training a masked softmax policy ({kind}, {a.suits} suits), {a.epochs} epochs")
    canon = a.suits == "canonical"
    if canon:
        to_canonical(x, mask, y)
    params = train(x, mask, y, a.epochs, a.hidden, a.seed)
    t2 = time.perf_counter()
    print(f"   {t2 - t1:.1f} s")

    print(f"3. evaluation: {a.deals} deals, each in both seatings, against random")
    eval_seed = int(np.random.default_rng([a.seed, 4]).integers(0, 2**63))
    learner = ci95(paired(argmax_policy(params, canon), a.deals, eval_seed))
    control = ci95(paired(uniform_policy(a.seed), a.deals, eval_seed))
    # random vs itself scores exactly 0 on duplicate deals (the rotated deal replays the same
    # hand with the teams swapped), so its baseline is the unpaired team of seats 0 and 2
    rr = tractor.simulate(hands=2 * a.deals, policies=("random",) * 4, seed=eval_seed, threads=1).summary()
    baseline = (rr["teams"]["team0 (random)"]["mean_return"], *rr["teams"]["team0 (random)"]["ci95"])
    gr = tractor.simulate(hands=a.deals, policies=("greedy", "random", "greedy", "random"), seed=eval_seed,
                          threads=1, duplicate=True).summary()["duplicate"]
    teacher = (gr["advantage"], *gr["ci95"])
    t3 = time.perf_counter()
    print(f"   {t3 - t2:.1f} s")

    print(f"\nSummary (seed {a.seed}): mean levels per hand of the team over random with a 95% interval "
          "(duplicate deals but for the baseline)")
    print(line("trained policy (VecEnv)", *learner))
    print(line("uniform over the mask (VecEnv)", *control))
    print(line("random, unpaired (simulate, baseline)", *baseline))
    print(line("greedy, the teacher (simulate)", *teacher))
    verdict = "beats" if learner[1] > max(0.0, baseline[2]) else "does NOT clearly beat"
    print(f"  the trained policy {verdict} random: {learner[0]:+.3f} levels per hand, "
          f"{learner[0] / teacher[0]:.0%} of greedy's margin; total {t3 - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
