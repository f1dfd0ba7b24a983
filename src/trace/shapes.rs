//! FLOPs and bytes of aten ops from their recorded shapes
//! (`record_shapes=True`: `Input Dims`, `Input type`, and `Concrete Inputs` where
//! PyTorch writes them): the matmul family, convolutions, scaled-dot-product
//! attention, pointwise ops, normalisations (softmax included) and reductions.
//!
//! Conventions: a multiply-add is 2 FLOPs; bytes are the minimum DRAM traffic,
//! every tensor input read once and the output written once (what a kernel that
//! reaches the roof moves; a real one may move more, e.g. a training norm that
//! reads its input twice). Element sizes come from `Input type` (4 where unknown).
//! An input is a tensor when its `Input type` is a dtype name (PyTorch writes
//! those in lower case: `float`, `c10::BFloat16`, `long int`), not `Scalar`,
//! `ScalarList`, `GenericList`, `TensorList` or "" (None); a trace without types
//! counts every input with dims as a tensor.

/// An aten op with shapes (`record_shapes=True`), for FLOPs from shapes: what
/// the parser reads from one event (`Input Dims`, `Input type`, `Concrete
/// Inputs`). It lives here, not in `parse`, so that `parse` uses `shapes` and
/// nothing runs the other way.
#[derive(Clone, Debug, PartialEq)]
pub struct OpShape {
    pub name: String,
    pub dims: Vec<Vec<i64>>,
    pub types: Vec<String>,
    /// `Concrete Inputs`: each non-tensor argument's value as PyTorch writes it
    /// (`"[1, 1]"`, `"2"`, `"False"`), "" for a tensor; empty when not recorded.
    pub concrete: Vec<String>,
}

/// Bytes per element of a `Input type` string (4 where unknown).
pub fn dtype_bytes(t: &str) -> f64 {
    let t = t.to_ascii_lowercase();
    if t.contains("float8")
        || t.contains("fp8")
        || t == "signed char"
        || t == "unsigned char"
        || t == "bool"
    {
        1.0
    } else if t.contains("half") || t.contains("bfloat16") || t == "short" || t == "short int" {
        2.0
    } else if t == "double" || t == "long int" || t == "long" || t.contains("complexfloat") {
        8.0
    } else {
        4.0
    }
}

fn numel(d: &[i64]) -> f64 {
    d.iter().map(|x| (*x).max(0) as f64).product()
}

/// What an op with shapes computes, for FLOPs and for the roofline.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OpKind {
    /// `aten::mm`, `addmm`, `bmm`, `baddbmm`, `matmul`, `linear`.
    Matmul,
    /// `aten::convolution`, `_convolution`, `cudnn_convolution`, `conv1d/2d/3d`.
    Conv,
    /// Scaled-dot-product attention (the public op and its flash, efficient and
    /// cuDNN backends).
    Attention,
    /// Elementwise arithmetic, activations, copies and fills.
    Pointwise,
    /// Softmax, log-softmax and the layer/RMS/group/batch norms.
    Normalisation,
    /// `sum`, `mean`, `max`, `amax`.
    Reduction,
}

impl OpKind {
    /// Matmul, conv and attention: the ops a tensor-core roof applies to.
    pub fn is_compute(self) -> bool {
        matches!(self, OpKind::Matmul | OpKind::Conv | OpKind::Attention)
    }
}

/// The op name without `aten::`.
fn base(name: &str) -> &str {
    name.strip_prefix("aten::").unwrap_or(name)
}

/// FLOPs per output element of a pointwise op (an estimate for the
/// transcendental ones: sigmoid = exp, add, divide, negate ≈ 4; tanh ≈ 4;
/// silu = sigmoid + a multiply ≈ 5; gelu's erf form ≈ 8); 0 for data movement
/// (`copy_`, `fill_`, `to`, `_to_copy`). In-place variants (`add_`) count as
/// their op.
fn pointwise_flops(name: &str) -> Option<f64> {
    let b = base(name);
    let b = if matches!(b, "copy_" | "fill_") {
        b
    } else {
        b.strip_suffix('_').unwrap_or(b)
    };
    Some(match b {
        "add" | "sub" | "mul" | "div" | "relu" => 1.0,
        "sigmoid" | "tanh" => 4.0,
        "silu" => 5.0,
        "gelu" => 8.0,
        "copy_" | "fill_" | "to" | "_to_copy" => 0.0,
        _ => return None,
    })
}

/// FLOPs per element of a normalisation (estimates: softmax = max, subtract,
/// exp, sum, divide ≈ 5; a norm = mean, variance (subtract, square, add),
/// normalise (subtract, multiply) and the affine multiply-add ≈ 8; RMS norm =
/// square, add, multiply by the reciprocal root, multiply by the weight ≈ 4).
fn norm_flops(name: &str) -> Option<f64> {
    Some(match base(name) {
        "softmax" | "_softmax" | "log_softmax" | "_log_softmax" => 5.0,
        "layer_norm"
        | "native_layer_norm"
        | "group_norm"
        | "native_group_norm"
        | "batch_norm"
        | "native_batch_norm"
        | "_batch_norm_impl_index"
        | "cudnn_batch_norm" => 8.0,
        "rms_norm" | "_fused_rms_norm" => 4.0,
        _ => return None,
    })
}

