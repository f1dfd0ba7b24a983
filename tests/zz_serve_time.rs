use brrr::state::widgets::serve as st;
use brrr::state::State;
use std::time::Instant;

#[test]
#[ignore]
fn serve_time() {
    for (name, f) in [
        ("isl", st::field::isl),
        ("osl", st::field::osl),
        ("c", st::field::c),
    ] {
        let mut s = State::default();
        let (lo, hi) = (f.min.log10(), f.max.log10());
        let mut times = Vec::new();
        for i in 0..200 {
            let fr = (i as f64 * 0.6180339887498949) % 1.0;
            let v = f.from_slider(lo + fr * (hi - lo));
            (f.set)(&mut s, v);
            let t = Instant::now();
            let v = st::view(&s, true);
            std::hint::black_box(&v);
            times.push(t.elapsed().as_secs_f64() * 1e3);
        }
        times.sort_by(|a, b| a.partial_cmp(b).unwrap());
        println!(
            "{name}: p50 {:.2} p95 {:.2} max {:.2} ms",
            times[100], times[190], times[199]
        );
    }
}
