//! Numbers as text that reads back exactly: the dump, the energy series and the VTK
//! frames' time values all write f64 this way.
use std::io::Write;

/// Writes `v` as the shortest text that parses back to exactly `v`.
///
/// Plain `{}` never uses an exponent, so 1e-300 would take 300 digits; outside a moderate
/// range the exponent form `{:e}` (also shortest round-trip) is used instead.
pub(crate) fn write_f64<W: Write>(w: &mut W, v: f64) -> std::io::Result<()> {
    let a = v.abs();
    if a == 0.0 || !a.is_finite() || (1e-5..1e16).contains(&a) {
        write!(w, "{v}")
    } else {
        write!(w, "{v:e}")
    }
}