/// The kind of an aten op whose cost [`cost`] knows, by name.
pub fn op_kind(name: &str) -> Option<OpKind> {
    let b = base(name);
    if b.len() == name.len() {
        return None; // not an aten op
    }
    Some(match b {
        "mm" | "addmm" | "bmm" | "baddbmm" | "matmul" | "linear" => OpKind::Matmul,
        "convolution" | "_convolution" | "cudnn_convolution" | "conv1d" | "conv2d" | "conv3d" => {
            OpKind::Conv
        }
        "scaled_dot_product_attention"
        | "_scaled_dot_product_flash_attention"
        | "_scaled_dot_product_efficient_attention"
        | "_scaled_dot_product_cudnn_attention" => OpKind::Attention,
        "sum" | "mean" | "max" | "amax" => OpKind::Reduction,
        _ if norm_flops(name).is_some() => OpKind::Normalisation,
        _ if pointwise_flops(name).is_some() => OpKind::Pointwise,
        _ => return None,
    })
}

/// The cost of one op from its shapes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OpCost {
    pub kind: OpKind,
    pub flops: f64,
    pub bytes: f64,
    /// The first tensor input's dtype ([`dtype_id`]).
    pub dtype: Option<&'static str>,
}

/// A short dtype id for an `Input type` string: the ids of
/// [`crate::model::hardware::Dtype`] where they fit (`fp32`, `bf16`, `fp8`; a
/// trace cannot tell TF32 from fp32, so `float` is `fp32`), plus `fp16`, `fp64`,
/// `int8`, `uint8`, `int16`, `int32`, `int64`, `bool`; `None` for anything else.
pub fn dtype_id(t: &str) -> Option<&'static str> {
    let l = t.to_ascii_lowercase();
    Some(if l.contains("float8") || l.contains("fp8") {
        "fp8"
    } else if l.contains("bfloat16") {
        "bf16"
    } else if l.contains("half") {
        "fp16"
    } else {
        match l.as_str() {
            "float" => "fp32",
            "double" => "fp64",
            "signed char" => "int8",
            "unsigned char" => "uint8",
            "short" | "short int" => "int16",
            "int" => "int32",
            "long" | "long int" => "int64",
            "bool" => "bool",
            _ => return None,
        }
    })
}

/// Whether input `i` is a tensor (see the module's doc).
fn is_tensor(op: &OpShape, i: usize) -> bool {
    match op.types.get(i) {
        Some(t) if !op.types.is_empty() => t.chars().next().is_some_and(|c| c.is_ascii_lowercase()),
        _ => op.types.is_empty() && op.dims.get(i).is_some_and(|d| !d.is_empty()),
    }
}

fn elt(op: &OpShape, i: usize) -> f64 {
    op.types.get(i).map_or(4.0, |t| dtype_bytes(t))
}

/// Bytes of tensor input `i` (0 if it is not a tensor).
fn tensor_bytes(op: &OpShape, i: usize) -> f64 {
    if is_tensor(op, i) {
        op.dims.get(i).map_or(0.0, |d| numel(d) * elt(op, i))
    } else {
        0.0
    }
}

/// The indices of the tensor inputs.
fn tensors(op: &OpShape) -> Vec<usize> {
    (0..op.dims.len().max(op.types.len()))
        .filter(|i| is_tensor(op, *i))
        .collect()
}

/// `Concrete Inputs[i]` as a list of integers: `"[1, 1]"` or `"2"`.
fn concrete_ints(op: &OpShape, i: usize) -> Option<Vec<i64>> {
    let s = op.concrete.get(i)?.trim();
    let inner = s
        .strip_prefix('[')
        .and_then(|x| x.strip_suffix(']'))
        .unwrap_or(s);
    if inner.trim().is_empty() {
        return (s.starts_with('[')).then(Vec::new);
    }
    inner.split(',').map(|x| x.trim().parse().ok()).collect()
}

fn concrete_bool(op: &OpShape, i: usize) -> Option<bool> {
    match op.concrete.get(i)?.trim() {
        "True" | "true" | "1" => Some(true),
        "False" | "false" | "0" => Some(false),
        _ => None,
    }
}

/// NumPy broadcasting of several shapes; `None` where they do not broadcast.
fn broadcast<'a>(shapes: impl Iterator<Item = &'a Vec<i64>>) -> Option<Vec<i64>> {
    let mut out: Vec<i64> = Vec::new();
    for s in shapes {
        if s.len() > out.len() {
            let mut wider = vec![1; s.len() - out.len()];
            wider.extend_from_slice(&out);
            out = wider;
        }
        let off = out.len() - s.len();
        for (o, x) in out.iter_mut().skip(off).zip(s) {
            if *o == 1 {
                *o = *x;
            } else if *x != 1 && *x != *o {
                return None;
            }
        }
    }
    Some(out)
}

/// The cost of one op from its shapes; `None` where the op is not one [`op_kind`]
/// knows or its shapes do not fit it.
pub fn cost(op: &OpShape) -> Option<OpCost> {
    let kind = op_kind(&op.name)?;
    let (flops, bytes) = match kind {
        OpKind::Matmul => matmul(op)?,
        OpKind::Conv => conv(op)?,
        OpKind::Attention => attention(op)?,
        OpKind::Pointwise => pointwise(op)?,
        OpKind::Normalisation => norm(op)?,
        OpKind::Reduction => reduction(op)?,
    };
    let dtype = tensors(op)
        .first()
        .and_then(|i| op.types.get(*i))
        .and_then(|t| dtype_id(t));
    (flops.is_finite() && flops >= 0.0 && bytes.is_finite() && bytes >= 0.0).then_some(OpCost {
        kind,
        flops,
        bytes,
        dtype,
    })
}

