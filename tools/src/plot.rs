//! Speedup plots for `talus scale`: speedup against thread count, as PNG and SVG.

use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;

/// One curve: e.g. "scatter, per-thread arrays". Points are (threads, speedup t1/tn).
#[derive(Clone, Debug)]
pub struct Series {
    pub label: String,
    pub points: Vec<(f64, f64)>,
}

const SIZE: (u32, u32) = (1024, 768);
const FONT: &str = "sans-serif";
// Bundled because the CI machine has no system fonts and plotters' ab_glyph backend loads none.
const FONT_BYTES: &[u8] = include_bytes!("../assets/DejaVuSans.ttf");
// Tableau 10: distinct on white and for most colour-blind readers.
const COLOURS: [RGBColor; 10] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(127, 127, 127),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];
const IDEAL: RGBColor = RGBColor(150, 150, 150);

/// Registers the bundled font under plotters' "sans-serif" family; both backends need it to lay out text.
fn register_font() -> Result<(), String> {
    static REGISTERED: OnceLock<Result<(), String>> = OnceLock::new();
    REGISTERED
        .get_or_init(|| {
            plotters::style::register_font(FONT, FontStyle::Normal, FONT_BYTES)
                .map_err(|_| "the bundled font DejaVuSans.ttf is not a valid TrueType font".to_string())
        })
        .clone()
}

/// Speedup against thread count, with the ideal line y = x dashed in grey, one coloured line with markers per
/// series, a legend, axis labels and a title. Writes `png` (1024x768) and `svg`.
pub fn speedup_plot(title: &str, series: &[Series], max_threads: usize, png: &Path, svg: &Path) -> Result<(), String> {
    register_font()?;
    let failed = |path: &Path, e: &dyn std::fmt::Display| format!("cannot write speedup plot {}: {e}", path.display());

    let root = BitMapBackend::new(png, SIZE).into_drawing_area();
    draw(&root, title, series, max_threads)
        .and_then(|()| root.present())
        .map_err(|e| failed(png, &e))?;

    let root = SVGBackend::new(svg, SIZE).into_drawing_area();
    draw(&root, title, series, max_threads)
        .and_then(|()| root.present())
        .map_err(|e| failed(svg, &e))
}

/// Axis range `(low, high)` shared by x and y so that the ideal line is the diagonal.
fn axis_range(series: &[Series], max_threads: usize) -> (f64, f64) {
    let finite = || {
        series
            .iter()
            .flat_map(|s| &s.points)
            .filter(|(x, y)| x.is_finite() && y.is_finite())
    };
    let high = finite().fold(max_threads as f64, |m, &(x, y)| m.max(x).max(y));
    // Starts at 1 as asked, but a speedup below 1 (slower with more threads) must stay visible.
    let low = if finite().any(|&(x, y)| x < 1.0 || y < 1.0) {
        0.0
    } else {
        1.0
    };
    (low, high.max(low + 1.0))
}

/// Thread counts are whole: no label between them.
fn thread_tick(v: &f64) -> String {
    if (v - v.round()).abs() < 1e-9 {
        format!("{}", v.round())
    } else {
        String::new()
    }
}

/// Tick labels without float noise: "2", "2.5".
fn tick(v: &f64) -> String {
    let s = format!("{v:.2}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

fn draw<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    series: &[Series],
    max_threads: usize,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let (low, high) = axis_range(series, max_threads);
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 28))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(60)
        .build_cartesian_2d(low..high, low..high)?;
    chart
        .configure_mesh()
        .x_desc("threads")
        .y_desc("speedup t1/tn")
        .axis_desc_style((FONT, 20))
        .label_style((FONT, 16))
        .x_labels((high - low).round() as usize + 1)
        .x_label_formatter(&thread_tick)
        .y_label_formatter(&tick)
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.1))
        .draw()?;

    let ideal = ShapeStyle::from(IDEAL).stroke_width(2);
    chart
        .draw_series(DashedLineSeries::new([(low, low), (high, high)], 10, 6, ideal))?
        .label("ideal")
        .legend(move |(x, y)| DashedPathElement::new([(x, y), (x + 20, y)], 5, 3, ideal));

    // A NaN or infinite speedup (a zero time) cannot be placed; leave it out rather than corrupt the path.
    lines_and_legend(&mut chart, series, |(x, y)| x.is_finite() && y.is_finite())
}

