"""A trained choice model per task type: which offered candidate the upstream picks, from the
request's words *and* its state.

The encoder stays frozen (its vector is already stored with every exemplar); on top of it a
conditional-logit head scores each offered candidate (a tool, or `__no_tool__`) and a softmax
over the offered ones gives the choice's probabilities, as SetFit's head does over its classes
but with the classes the request offers. A candidate's score adds:

- `W[c] · q + b[c]`: a linear classifier on the query vector per candidate seen in training;
- `Wc[c] · r`: the same on the agent's last text reply (`context`): the user's "yes" or "it's
  ann@corp.com" says little on its own, the question it answers ("Shall I cancel order 1234?",
  "What is your email?") says which tool follows; `Wo[c] · o` on the user's opening words
  (`opening`): once the customer's record is read, "send back the socks" looks up an order,
  "change my address" asks for the new one;
- `θ · s(x, c)`: shared weights on features any candidate has, the same for a tool never seen:
  the zero-shot log-probability (its weight starts at 1 and is pulled back to 1, so with few
  pairs the head *is* the zero-shot ranking: the cold start), the cosine to the tool's usage
  vector (Tool2Vec: the mean of the query vectors that chose it), whether the candidate was
  already called this user turn, whether it is the last tool called and whether that call's
  result was an error, and for `__no_tool__` whether anything was called, the step, and how
  much of the zero-shot ranking went to a tool already called (what was asked has run); and the
  conversation's state (`conversation_state.py`): a reply after a tool's result or the user's
  turn, a call after "yes" to the agent's confirmation and a reply after "no", the same tool
  again while a list of ids is being walked, a reply to the user's answer to a question;
- the cosine to the candidate's usage vector *after the request's last tool* (the queries that
  chose it at that point of a turn): the same words ask for a look-up first, then the change,
  then nothing more (`usage.py`);
- the cosine of the agent's last reply to the candidate's *reply* usage vector (the replies it
  followed): one weight, where `Wc` needs many pairs of each candidate;
- the candidate's rank against the agent's last reply when the user just answered it, and against
  the user's opening words (`turn["ranks"]`, the zero-shot scorer's on those texts): "Shall I
  cancel order 1234?" "yes" names its write for a tool never seen;
- `T[last → c]`: which candidate follows which (a learned transition table), so the same
  user text gets another tool once a first one has run;
- the log-share of the training pairs in the same conversation state (who spoke last, the last
  tool and whether it failed, a confirmation answered, a list being walked) whose upstream chose
  the candidate (`state_counts.py`, its own pair left out in training): unlike `T`, not shrunk,
  so a step the upstream always takes there grows sure as the pairs come in;
- `U[c]`: per candidate, how its chance changes once it was called this turn.

Fitted by L-BFGS on the L2-regularised log-likelihood, in numpy (a few hundred pairs: well under
a second on one core). Unknown candidates score by the shared features alone.

The model, its features and its fit share the index layout of `W`, `θ`, `T` and `U`.
"""

from __future__ import annotations

import io
import json
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import minimize

from shadowswitch.learning.head_features import FEATURES, Example, context_of, opening_of, shared_features
from shadowswitch.learning.state_counts import StateCounts
from shadowswitch.learning.usage import Usage

START = ""  # the "last tool" of a request with no call yet this user turn
L2_VECTOR = 1e-2  # on W (per-candidate classifiers on the query vector): with few pairs, small
L2_TABLE = 3e-2  # on b, T, U
# On θ, toward (1, 0, ...): the cold start is the zero-shot ranking. Weak: a state feature true of a
# few percent of the pairs (a list being walked) must be able to say what it says (at 3e-2, tool
# steps of the shop agent chosen right 30 of 57, 1 at p ≥ 0.8; here 35, 19; the help desk's 48 → 54
# of 63). A young task type that the head overfits loses to the zero-shot start in `fit`.
L2_SHARED = 3e-3
MAX_ITER = 200
YIELD_EVERY = 16  # examples prepared between two offers of the GIL