/// FLOPs and bytes moved of one op ([`cost`]).
pub fn flops_bytes(op: &OpShape) -> Option<(f64, f64)> {
    cost(op).map(|c| (c.flops, c.bytes))
}

/// Pointwise: FLOPs = output elements × [`pointwise_flops`]; the output has the
/// broadcast shape of the tensor inputs (an in-place op's is its `self`'s) and the
/// first tensor's element size (type promotion is not modelled; `to` /
/// `_to_copy` are counted as writing their input's element size). `copy_` reads
/// its source and writes `self`; `fill_` only writes `self`; the others read every
/// tensor input.
fn pointwise(op: &OpShape) -> Option<(f64, f64)> {
    let per = pointwise_flops(&op.name)?;
    let ts = tensors(op);
    let first = *ts.first()?;
    let out_shape = broadcast(ts.iter().filter_map(|i| op.dims.get(*i)))?;
    let out = numel(&out_shape);
    let write = out * elt(op, first);
    let read: f64 = match base(&op.name) {
        "copy_" => ts.get(1).map_or(0.0, |i| tensor_bytes(op, *i)),
        "fill_" => 0.0,
        _ => ts.iter().map(|i| tensor_bytes(op, *i)).sum(),
    };
    Some((out * per, read + write))
}

/// Normalisations and softmax: FLOPs = elements × [`norm_flops`]; bytes = every
/// tensor input (the data, weight, bias, running stats) read once + an output
/// the size of the data written once (the saved mean / rstd are not counted).
fn norm(op: &OpShape) -> Option<(f64, f64)> {
    let per = norm_flops(&op.name)?;
    let first = *tensors(op).first()?;
    let n = numel(op.dims.get(first)?);
    let read: f64 = tensors(op).iter().map(|i| tensor_bytes(op, *i)).sum();
    Some((n * per, read + n * elt(op, first)))
}

/// Reductions: one FLOP per input element; bytes = the input read + the output
/// written. The reduced dims are `Concrete Inputs[1]` (`[1]`, `-1`); absent, an
/// empty list or out of range, the op is taken as a full reduction (one output
/// element). `max` over one dim also writes int64 indices.
fn reduction(op: &OpShape) -> Option<(f64, f64)> {
    let ts = tensors(op);
    let first = *ts.first()?;
    let shape = op.dims.get(first)?;
    let n = numel(shape);
    let rank = shape.len() as i64;
    let dims: Option<Vec<usize>> = concrete_ints(op, 1)
        .filter(|d| !d.is_empty())
        .and_then(|d| {
            d.iter()
                .map(|x| {
                    let i = if *x < 0 { x + rank } else { *x };
                    (0..rank).contains(&i).then_some(i as usize)
                })
                .collect()
        });
    let out = match &dims {
        Some(d) => shape
            .iter()
            .enumerate()
            .filter(|(i, _)| !d.contains(i))
            .map(|(_, x)| (*x).max(0) as f64)
            .product(),
        None => 1.0,
    };
    let indices = if base(&op.name) == "max" && dims.is_some() {
        8.0
    } else {
        0.0
    };
    Some((
        n,
        tensor_bytes(op, first) + out * (elt(op, first) + indices),
    ))
}

/// Where the conv ops keep stride, padding, dilation, transposed and groups in
/// their arguments (`native_functions.yaml`): conv1d/2d/3d `(input, weight, bias,
/// stride, padding, dilation, groups)`; `convolution` `(input, weight, bias,
/// stride, padding, dilation, transposed, output_padding, groups)`;
/// `_convolution` the same with more flags after; `cudnn_convolution` `(self,
/// weight, padding, stride, dilation, groups, …)` (no bias, padding first; before
/// PyTorch 1.8 it had a bias third, recognised by a non-list there).
struct ConvArgs {
    /// The bias tensor's index, if the op has one.
    bias: Option<usize>,
    stride: usize,
    padding: usize,
    dilation: usize,
    groups: usize,
    transposed: Option<usize>,
    output_padding: Option<usize>,
}

fn conv_args(op: &OpShape) -> ConvArgs {
    match base(&op.name) {
        "convolution" | "_convolution" => ConvArgs {
            bias: Some(2),
            stride: 3,
            padding: 4,
            dilation: 5,
            transposed: Some(6),
            output_padding: Some(7),
            groups: 8,
        },
        "cudnn_convolution" => {
            let s = usize::from(concrete_ints(op, 2).is_none() && op.concrete.len() > 2);
            ConvArgs {
                bias: (s == 1).then_some(2),
                padding: 2 + s,
                stride: 3 + s,
                dilation: 4 + s,
                groups: 5 + s,
                transposed: None,
                output_padding: None,
            }
        }
        _ => ConvArgs {
            bias: Some(2),
            stride: 3,
            padding: 4,
            dilation: 5,
            groups: 6,
            transposed: None,
            output_padding: None,
        },
    }
}

