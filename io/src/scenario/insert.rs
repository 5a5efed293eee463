//! `[[insert]]`: particles poured into a region over time (LAMMPS `fix pour`, LIGGGHTS
//! `fix insert/rate/region`). A child module of `scenario`, so that it shares its
//! validating newtypes, the radius and shape parsing of `[[particles]]` and its errors
//! with the key path and line. Both builds: discs and polygons in 2D, spheres in 3D.
use super::*;

/// One insertion stream, as the scenario gives it (times in seconds: the builder turns
/// them into steps once the time step is known).
#[derive(Debug, Clone, PartialEq)]
pub struct Insert {
    /// Index into `Scenario::materials`.
    pub material: usize,
    /// The `type` column in outputs, >= 1.
    pub type_id: u16,
    /// The box the particles' bounding circles (spheres) are placed in (inside the domain).
    pub region_min: Vector,
    /// High corner of that box, m (`region_min` is the low one).
    pub region_max: Vector,
    /// `radius`: the distribution of radii (circumradii of polygons), m.
    pub radius: RadiusDist,
    /// `shape`: discs (default) or convex polygons (2D).
    #[cfg(not(feature = "dim3"))]
    pub shape: ShapeSpec,
    /// Initial velocity before the jitter, m/s (default zero).
    pub velocity: Vector,
    /// Each velocity component gets a uniform random number in [-j, j].
    pub velocity_jitter: f64,
    /// `rate` (particles per second) or `per_insert` (particles per insertion).
    pub amount: Amount,
    /// Steps between insertions; None: with `rate`, about one particle per insertion.
    pub every: Option<u64>,
    /// Particles in all; None: until `stop`.
    pub total: Option<u64>,
    /// Time of the first insertion (s).
    pub start: f64,
    /// No insertion at this time or later (s); None: until `total`.
    pub stop: Option<f64>,
    /// None: derived from the scenario's seed and the stream's place in the file.
    pub seed: Option<u64>,
    /// Centres tried per particle before it is given up.
    pub attempts: u32,
}

pub use talus_engine::Amount;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawInsert {
    material: Spanned<String>,
    #[serde(rename = "type")]
    type_id: Option<TypeId>,
    region: Option<Spanned<RawRegion>>,
    radius: Option<Spanned<RawRadius>>,
    #[cfg(not(feature = "dim3"))]
    pub(super) shape: Option<Spanned<RawShape>>,
    // Spheres only in 3D: read to be refused by name.
    #[cfg(feature = "dim3")]
    shape: Option<Spanned<toml::Value>>,
    velocity: Option<Spanned<Coords>>,
    velocity_jitter: Option<Spanned<NonNegative>>,
    rate: Option<Spanned<Positive>>,
    per_insert: Option<Spanned<PositiveInt>>,
    every: Option<Spanned<PositiveInt>>,
    total: Option<Spanned<PositiveInt>>,
    start: Option<Spanned<NonNegative>>,
    stop: Option<Spanned<Positive>>,
    seed: Option<u64>,
    attempts: Option<Spanned<PositiveInt>>,
}