/// Log-log plot (e.g. time per step against N), one coloured line with markers per series,
/// legend, axis labels, title. Non-positive or non-finite points are left out. Writes `png`
/// and `svg`.
pub fn loglog_plot(
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Series],
    png: &Path,
    svg: &Path,
) -> Result<(), String> {
    register_font()?;
    let failed = |path: &Path, e: &dyn std::fmt::Display| format!("cannot write plot {}: {e}", path.display());
    let root = BitMapBackend::new(png, SIZE).into_drawing_area();
    draw_loglog(&root, title, x_desc, y_desc, series)
        .and_then(|()| root.present())
        .map_err(|e| failed(png, &e))?;
    let root = SVGBackend::new(svg, SIZE).into_drawing_area();
    draw_loglog(&root, title, x_desc, y_desc, series)
        .and_then(|()| root.present())
        .map_err(|e| failed(svg, &e))
}

fn draw_loglog<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    x_desc: &str,
    y_desc: &str,
    series: &[Series],
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    let ok = |&(x, y): &(f64, f64)| x > 0.0 && y > 0.0 && x.is_finite() && y.is_finite();
    let pts = || series.iter().flat_map(|s| s.points.iter().copied()).filter(ok);
    let (mut x0, mut x1, mut y0, mut y1) = (f64::INFINITY, 0.0f64, f64::INFINITY, 0.0f64);
    for (x, y) in pts() {
        x0 = x0.min(x);
        x1 = x1.max(x);
        y0 = y0.min(y);
        y1 = y1.max(y);
    }
    if !x0.is_finite() {
        (x0, x1, y0, y1) = (1.0, 10.0, 1.0, 10.0);
    }
    // Half a decade of room on each side.
    let (x0, x1, y0, y1) = (x0 / 1.5, x1 * 1.5, y0 / 2.0, y1 * 2.0);
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(root)
        .caption(title, (FONT, 26))
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(80)
        .build_cartesian_2d((x0..x1).log_scale(), (y0..y1).log_scale())?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .axis_desc_style((FONT, 20))
        .label_style((FONT, 16))
        .x_label_formatter(&|v| format!("{v:.0e}"))
        .y_label_formatter(&|v| format!("{v:.0e}"))
        .light_line_style(WHITE.mix(0.0))
        .bold_line_style(BLACK.mix(0.1))
        .draw()?;
    lines_and_legend(&mut chart, series, ok)
}

/// One coloured line with markers per series (the points `keep` accepts), and the legend.
fn lines_and_legend<'a, DB: DrawingBackend + 'a, CT: CoordTranslate<From = (f64, f64)>>(
    chart: &mut ChartContext<'a, DB, CT>,
    series: &[Series],
    keep: impl Fn(&(f64, f64)) -> bool,
) -> Result<(), DrawingAreaErrorKind<DB::ErrorType>> {
    for (i, s) in series.iter().enumerate() {
        let colour = COLOURS[i % COLOURS.len()];
        let style = colour.stroke_width(2);
        let points: Vec<_> = s.points.iter().copied().filter(&keep).collect();
        chart
            .draw_series(LineSeries::new(points.iter().copied(), style))?
            .label(s.label.as_str())
            .legend(move |(x, y)| {
                EmptyElement::at((x, y))
                    + PathElement::new([(-10, 0), (10, 0)], style)
                    + Circle::new((0, 0), 4, colour.filled())
            });
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 5, colour.filled())))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font((FONT, 16))
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK.mix(0.4))
        .draw()?;
    Ok(())
}