/// Convolutions: FLOPs = 2 · N · C_out · output positions · (C_in / groups) ·
/// kernel volume (a transposed convolution: 2 · N · C_in · input positions ·
/// C_out/groups · kernel volume, its weight being `[C_in, C_out/groups, k…]`);
/// bytes = input, weight and bias read + output written. Stride, padding,
/// dilation and groups come from `Concrete Inputs` (a single value applies to
/// every spatial dim; `"same"` padding keeps the size). **Without them** (older
/// traces, or no concrete inputs recorded) the output's spatial size is taken to
/// be the input's (stride 1, "same" padding) and groups to be C_in / the weight's
/// second dim: the FLOPs are then exact for such convolutions and an
/// overestimate, by about stride², for strided ones.
fn conv(op: &OpShape) -> Option<(f64, f64)> {
    let x = op.dims.first()?;
    let w = op.dims.get(1)?;
    if w.len() < 3 || x.len() + 1 < w.len() || x.len() > w.len() {
        return None;
    }
    let sp = w.len() - 2;
    // unbatched input: [C, spatial…]
    let (n, cin, xs) = if x.len() == w.len() {
        (*x.first()? as f64, *x.get(1)?, x.get(2..)?)
    } else {
        (1.0, *x.first()?, x.get(1..)?)
    };
    let ks = w.get(2..)?;
    let a = conv_args(op);
    let per_dim = |i: usize, default: i64| -> Option<Vec<i64>> {
        match concrete_ints(op, i) {
            Some(v) if v.len() == sp => Some(v),
            Some(v) if v.len() == 1 => v.first().map(|x| vec![*x; sp]),
            _ => (op.concrete.get(i).is_none()).then(|| vec![default; sp]),
        }
    };
    let known = op.concrete.len() > a.groups;
    let transposed = a
        .transposed
        .and_then(|i| concrete_bool(op, i))
        .unwrap_or(false);
    let groups = if known {
        concrete_ints(op, a.groups)
            .and_then(|g| g.first().copied())
            .filter(|g| *g >= 1)? as f64
    } else if transposed {
        1.0
    } else {
        // C_in / (C_in per group)
        (cin as f64 / (*w.get(1)?).max(1) as f64).max(1.0)
    };
    let kvol = numel(ks);
    let (w0, w1) = (*w.first()? as f64, *w.get(1)? as f64);
    let out_spatial: Vec<f64> = if known {
        let stride = per_dim(a.stride, 1)?;
        let dilation = per_dim(a.dilation, 1)?;
        let same = op
            .concrete
            .get(a.padding)
            .is_some_and(|p| p.contains("same"));
        let padding = if same
            || op
                .concrete
                .get(a.padding)
                .is_some_and(|p| p.contains("valid"))
        {
            vec![0; sp]
        } else {
            per_dim(a.padding, 0)?
        };
        let out_pad = a
            .output_padding
            .and_then(|i| per_dim(i, 0))
            .unwrap_or_else(|| vec![0; sp]);
        (0..sp)
            .map(|i| {
                // in f64: a trace's numbers cannot overflow anything
                let g = |v: &Vec<i64>| v.get(i).copied().unwrap_or(0) as f64;
                let (inp, k) = (
                    xs.get(i).copied().unwrap_or(0) as f64,
                    ks.get(i).copied().unwrap_or(1) as f64,
                );
                let o = if same {
                    inp
                } else if transposed {
                    (inp - 1.0) * g(&stride) - 2.0 * g(&padding)
                        + g(&dilation) * (k - 1.0)
                        + g(&out_pad)
                        + 1.0
                } else {
                    let s = g(&stride).max(1.0);
                    ((inp + 2.0 * g(&padding) - g(&dilation) * (k - 1.0) - 1.0) / s).floor() + 1.0
                };
                o.max(0.0)
            })
            .collect()
    } else {
        xs.iter().map(|v| (*v).max(0) as f64).collect()
    };
    let out_pos: f64 = out_spatial.iter().product();
    let in_pos = numel(xs);
    let (cout, flops) = if transposed {
        let cout = w1 * groups;
        (cout, 2.0 * n * cin as f64 * in_pos * w1 * kvol)
    } else {
        (w0, 2.0 * n * w0 * out_pos * w1 * kvol)
    };
    let bias = a.bias.map_or(0.0, |i| tensor_bytes(op, i));
    let bytes = tensor_bytes(op, 0) + tensor_bytes(op, 1) + bias + n * cout * out_pos * elt(op, 0);
    Some((flops, bytes))
}