@dataclass
class Head:
    vocab: list[str]  # candidates seen in training
    W: np.ndarray[Any, Any]  # (V, d)
    b: np.ndarray[Any, Any]  # (V,)
    U: np.ndarray[Any, Any]  # (V,)
    usage: np.ndarray[Any, Any]  # (V, d) unit-length Tool2Vec vectors (zero: none)
    transitions: list[str]  # "last\x1fcandidate" keys
    T: np.ndarray[Any, Any]  # (len(transitions),)
    theta: np.ndarray[Any, Any]  # (len(FEATURES),)
    pairs: int = 0  # how many it learned from
    state_keys: list[str] = field(default_factory=list)  # "last\x1fcandidate" keys chosen in training
    state_usage: np.ndarray[Any, Any] = field(default_factory=lambda: np.zeros((0, 0), np.float32))
    Wc: np.ndarray[Any, Any] = field(default_factory=lambda: np.zeros((0, 0), np.float32))  # (V, d)
    reply_usage: np.ndarray[Any, Any] = field(default_factory=lambda: np.zeros((0, 0), np.float32))  # (V, d)
    states: StateCounts = field(default_factory=StateCounts)  # labels per conversation state
    Wo: np.ndarray[Any, Any] = field(default_factory=lambda: np.zeros((0, 0), np.float32))  # (V, d)

    def predict(self, example: Example) -> dict[str, float]:
        """Probabilities over the example's offered candidates (the keys of its zero-shot)."""
        return self.predict_many([example])[0]

    def predict_many(self, examples: Sequence[Example]) -> list[dict[str, float]]:
        if not examples:
            return []
        replies = self.reply_usage if len(self.reply_usage) == len(self.vocab) else np.zeros_like(self.usage)
        usages = (
            Usage(self.vocab, self.usage),
            Usage(self.state_keys, self.state_usage),
            Usage(self.vocab, replies),
        )
        batch = _Batch.build(examples, self.vocab, self.transitions, usages, self.states, leave_out=False)
        logits = batch.logits(self._weights(), self.b, self.U, self.T, self.theta)
        probs = _softmax(logits)
        return [
            {c: float(p) for c, p in zip(cands, row[: len(cands)], strict=True)}
            for cands, row in zip(batch.candidates, probs, strict=True)
        ]

    def _weights(self) -> np.ndarray[Any, Any]:
        """(V, 3d): the query's, the context's and the opening's weights side by side (zero: a
        head stored before it read them)."""
        extra = (w if w.shape == self.W.shape else np.zeros_like(self.W) for w in (self.Wc, self.Wo))
        return np.hstack([self.W, *extra])

    def to_bytes(self) -> bytes:
        out = io.BytesIO()
        meta = json.dumps(
            {
                "vocab": self.vocab,
                "transitions": self.transitions,
                "pairs": self.pairs,
                "states": self.state_keys,
                "state_counts": self.states.to_json(),
            }
        )
        np.savez_compressed(
            out,
            meta=np.array(meta),
            W=self.W,
            b=self.b,
            U=self.U,
            usage=self.usage,
            T=self.T,
            theta=self.theta,
            state_usage=self.state_usage,
            Wc=self.Wc,
            Wo=self.Wo,
            reply_usage=self.reply_usage,
        )
        return out.getvalue()

    @classmethod
    def from_bytes(cls, data: bytes) -> Head:
        with np.load(io.BytesIO(data), allow_pickle=False) as z:
            meta = json.loads(str(z["meta"]))
            return cls(
                meta["vocab"],
                z["W"].astype(np.float32),
                z["b"],
                z["U"],
                z["usage"].astype(np.float32),
                meta["transitions"],
                z["T"],
                _padded(z["theta"], len(FEATURES)),
                int(meta.get("pairs", 0)),
                list(meta.get("states", [])),
                z["state_usage"].astype(np.float32) if "state_usage" in z else np.zeros((0, 0), np.float32),
                z["Wc"].astype(np.float32) if "Wc" in z else np.zeros((0, 0), np.float32),
                z["reply_usage"].astype(np.float32) if "reply_usage" in z else np.zeros((0, 0), np.float32),
                StateCounts(meta.get("state_counts")),
                z["Wo"].astype(np.float32) if "Wo" in z else np.zeros((0, 0), np.float32),
            )


