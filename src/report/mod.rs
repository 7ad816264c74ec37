//! Presenting results: files of a run (JSON, CSV, SVG plots), the comparison
//! table, and the progress bar of long runs.

pub mod csv;
pub mod files;
pub mod progress;
pub mod svg;
pub mod table;
