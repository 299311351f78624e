//! The geometry of the page's figures, with no drawing: where a log axis puts its labelled ticks,
//! the outline of a min–max band over repeats, and the filled contours of F over the parameter
//! view. Pure functions on plain numbers, native so they are tested natively; `wasm::plot` draws
//! what they return.

pub mod band;
pub mod contour;
pub mod ticks;

pub use band::{BandPiece, band_pieces};
pub use contour::{BANDS, Fill, contour_fills};
pub use ticks::{log_tick_label, log_ticks};
