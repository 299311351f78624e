//! The log-log slope the rate experiments fit: the library's, which `dp-playground sweep` prints.

pub use dp_playground::session::sweep::loglog_slope as slope;
