//! CSV text, written through the `csv` crate: every CSV file Shepherd writes
//! (the simulator's `jobs.csv`, `utilization.csv`, `fairness.csv`,
//! `factors.csv`, `speedups.csv`; the harness's `jobs.csv`, `fairness.csv`
//! and `summary.csv`) goes through [`CsvText`], so quoting is the crate's
//! (a field with a comma, quote or line break is quoted, quotes doubled).
//! Numbers arrive already formatted: each file keeps its own precision.

/// A CSV document built in memory, header first.
pub struct CsvText {
    writer: csv::Writer<Vec<u8>>,
}

impl CsvText {
    pub fn with_header(header: &[&str]) -> CsvText {
        let mut t = CsvText { writer: csv::WriterBuilder::new().terminator(csv::Terminator::Any(b'\n')).from_writer(Vec::new()) };
        t.row(header);
        t
    }

    /// One record; fields as text.
    pub fn row<I, S>(&mut self, fields: I)
    where
        I: IntoIterator<Item = S>,
        S: AsRef<[u8]>,
    {
        self.writer.write_record(fields).expect("writing CSV to memory cannot fail");
    }

    pub fn finish(self) -> String {
        let bytes = self.writer.into_inner().expect("flushing CSV to memory cannot fail");
        String::from_utf8(bytes).expect("CSV of UTF-8 fields is UTF-8")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quotes_only_what_needs_it() {
        let mut t = CsvText::with_header(&["id", "name"]);
        t.row(["j1", "plain"]);
        t.row(["j2", "a,b"]);
        t.row(["j3", "say \"hi\""]);
        t.row(["j4", ""]);
        assert_eq!(t.finish(), "id,name\nj1,plain\nj2,\"a,b\"\nj3,\"say \"\"hi\"\"\"\nj4,\n");
    }
}
