//! Presenting results: files of a run (JSON, CSV, SVG plots), the comparison
//! table, and the progress of long runs (a bar on a terminal, lines in logs).

pub mod csv;
pub mod files;
pub mod progress;
pub mod svg;
pub mod table;
