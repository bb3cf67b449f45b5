"""One object, many threads: a ``Game`` or a ``VecEnv`` shared between threads. The binding
releases the GIL in its long calls; calls on one object take effect one after another, and
none raises PyO3's "Already borrowed" (or any other error that serial calls would not).

- A ``Game``'s long calls (``determinize_many``, ``step_policy``, ``policy_ids``,
  ``play_random``, the searches, ``rollouts``) work on a snapshot: readers in other threads
  never wait for them, and a ``step_policy`` whose game another thread moved meanwhile
  decides again for the game as it is.
- A ``VecEnv``'s calls wait for each other.
- A view of a ``VecEnv``'s own output buffer passed as its actions is refused with an
  InvalidArgument, not a panic.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

import tractor
from tractor import search
from tractor.errors import IllegalAction, InvalidArgument


def run_threads(*fns, seconds: float = 0.0):
    """Runs each function in its own thread until all are done: the exceptions raised."""
    errors = []

    def wrap(f):
        try:
            f()
        except BaseException as e:  # noqa: BLE001 (the test reports it)
            errors.append(e)

    ts = [threading.Thread(target=wrap, args=(f,)) for f in fns]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)
    assert not any(t.is_alive() for t in ts), "a thread hung"
    return errors


def test_readers_beside_a_mover_change_nothing_and_never_collide():
    """One thread plays a hand with step_policy while others determinize, search, roll out
    and read the same game: the hand is the one played alone, and no call raises."""
    alone = tractor.Game(seed=5)
    k = 0
    while alone.step_policy("greedy", 100 + k):
        k += 1
    g = tractor.Game(seed=5)
    done = threading.Event()

    def mover():
        k = 0
        try:
            while g.step_policy("greedy", 100 + k):
                k += 1
        finally:
            done.set()

    def reader(kind):
        def f():
            i = 0
            while not done.is_set():
                i += 1
                try:
                    if kind == 0:
                        g.determinize_many(i % 4, 3, i)
                    elif kind == 1:
                        g.action_mask()
                        g.legal_actions()
                        g.observation(i % 4)
                    elif kind == 2:
                        search.rollouts(g, 4, seed=i, threads=1)
                    else:
                        g.policy_ids("pimc:worlds=2,rollouts=1,rollout=random", i)
                except IllegalAction:
                    pass  # the hand ended (or a search met a phase it does not decide): serial calls say so too
        return f

    errors = run_threads(mover, *(reader(k) for k in range(4)))
    assert not errors, errors
    assert g.to_json() == alone.to_json()


def test_two_movers_take_turns():
    """Two threads step one game with step_policy and play_random: every call takes effect
    whole, so the hand is a legal one (its record replays) and nothing collides."""
    for seed in range(3):
        g = tractor.Game(seed=seed)

        def stepper(base):
            def f():
                k = 0
                while g.step_policy("random", base + k):
                    k += 1
            return f

        def finisher():
            for _ in range(50):
                g.action_mask()
            g.play_random(seed)

        errors = run_threads(stepper(0), stepper(10_000), finisher)
        assert not errors, errors
        assert g.phase == "over"
        assert tractor.Game.from_json(g.to_json()).to_json() == g.to_json()


def test_a_vec_env_shared_by_threads_serializes_its_calls():
    v = tractor.VecEnv(16, seed=3, opponents=("greedy", "random", "greedy"))
    _, mask, _, _, _ = v.reset()
    stop = threading.Event()
    rng = np.random.default_rng(0)

    def stepper():
        m = mask
        try:
            for _ in range(300):
                _, m, _, _, _ = v.step(m.argmax(axis=1))
        finally:
            stop.set()

    def reader():
        while not stop.is_set():
            v.info["end"].sum()
            v.known_trumps()
            v.game(int(rng.integers(16))).phase

    errors = run_threads(stepper, reader, reader)
    assert not errors, errors


def test_two_steppers_each_step_whole():
    """Two threads step one VecEnv: each step is whole (a step whose ids another thread's step
    made stale is refused with IllegalAction, changing nothing); no other error."""
    v = tractor.VecEnv(8, seed=4)
    obs, mask, *_ = v.reset()

    def stepper():
        for _ in range(200):
            try:
                v.step(mask.argmax(axis=1))
            except IllegalAction:
                pass

    errors = run_threads(stepper, stepper)
    assert not errors, errors


def test_a_view_of_an_output_buffer_as_actions_is_refused():
    """Today's tree panicked inside the binding ("internal error"): the actions are read and
    let go before the buffers are written."""
    n = 4
    v = tractor.VecEnv(n, seed=1)
    seat = v.reset()[2]
    info = v._env.info()
    views = [info.reshape(-1)[: 2 * n].view(np.int64),  # n int64 ids over the info buffer
             seat.view(np.int64)]  # over the seat buffer: n/2 ids, a wrong shape
    for bad in views:
        try:
            v._env.step(bad)
        except (InvalidArgument, IllegalAction) as e:
            assert "internal error" not in str(e), e
    # the public step: ids equal to the mask's argmax, passed as a view of a buffer it owns
    obs, mask, *_ = v.reset()
    ids = info.reshape(-1)[: 2 * n].view(np.int64)
    ids[:] = mask.argmax(axis=1)
    v.step(ids)  # accepted: the ids were copied before the buffers were written