/// Least-squares slope of ln y against ln x (the exponent of y ~ x^k), over the points
/// with positive, finite coordinates; None for fewer than two.
pub fn fitted_exponent(points: &[(f64, f64)]) -> Option<f64> {
    let p: Vec<(f64, f64)> = points
        .iter()
        .filter(|(x, y)| *x > 0.0 && *y > 0.0 && x.is_finite() && y.is_finite())
        .map(|(x, y)| (x.ln(), y.ln()))
        .collect();
    if p.len() < 2 {
        return None;
    }
    let n = p.len() as f64;
    let (mx, my) = (
        p.iter().map(|q| q.0).sum::<f64>() / n,
        p.iter().map(|q| q.1).sum::<f64>() / n,
    );
    let sxx: f64 = p.iter().map(|q| (q.0 - mx).powi(2)).sum();
    let sxy: f64 = p.iter().map(|q| (q.0 - mx) * (q.1 - my)).sum();
    (sxx > 0.0).then(|| sxy / sxx)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn two_series() -> Vec<Series> {
        vec![
            Series {
                label: "scatter, per-thread arrays".into(),
                points: vec![(1.0, 1.0), (2.0, 1.9), (4.0, 3.5), (8.0, 5.8)],
            },
            Series {
                label: "gather, atomics".into(),
                points: vec![(1.0, 1.0), (2.0, 1.6), (4.0, 2.4), (8.0, 2.9)],
            },
        ]
    }

    #[test]
    fn fitted_exponent_recovers_a_power_law() {
        let pts: Vec<(f64, f64)> = [1e3, 1e4, 1e5, 1e6]
            .iter()
            .map(|&n: &f64| (n, 3e-8 * n.powf(1.07)))
            .collect();
        assert!((fitted_exponent(&pts).unwrap() - 1.07).abs() < 1e-12);
        assert_eq!(fitted_exponent(&pts[..1]), None);
    }

    #[test]
    fn writes_loglog_png_and_svg() {
        let dir = tempfile::tempdir().unwrap();
        let (png, svg) = (dir.path().join("t.png"), dir.path().join("t.svg"));
        let s = vec![Series {
            label: "sweep (N^1.02)".into(),
            points: vec![(1e3, 1e-4), (1e4, 1.1e-3), (1e5, 1.2e-2)],
        }];
        loglog_plot("time per step", "N", "s per step", &s, &png, &svg).unwrap();
        assert!(std::fs::metadata(&png).unwrap().len() > 10_000);
        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.contains("sweep (N^1.02)"));
    }

    #[test]
    fn writes_png_and_svg() {
        let dir = tempfile::tempdir().unwrap();
        let (png, svg) = (dir.path().join("speedup.png"), dir.path().join("speedup.svg"));
        speedup_plot("scale: 10k polygons", &two_series(), 8, &png, &svg).unwrap();

        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        assert_eq!(&bytes[12..16], b"IHDR");
        let width = u32::from_be_bytes(bytes[16..20].try_into().unwrap());
        let height = u32::from_be_bytes(bytes[20..24].try_into().unwrap());
        assert_eq!((width, height), SIZE);

        // A plain white 1024x768 PNG compresses to a few kB; curves and text make it much larger.
        let blank = dir.path().join("blank.png");
        let root = BitMapBackend::new(&blank, SIZE).into_drawing_area();
        root.fill(&WHITE).unwrap();
        root.present().unwrap();
        drop(root);
        let blank_len = std::fs::metadata(&blank).unwrap().len();
        assert!(
            bytes.len() as u64 > 4 * blank_len,
            "{} vs blank {blank_len}",
            bytes.len()
        );

        let text = std::fs::read_to_string(&svg).unwrap();
        assert!(text.contains("<svg"));
        assert!(text.contains("<text"));
        assert!(text.contains("scatter, per-thread arrays"));
        assert!(text.contains("gather, atomics"));
        assert!(text.contains("speedup"));
        assert!(text.contains("threads"));
    }

    #[test]
    fn curves_and_text_are_drawn() {
        register_font().unwrap();
        let (w, h) = SIZE;
        let mut buf = vec![0u8; (w * h * 3) as usize];
        {
            let root = BitMapBackend::with_buffer(&mut buf, SIZE).into_drawing_area();
            draw(&root, "scale", &two_series(), 8).unwrap();
            root.present().unwrap();
        }
        let count = |c: RGBColor| buf.chunks_exact(3).filter(|p| *p == [c.0, c.1, c.2]).count();
        assert!(count(COLOURS[0]) > 100, "first series colour missing");
        assert!(count(COLOURS[1]) > 100, "second series colour missing");
        // Glyphs are antialiased: grey levels that neither the white background nor the lines use.
        let greys = buf
            .chunks_exact(3)
            .filter(|p| p[0] == p[1] && p[1] == p[2] && (40..200).contains(&p[0]))
            .count();
        assert!(greys > 200, "no text rendered ({greys} grey pixels)");
    }

    #[test]
    fn degenerate_and_slow_ranges() {
        assert_eq!(axis_range(&[], 1), (1.0, 2.0));
        let slow = Series {
            label: "slow".into(),
            points: vec![(1.0, 1.0), (2.0, 0.7), (4.0, f64::INFINITY)],
        };
        assert_eq!(axis_range(&[slow], 4), (0.0, 4.0));
        assert_eq!(axis_range(&two_series(), 16), (1.0, 16.0));
    }

    #[test]
    fn unwritable_path_is_an_error_naming_it() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("no-such-dir");
        let (png, svg) = (missing.join("speedup.png"), missing.join("speedup.svg"));
        let err = speedup_plot("t", &two_series(), 8, &png, &svg).unwrap_err();
        assert!(err.contains(&png.display().to_string()), "{err}");

        let png = dir.path().join("speedup.png");
        let err = speedup_plot("t", &two_series(), 8, &png, &svg).unwrap_err();
        assert!(err.contains(&svg.display().to_string()), "{err}");
    }
}