def train(examples: Sequence[Example], l2_shared: float = L2_SHARED) -> Head:
    """Fit a head on `examples` (each label among its offered candidates); `l2_shared`: the pull
    of the shared weights toward the cold start."""
    vocab = sorted({c for e in examples for c in e.zero_shot})
    transitions = sorted({_transition(e.last_tool, c) for e in examples for c in e.zero_shot})
    dim = examples[0].vector.shape[0]
    queries = np.stack([e.vector for e in examples]).astype(np.float64)
    replies = np.stack([context_of(e, dim) for e in examples])
    usage = Usage.of(examples, vocab, _label, queries)
    state_keys = sorted({_transition(e.last_tool, e.label) for e in examples})
    states = Usage.of(examples, state_keys, _state_key, queries)
    reply = Usage.of(examples, vocab, _label, replies)
    counts = StateCounts.of(examples)
    batch = _Batch.build(examples, vocab, transitions, (usage, states, reply), counts, leave_out=True)
    v, t, s = len(vocab), len(transitions), len(FEATURES)
    shapes = [(v, 3 * dim), (v,), (v,), (t,), (s,)]  # W: the query's, the context's, the opening's
    theta0 = np.zeros(s)
    theta0[0] = 1.0
    start = np.concatenate([np.zeros(3 * v * dim + 2 * v + t), theta0])
    n = len(examples)

    def loss(flat: np.ndarray[Any, Any]) -> tuple[float, np.ndarray[Any, Any]]:
        time.sleep(0)  # one offer of the GIL per step of the optimiser
        W, b, U, T, theta = _unflatten(flat, shapes)
        logits = batch.logits(W, b, U, T, theta)
        probs = _softmax(logits)
        nll = -np.log(probs[np.arange(n), batch.label] + 1e-12).sum() / n
        grad_logits = probs
        grad_logits[np.arange(n), batch.label] -= 1.0
        grad_logits /= n
        gW, gb, gU, gT, gtheta = batch.gradients(grad_logits, v, t)
        reg = (
            0.5 * L2_VECTOR * (W**2).sum()
            + 0.5 * L2_TABLE * ((b**2).sum() + (U**2).sum() + (T**2).sum())
            + 0.5 * l2_shared * ((theta - theta0) ** 2).sum()
        )
        grads = [
            gW + L2_VECTOR * W,
            gb + L2_TABLE * b,
            gU + L2_TABLE * U,
            gT + L2_TABLE * T,
            gtheta + l2_shared * (theta - theta0),
        ]
        return float(nll + reg), np.concatenate([g.ravel() for g in grads])

    result = minimize(loss, start, jac=True, method="L-BFGS-B", options={"maxiter": MAX_ITER})
    W, b, U, T, theta = _unflatten(result.x, shapes)
    W = W.astype(np.float32)
    return Head(
        vocab,
        W[:, :dim],
        b,
        U,
        usage.unit,
        transitions,
        T,
        theta,
        n,
        states.keys,
        states.unit,
        W[:, dim : 2 * dim],
        reply.unit,
        counts,
        W[:, 2 * dim :],
    )


def _transition(last: str | None, candidate: str) -> str:
    return f"{last or START}\x1f{candidate}"


def _label(e: Example) -> str:
    return e.label


def _state_key(e: Example) -> str:
    return _transition(e.last_tool, e.label)


