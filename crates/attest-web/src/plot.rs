//! SVG plots drawn on the server with plotters' SVG backend: a sweep (one point per
//! arm, error bars over seeds) and a run's learning curve.

use attest_runs::compare::Comparison;
use plotters::prelude::*;

const BLUE: RGBColor = RGBColor(31, 95, 174);
const GREEN: RGBColor = RGBColor(27, 122, 61);
const GREY: RGBColor = RGBColor(120, 128, 140);

/// A shortened label for the x axis.
fn short(s: &str, n: usize) -> String {
    if s.chars().count() <= n { s.to_string() } else { format!("{}…", s.chars().take(n - 1).collect::<String>()) }
}

fn padded(lo: f64, hi: f64) -> (f64, f64) {
    let span = (hi - lo).abs();
    let pad = if span > 0.0 { span * 0.12 } else { (hi.abs() * 0.05).max(1e-3) };
    (lo - pad, hi + pad)
}

/// The sweep: the metric per arm (mean over seeds), ±1 sd bars where seeds exist,
/// each seed a small dot, the winner in green when `earned`.
pub fn sweep(c: &Comparison, earned: bool) -> String {
    let arms: Vec<_> = c.arms.iter().filter(|a| a.value.is_some()).collect();
    if arms.is_empty() {
        return String::from("<p class=\"muted\">No arm reports this metric, so there is nothing to draw.</p>");
    }
    let n = arms.len();
    let mut lo = f64::INFINITY;
    let mut hi = f64::NEG_INFINITY;
    for a in &arms {
        let v = a.value.unwrap_or(0.0);
        let sd = a.sd.unwrap_or(0.0);
        lo = lo.min(v - sd);
        hi = hi.max(v + sd);
        for s in &a.seeds {
            if let Some(x) = s.value {
                lo = lo.min(x);
                hi = hi.max(x);
            }
        }
    }
    let (lo, hi) = padded(lo, hi);
    // Many arms: narrower slots and labels written downwards.
    let rotate = n > 10;
    let width = if rotate { (160 + 20 * n as u32).clamp(640, 1400) } else { (160 + 70 * n as u32).clamp(640, 1100) };
    let height = if rotate { 460 } else { 380 };
    let label_len = if rotate { 22 } else { 18 };
    let labels: Vec<String> = arms.iter().map(|a| short(a.label.as_deref().unwrap_or(&a.name), label_len)).collect();
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (width, height)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let Ok(mut chart) = ChartBuilder::on(&root)
            .margin(18)
            .x_label_area_size(if rotate { 90 } else { 40 })
            .y_label_area_size(70)
            .build_cartesian_2d((0..n - 1).into_segmented(), lo..hi)
        else {
            return String::new();
        };
        let direction = c.direction.to_string().replace('_', " ");
        let _ = chart
            .configure_mesh()
            .disable_x_mesh()
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(226, 230, 236))
            .y_desc(format!("{} ({direction})", c.metric))
            .x_labels(n)
            .x_label_style({
                let style = ("sans-serif", 13).into_font().color(&BLACK);
                if rotate { style.transform(FontTransform::Rotate90) } else { style }
            })
            .y_label_style(("sans-serif", 13).into_font().color(&BLACK))
            .axis_desc_style(("sans-serif", 14).into_font())
            .x_label_formatter(&|x| match x {
                SegmentValue::CenterOf(i) => labels.get(*i).cloned().unwrap_or_default(),
                _ => String::new(),
            })
            .y_label_formatter(&|y| crate::layout::num(*y))
            .draw();
        for (i, a) in arms.iter().enumerate() {
            let v = a.value.unwrap_or(0.0);
            let won = earned && c.winner.as_deref() == Some(a.name.as_str());
            let color = if won { GREEN } else { BLUE };
            let x = SegmentValue::CenterOf(i);
            if let Some(sd) = a.sd.filter(|_| a.n_seeds > 1) {
                let _ = chart.draw_series(std::iter::once(ErrorBar::new_vertical(
                    x.clone(),
                    v - sd,
                    v,
                    v + sd,
                    color.stroke_width(2),
                    14,
                )));
            }
            let _ = chart.draw_series(
                a.seeds
                    .iter()
                    .filter(|_| a.seeds.len() > 1)
                    .filter_map(|s| s.value)
                    .map(|y| Circle::new((x.clone(), y), 3, GREY.filled())),
            );
            let _ = chart.draw_series(std::iter::once(Circle::new((x.clone(), v), 6, color.filled())));
        }
        let _ = root.present();
    }
    titled(out, &format!("{} per arm of {}", c.metric, c.family))
}

/// A metric over steps.
pub fn curve(name: &str, points: &[(i64, f64)]) -> String {
    let mut pts = points.to_vec();
    pts.sort_by_key(|p| p.0);
    let (x0, x1) = (pts.first().map_or(0, |p| p.0), pts.last().map_or(1, |p| p.0));
    let x1 = if x1 == x0 { x0 + 1 } else { x1 };
    let lo = pts.iter().map(|p| p.1).fold(f64::INFINITY, f64::min);
    let hi = pts.iter().map(|p| p.1).fold(f64::NEG_INFINITY, f64::max);
    let (lo, hi) = padded(lo, hi);
    let mut out = String::new();
    {
        let root = SVGBackend::with_string(&mut out, (560, 280)).into_drawing_area();
        let _ = root.fill(&WHITE);
        let Ok(mut chart) = ChartBuilder::on(&root)
            .margin(16)
            .caption(name, ("sans-serif", 19))
            .x_label_area_size(40)
            .y_label_area_size(80)
            .build_cartesian_2d(x0..x1, lo..hi)
        else {
            return String::new();
        };
        let _ = chart
            .configure_mesh()
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(226, 230, 236))
            .x_desc("step")
            .x_label_style(("sans-serif", 15))
            .y_label_style(("sans-serif", 15))
            .axis_desc_style(("sans-serif", 15))
            .y_label_formatter(&|y| crate::layout::num(*y))
            .draw();
        let _ = chart.draw_series(LineSeries::new(pts.iter().copied(), BLUE.stroke_width(2)));
        let _ = chart.draw_series(pts.iter().map(|&(x, y)| Circle::new((x, y), 3, BLUE.filled())));
        let _ = root.present();
    }
    titled(out, &format!("{name} over training steps"))
}

/// Give the SVG an accessible name and let it scale with the page.
fn titled(svg: String, title: &str) -> String {
    let title = maud::html! { (title) }.into_string();
    match svg.find('>') {
        Some(i) if svg.starts_with("<svg") => {
            let (head, rest) = svg.split_at(i);
            format!("{head} role=\"img\" aria-label=\"{title}\"><title>{title}</title>{}", &rest[1..])
        }
        _ => svg,
    }
}
