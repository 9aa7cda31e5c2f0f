"""The BERT encoder of :mod:`cogmem.embed.bert` on ONNX Runtime (CPU).

The ONNX graph is built in memory from the same weights dict (safetensors key names) with
``onnx.helper`` — no torch export, no download — and handed to an
``onnxruntime.InferenceSession`` as bytes. Two graph styles:

* ``contrib=True`` (default): com.microsoft contrib ops written directly — ``Attention``
  (fused QKV, right-padding key lengths as mask), ``SkipLayerNormalization`` (bias +
  residual + LayerNorm) and ``BiasGelu`` (exact erf GELU);
* ``contrib=False``: standard ONNX ops only, laid out like a PyTorch export of BERT
  (separate Q/K/V, additive ``(1 - mask)·-10000`` bias, ``x·½·(1 + erf(x/√2))``), left to
  ORT's own graph fusions.

:func:`build_mpnet_onnx` writes MPNet (all-mpnet-base-v2) in the contrib style: positions
from ``pad_token_id + 1``, no token types, and the relative position bias gathered in the
graph from a (width × width) bucket input and passed to every ``Attention`` op.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from cogmem.embed.base import EmbedderUnavailable, weight_reader
from cogmem.embed.bert import checked_lengths, mean_pool, relative_buckets

_OPSET = 17  # LayerNormalization


def _import_onnx() -> tuple[Any, Any]:
    try:
        import onnx
        import onnxruntime  # type: ignore[import-untyped]
    except ImportError as exc:
        raise EmbedderUnavailable(
            f"the ONNX encoder needs onnx and onnxruntime ({exc}); "
            "install them with `pip install onnx onnxruntime`"
        ) from exc
    return onnx, onnxruntime


class _Graph:
    """Accumulates nodes and initializers; every value gets a fresh name."""

    def __init__(self, onnx: Any) -> None:
        self.onnx = onnx
        self.nodes: list[Any] = []
        self.inits: list[Any] = []
        self._n = 0

    def name(self, hint: str) -> str:
        self._n += 1
        return f"{hint}_{self._n}"

    def const(self, value: Any, hint: str = "c", dtype: Any = np.float32) -> str:
        name = self.name(hint)
        array = np.ascontiguousarray(value, dtype=dtype)
        self.inits.append(self.onnx.numpy_helper.from_array(array, name))
        return name

    def op(self, op_type: str, *inputs: str, domain: str = "", **attrs: Any) -> str:
        out = self.name(op_type.lower())
        node = self.onnx.helper.make_node(
            op_type, list(inputs), [out], name=out, domain=domain or None, **attrs
        )
        self.nodes.append(node)
        return out


def _feed_forward(w: Callable[[str], np.ndarray], p: str) -> dict[str, Any]:
    """The feed-forward weights of layer ``p`` as :func:`_contrib_layer` takes them: named
    alike in BERT and MPNet."""
    return {
        "wi": w(p + "intermediate.dense.weight").T,
        "bi": w(p + "intermediate.dense.bias"),
        "wo2": w(p + "output.dense.weight").T,
        "bo2": w(p + "output.dense.bias"),
        "ln2": (w(p + "output.LayerNorm.weight"), w(p + "output.LayerNorm.bias")),
    }


def _contrib_layer(
    g: _Graph,
    x: str,
    lengths: str,
    attention_bias: str,
    heads: int,
    eps: float,
    *,
    wqkv: np.ndarray,
    bqkv: np.ndarray,
    wo: np.ndarray,
    bo: np.ndarray,
    ln1: tuple[np.ndarray, np.ndarray],
    wi: np.ndarray,
    bi: np.ndarray,
    wo2: np.ndarray,
    bo2: np.ndarray,
    ln2: tuple[np.ndarray, np.ndarray],
) -> str:
    """One post-LN encoder layer in com.microsoft ops: fused-QKV ``Attention`` (right-padding
    key ``lengths``; ``attention_bias``, when named, added to every head's scores),
    ``SkipLayerNormalization`` after attention and after the exact-GELU feed-forward.
    Weight matrices are (in, out)."""
    ms = "com.microsoft"
    inputs = [x, g.const(wqkv), g.const(bqkv), lengths]
    if attention_bias:
        inputs += ["", attention_bias]  # no past state
    ctx = g.op("Attention", *inputs, domain=ms, num_heads=heads)
    out = g.op("MatMul", ctx, g.const(wo))
    x = g.op("SkipLayerNormalization", out, x, g.const(ln1[0]), g.const(ln1[1]), g.const(bo),
             domain=ms, epsilon=eps)  # fmt: skip
    inner = g.op("MatMul", x, g.const(wi))
    inner = g.op("BiasGelu", inner, g.const(bi), domain=ms)
    out = g.op("MatMul", inner, g.const(wo2))
    return g.op("SkipLayerNormalization", out, x, g.const(ln2[0]), g.const(ln2[1]),
                g.const(bo2), domain=ms, epsilon=eps)  # fmt: skip


def build_bert_onnx(
    weights: dict[str, np.ndarray], config: dict[str, Any], *, contrib: bool = True
) -> Any:
    """An ``onnx.ModelProto`` of the BERT encoder: inputs ``input_ids`` (int64, batch ×
    width) and ``lengths`` (int32, batch; right padding) — or, with ``contrib=False``,
    ``attention_mask`` (int64 0/1, batch × width) — and output ``last_hidden_state``
    (float32, batch × width × hidden). Token type 0 everywhere."""
    onnx, _ = _import_onnx()
    if config.get("hidden_act", "gelu") != "gelu":
        raise EmbedderUnavailable(f"unsupported activation {config.get('hidden_act')!r}")
    if config.get("position_embedding_type", "absolute") != "absolute":
        raise EmbedderUnavailable("only absolute position embeddings are supported")
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    head_dim = hidden // heads
    eps = float(config.get("layer_norm_eps", 1e-12))
    prefix = next(
        (p for p in ("", "bert.", "model.") if p + "embeddings.word_embeddings.weight" in weights),
        None,
    )
    if prefix is None:
        raise EmbedderUnavailable("weights lack embeddings.word_embeddings.weight")

    w = weight_reader(weights, prefix)

    g = _Graph(onnx)
    ids, lengths = "input_ids", "lengths"
    # embeddings: word + (position + token type 0), then LayerNorm
    width = g.op("Shape", ids, start=1, end=2)  # 1-D: Slice's ends
    pos_table = w("embeddings.position_embeddings.weight")
    pos_table = pos_table + w("embeddings.token_type_embeddings.weight")[0]
    zero = g.const([0], "zero", np.int64)
    x = g.op(
        "Add",
        g.op("Gather", g.const(w("embeddings.word_embeddings.weight"), "word_emb"), ids),
        g.op("Slice", g.const(pos_table, "pos_emb"), zero, width, zero),
    )
    x = g.op(
        "LayerNormalization",
        x,
        g.const(w("embeddings.LayerNorm.weight")),
        g.const(w("embeddings.LayerNorm.bias")),
        axis=-1,
        epsilon=eps,
    )
    if not contrib:  # (batch, 1, 1, width) additive bias, as a PyTorch export computes it
        lengths = "attention_mask"
        mask = g.op("Unsqueeze", lengths, g.const([1], "ax", np.int64))
        mask = g.op("Cast", g.op("Unsqueeze", mask, g.const([2], "ax", np.int64)), to=1)
        bias = g.op("Mul", g.op("Sub", g.const(1.0, "one_f"), mask), g.const(-10000.0, "neg"))
        heads_shape = g.const([0, 0, heads, head_dim], "shape", np.int64)
        merge_shape = g.const([0, 0, hidden], "shape", np.int64)
        scale = g.const(math.sqrt(head_dim), "sqrt_d")
        sqrt2, half, one = g.const(math.sqrt(2.0)), g.const(0.5), g.const(1.0)

    def dense(x: str, key: str) -> str:
        product = g.op("MatMul", x, g.const(w(key + ".weight").T))
        return g.op("Add", product, g.const(w(key + ".bias")))

    def layer_norm(x: str, key: str) -> str:
        gamma, beta = g.const(w(key + ".weight")), g.const(w(key + ".bias"))
        return g.op("LayerNormalization", x, gamma, beta, axis=-1, epsilon=eps)

    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        qkv = [p + f"attention.self.{n}" for n in ("query", "key", "value")]
        if contrib:
            x = _contrib_layer(
                g, x, lengths, "", heads, eps,
                wqkv=np.concatenate([w(k + ".weight").T for k in qkv], axis=1),
                bqkv=np.concatenate([w(k + ".bias") for k in qkv]),
                wo=w(p + "attention.output.dense.weight").T,
                bo=w(p + "attention.output.dense.bias"),
                ln1=(w(p + "attention.output.LayerNorm.weight"),
                     w(p + "attention.output.LayerNorm.bias")),
                **_feed_forward(w, p),
            )  # fmt: skip
            continue
        q, k, v = (g.op("Reshape", dense(x, key), heads_shape) for key in qkv)
        q = g.op("Transpose", q, perm=[0, 2, 1, 3])
        k = g.op("Transpose", k, perm=[0, 2, 3, 1])
        v = g.op("Transpose", v, perm=[0, 2, 1, 3])
        scores = g.op("Add", g.op("Div", g.op("MatMul", q, k), scale), bias)
        ctx = g.op("MatMul", g.op("Softmax", scores, axis=-1), v)
        ctx = g.op("Reshape", g.op("Transpose", ctx, perm=[0, 2, 1, 3]), merge_shape)
        out = g.op("Add", dense(ctx, p + "attention.output.dense"), x)
        x = layer_norm(out, p + "attention.output.LayerNorm")
        inner = dense(x, p + "intermediate.dense")
        erf = g.op("Erf", g.op("Div", inner, sqrt2))
        inner = g.op("Mul", g.op("Mul", inner, g.op("Add", erf, one)), half)
        out = g.op("Add", dense(inner, p + "output.dense"), x)
        x = layer_norm(out, p + "output.LayerNorm")

    helper, tp = onnx.helper, onnx.TensorProto
    mask_type = (tp.INT32, ["batch"]) if contrib else (tp.INT64, ["batch", "width"])
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    graph = helper.make_graph(
        g.nodes,
        "bert",
        [
            helper.make_tensor_value_info(ids, tp.INT64, ["batch", "width"]),
            helper.make_tensor_value_info(lengths, *mask_type),
        ],
        [helper.make_tensor_value_info("last_hidden_state", tp.FLOAT, ["batch", "width", hidden])],
        initializer=g.inits,
    )
    opsets = [helper.make_opsetid("", _OPSET), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=8)


def build_mpnet_onnx(weights: dict[str, np.ndarray], config: dict[str, Any]) -> Any:
    """An ``onnx.ModelProto`` of the MPNet encoder (:class:`cogmem.embed.mpnet.MPNetEncoder`'s
    weights and arithmetic), contrib ops: inputs ``input_ids`` (int64, batch × width, right
    padded), ``lengths`` (int32, batch) and ``buckets`` (int64, width × width:
    :func:`cogmem.embed.bert.relative_buckets`); output ``last_hidden_state``."""
    onnx, _ = _import_onnx()
    if config.get("hidden_act", "gelu") != "gelu":
        raise EmbedderUnavailable(f"unsupported activation {config.get('hidden_act')!r}")
    hidden = int(config["hidden_size"])
    heads = int(config["num_attention_heads"])
    eps = float(config.get("layer_norm_eps", 1e-5))
    prefix = "" if "embeddings.word_embeddings.weight" in weights else "mpnet."

    w = weight_reader(weights, prefix)

    g = _Graph(onnx)
    ids, lengths = "input_ids", "lengths"
    first = int(config.get("pad_token_id", 1)) + 1
    zero = g.const([0], "zero", np.int64)
    x = g.op(
        "Add",
        g.op("Gather", g.const(w("embeddings.word_embeddings.weight"), "word_emb"), ids),
        g.op(
            "Slice",
            g.const(w("embeddings.position_embeddings.weight")[first:], "pos_emb"),
            zero,
            g.op("Shape", ids, start=1, end=2),
            zero,
        ),
    )
    x = g.op("LayerNormalization", x, g.const(w("embeddings.LayerNorm.weight")),
             g.const(w("embeddings.LayerNorm.bias")), axis=-1, epsilon=eps)  # fmt: skip
    # (buckets, heads) table → (1, heads, width, width), shared by every layer
    rel = g.op("Gather", g.const(w("encoder.relative_attention_bias.weight")), "buckets")
    rel = g.op("Unsqueeze", g.op("Transpose", rel, perm=[2, 0, 1]), g.const([0], "ax", np.int64))
    for i in range(int(config["num_hidden_layers"])):
        p = f"encoder.layer.{i}."
        a = p + "attention.attn."
        x = _contrib_layer(
            g, x, lengths, rel, heads, eps,
            wqkv=np.concatenate([w(a + f"{n}.weight").T for n in "qkv"], axis=1),
            bqkv=np.concatenate([w(a + f"{n}.bias") for n in "qkv"]),
            wo=w(a + "o.weight").T,
            bo=w(a + "o.bias"),
            ln1=(w(p + "attention.LayerNorm.weight"), w(p + "attention.LayerNorm.bias")),
            **_feed_forward(w, p),
        )  # fmt: skip
    helper, tp = onnx.helper, onnx.TensorProto
    g.nodes.append(helper.make_node("Identity", [x], ["last_hidden_state"]))
    graph = helper.make_graph(
        g.nodes,
        "mpnet",
        [
            helper.make_tensor_value_info(ids, tp.INT64, ["batch", "width"]),
            helper.make_tensor_value_info(lengths, tp.INT32, ["batch"]),
            helper.make_tensor_value_info("buckets", tp.INT64, ["width", "width"]),
        ],
        [helper.make_tensor_value_info("last_hidden_state", tp.FLOAT, ["batch", "width", hidden])],
        initializer=g.inits,
    )
    opsets = [helper.make_opsetid("", _OPSET), helper.make_opsetid("com.microsoft", 1)]
    return helper.make_model(graph, opset_imports=opsets, ir_version=8)


def session_options(threads: int = 1) -> Any:
    """ORT_ENABLE_ALL, ``threads`` intra-op threads that sleep when idle, one inter-op
    thread, sequential.

    ORT's pool threads spin between runs by default, taking a core from everything else in
    the process (a concurrent search's Python, the Neo4j driver). Without spinning a
    two-thread session is as fast per run here (MiniLM, 40 tokens: 16.5 vs 16.4 ms; one
    thread 28.6) and costs concurrent searches nothing (benchmarks/results/load_test.md)."""
    _, ort = _import_onnx()
    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    opts.intra_op_num_threads = max(1, threads)
    opts.inter_op_num_threads = 1
    opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    opts.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return opts


class OnnxBertEncoder:
    """:class:`~cogmem.embed.bert.BertEncoder` on ONNX Runtime: same inputs and outputs.

    ``threads`` is ORT's intra-op thread count. The session is safe to run from several
    threads at once (each call gets its own buffers).
    """

    def __init__(
        self,
        weights: dict[str, np.ndarray],
        config: dict[str, Any],
        threads: int = 1,
        *,
        contrib: bool = True,
        model: Any = None,
    ) -> None:
        """``model``: an already built (or optimised, or quantised) ``onnx.ModelProto``, its
        bytes, or the path of its file, to run instead of building one from ``weights``."""
        _, ort = _import_onnx()
        self.hidden = int(config["hidden_size"])
        self.max_positions = int(config.get("max_position_embeddings", 512))
        self.threads = threads
        if model is None:
            model = build_bert_onnx(weights, config, contrib=contrib)
        # a file is read by ORT itself: no copy of its bytes in Python
        data: Any = str(model) if isinstance(model, (str, Path)) else model
        if not isinstance(data, (str, bytes)):
            data = data.SerializeToString()
        del model
        try:
            self.session = ort.InferenceSession(
                data, session_options(threads), providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # an ORT build without the contrib ops, say
            raise EmbedderUnavailable(f"onnxruntime cannot load the BERT graph: {exc}") from exc
        # the Python wrapper keeps the model bytes (~size of the weights) only to rebuild
        # the session on a GPU-provider failure; on CPU that is dead weight
        if getattr(self.session, "_model_bytes", None) is not None:
            self.session._model_bytes = None
        del data
        self._mask_input = any(i.name == "attention_mask" for i in self.session.get_inputs())

    def extra_feeds(self, width: int) -> dict[str, np.ndarray]:
        """Inputs beyond ids and lengths for a batch ``width`` tokens wide (none for BERT)."""
        return {}

    def __call__(self, sequences: Sequence[Sequence[int]]) -> np.ndarray:
        """Mean-pooled (unnormalised) last hidden states, shape (len(sequences), hidden);
        padded rows are left out of the mean, as in ``BertEncoder.__call__``."""
        if len(sequences) == 0:
            return np.zeros((0, self.hidden), np.float32)
        return mean_pool(*self.token_states(sequences))

    def token_states(self, sequences: Sequence[Sequence[int]]) -> tuple[np.ndarray, np.ndarray]:
        """Last hidden states (batch, width, hidden), right-padded, and each sequence's
        length, as ``BertEncoder.token_states``."""
        batch = len(sequences)
        lengths = checked_lengths(sequences, self.max_positions)
        if batch == 0:
            return np.zeros((0, 0, self.hidden), np.float32), lengths
        width = int(lengths.max())
        ids = np.zeros((batch, width), np.int64)
        for row, seq in enumerate(sequences):
            ids[row, : len(seq)] = seq
        feeds = {"input_ids": ids, **self.extra_feeds(width)}
        if self._mask_input:  # a 0/1 mask (standard-op graph) instead of key lengths
            feeds["attention_mask"] = (np.arange(width)[None, :] < lengths[:, None]).astype(
                np.int64
            )
        else:
            feeds["lengths"] = lengths.astype(np.int32)
        (states,) = self.session.run(["last_hidden_state"], feeds)
        return np.asarray(states, dtype=np.float32), lengths


class OnnxMPNetEncoder(OnnxBertEncoder):
    """:class:`~cogmem.embed.mpnet.MPNetEncoder` on ONNX Runtime (a :func:`build_mpnet_onnx`
    ``model``): the same inputs and outputs; the relative-position buckets are computed once
    for the widest batch and each batch gets its corner of them."""

    def __init__(self, config: dict[str, Any], model: Any, threads: int = 1) -> None:
        super().__init__({}, config, threads, model=model)
        first = int(config.get("pad_token_id", 1)) + 1
        self.max_positions = int(config.get("max_position_embeddings", 514)) - first
        # a pair's bucket depends only on its distance, so every width's table is the top
        # left corner of the widest one (2 MiB at 512 positions), computed once
        buckets = int(config.get("relative_attention_num_buckets", 32))
        self._buckets = relative_buckets(self.max_positions, buckets).astype(np.int64)

    def extra_feeds(self, width: int) -> dict[str, np.ndarray]:
        return {"buckets": np.ascontiguousarray(self._buckets[:width, :width])}
