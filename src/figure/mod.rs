//! The geometry of the page's figures, with no drawing: where a log axis puts its labelled ticks,
//! the outline of a min–max band over repeats, the filled contours of F over the parameter
//! view, legend entries, and the context line and file name of an exported figure. Pure
//! functions on plain values, native so they are tested natively; `wasm::plot` draws what they
//! return.

pub mod band;
pub mod context;
pub mod contour;
pub mod floor;
pub mod legend;
pub mod ticks;

pub use band::{BandPiece, band_floor, band_pieces, clamp_lower_edge};
pub use contour::{BANDS, Fill, contour_fills};
pub use ticks::{log_tick_label, log_ticks};