/// Scaled-dot-product attention on q `[B, H, Lq, D]`, k `[B, Hk, Lk, D]`, v `[B,
/// Hk, Lk, Dv]` (any leading dims multiply as B·H): FLOPs = 2·B·H·Lq·Lk·D for
/// QKᵀ + 2·B·H·Lq·Lk·Dv for the product with V (= 4·B·H·Lq·Lk·D when Dv = D),
/// halved when `is_causal` is `True` in `Concrete Inputs` (the masked half is
/// skipped, the convention FlashAttention's benchmarks use; the softmax's few
/// FLOPs per score are not counted); bytes = q, k, v read + the output `[B, H,
/// Lq, Dv]` written (a mask, if any, is not counted).
fn attention(op: &OpShape) -> Option<(f64, f64)> {
    let q = op.dims.first()?;
    let k = op.dims.get(1)?;
    let v = op.dims.get(2)?;
    if q.len() < 3 || k.len() != q.len() || v.len() != q.len() {
        return None;
    }
    let (lq, d) = (*q.get(q.len() - 2)? as f64, *q.last()? as f64);
    let (lk, dk) = (*k.get(k.len() - 2)? as f64, *k.last()? as f64);
    let dv = *v.last()? as f64;
    if dk != d || *v.get(v.len() - 2)? as f64 != lk {
        return None;
    }
    let bh = numel(q.get(..q.len() - 2)?);
    let causal_at = match base(&op.name) {
        "scaled_dot_product_attention" => 5,
        "_scaled_dot_product_flash_attention" => 4,
        _ => 6,
    };
    let causal = if concrete_bool(op, causal_at) == Some(true) {
        0.5
    } else {
        1.0
    };
    let flops = 2.0 * bh * lq * lk * (d + dv) * causal;
    let bytes =
        tensor_bytes(op, 0) + tensor_bytes(op, 1) + tensor_bytes(op, 2) + bh * lq * dv * elt(op, 0);
    Some((flops, bytes))
}

