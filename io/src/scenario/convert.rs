//! Conversion and cross-field checks.
use super::*;

pub(super) const DEFAULT_DT_FRACTION: f64 = 50.0;
/// Under Hertz the contact time depends on the impact speed: no default time step.
const HERTZ_DT: &str = "with [contact] model = \"hertz\" give [integrator] dt: the Hertzian contact time depends \
                        on the impact speed, so there is no default fraction of it";
pub(super) const DEFAULT_MARGIN: f64 = 0.1;
pub(super) const DEFAULT_OUTPUT_DIR: &str = "talus-out";
/// Checkpoints kept by default.
pub(super) const DEFAULT_KEEP: usize = 3;
/// Default number of output frames over a run.
pub(super) const DEFAULT_FRAMES: u64 = 20;

/// `v / |v|` (non-zero `v`). In 3D scaled by the largest component first, so that no
/// finite input overflows or underflows the length (as `hypot` does in 2D).
pub(super) fn unit<const N: usize>(v: [f64; N]) -> [f64; N] {
    if N == 2 {
        let len = v[0].hypot(v[1]);
        return v.map(|c| c / len);
    }
    let big = v.iter().fold(0.0f64, |m, c| m.max(c.abs()));
    let w = v.map(|c| c / big);
    let len = norm2(w).sqrt();
    w.map(|c| c / len)
}

pub(super) struct Ctx<'a> {
    pub(super) text: &'a str,
    pub(super) path: &'a Path,
}

