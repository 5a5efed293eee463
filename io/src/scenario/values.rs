//! Validating newtypes: the check runs during deserialization so the error gets the span.
use super::*;

macro_rules! bounded_f64 {
    ($name:ident, $what:literal, |$v:ident| $ok:expr) => {
        #[derive(Debug, Clone, Copy)]
        pub(super) struct $name(pub(super) f64);

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
                let $v = f64::deserialize(d)?;
                // TOML allows nan and inf; none of our quantities may be either
                if $v.is_finite() && $ok {
                    Ok($name($v))
                } else {
                    Err(D::Error::custom(format!("must be {}, got {}", $what, $v)))
                }
            }
        }
    };
}

bounded_f64!(Positive, "> 0", |v| v > 0.0);
bounded_f64!(NonNegative, ">= 0", |v| v >= 0.0);
bounded_f64!(Fraction01, "in [0, 1)", |v| (0.0..1.0).contains(&v));
bounded_f64!(Restitution, "in (0, 1]", |v| v > 0.0 && v <= 1.0);
bounded_f64!(AboveOne, "> 1", |v| v > 1.0);
bounded_f64!(Finite, "finite", |v| v.is_finite());

/// An integer >= 1 (TOML integers are i64, so reading i64 loses nothing and gives a
/// clearer message for negative values than u64 would).
#[derive(Debug, Clone, Copy)]
pub(super) struct PositiveInt(pub(super) u64);

impl<'de> Deserialize<'de> for PositiveInt {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = i64::deserialize(d)?;
        match u64::try_from(v) {
            Ok(u) if u >= 1 => Ok(PositiveInt(u)),
            _ => Err(D::Error::custom(format!("must be >= 1, got {v}"))),
        }
    }
}

/// A particle type id: 1 ..= u16::MAX (the particle store keeps types in 16 bits; a
/// larger one is refused rather than cut down to another type).
#[derive(Debug, Clone, Copy)]
pub(super) struct TypeId(pub(super) u16);

impl<'de> Deserialize<'de> for TypeId {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = i64::deserialize(d)?;
        match u16::try_from(v) {
            Ok(u) if u >= 1 => Ok(TypeId(u)),
            _ => Err(D::Error::custom(format!(
                "must be an integer in [1, {}] (particle types are stored in 16 bits), got {v}",
                u16::MAX
            ))),
        }
    }
}

/// An [x, y] pair of finite numbers (polygon corners, 2D only). Hand-written because
/// serde's `[f64; 2]` silently ignores extra elements in toml arrays.
#[cfg(not(feature = "dim3"))]
#[derive(Debug, Clone, Copy)]
pub(super) struct Vec2(pub(super) [f64; 2]);

#[cfg(not(feature = "dim3"))]
impl<'de> Deserialize<'de> for Vec2 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        Coords::deserialize(d).map(|c| Vec2(c.0))
    }
}

/// A point or vector of the build's dimension: [x, y] or [x, y, z], finite numbers.
#[derive(Debug, Clone, Copy)]
pub(super) struct Coords(pub(super) Vector);

/// How a point is written, in messages.
const COORDS: &str = if DIM == 2 {
    "an [x, y] pair"
} else {
    "an [x, y, z] triple"
};

impl<'de> Deserialize<'de> for Coords {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let v = Vec::<f64>::deserialize(d)?;
        if v.len() != DIM {
            return Err(D::Error::custom(format!(
                "must be {COORDS}, got {} element(s)",
                v.len()
            )));
        }
        if !v.iter().all(|x| x.is_finite()) {
            return Err(D::Error::custom(format!("must be finite numbers, got {v:?}")));
        }
        Ok(Coords(std::array::from_fn(|k| v[k])))
    }
}

/// A non-zero direction of the build's dimension.
#[derive(Debug, Clone, Copy)]
pub(super) struct Direction(pub(super) Vector);

impl<'de> Deserialize<'de> for Direction {
    fn deserialize<D: Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let Coords(v) = Coords::deserialize(d)?;
        if v.iter().any(|&c| c != 0.0) {
            Ok(Direction(v))
        } else {
            Err(D::Error::custom(format!("must be a non-zero vector, got {v:?}")))
        }
    }
}