/// The matmul family: FLOPs = 2 · rows · k · n (a batch only on the right-hand
/// side multiplies too); bytes = every input read once + the output written once.
fn matmul(op: &OpShape) -> Option<(f64, f64)> {
    let d = &op.dims;
    let (a, b) = match op.name.as_str() {
        "aten::mm" | "aten::matmul" | "aten::bmm" => (d.first()?, d.get(1)?),
        "aten::addmm" | "aten::baddbmm" => (d.get(1)?, d.get(2)?),
        "aten::linear" => (d.first()?, d.get(1)?),
        _ => return None,
    };
    if a.is_empty() || b.is_empty() {
        return None;
    }
    let k = *a.last()? as f64;
    let (n, out_rows) = if op.name == "aten::linear" {
        // weight is [n, k]
        if b.len() != 2 || b.get(1).copied()? as f64 != k {
            return None;
        }
        (b.first().copied()? as f64, numel(a.get(..a.len() - 1)?))
    } else {
        if b.len() < 2 && op.name != "aten::matmul" {
            return None;
        }
        let n = if b.len() >= 2 { *b.last()? as f64 } else { 1.0 };
        let kb = if b.len() >= 2 {
            *b.get(b.len() - 2)? as f64
        } else {
            *b.first()? as f64
        };
        if kb != k {
            return None;
        }
        // leading dims of a (batch × rows); a batch only on b multiplies too
        let rows = numel(a.get(..a.len() - 1)?);
        let b_batch = if b.len() > 2 {
            numel(b.get(..b.len() - 2)?)
        } else {
            1.0
        };
        let a_batch = if a.len() > 2 {
            numel(a.get(..a.len() - 2)?)
        } else {
            1.0
        };
        let extra = if b_batch > a_batch {
            b_batch / a_batch.max(1.0)
        } else {
            1.0
        };
        (n, rows * extra)
    };
    let flops = 2.0 * out_rows * k * n;
    let elt = op
        .types
        .iter()
        .map(|t| dtype_bytes(t))
        .find(|_| true)
        .unwrap_or(4.0);
    let inputs: f64 = d
        .iter()
        .zip(
            op.types
                .iter()
                .map(|t| dtype_bytes(t))
                .chain(std::iter::repeat(elt)),
        )
        .map(|(x, s)| numel(x) * s)
        .sum();
    let bytes = inputs + out_rows * n * elt;
    (flops.is_finite() && flops >= 0.0).then_some((flops, bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(name: &str, dims: Vec<Vec<i64>>, ty: &str) -> OpShape {
        let types = dims.iter().map(|_| ty.to_string()).collect();
        OpShape {
            name: name.into(),
            dims,
            types,
            concrete: Vec::new(),
        }
    }

    /// An op with each input's dims, type and concrete value.
    fn full(name: &str, args: &[(Vec<i64>, &str, &str)]) -> OpShape {
        OpShape {
            name: name.into(),
            dims: args.iter().map(|a| a.0.clone()).collect(),
            types: args.iter().map(|a| a.1.to_string()).collect(),
            concrete: args.iter().map(|a| a.2.to_string()).collect(),
        }
    }

    fn fb(o: &OpShape) -> (f64, f64) {
        flops_bytes(o).unwrap_or_else(|| panic!("{o:?}"))
    }

    const NONE: (Vec<i64>, &str, &str) = (Vec::new(), "", "");

    #[test]
    fn convolutions() {
        let t = |d: &[i64]| (d.to_vec(), "float", "");
        let c = |v: &'static str| (Vec::<i64>::new(), "ScalarList", v);
        // conv2d, stride 2, padding 1: 32 → (32 + 2 − 2 − 1) / 2 + 1 = 16
        let o = full(
            "aten::conv2d",
            &[
                t(&[8, 3, 32, 32]),
                t(&[16, 3, 3, 3]),
                t(&[16]),
                c("[2, 2]"),
                c("[1, 1]"),
                c("[1, 1]"),
                (vec![], "Scalar", "1"),
            ],
        );
        let (f, b) = fb(&o);
        assert_eq!(f, 2.0 * 8.0 * 16.0 * 256.0 * 3.0 * 9.0);
        assert_eq!(
            b,
            4.0 * (8.0 * 3.0 * 1024.0 + 16.0 * 27.0 + 16.0 + 8.0 * 16.0 * 256.0)
        );
        assert_eq!(
            cost(&o).map(|c| (c.kind, c.dtype)),
            Some((OpKind::Conv, Some("fp32")))
        );
        // the same without Concrete Inputs: output spatial = input spatial
        let bare = op(
            "aten::conv2d",
            vec![vec![8, 3, 32, 32], vec![16, 3, 3, 3], vec![16]],
            "float",
        );
        assert_eq!(fb(&bare).0, 2.0 * 8.0 * 16.0 * 1024.0 * 3.0 * 9.0);
        // depthwise through aten::convolution: groups 32, 10 → 8
        let o = full(
            "aten::convolution",
            &[
                t(&[1, 32, 10, 10]),
                t(&[32, 1, 3, 3]),
                NONE,
                c("[1, 1]"),
                c("[0, 0]"),
                c("[1, 1]"),
                (vec![], "Scalar", "False"),
                c("[0, 0]"),
                (vec![], "Scalar", "32"),
            ],
        );
        assert_eq!(fb(&o).0, 2.0 * 32.0 * 64.0 * 1.0 * 9.0);
        // without concrete inputs groups = C_in / the weight's second dim
        let bare = op(
            "aten::_convolution",
            vec![vec![1, 32, 10, 10], vec![32, 1, 3, 3]],
            "float",
        );
        assert_eq!(fb(&bare).0, 2.0 * 32.0 * 100.0 * 9.0);
        // cudnn_convolution (self, weight, padding, stride, dilation, groups, …): no bias
        let h = |d: &[i64]| (d.to_vec(), "c10::Half", "");
        let o = full(
            "aten::cudnn_convolution",
            &[
                h(&[2, 4, 5, 5]),
                h(&[6, 4, 3, 3]),
                c("[1, 1]"),
                c("[1, 1]"),
                c("[1, 1]"),
                (vec![], "Scalar", "1"),
                (vec![], "Scalar", "False"),
                (vec![], "Scalar", "False"),
                (vec![], "Scalar", "True"),
            ],
        );
        assert_eq!(
            fb(&o),
            (
                2.0 * 2.0 * 6.0 * 25.0 * 4.0 * 9.0,
                2.0 * (200.0 + 216.0 + 300.0)
            )
        );
        assert_eq!(cost(&o).and_then(|c| c.dtype), Some("fp16"));
        // conv1d: 100 → 96
        let o = full(
            "aten::conv1d",
            &[
                t(&[4, 8, 100]),
                t(&[16, 8, 5]),
                NONE,
                c("[1]"),
                c("[0]"),
                c("[1]"),
                (vec![], "Scalar", "1"),
            ],
        );
        assert_eq!(fb(&o).0, 2.0 * 4.0 * 16.0 * 96.0 * 8.0 * 5.0);
        // "same" padding keeps the size; one value stands for every dim
        let o = full(
            "aten::conv2d",
            &[
                t(&[1, 2, 7, 7]),
                t(&[4, 2, 3, 3]),
                NONE,
                c("1"),
                (vec![], "String", "same"),
                c("1"),
                (vec![], "Scalar", "1"),
            ],
        );
        assert_eq!(fb(&o).0, 2.0 * 4.0 * 49.0 * 2.0 * 9.0);
        // transposed, stride 2: 5 → (5 − 1)·2 + (3 − 1) + 1 = 11
        let o = full(
            "aten::convolution",
            &[
                t(&[1, 4, 5, 5]),
                t(&[4, 2, 3, 3]),
                NONE,
                c("[2, 2]"),
                c("[0, 0]"),
                c("[1, 1]"),
                (vec![], "Scalar", "True"),
                c("[0, 0]"),
                (vec![], "Scalar", "1"),
            ],
        );
        assert_eq!(
            fb(&o),
            (
                2.0 * 4.0 * 25.0 * 2.0 * 9.0,
                4.0 * (100.0 + 72.0 + 2.0 * 121.0)
            )
        );
        // shapes that do not fit
        assert_eq!(
            flops_bytes(&op(
                "aten::conv2d",
                vec![vec![8, 3], vec![16, 3, 3, 3]],
                "float"
            )),
            None
        );
        assert_eq!(
            flops_bytes(&op("aten::conv2d", vec![vec![8, 3, 32, 32]], "float")),
            None
        );
    }

    #[test]
    fn pointwise_ops() {
        let s = (Vec::<i64>::new(), "Scalar", "1");
        // a broadcast add: [64, 128] + [128] → 8192 elements, 1 FLOP each
        let o = full(
            "aten::add",
            &[
                (vec![64, 128], "float", ""),
                (vec![128], "float", ""),
                s.clone(),
            ],
        );
        assert_eq!(fb(&o), (8192.0, 4.0 * (8192.0 + 128.0) + 4.0 * 8192.0));
        assert_eq!(cost(&o).map(|c| c.kind), Some(OpKind::Pointwise));
        // in place, with a scalar: self read and written
        let o = full(
            "aten::mul_",
            &[(vec![10, 10], "c10::BFloat16", ""), s.clone()],
        );
        assert_eq!(fb(&o), (100.0, 400.0));
        assert_eq!(cost(&o).and_then(|c| c.dtype), Some("bf16"));
        for (name, per) in [
            ("aten::gelu", 8.0),
            ("aten::silu_", 5.0),
            ("aten::sigmoid", 4.0),
            ("aten::tanh", 4.0),
            ("aten::relu", 1.0),
            ("aten::sub", 1.0),
            ("aten::div_", 1.0),
        ] {
            let o = full(name, &[(vec![4, 256], "float", ""), (vec![], "", "")]);
            assert_eq!(fb(&o), (1024.0 * per, 4.0 * 1024.0 * 2.0), "{name}");
        }
        // copy_ reads its source and writes self; fill_ only writes
        let o = full(
            "aten::copy_",
            &[
                (vec![100], "c10::BFloat16", ""),
                (vec![100], "float", ""),
                (vec![], "Scalar", "False"),
            ],
        );
        assert_eq!(fb(&o), (0.0, 200.0 + 400.0));
        let o = full("aten::fill_", &[(vec![50], "float", ""), s.clone()]);
        assert_eq!(fb(&o), (0.0, 200.0));
        let o = full(
            "aten::_to_copy",
            &[(vec![100], "float", ""), (vec![], "Scalar", "15")],
        );
        assert_eq!(fb(&o), (0.0, 800.0));
        // shapes that do not broadcast, an unknown op, no tensor at all
        assert_eq!(
            flops_bytes(&op("aten::add", vec![vec![3], vec![4]], "float")),
            None
        );
        assert_eq!(
            flops_bytes(&op("aten::where", vec![vec![3], vec![3]], "float")),
            None
        );
        assert_eq!(flops_bytes(&full("aten::add", &[s.clone(), s])), None);
        // a trace without types: inputs with dims are the tensors
        let o = OpShape {
            name: "aten::add".into(),
            dims: vec![vec![2, 3], vec![2, 3]],
            types: vec![],
            concrete: vec![],
        };
        assert_eq!(fb(&o), (6.0, 4.0 * 18.0));
    }

    #[test]
    fn norms_and_softmax() {
        let b = |d: &[i64]| (d.to_vec(), "c10::BFloat16", "");
        let o = full(
            "aten::native_layer_norm",
            &[
                b(&[8, 512]),
                (vec![], "ScalarList", "[512]"),
                b(&[512]),
                b(&[512]),
                (vec![], "Scalar", "1e-05"),
            ],
        );
        assert_eq!(
            fb(&o),
            (4096.0 * 8.0, 2.0 * (4096.0 + 1024.0) + 2.0 * 4096.0)
        );
        assert_eq!(cost(&o).map(|c| c.kind), Some(OpKind::Normalisation));
        let o = full(
            "aten::_softmax",
            &[
                (vec![4, 10, 10], "float", ""),
                (vec![], "Scalar", "-1"),
                (vec![], "Scalar", "False"),
            ],
        );
        assert_eq!(fb(&o), (2000.0, 3200.0));
        let o = full(
            "aten::rms_norm",
            &[b(&[2, 64]), (vec![], "ScalarList", "[64]"), b(&[64]), NONE],
        );
        assert_eq!(fb(&o), (128.0 * 4.0, 2.0 * (128.0 + 64.0) + 2.0 * 128.0));
        // batch norm: data, weight, bias, running mean and var read
        let f = |d: &[i64]| (d.to_vec(), "float", "");
        let o = full(
            "aten::native_batch_norm",
            &[
                f(&[2, 3, 4, 4]),
                f(&[3]),
                f(&[3]),
                f(&[3]),
                f(&[3]),
                (vec![], "Scalar", "True"),
            ],
        );
        assert_eq!(fb(&o), (96.0 * 8.0, 4.0 * (96.0 + 12.0) + 4.0 * 96.0));
    }

    #[test]
    fn reductions() {
        let f = (vec![4, 6], "float", "");
        let o = full(
            "aten::sum",
            &[
                f.clone(),
                (vec![], "ScalarList", "[1]"),
                (vec![], "Scalar", "False"),
                NONE,
            ],
        );
        assert_eq!(fb(&o), (24.0, 96.0 + 16.0));
        assert_eq!(cost(&o).map(|c| c.kind), Some(OpKind::Reduction));
        // no concrete inputs: a full reduction (one element out)
        assert_eq!(
            fb(&op("aten::mean", vec![vec![4, 6]], "float")),
            (24.0, 100.0)
        );
        // max over dim 0 also writes int64 indices
        let o = full(
            "aten::max",
            &[
                f.clone(),
                (vec![], "Scalar", "0"),
                (vec![], "Scalar", "False"),
            ],
        );
        assert_eq!(fb(&o), (24.0, 96.0 + 6.0 * 12.0));
        // amax over [] is over every dim; a negative dim counts from the end
        let o = full(
            "aten::amax",
            &[
                f.clone(),
                (vec![], "ScalarList", "[]"),
                (vec![], "Scalar", "False"),
            ],
        );
        assert_eq!(fb(&o), (24.0, 100.0));
        let o = full(
            "aten::amax",
            &[
                f,
                (vec![], "ScalarList", "[-1]"),
                (vec![], "Scalar", "True"),
            ],
        );
        assert_eq!(fb(&o), (24.0, 96.0 + 16.0));
    }

    #[test]
    fn attention() {
        let q = (vec![2, 8, 128, 64], "c10::BFloat16", "");
        let sdpa = full(
            "aten::scaled_dot_product_attention",
            &[
                q.clone(),
                q.clone(),
                q.clone(),
                NONE,
                (vec![], "Scalar", "0."),
                (vec![], "Scalar", "False"),
            ],
        );
        let qkv = 2.0 * 8.0 * 128.0 * 64.0;
        // 4·B·H·Lq·Lk·D; q, k, v read and the output written, 2 bytes each
        assert_eq!(
            fb(&sdpa),
            (4.0 * 2.0 * 8.0 * 128.0 * 128.0 * 64.0, 2.0 * 4.0 * qkv)
        );
        assert_eq!(
            cost(&sdpa).map(|c| (c.kind, c.dtype)),
            Some((OpKind::Attention, Some("bf16")))
        );
        // causal (the flash backend's is_causal is its fifth argument): half the FLOPs
        let flash = full(
            "aten::_scaled_dot_product_flash_attention",
            &[
                q.clone(),
                q.clone(),
                q.clone(),
                (vec![], "Scalar", "0."),
                (vec![], "Scalar", "True"),
            ],
        );
        assert_eq!(fb(&flash).0, 2.0 * 2.0 * 8.0 * 128.0 * 128.0 * 64.0);
        // grouped-query: 2 key/value heads, 256 keys; FLOPs follow q's heads
        let kv = (vec![2, 2, 256, 64], "c10::BFloat16", "");
        let gqa = full(
            "aten::_scaled_dot_product_efficient_attention",
            &[q.clone(), kv.clone(), kv],
        );
        let kvn = 2.0 * 2.0 * 256.0 * 64.0;
        assert_eq!(
            fb(&gqa),
            (
                4.0 * 2.0 * 8.0 * 128.0 * 256.0 * 64.0,
                2.0 * (qkv + 2.0 * kvn + qkv)
            )
        );
        // k and q disagree on D
        let bad = full(
            "aten::_scaled_dot_product_cudnn_attention",
            &[q.clone(), (vec![2, 8, 128, 32], "float", ""), q],
        );
        assert_eq!(flops_bytes(&bad), None);
    }

    #[test]
    fn kinds_and_dtypes() {
        assert_eq!(op_kind("aten::linear"), Some(OpKind::Matmul));
        assert_eq!(op_kind("aten::add_"), Some(OpKind::Pointwise));
        assert_eq!(op_kind("aten::layer_norm"), Some(OpKind::Normalisation));
        assert_eq!(op_kind("add"), None);
        assert_eq!(op_kind("aten::embedding"), None);
        assert!(OpKind::Conv.is_compute() && !OpKind::Reduction.is_compute());
        for (t, id) in [
            ("float", Some("fp32")),
            ("c10::BFloat16", Some("bf16")),
            ("c10::Half", Some("fp16")),
            ("c10::Float8_e4m3fn", Some("fp8")),
            ("double", Some("fp64")),
            ("long int", Some("int64")),
            ("Scalar", None),
            ("", None),
        ] {
            assert_eq!(dtype_id(t), id, "{t}");
        }
    }

    #[test]
    fn matmul_flops() {
        let (f, b) =
            flops_bytes(&op("aten::mm", vec![vec![64, 128], vec![128, 32]], "float")).unwrap();
        assert_eq!(f, 2.0 * 64.0 * 128.0 * 32.0);
        assert_eq!(b, 4.0 * (64.0 * 128.0 + 128.0 * 32.0 + 64.0 * 32.0));
        let (f, _) = flops_bytes(&op(
            "aten::addmm",
            vec![vec![32], vec![64, 128], vec![128, 32], vec![], vec![]],
            "c10::BFloat16",
        ))
        .unwrap();
        assert_eq!(f, 2.0 * 64.0 * 128.0 * 32.0);
        let (f, _) = flops_bytes(&op(
            "aten::bmm",
            vec![vec![8, 64, 128], vec![8, 128, 32]],
            "c10::Half",
        ))
        .unwrap();
        assert_eq!(f, 2.0 * 8.0 * 64.0 * 128.0 * 32.0);
        let (f, _) = flops_bytes(&op(
            "aten::linear",
            vec![vec![4, 16, 128], vec![32, 128], vec![32]],
            "float",
        ))
        .unwrap();
        assert_eq!(f, 2.0 * 64.0 * 128.0 * 32.0);
        let (f, _) = flops_bytes(&op(
            "aten::matmul",
            vec![vec![4, 16, 128], vec![128, 32]],
            "float",
        ))
        .unwrap();
        assert_eq!(f, 2.0 * 64.0 * 128.0 * 32.0);
        assert_eq!(
            flops_bytes(&op("aten::mm", vec![vec![64, 128], vec![64, 32]], "float")),
            None
        );
        assert_eq!(flops_bytes(&op("aten::mm", vec![], "float")), None);
        assert_eq!(
            flops_bytes(&op("aten::embedding", vec![vec![4], vec![4]], "float")),
            None
        );
        assert_eq!(dtype_bytes("c10::Half"), 2.0);
        assert_eq!(dtype_bytes("c10::Float8_e4m3fn"), 1.0);
    }
}