impl Ctx<'_> {
    /// An error at `span`, prefixed with the key path found at that place in the file.
    pub(super) fn err(&self, span: Range<usize>, msg: impl Display) -> IoError {
        let (line, col) = line_col(self.text, span.start);
        let msg = match key_path_at(self.text, &span) {
            Some(key) => format!("{key}: {msg}"),
            None => msg.to_string(),
        };
        IoError::Scenario {
            path: self.path.to_path_buf(),
            line,
            col,
            msg,
        }
    }

    pub(super) fn toml_error(&self, e: &toml::de::Error) -> IoError {
        match e.span() {
            Some(span) => self.err(span, e.message()),
            None => IoError::Invalid {
                path: self.path.to_path_buf(),
                msg: e.message().to_string(),
            },
        }
    }

    /// `value` must be given; `owner` is the span of the table that should hold it.
    pub(super) fn required<T>(
        &self,
        value: Option<Spanned<T>>,
        owner: &Range<usize>,
        key: &str,
        when: &str,
    ) -> Result<T> {
        value
            .map(Spanned::into_inner)
            .ok_or_else(|| self.err(owner.clone(), format!("`{key}` is required {when}")))
    }

    /// `value` must not be given.
    pub(super) fn forbidden<T>(&self, value: &Option<Spanned<T>>, when: &str) -> Result<()> {
        match value {
            Some(v) => Err(self.err(v.span(), format!("not allowed {when}"))),
            None => Ok(()),
        }
    }

    /// Under Hertz, a polygon anywhere in the scenario (a polygon shape of a particle
    /// source or an insertion stream, a body, a drum), refused where it is given.
    #[cfg(not(feature = "dim3"))]
    fn refuse_polygons_under_hertz(&self, raw: &RawScenario) -> Result<()> {
        let hertz = raw.contact.as_ref().and_then(|c| c.model.as_ref());
        if hertz.is_none_or(|m| *m.get_ref() != ModelName::Hertz) {
            return Ok(());
        }
        let why = "with [contact] model = \"hertz\": Hertz is for discs (its forces grow with sqrt(overlap R_eff), \
                   and a polygon's corner has no radius); polygons take \"hooke\"";
        let shapes = raw
            .particles
            .iter()
            .flat_map(|p| p.get_ref().iter().map(|p| &p.get_ref().shape));
        let shapes = shapes.chain(raw.insert.iter().map(|i| &i.get_ref().shape));
        for s in shapes.flatten() {
            if s.get_ref().kind != ShapeKind::Disc {
                return Err(self.err(s.span(), format!("a polygon shape is not allowed {why}")));
            }
        }
        if let Some(b) = raw.body.first() {
            return Err(self.err(b.span(), format!("[[body]] (a polygon) is not allowed {why}")));
        }
        if let Some(d) = raw.drum.first() {
            return Err(self.err(d.span(), format!("[[drum]] (a ring of polygons) is not allowed {why}")));
        }
        Ok(())
    }

    pub(super) fn convert(&self, raw: RawScenario) -> Result<Scenario> {
        self.check_dimension(&raw.dimension)?;
        #[cfg(not(feature = "dim3"))]
        self.refuse_polygons_under_hertz(&raw)?;
        let mut domain = Domain {
            min: raw.domain.min.0,
            max: raw.domain.max.get_ref().0,
            periodic: [false; DIM],
            shear_rate: 0.0,
            servo: None,
        };
        self.check_min_max(domain.min, &raw.domain.max, "domain.min")?;

        let (materials, names) = self.materials(raw.material)?;
        let lookup = |name: &Spanned<String>| -> Result<usize> {
            names.get(name.get_ref().as_str()).copied().ok_or_else(|| {
                let known: Vec<String> = materials.iter().map(|m| format!("`{}`", m.name)).collect();
                self.err(
                    name.span(),
                    format!("unknown material `{}` (defined: {})", name.get_ref(), known.join(", ")),
                )
            })
        };

        let mut walls = Vec::with_capacity(raw.wall.len());
        let wall_spans: Vec<_> = raw.wall.iter().map(|w| w.span()).collect();
        let mut wall_motions = Vec::new();
        let mut names = Names {
            walls: Vec::new(),
            bodies: Vec::new(),
            drums: Vec::new(),
        };
        // The walls, then their motions (a servo may name other walls).
        let mut raw_motions = Vec::new();
        for (k, mut w) in raw.wall.into_iter().enumerate() {
            names.walls.push(w.get_mut().name.take());
            if let Some(m) = w.get_mut().motion.take() {
                raw_motions.push((k, m));
            }
            walls.push(self.wall(w, &lookup)?);
        }
        for (k, m) in raw_motions {
            wall_motions.push((k, self.wall_move(m, &walls[k], None, (&names.walls, &walls))?));
        }
        domain.periodic = self.periodic(raw.domain.periodic, &walls, &wall_spans)?;
        domain.shear_rate = self.shear_rate(raw.domain.shear_rate, domain.periodic)?;
        domain.servo = self.cell_servo(raw.domain.servo, &domain)?;

        let mut particles = Vec::new();
        match raw.particles {
            Some(p) if p.get_ref().is_empty() => {
                return Err(self.err(p.span(), "at least one particle source is required"));
            }
            Some(p) => {
                for p in p.into_inner() {
                    particles.push(self.particles(p, &domain, &lookup)?);
                }
            }
            None if raw.insert.is_empty() => {
                return Err(self.err(
                    0..0,
                    "at least one [[particles]] source or [[insert]] stream is required",
                ));
            }
            None => {}
        }
        let inserts = {
            let mut inserts = Vec::with_capacity(raw.insert.len());
            for i in raw.insert {
                inserts.push(self.insert(i, &domain, &lookup)?);
            }
            inserts
        };
        #[cfg(not(feature = "dim3"))]
        let (bodies, drums) = {
            let (mut raw_bodies, mut raw_drums) = (raw.body, raw.drum);
            names.bodies = raw_bodies.iter_mut().map(|b| b.get_mut().name.take()).collect();
            names.drums = raw_drums.iter_mut().map(|d| d.get_mut().name.take()).collect();
            self.bodies_and_drums(raw_bodies, raw_drums, &lookup)?
        };
        #[cfg(feature = "dim3")]
        {
            let later = "is 2D only so far (the 3D engine has spheres, planes and cylinders)";
            for (key, v) in [("body", &raw.body), ("drum", &raw.drum)] {
                if let Some(v) = v {
                    let hint = if key == "drum" {
                        "; a turning cylinder is a [[wall]] with kind = \"cylinder\""
                    } else {
                        ""
                    };
                    return Err(self.err(v.span(), format!("[[{key}]] {later}{hint}")));
                }
            }
        }
        let pairs = self.pairs(raw.pair, &lookup)?;
        let rolling = match raw.contact.as_ref().and_then(|c| c.rolling) {
            None | Some(RollingName::Epsd2) => RollingModel::ElasticPlastic,
            Some(RollingName::Cdt) => RollingModel::ConstantTorque,
        };
        let cohesion_model = match raw.contact.as_ref().and_then(|c| c.cohesion.as_ref()) {
            None => CohesionModel::Sjkr,
            Some(c) => match c.get_ref() {
                CohesionName::Sjkr => CohesionModel::Sjkr,
                CohesionName::Sjkr2 if DIM == 3 => CohesionModel::Sjkr2,
                CohesionName::Sjkr2 => {
                    return Err(self.err(c.span(), "\"sjkr2\" is for spheres (3D); discs take \"sjkr\""))
                }
            },
        };
        let normal_model = match raw.contact.and_then(|c| c.model) {
            None => NormalModel::Hooke,
            Some(m) => match m.get_ref() {
                ModelName::Hooke => NormalModel::Hooke,
                ModelName::Hertz => NormalModel::Hertz,
            },
        };
        if normal_model == NormalModel::Hertz {
            // Restitution from damping is Hookean (exp(-gamma t_c / 2)); under Hertz it
            // depends on the impact speed.
            if let Some(m) = materials
                .iter()
                .find(|m| matches!(m.damping, NormalDamping::Restitution(_)))
            {
                return Err(self.err(
                    0..0,
                    format!(
                        "material `{}`: with [contact] model = \"hertz\" give `gamma_n` (LAMMPS gran/hertz/history's \
                         damping), not `restitution` (it depends on the impact speed under Hertz)",
                        m.name
                    ),
                ));
            }
        }

        if normal_model == NormalModel::Hertz
            && pairs
                .iter()
                .any(|p| matches!(p.damping, Some(NormalDamping::Restitution(_))))
        {
            return Err(self.err(
                0..0,
                "[[pair]]: with [contact] model = \"hertz\" give `gamma_n`, not `restitution` (it depends on the impact \
                 speed under Hertz)",
            ));
        }

        let integrator = self.integrator(raw.integrator, normal_model)?;
        let neighbor = self.neighbor(raw.neighbor)?;
        #[cfg(not(feature = "dim3"))]
        let drum_starts: Vec<f64> = drums.iter().map(|d| d.start).collect();
        #[cfg(feature = "dim3")]
        let drum_starts: Vec<f64> = Vec::new();
        // Whether any wall has a servo (`until = { servo }` needs one): in a [[wall]] or a
        // stage's `move`; or the cell has one.
        let servos = domain.servo.is_some()
            || wall_motions
                .iter()
                .any(|(_, m)| !matches!(m.drive, WallDrive::Law(_) | WallDrive::Tilt { .. }))
            || raw.stage.iter().any(|s| {
                let moves = s.get_ref().moves.iter().flatten();
                moves.into_iter().any(|(_, m)| m.get_ref().servo.is_some())
            });
        let (run, stages) = self.run_and_stages(raw.run, raw.stage, &names, &walls, &drum_starts, servos)?;
        let default_every = (run.steps / DEFAULT_FRAMES).max(1);
        let output = match raw.output {
            None => Output {
                every: default_every,
                energy_every: None,
                dir: PathBuf::from(DEFAULT_OUTPUT_DIR),
                vtk: true,
                dump: true,
                energy: true,
            },
            Some(o) => Output {
                every: o.every.map_or(default_every, |e| e.0),
                energy_every: o.energy_every.map(|e| e.0),
                dir: PathBuf::from(o.dir.as_deref().unwrap_or(DEFAULT_OUTPUT_DIR)),
                vtk: o.vtk.unwrap_or(true),
                dump: o.dump.unwrap_or(true),
                energy: o.energy.unwrap_or(true),
            },
        };

        let analysis = match raw.analysis {
            None => None,
            Some(a) => {
                let a = a.into_inner();
                let region = match a.region {
                    None => None,
                    Some(r) => Some(self.region_in(r, &domain)?),
                };
                Some(Analysis {
                    every: a.every.map_or(output.every, |e| e.0),
                    region,
                    network: a.network.unwrap_or(true),
                })
            }
        };

        let mut outflows = Vec::new();
        for o in raw.outflow {
            let span = o.span();
            let o = o.into_inner();
            let region = o
                .region
                .ok_or_else(|| self.err(span, "`region` is required for an [[outflow]]"))?;
            outflows.push(Outflow {
                region: self.region_in(region, &domain)?,
                every: o.every.map_or(OUTFLOW_EVERY, |e| e.0),
            });
        }

        let checkpoint = match raw.checkpoint {
            None => CheckpointSettings {
                every: 0,
                keep: DEFAULT_KEEP,
                dir: PathBuf::from("checkpoints"),
            },
            Some(c) => CheckpointSettings {
                every: c.every.unwrap_or(0),
                keep: c.keep.map_or(DEFAULT_KEEP, |k| k.0 as usize),
                dir: c.dir.map_or_else(|| PathBuf::from("checkpoints"), PathBuf::from),
            },
        };

        Ok(Scenario {
            title: raw.title,
            seed: raw.seed.unwrap_or(1),
            domain,
            gravity: raw.gravity.map_or([0.0; DIM], |g| g.0),
            materials,
            walls,
            particles,
            inserts,
            #[cfg(not(feature = "dim3"))]
            bodies,
            #[cfg(not(feature = "dim3"))]
            drums,
            normal_model,
            rolling,
            cohesion_model,
            pairs,
            wall_motions,
            integrator,
            neighbor,
            run,
            stages,
            output,
            analysis,
            outflows,
            checkpoint,
            text: String::new(),
        })
    }

    /// The dimension a file asks for: 2 when it says nothing, else 2 or 3.
    pub(super) fn dimension(&self, d: &Option<Spanned<i64>>) -> Result<usize> {
        match d {
            None => Ok(2),
            Some(d) if matches!(*d.get_ref(), 2 | 3) => Ok(*d.get_ref() as usize),
            Some(d) => Err(self.err(d.span(), format!("must be 2 or 3, got {}", d.get_ref()))),
        }
    }

    /// The scenario's dimension must be the build's: 2D files say nothing or
    /// `dimension = 2`, 3D files `dimension = 3`.
    fn check_dimension(&self, d: &Option<Spanned<i64>>) -> Result<()> {
        let asked = self.dimension(d)?;
        let span = d.as_ref().map_or(0..0, |d| d.span());
        if asked != DIM {
            let msg = if DIM == 2 {
                "this is a 3D scenario: the 2D build of talus-io reads 2D ones (the talus program runs both)"
                    .to_string()
            } else {
                format!(
                    "{}the 3D build of talus-io reads 3D scenarios: say `dimension = 3` at the top of the file",
                    if d.is_some() { "this is a 2D scenario: " } else { "" }
                )
            };
            return Err(self.err(span, msg));
        }
        Ok(())
    }

    fn integrator(&self, raw: Option<RawIntegrator>, model: NormalModel) -> Result<Integrator> {
        let Some(i) = raw else {
            if model == NormalModel::Hertz {
                return Err(self.err(0..0, HERTZ_DT));
            }
            return Ok(Integrator {
                scheme: Scheme::Verlet,
                time_step: TimeStep::Fraction(DEFAULT_DT_FRACTION),
            });
        };
        let time_step = match (i.dt, i.dt_fraction) {
            (Some(_), Some(f)) => return Err(self.err(f.span(), "`dt` and `dt_fraction` cannot both be given")),
            (Some(dt), None) => TimeStep::Fixed(dt.into_inner().0),
            (None, Some(f)) if model == NormalModel::Hertz => return Err(self.err(f.span(), HERTZ_DT)),
            (None, Some(f)) => TimeStep::Fraction(f.into_inner().0),
            (None, None) if model == NormalModel::Hertz => return Err(self.err(0..0, HERTZ_DT)),
            (None, None) => TimeStep::Fraction(DEFAULT_DT_FRACTION),
        };
        let scheme = i.scheme.map_or(Scheme::Verlet, |s| s.into_inner());
        Ok(Integrator { scheme, time_step })
    }

    fn neighbor(&self, raw: Option<RawNeighbor>) -> Result<Neighbor> {
        let Some(n) = raw else {
            return Ok(Neighbor {
                method: NeighborMethod::Sweep,
                margin: DEFAULT_MARGIN,
                every_step: false,
                rejection: Rejection::default(),
            });
        };
        let rejection = match n.rejection {
            Some(r) if DIM == 3 => return Err(self.err(r.span(), "is for polygons: 2D only")),
            Some(r) => r.into_inner(),
            None => Rejection::default(),
        };
        Ok(Neighbor {
            method: n.method.map_or(NeighborMethod::Sweep, |m| m.0),
            margin: n.margin.map_or(DEFAULT_MARGIN, |m| m.0),
            every_step: n.every_step.unwrap_or(false),
            rejection,
        })
    }

    /// A box region (`{min, max}`) that lies inside the domain.
    pub(super) fn region_in(&self, r: Spanned<RawRegion>, domain: &Domain) -> Result<talus_engine::Region> {
        let span = r.span();
        let r = r.into_inner();
        self.check_min_max(r.min.0, &r.max, "region.min")?;
        let (min, max) = (r.min.0, r.max.get_ref().0);
        if !(0..DIM).all(|k| min[k] >= domain.min[k] && max[k] <= domain.max[k]) {
            return Err(self.err(
                span,
                format!(
                    "must lie inside the domain {:?}..{:?}, got {min:?}..{max:?}",
                    domain.min, domain.max
                ),
            ));
        }
        Ok(talus_engine::Region { min, max })
    }

    /// `max` must exceed `min` in every component; the error points at `max`.
    pub(super) fn check_min_max(&self, min: Vector, max: &Spanned<Coords>, min_name: &str) -> Result<()> {
        let m = max.get_ref().0;
        if (0..DIM).all(|k| m[k] > min[k]) {
            Ok(())
        } else {
            let every = if DIM == 2 { "both" } else { "all three" };
            Err(self.err(
                max.span(),
                format!("must be greater than {min_name} in {every} components, got max = {m:?}, min = {min:?}"),
            ))
        }
    }

    pub(super) fn materials(
        &self,
        raw: Spanned<Vec<Spanned<RawMaterial>>>,
    ) -> Result<(Vec<Material>, HashMap<String, usize>)> {
        if raw.get_ref().is_empty() {
            return Err(self.err(raw.span(), "at least one [[material]] is required"));
        }
        let mut materials = Vec::with_capacity(raw.get_ref().len());
        let mut names = HashMap::new();
        for m in raw.into_inner() {
            let span = m.span();
            let m = m.into_inner();
            let damping = match (m.restitution, m.gamma_n) {
                (Some(_), Some(g)) => {
                    return Err(self.err(g.span(), "`restitution` and `gamma_n` cannot both be given"))
                }
                (Some(e), None) => NormalDamping::Restitution(e.into_inner().0),
                (None, Some(g)) => NormalDamping::GammaN(g.into_inner().0),
                (None, None) => return Err(self.err(span, "one of `restitution` or `gamma_n` is required")),
            };
            let name = m.name.get_ref().clone();
            if names.insert(name.clone(), materials.len()).is_some() {
                return Err(self.err(m.name.span(), format!("material `{name}` is defined twice")));
            }
            materials.push(Material {
                name,
                density: m.density.0,
                kn: m.kn.0,
                kt: m.kt.map_or(2.0 / 7.0 * m.kn.0, |k| k.0),
                damping,
                gamma_t: m.gamma_t.map(|g| g.0),
                friction: m.friction.0,
                cohesion: m.cohesion.map_or(0.0, |c| c.0),
                rolling_friction: m.rolling_friction.map_or(0.0, |c| c.0),
            });
        }
        Ok((materials, names))
    }

    pub(super) fn wall(
        &self,
        raw: Spanned<RawWall>,
        lookup: &dyn Fn(&Spanned<String>) -> Result<usize>,
    ) -> Result<Wall> {
        let span = raw.span();
        let w = raw.into_inner();
        // walls without a material use the first one
        let material = w.material.as_ref().map_or(Ok(0), lookup)?;
        let other = if DIM == 2 { "a 3D" } else { "a 2D" };
        let fit = if DIM == 2 {
            "line\" or \"box"
        } else {
            "plane\", \"box\" or \"cylinder"
        };
        let wrong_kind = || self.err(span.clone(), format!("`kind` is {other} wall here: use \"{fit}\""));
        match w.kind {
            WallKind::Line | WallKind::Plane => {
                let (name, ok) = if DIM == 2 {
                    ("line", w.kind == WallKind::Line)
                } else {
                    ("plane", w.kind == WallKind::Plane)
                };
                if !ok {
                    return Err(wrong_kind());
                }
                let when = &format!("with kind = \"{name}\"");
                self.forbidden(&w.min, when)?;
                self.forbidden(&w.max, when)?;
                self.forbidden(&w.open_top, when)?;
                self.forbidden(&w.axis, when)?;
                self.forbidden(&w.radius, when)?;
                self.forbidden(&w.omega, when)?;
                self.forbidden(&w.turn, when)?;
                let req = &format!("for kind = \"{name}\"");
                let point = self.required(w.point, &span, "point", req)?.0;
                let normal = self.required(w.normal, &span, "normal", req)?.0;
                let normal = unit(normal);
                #[cfg(not(feature = "dim3"))]
                return Ok(Wall::Line {
                    point,
                    normal,
                    material,
                });
                #[cfg(feature = "dim3")]
                return Ok(Wall::Plane {
                    point,
                    normal,
                    material,
                });
            }
            #[cfg(not(feature = "dim3"))]
            WallKind::Cylinder => Err(wrong_kind()),
            #[cfg(feature = "dim3")]
            WallKind::Cylinder => {
                let when = "with kind = \"cylinder\"";
                self.forbidden(&w.normal, when)?;
                self.forbidden(&w.min, when)?;
                self.forbidden(&w.max, when)?;
                self.forbidden(&w.open_top, when)?;
                let req = "for kind = \"cylinder\"";
                if let (Some(o), Some(_)) = (&w.omega, &w.turn) {
                    return Err(self.err(o.span(), "give `omega` (rad/s) or `turn` (a law of time), not both"));
                }
                Ok(Wall::Cylinder {
                    point: self.required(w.point, &span, "point", req)?.0,
                    axis: unit(self.required(w.axis, &span, "axis", req)?.0),
                    radius: self.required(w.radius, &span, "radius", req)?.0,
                    omega: w.omega.map_or(0.0, |o| o.into_inner().0),
                    turn: w.turn.map(|t| self.turn(t)).transpose()?,
                    material,
                })
            }
            WallKind::Box => {
                let when = "with kind = \"box\"";
                self.forbidden(&w.point, when)?;
                self.forbidden(&w.normal, when)?;
                self.forbidden(&w.axis, when)?;
                self.forbidden(&w.radius, when)?;
                self.forbidden(&w.omega, when)?;
                self.forbidden(&w.turn, when)?;
                let min = self.required(w.min, &span, "min", "for kind = \"box\"")?;
                let max = w
                    .max
                    .ok_or_else(|| self.err(span.clone(), "`max` is required for kind = \"box\""))?;
                self.check_min_max(min.0, &max, "min")?;
                Ok(Wall::Box {
                    min: min.0,
                    max: max.into_inner().0,
                    open_top: w.open_top.is_some_and(Spanned::into_inner),
                    material,
                })
            }
        }
    }

    pub(super) fn particles(
        &self,
        raw: Spanned<RawParticles>,
        domain: &Domain,
        lookup: &dyn Fn(&Spanned<String>) -> Result<usize>,
    ) -> Result<Particles> {
        let span = raw.span();
        let p = raw.into_inner();
        let material = lookup(&p.material)?;
        let source = match p.source.unwrap_or_default() {
            SourceKind::Lammps => {
                let when = "with source = \"lammps\"";
                self.forbidden(&p.count, when)?;
                self.forbidden(&p.radius, when)?;
                self.forbidden(&p.packing, when)?;
                self.forbidden(&p.region, when)?;
                // the data file carries its own velocities; an override would be ignored
                self.forbidden(&p.velocity, when)?;
                self.forbidden(&p.velocity_jitter, when)?;
                self.forbidden(&p.shape, when)?;
                let file = self.required(p.file, &span, "file", "for source = \"lammps\"")?;
                ParticleSource::Lammps {
                    file: PathBuf::from(file),
                }
            }
            SourceKind::Generate => {
                let when = "for source = \"generate\"";
                self.forbidden(&p.file, "with source = \"generate\"")?;
                #[cfg(feature = "dim3")]
                self.forbidden(&p.shape, "in 3D: the particles are spheres (polygon shapes are 2D)")?;
                let count = self.required(p.count, &span, "count", when)?;
                let radius = p
                    .radius
                    .ok_or_else(|| self.err(span.clone(), format!("`radius` is required {when}")))?;
                let radius = self.radius(radius)?;
                let packing = self.required(p.packing, &span, "packing", when)?;
                let region = p
                    .region
                    .ok_or_else(|| self.err(span.clone(), format!("`region` is required {when}")))?;
                let region_span = region.span();
                let region = region.into_inner();
                self.check_min_max(region.min.0, &region.max, "region.min")?;
                let (rmin, rmax) = (region.min.0, region.max.get_ref().0);
                let inside = (0..DIM).all(|k| rmin[k] >= domain.min[k] && rmax[k] <= domain.max[k]);
                if !inside {
                    return Err(self.err(
                        region_span,
                        format!(
                            "must lie inside the domain {:?}..{:?}, got {rmin:?}..{rmax:?}",
                            domain.min, domain.max
                        ),
                    ));
                }
                ParticleSource::Generate {
                    count: count.0,
                    radius,
                    packing,
                    region_min: rmin,
                    region_max: rmax,
                    velocity: p.velocity.map_or([0.0; DIM], |v| v.into_inner().0),
                    velocity_jitter: p.velocity_jitter.map_or(0.0, |j| j.into_inner().0),
                    #[cfg(not(feature = "dim3"))]
                    shape: match p.shape {
                        Some(sh) => self.shape(sh)?,
                        None => ShapeSpec::Disc,
                    },
                }
            }
        };
        Ok(Particles {
            material,
            type_id: p.type_id.map_or(1, |t| t.0),
            source,
        })
    }

    #[cfg(not(feature = "dim3"))]
    pub(super) fn shape(&self, raw: Spanned<RawShape>) -> Result<ShapeSpec> {
        let span = raw.span();
        let r = raw.into_inner();
        let counts = |v: Option<Spanned<Vec<PositiveInt>>>, want: &str| -> Result<Vec<usize>> {
            let v = v.ok_or_else(|| self.err(span.clone(), format!("`vertices` is required {want}")))?;
            let vspan = v.span();
            let n: Vec<usize> = v.into_inner().into_iter().map(|k| k.0 as usize).collect();
            if n.iter().any(|&k| !(3..=64).contains(&k)) {
                return Err(self.err(vspan, format!("vertex counts must be in 3..=64, got {n:?}")));
            }
            Ok(n)
        };
        let aspect = |a: Option<Spanned<Positive>>| -> Result<f64> {
            match a {
                None => Ok(1.0),
                Some(a) if a.get_ref().0 >= 1.0 => Ok(a.into_inner().0),
                Some(a) => Err(self.err(a.span(), format!("must be >= 1, got {}", a.get_ref().0))),
            }
        };
        Ok(match r.kind {
            ShapeKind::Disc => {
                let when = "with kind = \"disc\"";
                self.forbidden(&r.vertices, when)?;
                self.forbidden(&r.aspect, when)?;
                self.forbidden(&r.jitter, when)?;
                ShapeSpec::Disc
            }
            ShapeKind::Regular => {
                self.forbidden(&r.aspect, "with kind = \"regular\"")?;
                self.forbidden(&r.jitter, "with kind = \"regular\"")?;
                let n = counts(r.vertices, "for kind = \"regular\" (e.g. [6])")?;
                if n.len() != 1 {
                    return Err(self.err(span, "`vertices` takes one count for kind = \"regular\""));
                }
                ShapeSpec::Regular { vertices: n[0] }
            }
            ShapeKind::Ellipse => {
                let n = counts(r.vertices, "for kind = \"ellipse\" (e.g. [16])")?;
                if n.len() != 1 {
                    return Err(self.err(span, "`vertices` takes one count for kind = \"ellipse\""));
                }
                ShapeSpec::Ellipse {
                    vertices: n[0],
                    aspect: aspect(r.aspect)?,
                    jitter: r.jitter.map_or(0.01, |j| j.into_inner().0),
                }
            }
            ShapeKind::Random => {
                self.forbidden(&r.jitter, "with kind = \"random\"")?;
                let n = counts(r.vertices, "for kind = \"random\" (e.g. [5, 8])")?;
                if n.len() != 2 || n[0] > n[1] {
                    return Err(self.err(
                        span,
                        "`vertices` takes [min, max] with min <= max for kind = \"random\"",
                    ));
                }
                ShapeSpec::Random {
                    vertices: [n[0], n[1]],
                    aspect: aspect(r.aspect)?,
                }
            }
        })
    }

    pub(super) fn radius(&self, raw: Spanned<RawRadius>) -> Result<RadiusDist> {
        let span = raw.span();
        let r = raw.into_inner();
        Ok(match r.kind {
            RadiusKind::Fixed => {
                let when = "with kind = \"fixed\"";
                self.forbidden(&r.mean, when)?;
                self.forbidden(&r.width, when)?;
                self.forbidden(&r.values, when)?;
                RadiusDist::Fixed(self.required(r.value, &span, "value", "for kind = \"fixed\"")?.0)
            }
            RadiusKind::Uniform => {
                let when = "with kind = \"uniform\"";
                self.forbidden(&r.value, when)?;
                self.forbidden(&r.values, when)?;
                let req = "for kind = \"uniform\"";
                RadiusDist::Uniform {
                    mean: self.required(r.mean, &span, "mean", req)?.0,
                    width: self.required(r.width, &span, "width", req)?.0,
                }
            }
            RadiusKind::List => {
                let when = "with kind = \"list\"";
                self.forbidden(&r.value, when)?;
                self.forbidden(&r.mean, when)?;
                self.forbidden(&r.width, when)?;
                let values = r
                    .values
                    .ok_or_else(|| self.err(span, "`values` is required for kind = \"list\""))?;
                if values.get_ref().is_empty() {
                    return Err(self.err(values.span(), "must hold at least one radius"));
                }
                RadiusDist::List(values.into_inner().into_iter().map(|v| v.0).collect())
            }
        })
    }
}