impl Ctx<'_> {
    pub(super) fn insert(
        &self,
        raw: Spanned<RawInsert>,
        domain: &Domain,
        lookup: &dyn Fn(&Spanned<String>) -> Result<usize>,
    ) -> Result<Insert> {
        let span = raw.span();
        let p = raw.into_inner();
        let material = lookup(&p.material)?;
        #[cfg(feature = "dim3")]
        self.forbidden(&p.shape, "in 3D: the particles are spheres (polygon shapes are 2D)")?;
        let radius = p
            .radius
            .ok_or_else(|| self.err(span.clone(), "`radius` is required for an [[insert]]"))?;
        let radius = self.radius(radius)?;
        let region = p
            .region
            .ok_or_else(|| self.err(span.clone(), "`region` is required for an [[insert]]"))?;
        let region_span = region.span();
        let r = self.region_in(region, domain)?;
        let (rmin, rmax) = (r.min, r.max);
        let room = (0..DIM).map(|k| rmax[k] - rmin[k]).fold(f64::INFINITY, f64::min);
        if 2.0 * radius.max() >= room {
            return Err(self.err(
                region_span,
                format!(
                    "is {room} across, too small for the largest particle (radius {})",
                    radius.max()
                ),
            ));
        }
        let amount =
            match (p.rate, p.per_insert) {
                (Some(_), Some(n)) => return Err(self.err(n.span(), "`rate` and `per_insert` cannot both be given")),
                (Some(r), None) => Amount::Rate(r.into_inner().0),
                (None, Some(n)) => {
                    if p.every.is_none() {
                        return Err(self.err(n.span(), "`per_insert` needs `every` (the steps between insertions)"));
                    }
                    Amount::PerInsert(n.into_inner().0)
                }
                (None, None) => return Err(self.err(
                    span,
                    "one of `rate` (particles per second) or `per_insert` (particles every `every` steps) is required",
                )),
            };
        let start = p.start.map_or(0.0, |s| s.into_inner().0);
        if p.total.is_none() && p.stop.is_none() {
            return Err(self.err(
                span,
                "one of `total` (particles in all) or `stop` (a time) is required: the insertion must end",
            ));
        }
        let stop = match p.stop {
            Some(s) if s.get_ref().0 <= start => {
                return Err(self.err(
                    s.span(),
                    format!("must be later than start = {start}, got {}", s.get_ref().0),
                ))
            }
            s => s.map(|s| s.into_inner().0),
        };
        let attempts = match p.attempts {
            Some(a) if a.get_ref().0 > u32::MAX as u64 => {
                return Err(self.err(a.span(), format!("must be at most {}", u32::MAX)))
            }
            a => a.map_or(talus_engine::insert::DEFAULT_ATTEMPTS, |a| a.into_inner().0 as u32),
        };
        Ok(Insert {
            material,
            type_id: p.type_id.map_or(1, |t| t.0),
            region_min: rmin,
            region_max: rmax,
            radius,
            #[cfg(not(feature = "dim3"))]
            shape: match p.shape {
                Some(sh) => self.shape(sh)?,
                None => ShapeSpec::Disc,
            },
            velocity: p.velocity.map_or([0.0; DIM], |v| v.into_inner().0),
            velocity_jitter: p.velocity_jitter.map_or(0.0, |j| j.into_inner().0),
            amount,
            every: p.every.map(|e| e.into_inner().0),
            total: p.total.map(|t| t.into_inner().0),
            start,
            stop,
            seed: p.seed,
            attempts,
        })
    }
}

#[cfg(all(test, not(feature = "dim3")))]
mod tests {
    use super::*;

    const BASE: &str = r#"
seed = 7
[domain]
min = [0.0, 0.0]
max = [1.0, 1.0]
[[material]]
name = "m"
density = 1000.0
kn = 1.0e5
restitution = 0.5
friction = 0.5
[[insert]]
material = "m"
region = { min = [0.1, 0.5], max = [0.9, 0.9] }
radius = { kind = "uniform", mean = 0.01, width = 0.2 }
rate = 500.0
total = 100
[run]
steps = 100
"#;

    fn parse(text: &str) -> Result<Scenario> {
        parse_scenario(text, Path::new("t.toml"))
    }

    fn edit(from: &str, to: &str) -> String {
        assert!(BASE.contains(from), "{from:?} not in BASE");
        BASE.replacen(from, to, 1)
    }

    /// The error's line is that of `needle`, its message names every `keys` entry.
    fn expect_err(text: &str, needle: &str, keys: &[&str]) {
        let line = text[..text.find(needle).unwrap()].matches('\n').count() + 1;
        match parse(text) {
            Err(IoError::Scenario { line: l, msg, .. }) => {
                assert_eq!(l, line, "wrong line for {msg:?}");
                for k in keys {
                    assert!(msg.contains(k), "{msg:?} does not name {k:?}");
                }
            }
            other => panic!("expected a scenario error, got {other:?}"),
        }
    }

