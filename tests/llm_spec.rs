//! The `llm` widget's speculative decoding at the state the browser test opens
//! (tests/e2e/llm.test.mjs "speculative decoding"): its readouts and the batch
//! where the speedup falls below 1×, stored in tests/e2e/data/llm-spec.json
//! (`BRRR_BLESS=1` writes it), so the page is checked against this model.

use brrr::state::url::decode;
use brrr::state::widgets::llm;

/// The query the browser test opens.
const QUERY: &str = "?hw=h100-sxm&llm_graphs=1&llm_spec=eagle&llm_spec_k=3&llm_spec_accept=60&llm_batch=1&llm_context=512";

#[test]
fn the_browser_tests_speculation_is_the_models() {
    let (s, notices) = decode(QUERY);
    assert!(notices.is_empty(), "{notices:?}");
    let v = llm::view(&s, true);
    let sp = v.spec.expect("speculation on");
    let at = sp.crossing.expect("falls below 1× within the line");
    let want = format!(
        "{{\n  \"query\": \"{QUERY}\",\n  \"llm_spec_tokens_per_step\": {},\n  \"llm_spec_speedup\": {},\n  \"crossing\": {at}\n}}\n",
        sp.step.tokens_per_step, sp.step.speedup
    );
    assert!(
        sp.sentence
            .contains(&format!("falls below 1× at batch {at}")),
        "{}",
        sp.sentence
    );
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/e2e/data/llm-spec.json");
    if std::env::var_os("BRRR_BLESS").is_some() {
        assert!(std::fs::write(path, &want).is_ok(), "{path} is writable");
    }
    let got = std::fs::read_to_string(path).unwrap_or_default();
    assert_eq!(
        got, want,
        "write the model's figures into {path} (BRRR_BLESS=1)"
    );
}
