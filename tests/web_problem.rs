//! Browser half of the native/wasm determinism check (issue 3): generators, losses, projections,
//! tail moments and a reference solve give the same bits in the browser as natively, i.e. the
//! checksums of tests/golden equal tests/data/problem_golden.txt, which the native test
//! problem_golden.rs checks too.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

mod golden;

#[wasm_bindgen_test]
fn same_bits_as_native() {
    let bad = golden::mismatches(include_str!("data/problem_golden.txt"));
    assert!(bad.is_empty(), "changed: {bad:#?}");
}

#[wasm_bindgen_test]
fn chunked_generation_and_csv_in_the_browser() {
    use dp_playground::data::{
        CsvOptions, Generator, GeneratorSpec, LabelColumn, LabelRange, Tail, Task, generate,
        load_csv,
    };
    use dp_playground::rng::{Stream, seeded};
    let spec = GeneratorSpec {
        n: 5000,
        d: 20,
        features: Tail::ParetoRadial { alpha: 3.0 },
        feature_scale: 1.0,
        signal: 1.0,
        task: Task::Regression {
            noise: Tail::LogNormal { sigma: 1.0 },
            noise_scale: 0.1,
        },
    };
    let one = generate(&spec, seeded(1, Stream::Data)).unwrap();
    let mut g = Generator::new(spec, seeded(1, Stream::Data)).unwrap();
    let (mut x, mut y) = (Vec::new(), Vec::new());
    while g.next_chunk(777, &mut x, &mut y) > 0 {}
    assert_eq!(x.as_slice(), one.matrix_slice());
    assert_eq!(y.as_slice(), one.labels());
    let opts = CsvOptions {
        label: LabelColumn::Last,
        delimiter: None,
        header: None,
        labels: LabelRange::PlusMinusOne,
    };
    let err = load_csv(b"a;b;y\r\n1;2;1\r\n3;x;-1\r\n", &opts).unwrap_err();
    assert_eq!(err.to_string(), "line 3, column 2: 'x' is not a number");
}
