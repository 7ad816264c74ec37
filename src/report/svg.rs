//! A small SVG line-chart writer (no plotting dependency): enough for a CDF
//! of completion times and a utilization timeline.

use std::fmt::Write;

const W: f64 = 720.0;
const H: f64 = 420.0;
const PAD_L: f64 = 70.0;
const PAD_R: f64 = 160.0;
const PAD_T: f64 = 40.0;
const PAD_B: f64 = 55.0;
const COLORS: &[&str] = &["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#17becf", "#bcbd22"];

pub struct Series {
    pub name: String,
    pub points: Vec<(f64, f64)>,
}

pub struct Chart<'a> {
    pub title: &'a str,
    pub x_label: &'a str,
    pub y_label: &'a str,
    pub log_x: bool,
}

impl Chart<'_> {
    pub fn render(&self, series: &[Series]) -> String {
        let tx = |x: f64| if self.log_x { x.max(1e-9).log10() } else { x };
        let pts = series.iter().flat_map(|s| s.points.iter());
        let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, f64::NEG_INFINITY, 0.0f64, f64::NEG_INFINITY);
        for (x, y) in pts {
            x0 = x0.min(tx(*x));
            x1 = x1.max(tx(*x));
            y0 = y0.min(*y);
            y1 = y1.max(*y);
        }
        if !x0.is_finite() {
            (x0, x1, y1) = (0.0, 1.0, 1.0);
        }
        if x1 <= x0 {
            x1 = x0 + 1.0;
        }
        if y1 <= y0 {
            y1 = y0 + 1.0;
        }
        let (pw, ph) = (W - PAD_L - PAD_R, H - PAD_T - PAD_B);
        let sx = |x: f64| PAD_L + (tx(x) - x0) / (x1 - x0) * pw;
        let sy = |y: f64| PAD_T + ph - (y - y0) / (y1 - y0) * ph;
        let mut s = String::new();
        let _ = writeln!(s, r#"<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">"#);
        let _ = writeln!(s, r#"<rect width="100%" height="100%" fill="white"/>"#);
        let _ = writeln!(s, r#"<text x="{}" y="22" font-size="15" text-anchor="middle">{}</text>"#, PAD_L + pw / 2.0, esc(self.title));
        let _ = writeln!(s, r#"<rect x="{PAD_L}" y="{PAD_T}" width="{pw}" height="{ph}" fill="none" stroke="black"/>"#);
        for i in 0..=4 {
            let f = i as f64 / 4.0;
            let (xv, yv) = (x0 + f * (x1 - x0), y0 + f * (y1 - y0));
            let xl = if self.log_x { 10f64.powf(xv) } else { xv };
            let px = PAD_L + f * pw;
            let py = PAD_T + ph - f * ph;
            let _ = writeln!(
                s,
                r##"<line x1="{px}" y1="{PAD_T}" x2="{px}" y2="{}" stroke="#ddd"/><text x="{px}" y="{}" text-anchor="middle">{}</text>"##,
                PAD_T + ph,
                PAD_T + ph + 16.0,
                num(xl)
            );
            let _ = writeln!(
                s,
                r##"<line x1="{PAD_L}" y1="{py}" x2="{}" y2="{py}" stroke="#ddd"/><text x="{}" y="{}" text-anchor="end">{}</text>"##,
                PAD_L + pw,
                PAD_L - 6.0,
                py + 4.0,
                num(yv)
            );
        }
        let _ = writeln!(s, r#"<text x="{}" y="{}" text-anchor="middle">{}</text>"#, PAD_L + pw / 2.0, H - 12.0, esc(self.x_label));
        let _ = writeln!(
            s,
            r#"<text x="16" y="{}" text-anchor="middle" transform="rotate(-90 16 {})">{}</text>"#,
            PAD_T + ph / 2.0,
            PAD_T + ph / 2.0,
            esc(self.y_label)
        );
        for (i, ser) in series.iter().enumerate() {
            let color = COLORS[i % COLORS.len()];
            let mut d = String::new();
            for (k, (x, y)) in ser.points.iter().enumerate() {
                let _ = write!(d, "{}{:.1},{:.1}", if k == 0 { "M" } else { " L" }, sx(*x), sy(*y));
            }
            let _ = writeln!(s, r#"<path d="{d}" fill="none" stroke="{color}" stroke-width="1.6"/>"#);
            let ly = PAD_T + 14.0 + 18.0 * i as f64;
            let lx = PAD_L + pw + 12.0;
            let _ = writeln!(
                s,
                r#"<line x1="{lx}" y1="{ly}" x2="{}" y2="{ly}" stroke="{color}" stroke-width="3"/><text x="{}" y="{}">{}</text>"#,
                lx + 20.0,
                lx + 26.0,
                ly + 4.0,
                esc(&ser.name)
            );
        }
        s.push_str("</svg>\n");
        s
    }
}

/// Empirical CDF points of `values` (thinned to at most ~500 points).
pub fn cdf(values: &[f64]) -> Vec<(f64, f64)> {
    let mut v = values.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    let step = (n / 500).max(1);
    let mut out: Vec<(f64, f64)> = (0..n).step_by(step).map(|i| (v[i], (i + 1) as f64 / n as f64)).collect();
    if let Some(last) = v.last() {
        out.push((*last, 1.0));
    }
    out
}

fn num(v: f64) -> String {
    if v.abs() >= 1000.0 {
        format!("{:.0}", v)
    } else if v.abs() >= 10.0 {
        format!("{:.1}", v)
    } else {
        format!("{:.2}", v)
    }
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;").replace('<', "&lt;").replace('>', "&gt;")
}
