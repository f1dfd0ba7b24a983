#[cfg(target_arch = "wasm32")]
fn main() {
    brrr::ui::start();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    // The app is a web page; natively, print the default state's analysis.
    let s = brrr::state::State::default();
    let r = s.report();
    println!(
        "{} {}: wall {} , {} , regime {}",
        s.setting.hw.name,
        s.setting.dtype.id(),
        brrr::model::units::si(r.wall_time_s, "s"),
        brrr::model::units::si(r.achieved_flops, "FLOP/s"),
        r.regime.label()
    );
}