@dataclass
class _Batch:
    """Examples padded to the most candidates any offers: indexes and shared features."""

    candidates: list[list[str]]
    Q: np.ndarray[Any, Any]  # (n, d)
    cand: np.ndarray[Any, Any]  # (n, C) vocabulary index, -1 unknown or padding
    trans: np.ndarray[Any, Any]  # (n, C) transition index, -1 unknown
    called: np.ndarray[Any, Any]  # (n, C) 0/1
    shared: np.ndarray[Any, Any]  # (n, C, S)
    mask: np.ndarray[Any, Any]  # (n, C) True where a candidate is offered
    label: np.ndarray[Any, Any]  # (n,) the label's column (0 when unknown: prediction only)

    @classmethod
    def build(
        cls,
        examples: Sequence[Example],
        vocab: list[str],
        transitions: list[str],
        usages: tuple[Usage, Usage, Usage],
        counts: StateCounts,
        leave_out: bool,
    ) -> _Batch:
        index = {c: i for i, c in enumerate(vocab)}
        usage, states, reply = usages
        sindex = {k: i for i, k in enumerate(states.keys)}
        tindex = {k: i for i, k in enumerate(transitions)}
        n, width = len(examples), max(len(e.zero_shot) for e in examples)
        Q = np.stack([e.vector for e in examples]).astype(np.float64)  # one dtype: BLAS, not a loop
        R = np.stack([context_of(e, Q.shape[1]) for e in examples]).astype(np.float64)
        cand, trans = np.full((n, width), -1), np.full((n, width), -1)
        called, mask = np.zeros((n, width)), np.zeros((n, width), dtype=bool)
        shared, label = np.zeros((n, width, len(FEATURES))), np.zeros(n, dtype=int)
        cosines = Q @ usage.unit.T if len(vocab) else np.zeros((n, 0))
        state_cosines = Q @ states.unit.T if len(states.keys) else np.zeros((n, 0))
        reply_cosines = R @ reply.unit.T if len(vocab) else np.zeros((n, 0))
        dim = Q.shape[1]
        opening = np.stack([opening_of(e, dim) for e in examples]).astype(np.float64)
        Q = np.hstack([Q, R, opening])  # what W reads: the query, the context, the opening side by side
        names = []
        for i, e in enumerate(examples):
            if i % YIELD_EVERY == YIELD_EVERY - 1:
                time.sleep(0)  # hand the GIL to a request waiting for it (training runs beside them)
            offered = list(e.zero_shot)
            names.append(offered)
            shares = counts.log_shares(e, offered, leave_out)  # one look-up of its state
            for j, c in enumerate(offered):
                k = index.get(c, -1)
                key = _transition(e.last_tool, c)
                cand[i, j], trans[i, j], mask[i, j] = k, tindex.get(key, -1), True
                called[i, j] = float(c in e.blocked)
                own = leave_out and c == e.label
                cos = usage.cosine(Q[i, :dim], i, k, cosines, own)
                state_cos = states.cosine(Q[i, :dim], i, sindex.get(key, -1), state_cosines, own)
                reply_cos = reply.cosine(R[i], i, k, reply_cosines, own)
                shared[i, j] = shared_features(e, c, cos, state_cos, reply_cos, shares[j])
                if c == e.label:
                    label[i] = j
        return cls(names, Q, cand, trans, called, shared, mask, label)

    def logits(
        self,
        W: np.ndarray[Any, Any],
        b: np.ndarray[Any, Any],
        U: np.ndarray[Any, Any],
        T: np.ndarray[Any, Any],
        theta: np.ndarray[Any, Any],
    ) -> np.ndarray[Any, Any]:
        known = self.cand >= 0
        k = np.where(known, self.cand, 0)
        per = (self.Q @ W.T)[np.arange(len(self.Q))[:, None], k] if len(b) else np.zeros(k.shape)
        out = np.where(known, per + b[k] + U[k] * self.called, 0.0) if len(b) else np.zeros(k.shape)
        tk = np.where(self.trans >= 0, self.trans, 0)
        if len(T):
            out = out + np.where(self.trans >= 0, T[tk], 0.0)
        out = out + self.shared @ theta
        return np.where(self.mask, out, -np.inf)

    def gradients(self, g: np.ndarray[Any, Any], v: int, t: int) -> tuple[np.ndarray[Any, Any], ...]:
        """Gradients of the parameters from the gradient of the logits (n, C)."""
        g = np.where(self.mask, g, 0.0)
        known = (self.cand >= 0) & self.mask
        rows = np.repeat(np.arange(len(g)), g.shape[1]).reshape(g.shape)
        per = np.zeros((len(g), v))
        np.add.at(per, (rows[known], self.cand[known]), g[known])
        gW = per.T @ self.Q
        gb = per.sum(axis=0)
        gU = np.zeros(v)
        np.add.at(gU, self.cand[known], (g * self.called)[known])
        gT = np.zeros(t)
        tknown = (self.trans >= 0) & self.mask
        np.add.at(gT, self.trans[tknown], g[tknown])
        gtheta = np.einsum("nc,ncs->s", g, self.shared)
        return gW, gb, gU, gT, gtheta


def _padded(theta: np.ndarray[Any, Any], size: int) -> np.ndarray[Any, Any]:
    """A head stored before a shared feature was added reads it with weight 0."""
    return np.concatenate([theta, np.zeros(max(0, size - len(theta)))])


def _softmax(logits: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    top = np.max(logits, axis=1, keepdims=True)
    e = np.exp(logits - top)
    return np.asarray(e / e.sum(axis=1, keepdims=True))


def _unflatten(flat: np.ndarray[Any, Any], shapes: list[tuple[int, ...]]) -> list[np.ndarray[Any, Any]]:
    out, at = [], 0
    for shape in shapes:
        size = int(np.prod(shape))
        out.append(flat[at : at + size].reshape(shape))
        at += size
    return out
