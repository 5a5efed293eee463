//! The value parsers of the options that count something: a bed of no particles, no timed
//! step or no repeat has nothing to measure (and some divided by it), so they are refused
//! where the command line is read, naming the option.
use clap::builder::{StringValueParser, TypedValueParser};

/// A whole number of at least `min`, as `T` (usize, u64, u32: the option's type, named
/// as `value_parser = at_least::<usize>(1)`), whose largest value the error names.
pub fn at_least<T>(min: u64) -> impl TypedValueParser<Value = T>
where
    T: TryFrom<u64> + Clone + Send + Sync + 'static,
{
    StringValueParser::new().try_map(move |s| {
        s.parse::<u64>()
            .ok()
            .filter(|&v| v >= min)
            .and_then(|v| T::try_from(v).ok())
            .ok_or_else(|| {
                let widths = [u64::MAX, u32::MAX as u64, u16::MAX as u64];
                let max = widths.into_iter().find(|&m| T::try_from(m).is_ok()).unwrap_or(0);
                format!("{s:?} is not a whole number from {min} to {max}")
            })
    })
}

/// A finite number above zero (`talus bench --updates`: infinity asked for endless steps).
pub fn positive_number() -> impl TypedValueParser<Value = f64> {
    StringValueParser::new().try_map(|s| match s.parse::<f64>() {
        Ok(x) if x.is_finite() && x > 0.0 => Ok(x),
        _ => Err(format!("{s:?} is not a finite number above 0")),
    })
}
