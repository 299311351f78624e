//! The bounds each algorithm promises, as plain functions of the declared constants, so the page can
//! draw them as dashed curves beside the measured excess risk. Every function names the theorem (or
//! the proof line) it transcribes and any correction the digests or reviews made to it.

pub mod byoa;
pub mod output_perturbation;