    #[test]
    fn an_insert_section_alone_makes_a_scenario() {
        let s = parse(BASE).unwrap();
        assert!(s.particles.is_empty());
        assert_eq!(
            s.inserts,
            vec![Insert {
                material: 0,
                type_id: 1,
                region_min: [0.1, 0.5],
                region_max: [0.9, 0.9],
                radius: RadiusDist::Uniform { mean: 0.01, width: 0.2 },
                shape: ShapeSpec::Disc,
                velocity: [0.0, 0.0],
                velocity_jitter: 0.0,
                amount: Amount::Rate(500.0),
                every: None,
                total: Some(100),
                start: 0.0,
                stop: None,
                seed: None,
                attempts: talus_engine::insert::DEFAULT_ATTEMPTS,
            }]
        );
        let t = edit(
            "total = 100\n",
            "total = 100\ntype = 3\nshape = { kind = \"regular\", vertices = [6] }\nvelocity = [0.0, -1.0]\n\
             velocity_jitter = 0.1\nevery = 20\nstart = 0.5\nstop = 2.0\nseed = 11\nattempts = 30\n",
        );
        let i = &parse(&t).unwrap().inserts[0];
        assert_eq!(
            (
                i.type_id,
                &i.shape,
                i.velocity,
                i.velocity_jitter,
                i.every,
                i.start,
                i.stop,
                i.seed,
                i.attempts
            ),
            (
                3,
                &ShapeSpec::Regular { vertices: 6 },
                [0.0, -1.0],
                0.1,
                Some(20),
                0.5,
                Some(2.0),
                Some(11),
                30
            )
        );
        let t = edit("rate = 500.0", "per_insert = 10\nevery = 100");
        assert_eq!(parse(&t).unwrap().inserts[0].amount, Amount::PerInsert(10));
    }

    #[test]
    fn bad_insert_sections_are_named() {
        expect_err(&edit("rate = 500.0", "rate = -5.0"), "rate", &["insert[0].rate", "> 0"]);
        expect_err(
            &edit("total = 100\n", "total = 100\ntype = 65536\n"),
            "type",
            &["insert[0].type", "[1, 65535]", "got 65536"],
        );
        expect_err(&edit("rate = 500.0", "rate = 0"), "rate", &["insert[0].rate"]);
        expect_err(
            &edit("total = 100", "total = 100\nper_insert = 3"),
            "per_insert",
            &["insert[0].per_insert", "cannot both"],
        );
        expect_err(
            &edit("rate = 500.0", "per_insert = 3"),
            "per_insert",
            &["insert[0].per_insert", "every"],
        );
        expect_err(
            &edit("rate = 500.0\n", ""),
            "[[insert]]",
            &["insert", "`rate`", "`per_insert`"],
        );
        expect_err(
            &edit("total = 100\n", ""),
            "[[insert]]",
            &["insert", "`total`", "`stop`"],
        );
        expect_err(
            &edit("max = [0.9, 0.9]", "max = [1.2, 0.9]"),
            "region",
            &["insert[0].region", "inside the domain"],
        );
        expect_err(
            &edit("mean = 0.01, width = 0.2", "mean = 0.18, width = 0.2"),
            "region",
            &["insert[0].region", "too small"],
        );
        expect_err(
            &edit("total = 100", "total = 100\nstart = 1.0\nstop = 0.5"),
            "stop",
            &["insert[0].stop", "later than start"],
        );
        expect_err(&edit("total = 100", "total = 0"), "total", &["insert[0].total", ">= 1"]);
        expect_err(
            &edit("total = 100", "total = 100\nevery = 0"),
            "every",
            &["insert[0].every"],
        );
        expect_err(
            &edit("total = 100", "total = 100\nratee = 3"),
            "ratee",
            &["insert[0].ratee"],
        );
        expect_err(
            &edit("material = \"m\"\nregion", "material = \"x\"\nregion"),
            "\"x\"",
            &["unknown material"],
        );
        expect_err(
            &edit(
                "total = 100",
                "total = 100\nshape = { kind = \"random\", vertices = [2, 8] }",
            ),
            "shape",
            &["insert[0].shape.vertices", "3..=64"],
        );
        expect_err(
            &edit("radius = { kind = \"uniform\", mean = 0.01, width = 0.2 }\n", ""),
            "[[insert]]",
            &["`radius`"],
        );
        // Without particles or insertions there is nothing to simulate.
        let t = BASE.split("[[insert]]").next().unwrap().to_string() + "[run]\nsteps = 1\n";
        assert!(matches!(parse(&t), Err(IoError::Scenario { msg, .. }) if msg.contains("[[particles]]")));
    }

    #[test]
    fn drum_start_and_ramp() {
        let t = edit(
            "[run]",
            "[[drum]]\nmaterial = \"m\"\ncentre = [0.5, 0.5]\nradius = 0.3\nthickness = 0.02\nsegments = 16\n\
             omega = 2.0\nstart = 0.25\nramp = 0.1\n[run]",
        );
        let d = &parse(&t).unwrap().drums[0];
        assert_eq!((d.omega, d.start, d.ramp), (2.0, 0.25, 0.1));
        let bad = t.replace("ramp = 0.1", "ramp = -0.1");
        expect_err(&bad, "ramp = -", &["drum[0].ramp", ">= 0"]);
    }
}
