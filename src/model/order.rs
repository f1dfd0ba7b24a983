//! Short lists in order, without the standard library's sort: each `sort_by`
//! closure would link its own copy of it into the page's .wasm.

/// Sorts a short list by `key`, largest first, keeping the given order among
/// equal keys (as a stable `sort_by` would). An insertion sort: the lists it
/// sorts hold a handful of items, and each `sort_by` closure would otherwise
/// link its own copy of the standard library's sort into the page's .wasm
/// (~4 KB of code each, counted in the first visit's bytes).
pub fn sort_largest_first<T>(v: &mut [T], key: impl Fn(&T) -> f64) {
    for i in 1..v.len() {
        let mut j = i;
        while j > 0 && key(&v[j - 1]).total_cmp(&key(&v[j])).is_lt() {
            v.swap(j - 1, j);
            j -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn largest_first_and_stable() {
        let mut v = [(1.0, 'a'), (3.0, 'b'), (1.0, 'c'), (2.0, 'd'), (3.0, 'e')];
        super::sort_largest_first(&mut v, |x| x.0);
        let order: String = v.iter().map(|x| x.1).collect();
        assert_eq!(order, "bedac");
        let mut e: [f64; 0] = [];
        super::sort_largest_first(&mut e, |x| *x);
    }
}
