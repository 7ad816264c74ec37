//! `shepherd yarn-report`: metrics, tables and plots of repeated runs on a
//! real YARN cluster (`shepherd::harness`).

pub fn yarn_report(out: &std::path::Path, baseline: Option<&str>, require_success: bool) -> Result<(), String> {
    let report = shepherd::harness::analyze(out, baseline)?;
    print!("{}", report.text());
    report.write(out)?;
    println!(
        "wrote {0}/summary.json, summary.csv, jct-cdf.svg, wait-cdf.svg, utilization.svg and metrics.json, jobs.csv, fairness.csv in every {0}/<label>/run-<k>/",
        out.display()
    );
    match report.failure_message() {
        Some(m) if require_success => Err(m),
        _ => Ok(()),
    }
}
