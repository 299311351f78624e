//! Browser tests of the functions the page calls besides the Session: lenient links, previews of
//! compared algorithms, the algorithm cards, and CSV inspection — as JavaScript sees them.
#![cfg(target_arch = "wasm32")]

use dp_wasm::wasm::{WasmSession, cards, config_from_link, inspect_csv, previews};
use js_sys::{Array, Float64Array, Reflect};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &JsValue::from_str(key)).expect("property access on a plain object")
}

fn text(obj: &JsValue, key: &str) -> String {
    get(obj, key).as_string().unwrap_or_default()
}

#[wasm_bindgen_test]
fn a_damaged_link_keeps_its_good_fields_and_names_the_bad_ones() {
    let out = config_from_link(r#"{"epsilon": 0.3, "repeats": "many", "seed": 5}"#);
    let config: serde_json::Value = serde_json::from_str(&text(&out, "config")).unwrap();
    assert_eq!(config["epsilon"], 0.3);
    assert_eq!(config["seed"], 5);
    assert_eq!(config["repeats"], 1);
    let errors = Array::from(&get(&out, "errors"));
    assert_eq!(errors.length(), 1);
    assert_eq!(text(&errors.get(0), "field"), "repeats");
}

#[wasm_bindgen_test]
fn previews_cover_every_compared_algorithm_and_cards_every_algorithm() {
    let list = Array::from(
        &previews(r#"{"l2": 0.1, "compare": ["output_perturbation", "dp_sgd"]}"#).unwrap(),
    );
    let kinds: Vec<String> = list.iter().map(|p| text(&p, "kind")).collect();
    assert_eq!(kinds, ["noisy_gd", "output_perturbation", "dp_sgd"]);
    let err = previews(r#"{"d": 3, "compare": ["exponential_grid"]}"#).unwrap_err();
    assert_eq!(text(&err, "field"), "compare");
    let cards = Array::from(&cards().unwrap());
    assert_eq!(
        cards.length() as usize,
        dp_playground::config::AlgorithmKind::ALL.len()
    );
    // What the menu and the settings panel are built from is here; the prose is not (the page
    // fetches it as pkg/cards.json: docs/benchmarks.md, "Keeping the wasm small").
    for card in cards.iter() {
        assert!(!text(&card, "name").is_empty());
        let settings = Array::from(&get(&card, "settings"));
        assert!(settings.iter().all(|s| !text(&s, "label").is_empty()));
        assert!(settings.iter().all(|s| get(&s, "help").is_undefined()));
        for prose in [
            "source",
            "assumptions",
            "privacy",
            "utility",
            "watch",
            "summary",
        ] {
            assert!(get(&card, prose).is_undefined(), "{prose}");
        }
    }
}

#[wasm_bindgen_test]
fn a_csv_file_is_inspected_and_runs_and_a_bad_one_names_line_and_column() {
    let good = b"x1,x2,y\n0.5,0.1,1\n-0.2,0.3,-1\n0.1,-0.4,1\n0.3,0.3,-1\n-0.5,0.2,1\n0.2,0.1,-1\n0.4,-0.1,1\n-0.3,-0.3,-1\n0.1,0.4,1\n-0.1,-0.2,-1\n";
    let info = inspect_csv(good, "{}", "last").unwrap();
    assert_eq!(get(&info, "n").as_f64(), Some(10.0));
    assert_eq!(get(&info, "d").as_f64(), Some(2.0));
    let config = r#"{"data": "csv", "n": 10, "d": 2, "steps": 5, "batch": 5}"#;
    let mut s = WasmSession::new(config, Some(good.to_vec()), Some("last".into())).unwrap();
    let norms = get(&s.info().unwrap(), "featureNorms")
        .dyn_into::<Float64Array>()
        .unwrap();
    assert_eq!(norms.length(), 10);
    while !s.is_done() {
        s.advance(100, f64::INFINITY).unwrap();
    }

    let bad = b"x1,x2,y\n0.5,0.1,1\n-0.2,oops,-1\n";
    let err = inspect_csv(bad, "{}", "last").unwrap_err();
    assert_eq!(text(&err, "field"), "csv");
    let message = text(&err, "message");
    assert!(
        message.contains("line 3") && message.contains("column 2"),
        "{message}"
    );
    // Margin losses need ±1 labels: a 0/1 column is read as −1/+1, and says how many 0s were
    // read so; any other label is refused at its line.
    let labels01 = b"1,2,0\n3,4,1\n";
    let info = inspect_csv(labels01, "{}", "last").unwrap();
    assert_eq!(get(&info, "mapped").as_f64(), Some(1.0));
    let labels02 = b"1,2,0\n3,4,2\n";
    let message = text(&inspect_csv(labels02, "{}", "last").unwrap_err(), "message");
    assert!(message.contains("line 2"), "{message}");
    // Running "csv" data without a file is explained, not a panic.
    let err = WasmSession::new(config, None, None).err().unwrap();
    assert_eq!(text(&err, "field"), "data");
}
