//! Browser half of the native/wasm determinism check: generators, losses, projections,
//! tail moments and a reference solve give the same bits in the browser as natively, i.e. the
//! checksums of tests/golden equal tests/data/problem_golden.txt, which the native test
//! problem_golden.rs checks too.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen_test::*;

wasm_bindgen_test_configure!(run_in_browser);

use crate::golden;

#[wasm_bindgen_test]
fn same_bits_as_native() {
    let bad = golden::mismatches(include_str!("../../../../tests/data/problem_golden.txt"));
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

/// The wasm kernels (explicit simd128 registers, `linalg`'s `simd128` module) give the bits of
/// the portable sums: four `dot`s for `dot4`, and `dot(x, x)` for `dot_square4`'s squares, at
/// lengths with and without a tail of 1–3 elements.
#[wasm_bindgen_test]
fn wasm_kernels_give_the_portable_bits() {
    use dp_playground::linalg::{Kernels, Portable, dot};
    for d in [0, 1, 3, 4, 7, 20, 101] {
        let col = |k: f64| -> Vec<f64> {
            (0..d)
                .map(|i| (f64::from(i as u32) * k).sin() * 1e3_f64.powf(k.cos()))
                .collect()
        };
        let w = col(0.7);
        let xs = [col(0.11), col(2.9), col(0.5), col(-1.7)];
        let four = xs.each_ref().map(|v| v.as_slice());
        let dots = four.map(|x| dot(&w, x).to_bits());
        assert_eq!(Portable.dot4(&w, four).map(f64::to_bits), dots, "d = {d}");
        let (t, sq) = Portable.dot_square4(&w, four);
        assert_eq!(t.map(f64::to_bits), dots, "d = {d}");
        assert_eq!(
            sq.map(f64::to_bits),
            four.map(|x| dot(x, x).to_bits()),
            "d = {d}"
        );
    }
}
