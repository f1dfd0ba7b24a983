//! FLOPs and bytes of matmul-like aten ops from their recorded shapes
//! (`record_shapes=True`: `Input Dims`, `Input type`).

use super::parse::OpShape;

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
    } else if t.contains("half") || t.contains("bfloat16") || t == "short" {
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

/// FLOPs (a multiply-add = 2) and bytes moved (inputs read once, output written
/// once) of one op; `None` where the shapes do not fit the op.
pub fn flops_bytes(op: &OpShape) -> Option<(f64, f64)> {
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
            flops_bytes(&op("aten::add", vec![vec![4], vec![4]], "float")),
            None
        );
        assert_eq!(dtype_bytes("c10::Half"), 2.0);
        assert_eq!(dtype_bytes("c10::Float8_e4m3fn"), 1.0);
    }
}
